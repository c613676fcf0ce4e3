"""Part substitution in a BOM, approved by a human and applied once (issue 19).

This layer gives the orchestrator two tools and the approval step between them:

- ``plan_substitution`` reads the BOM (an argument, else the newest BOM of the conversation:
  a client BOM tool's result, a text file attached to a message, the message itself; see
  :mod:`graphs.substitution.bom`), asks the ERP for each line's part, offers and
  cross-reference (``part_query``, ``part_equivalents``, through the MCP registry, in
  parallel) and answers with the replacement table and a ``plan_id``; the plan is kept in
  the thread's state. Deterministic, so every model (and the offline planner) gets the
  same table.
- ``apply_substitution(plan_id, lines?)`` is paused for approval by this middleware, in
  LangChain's standard human-in-the-loop shape (approve / edit / reject; the
  ``description`` is the replacement table), so no model can skip it and the JSON-RPC
  adapter, Agent Chat UI and the SDK show it unchanged. Approved, it applies the plan
  through the client's own apply tool when one is lent (one ``client_tool_call``
  interrupt, the shape of :mod:`core.client_tools`, which the adapter sends as
  ``agent.toolCall``), else it answers with a batch-replace request. A plan is applied at
  most once: the thread's state records it, and a second call answers without acting.

The client's apply tool is withheld from the model (the ClientTools layer, listed before
this one, offers it; this layer's request rewrite removes it), so nothing reaches the BOM
without the approval.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired

from langchain.agents.middleware import (
    HumanInTheLoopMiddleware,
    InterruptOnConfig,
    ModelRequest,
    ModelResponse,
)
from langchain.agents.middleware.types import AgentState, PrivateStateAttr
from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.types import Command, interrupt
from pydantic import BaseModel, Field

from core.client_tools import CLIENT_TOOL_INTERRUPT, ClientToolInterrupt
from graphs.messages import message_text, parse_json
from graphs.middleware.client_tools import answer_to_message, client_tool_specs
from graphs.prompts import APPLY_SUBSTITUTION_DESCRIPTION, PLAN_SUBSTITUTION_DESCRIPTION
from graphs.substitution.bom import Bom, bom_in_messages, parse_bom
from graphs.substitution.client import (
    apply_arguments,
    apply_tool,
    batch_replace_request,
    bom_tools,
)
from graphs.substitution.plan import (
    ErpLine,
    Plan,
    Record,
    Selector,
    Target,
    build_plan,
    changes_of,
    matches,
)
from graphs.substitution.table import outcome_text, table_text

if TYPE_CHECKING:
    from graphs.mcp_registry import McpRegistry

__all__ = ["APPLY_TOOL", "PLAN_TOOL", "Substitution", "SubstitutionState"]

logger = logging.getLogger(__name__)

PLAN_TOOL = "plan_substitution"
APPLY_TOOL = "apply_substitution"
_ERP_CONCURRENCY = 8
_PART_IDS = 50  # the most parts one part_query(part_ids=...) call reads
_ALLOWED: list[Any] = ["approve", "edit", "reject"]
# A candidate in the ERP's AMBIGUOUS answer: "SP-BOSCH-CPR7EA-9 (Bosch)".
_CANDIDATE = re.compile(r"\b([A-Z0-9][A-Z0-9.-]*-[A-Z0-9.-]+) \(([^()]+)\)")


def _merge(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any]:
    return {**(old or {}), **(new or {})}


class SubstitutionState(AgentState[Any]):
    """The plans of the thread, and the ones already applied (with what was applied)."""

    substitution_plans: NotRequired[Annotated[dict[str, Plan], _merge, PrivateStateAttr]]
    substitutions_applied: NotRequired[
        Annotated[dict[str, dict[str, Any]], _merge, PrivateStateAttr]
    ]
    # HumanInTheLoopMiddleware's own key (its wrap_tool_call reads the reviewer's edits).
    hitl_edited_tool_calls: NotRequired[Annotated[dict[str, Any], PrivateStateAttr]]


class PlanSubstitutionInput(BaseModel):
    """Arguments of ``plan_substitution``."""

    brands: list[str] = Field(default_factory=list, description="Brands to replace.")
    suppliers: list[str] = Field(
        default_factory=list, description="Suppliers whose parts to replace."
    )
    categories: list[str] = Field(default_factory=list, description="Part categories.")
    parts: list[str] = Field(default_factory=list, description="Part numbers (model or SKU).")
    unavailable: bool = Field(False, description="Parts with no current offer (discontinued).")
    target_brand: str | None = Field(None, description="Brand to switch to, if named.")
    target_supplier: str | None = Field(None, description="Supplier to buy from, if named.")
    bom: str | None = Field(None, description="BOM text; omit to use the conversation's.")
    lang: Literal["zh", "en"] = Field("zh", description="The buyer's language.")


class ApplySubstitutionInput(BaseModel):
    """Arguments of ``apply_substitution``."""

    plan_id: str = Field(min_length=1, max_length=64, description="From plan_substitution.")
    lines: list[str] | None = Field(None, description="Only these BOM lines (default: all).")


def _answer(
    runtime: ToolRuntime,
    tool: str,
    content: str,
    *,
    error: bool = False,
    artifact: Any = None,
    **update: Any,
) -> Command:
    message = ToolMessage(
        content,
        tool_call_id=runtime.tool_call_id or "",
        name=tool,
        status="error" if error else "success",
        artifact=artifact,
    )
    return Command(update={**update, "messages": [message]})


def _status_of(text: str) -> Literal["not_found", "ambiguous", "error"]:
    upper = text.upper()
    if "NOT_FOUND" in upper or "NOT FOUND" in upper or "UNKNOWN" in upper:
        return "not_found"
    if "AMBIGUOUS" in upper or "CANDIDATE" in upper:
        return "ambiguous"
    return "error"


class _Erp:
    """The ERP reads of one plan, through the registry's open session."""

    def __init__(self, registry: McpRegistry, agent: str, timeout: float) -> None:
        self._registry = registry
        self._agent = agent
        self._timeout = timeout
        self._gate = asyncio.Semaphore(_ERP_CONCURRENCY)

    def missing(self) -> list[str]:
        return [t for t in ("part_equivalents", "part_query")
                if self._registry.server_for(self._agent, t) is None]  # fmt: skip

    async def _call(self, tool: str, args: dict[str, Any]) -> str:
        server = self._registry.server_for(self._agent, tool)
        assert server is not None  # checked by missing()
        async with self._gate:
            return await self._registry.call(server, tool, args, call_timeout_s=self._timeout)

    async def _equivalents(self, part: str, description: str) -> tuple[str, Any]:
        """``part_equivalents`` of the BOM's part; a model number several brands make is
        settled by the brand the BOM line's description names (else left ambiguous)."""
        text = await self._call("part_equivalents", {"part": part})
        if text.startswith("Error") and "AMBIGUOUS" in text.upper():
            named = [sku for sku, brand in _CANDIDATE.findall(text)
                     if matches(brand, [description]) or matches(description, [brand])]  # fmt: skip
            if len(set(named)) == 1:
                text = await self._call("part_equivalents", {"part": named[0]})
        return text, parse_json(text)

    async def line(self, part: str, description: str = "") -> ErpLine:
        """What the ERP says about one BOM part: itself, its offers, its equivalents."""
        text, data = await self._equivalents(part, description)
        if text.startswith("Error") or not isinstance(data, Mapping) or "part" not in data:
            body = text.split(": ", 1)[-1] if text.startswith("Error") else text
            return ErpLine(status=_status_of(text), error=body.strip()[:400])
        names = data.get("attribute_names")
        found = ErpLine(
            part=data["part"],
            equivalents=list(data.get("equivalents") or []),
            names=dict(names) if isinstance(names, Mapping) else {},
        )
        return found

    async def _offers(self, ids: list[int]) -> dict[int, list[Record]]:
        """Each part's current offers, ``_PART_IDS`` parts per ``part_query`` call."""
        chunks = [ids[i : i + _PART_IDS] for i in range(0, len(ids), _PART_IDS)]
        texts = await asyncio.gather(
            *(self._call("part_query", {"part_ids": chunk}) for chunk in chunks)
        )
        offers: dict[int, list[Record]] = {}
        for text in texts:
            detail = parse_json(text)
            items = detail.get("items") if isinstance(detail, Mapping) else None
            for item in items or []:
                if isinstance(item, Mapping) and isinstance(item.get("id"), int):
                    found = [o for o in item.get("offers") or [] if isinstance(o, Mapping)]
                    offers[item["id"]] = found
        return offers

    async def lines(self, bom: Bom) -> dict[str, ErpLine]:
        """Each BOM part's ``ErpLine``: its equivalents (one call per part, in parallel),
        then the offers of all of them in one ``part_query(part_ids=...)`` call."""
        first = {line.part: line.description for line in reversed(bom.lines)}
        parts = list(dict.fromkeys(line.part for line in bom.lines))
        answers = dict(
            zip(parts, await asyncio.gather(*(self.line(p, first[p]) for p in parts)), strict=True)
        )
        ids = [i for i in dict.fromkeys(_part_id(a) for a in answers.values()) if i is not None]
        if ids:
            offers = await self._offers(ids)
            for answer in answers.values():
                part_id = _part_id(answer)
                answer.offers = offers.get(part_id, []) if part_id is not None else []
        return answers


def _part_id(line: ErpLine) -> int | None:
    part_id = (line.part or {}).get("id")
    return part_id if isinstance(part_id, int) else None


def _bom_names(erp: Mapping[str, ErpLine], lang: str) -> tuple[list[str], list[str]]:
    brands: list[str] = []
    cats: list[str] = []
    for line in erp.values():
        part = line.part or {}
        brand = part.get("brand_zh" if lang == "zh" else "brand")
        cat = part.get("category_zh" if lang == "zh" else "category_en")
        for value, seen in ((brand, brands), (cat, cats)):
            if value and str(value) not in seen:
                seen.append(str(value))
    return brands, cats


def _no_match(asked: PlanSubstitutionInput, erp: Mapping[str, ErpLine]) -> str:
    brands, cats = _bom_names(erp, asked.lang)
    wanted = [*asked.brands, *asked.suppliers, *asked.categories, *asked.parts]
    if asked.lang == "zh":
        return (
            f"NO_MATCH：BOM 里没有符合“{'、'.join(wanted) or '不可采购'}”的行。"
            f"这份 BOM 的品牌：{'、'.join(brands) or '无'}；类别：{'、'.join(cats) or '无'}。"
        )
    return (f"NO_MATCH: no BOM line matches {', '.join(wanted) or 'unavailable parts'}. "
            f"This BOM's brands: {', '.join(brands) or 'none'}; categories: "
            f"{', '.join(cats) or 'none'}.")  # fmt: skip


def _how(plan: Plan, specs: Mapping[str, Any], lines: Sequence[str] | None) -> str:
    name = apply_tool(specs)
    n = len(changes_of(plan, lines))
    zh = plan["lang"] == "zh"
    if name:
        return (f"批准后通过你的工具 {name} 修改 BOM 的 {n} 行；拒绝则什么都不改。" if zh else
                f"Approve to change {n} BOM line(s) through your tool {name}; reject changes "
                "nothing.")  # fmt: skip
    return (f"批准后给出 {n} 行的批量替换请求（batch-replace），由你的系统执行；拒绝则什么都不改。"
            if zh else f"Approve to get a batch-replace request for {n} line(s) that your "
            "system runs; reject changes nothing.")  # fmt: skip


class Substitution(HumanInTheLoopMiddleware[SubstitutionState, Any, Any]):
    """The substitution tools, with ``apply_substitution`` paused for approval."""

    state_schema = SubstitutionState

    def __init__(self, registry: McpRegistry, *, agent: str = "orchestrator",
                 timeout: float = 60.0) -> None:  # fmt: skip
        """Read the ERP through ``registry``'s servers that grant ``agent`` the tools."""
        config = InterruptOnConfig(allowed_decisions=_ALLOWED, description=self._card)
        super().__init__(interrupt_on={APPLY_TOOL: config})
        self._erp = _Erp(registry, agent, timeout)
        self.tools: list[BaseTool] = [self._plan_tool(), self._apply_tool()]

    # ---- the card --------------------------------------------------------------------------

    @staticmethod
    def _card(tool_call: Any, state: Any, runtime: Any) -> str:
        args = tool_call.get("args") or {}
        plan = (state.get("substitution_plans") or {}).get(str(args.get("plan_id")))
        if plan is None:
            return f"Apply replacement plan {args.get('plan_id')!r} (unknown plan)."
        specs = client_tool_specs(getattr(runtime, "context", None))
        return f"{table_text(plan)}\n\n{_how(plan, specs, args.get('lines'))}"

    def _should_interrupt(self, tool_call: Any, config: Any, state: Any, runtime: Any) -> bool:
        # An unknown or already applied plan is answered by the tool without acting: nothing
        # to approve.
        plan_id = str((tool_call.get("args") or {}).get("plan_id"))
        if plan_id not in (state.get("substitution_plans") or {}):
            return False
        if plan_id in (state.get("substitutions_applied") or {}):
            return False
        return super()._should_interrupt(tool_call, config, state, runtime)

    # ---- the model request: no direct access to the client's apply tool -------------------

    def _without_apply(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        try:
            specs = client_tool_specs(request.runtime.context if request.runtime else None)
            name = apply_tool(specs)
            if name is None:
                return request
            kept = [t for t in request.tools if _tool_name(t) != name]
            return request.override(tools=kept) if len(kept) != len(request.tools) else request
        except Exception:  # fail soft: the approval still guards apply_substitution
            logger.warning("substitution: could not filter the client's tools", exc_info=True)
            return request

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        """Call the model without the client's apply tool (only the approved path applies)."""
        return handler(self._without_apply(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """Async twin of :meth:`wrap_model_call`."""
        return await handler(self._without_apply(request))

    # ---- plan_substitution -----------------------------------------------------------------

    def _plan_tool(self) -> BaseTool:
        async def run(runtime: ToolRuntime, **kwargs: Any) -> Command:
            return await self._plan(PlanSubstitutionInput(**kwargs), runtime)

        return StructuredTool.from_function(
            coroutine=run,
            name=PLAN_TOOL,
            description=PLAN_SUBSTITUTION_DESCRIPTION,
            args_schema=PlanSubstitutionInput,
        )

    def _find_bom(self, asked: PlanSubstitutionInput, runtime: ToolRuntime) -> Bom | None:
        if asked.bom:
            return parse_bom(asked.bom, source="argument")
        specs = client_tool_specs(runtime.context)
        return bom_in_messages(runtime.state.get("messages") or [], bom_tools(specs))

    async def _plan(self, asked: PlanSubstitutionInput, runtime: ToolRuntime) -> Command:
        bom = self._find_bom(asked, runtime)
        if bom is None:
            names = bom_tools(client_tool_specs(runtime.context))
            hint = f" Call the client's BOM tool first ({', '.join(names)})." if names else ""
            text = (
                "Error: no BOM found in this conversation (no BOM tool result, attached file "
                f"or BOM text).{hint} Otherwise ask the buyer to paste the BOM or attach it as "
                "a CSV / text file."
            )
            return _answer(runtime, PLAN_TOOL, text, error=True)
        selector = Selector(
            asked.brands, asked.suppliers, asked.categories, asked.parts, asked.unavailable
        )
        if selector.empty:
            text = (
                "Error: say which lines to replace (brands, suppliers, categories, parts or "
                "unavailable=true); ask the buyer if unclear."
            )
            return _answer(runtime, PLAN_TOOL, text, error=True)
        missing = self._erp.missing()
        if missing:
            text = f"Error: the ERP tools {missing} are not available to this agent."
            return _answer(runtime, PLAN_TOOL, text, error=True)
        erp = await self._erp.lines(bom)
        target = Target(asked.target_brand, asked.target_supplier)
        plan = build_plan(bom, erp, selector, target, lang=asked.lang)
        if not plan["rows"]:
            return _answer(runtime, PLAN_TOOL, _no_match(asked, erp))
        n = len(changes_of(plan))
        if asked.lang == "zh":
            footer = f"plan_id: {plan['plan_id']}（{n} 行有等效件；apply_substitution 提交审批）"
        else:
            footer = (
                f"plan_id: {plan['plan_id']} ({n} line(s) with an equivalent; "
                "apply_substitution puts it up for approval)"
            )
        text = f"{table_text(plan)}\n\n{footer}"
        return _answer(runtime, PLAN_TOOL, text, substitution_plans={plan["plan_id"]: plan})

    # ---- apply_substitution ----------------------------------------------------------------

    def _apply_tool(self) -> BaseTool:
        async def run(runtime: ToolRuntime, **kwargs: Any) -> Command:
            return self._apply(ApplySubstitutionInput(**kwargs), runtime)

        def run_sync(runtime: ToolRuntime, **kwargs: Any) -> Command:
            return self._apply(ApplySubstitutionInput(**kwargs), runtime)

        return StructuredTool.from_function(
            func=run_sync,
            coroutine=run,
            name=APPLY_TOOL,
            description=APPLY_SUBSTITUTION_DESCRIPTION,
            args_schema=ApplySubstitutionInput,
        )

    def _apply(self, asked: ApplySubstitutionInput, runtime: ToolRuntime) -> Command:
        state = runtime.state
        plan = (state.get("substitution_plans") or {}).get(asked.plan_id)
        if plan is None:
            text = (
                f"Error: no plan {asked.plan_id!r} in this thread; make the table again with "
                "plan_substitution."
            )
            return _answer(runtime, APPLY_TOOL, text, error=True)
        done = (state.get("substitutions_applied") or {}).get(asked.plan_id)
        if done is not None:
            count = len(done.get("changes") or [])
            text = f"Plan {asked.plan_id} was already applied ({count} line(s)); nothing again."
            return _answer(runtime, APPLY_TOOL, text)
        changes = changes_of(plan, asked.lines)
        if not changes:
            text = "Error: no selected line of this plan has an equivalent; nothing to apply."
            return _answer(runtime, APPLY_TOOL, text, error=True)
        specs = client_tool_specs(runtime.context)
        name = apply_tool(specs)
        if name is None:
            body = json.dumps(batch_replace_request(changes), ensure_ascii=False, indent=1)
            text = f"{outcome_text(plan, len(changes), None)}\n```json\n{body}\n```"
            return self._done(runtime, plan, changes, "batch-replace", text)
        parameters = specs[name].get("parameters") or {}
        args = apply_arguments(parameters, changes, product=plan["product"])
        call_id = f"{runtime.tool_call_id}:apply"
        payload: ClientToolInterrupt = {
            "type": CLIENT_TOOL_INTERRUPT,
            "calls": [{"call_id": call_id, "tool_name": name, "arguments": args}],
        }
        # Resumed with the client's answer; a replay of this node gets the same answer.
        answers = interrupt(payload)
        answer = answers.get(call_id) if isinstance(answers, Mapping) else None
        reply = answer_to_message({"id": call_id, "name": name}, answer)
        if reply.status == "error":
            text = f"Error: {message_text(reply)} The plan was not applied; it can be tried again."
            return _answer(runtime, APPLY_TOOL, text, error=True)
        text = f"{outcome_text(plan, len(changes), name)}\n{message_text(reply)}"
        return self._done(runtime, plan, changes, name, text)

    @staticmethod
    def _done(
        runtime: ToolRuntime, plan: Plan, changes: list[dict[str, Any]], how: str, text: str
    ) -> Command:
        record = {"changes": changes, "how": how}
        # The artifact (not shown to the model) lets a later "order them" find the new lines.
        artifact = {"plan_id": plan["plan_id"], **record}
        return _answer(
            runtime,
            APPLY_TOOL,
            text,
            artifact=artifact,
            substitutions_applied={plan["plan_id"]: record},
        )


def _tool_name(tool: Any) -> str | None:
    if isinstance(tool, Mapping):
        fn = tool.get("function")
        return fn.get("name") if isinstance(fn, Mapping) else tool.get("name")
    return getattr(tool, "name", None)
