"""Check every proposed order with the ERP before anyone is asked to approve it (issue 14).

``after_model``: for each ``order_create`` / ``order_update`` call the model proposes, the
ERP's dry run (``order_validate`` over MCP) checks it, a create is compared with the
requester's recent orders (a likely duplicate, or the very order this call already
placed), and the approval rule is worked out. The result is an
:class:`~graphs.orders.review.OrderReview` in the agent's state, which the approval
step (:mod:`graphs.middleware.order_approval`, listed before this layer so its
``after_model`` runs after this one) turns into the card. A call the ERP would refuse,
or one that could not be checked at all, gets an error result in the buyer's language
with each problem's fix, and no approval is ever asked for it. A model cannot skip
this: the check runs on the call itself, whatever the model did before.

``wrap_tool_call``: a call a reviewer edited is checked again before it runs (an edit
may change only quantities, the delivery date and the note); the people are filled in
(``requested_by``, ``approved_by``, ``actor``: user ids, hidden from the model); an ERP
refusal comes back as one sentence in the buyer's language with the ERP's code kept;
order statuses in results gain a ``status_text`` in the buyer's language.

Unlike the other layers this one fails closed: an order that was not checked is not
put up for approval.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.config import get_config
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.runtime import Runtime
from langgraph.types import Command

from graphs.context import user_of
from graphs.mcp_registry import McpRegistry
from graphs.messages import message_text, parse_json
from graphs.order_keys import order_idempotency_key
from graphs.orders.card import blocked_text
from graphs.orders.issues import issue_sentence
from graphs.orders.language import buyer_language
from graphs.orders.policy import ApprovalPolicy, get_policy
from graphs.orders.review import (
    OrderReview,
    OrderReviewState,
    content_of,
    edit_problem,
    same_lines,
)
from graphs.orders.words import Lang, explain_refusal, pick, status_word

__all__ = ["CHECK_TOOL", "OrderGuard"]

logger = logging.getLogger(__name__)

CHECK_TOOL = "order_validate"
SEARCH_TOOL = "order_search_details"
_CHECKED_ARGS = {
    "order_create": ("supplier_id", "lines", "expected_date", "currency", "note"),
    "order_update": ("order_id", "expected_version", "status", "lines", "expected_date", "note"),
}
# Results that show order statuses: each order gains a status_text in the buyer's language.
_ORDER_RESULTS = ("order_create", "order_update", SEARCH_TOOL)


def _thread_id() -> str:
    try:
        return str((get_config().get("configurable") or {}).get("thread_id") or "")
    except RuntimeError:
        return ""


def _last_ai(messages: Sequence[BaseMessage]) -> tuple[AIMessage | None, set[str]]:
    """The newest AI message and the ids of the tool calls already answered after it."""
    answered: set[str] = set()
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            answered.add(str(message.tool_call_id))
        elif isinstance(message, AIMessage):
            return message, answered
    return None, answered


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


class OrderGuard(AgentMiddleware[OrderReviewState, Any, Any]):
    """The ERP's check on each committing order call, before approval and before it runs."""

    state_schema = OrderReviewState

    def __init__(
        self,
        registry: McpRegistry,
        *,
        agent: str,
        tools: Sequence[str] = ("order_create", "order_update"),
        policy: ApprovalPolicy | None = None,
        timeout: float = 60.0,
    ) -> None:
        """Raises ``ValueError`` when ``mcp_servers.yaml`` does not grant ``agent`` the
        ERP's ``order_validate`` (a configuration mistake: orders could not be checked)."""
        super().__init__()
        self._registry = registry
        self._agent = agent
        self._tools = tuple(tools)
        # Read now, while the graph is built off the event loop (settings read .env), and
        # so a bad setting stops the start-up with its name.
        self._policy = policy or get_policy()
        self._timeout = timeout
        server = registry.server_for(agent, CHECK_TOOL)
        if server is None:
            msg = (
                f"{registry.source or 'mcp_servers.yaml'}: agent {agent!r} commits orders "
                f"({', '.join(self._tools)}) but is not granted {CHECK_TOOL}; add it to its "
                "tools so every order is checked before approval"
            )
            raise ValueError(msg)
        self._server = server

    @property
    def policy(self) -> ApprovalPolicy:
        """The approval policy."""
        return self._policy

    # ---- after the model: review each proposed call -------------------------------------

    async def aafter_model(
        self, state: OrderReviewState, runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """Review each new committing call; answer those that must not be approved."""
        ai, answered = _last_ai(state["messages"])
        if ai is None:
            return None
        reviews: dict[str, OrderReview] = state.get("order_reviews") or {}
        done = {i for i, r in reviews.items() if r.get("message_id") == ai.id}
        calls = [
            c
            for c in ai.tool_calls
            if c["name"] in self._tools and c["id"] not in answered and c["id"] not in done
        ]
        if not calls:
            return None
        lang = buyer_language(state["messages"])
        requester = user_of(getattr(runtime, "context", None))[0]
        new: dict[str, OrderReview] = {}
        refused: list[ToolMessage] = []
        for call in calls:
            review = await self.review(
                call["name"], call["args"], lang=lang, requester=requester, thread_id=_thread_id()
            )
            review["message_id"] = str(ai.id)
            new[str(call["id"])] = review
            if review["blocked"]:
                logger.info("%s %s not put up for approval", call["name"], call["id"])
                refused.append(self._blocked(review, call["name"], str(call["id"])))
        update: dict[str, Any] = {"order_reviews": new}
        if refused:
            update["messages"] = refused
        return update

    def after_model(self, state: OrderReviewState, runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Sync runs cannot reach the ERP (MCP needs the event loop): such calls are refused."""
        ai, answered = _last_ai(state["messages"])
        calls = [
            c
            for c in (ai.tool_calls if ai else [])
            if c["name"] in self._tools and c["id"] not in answered
        ]
        if not calls:
            return None
        lang = buyer_language(state["messages"])
        note = pick(
            lang,
            "没有提交审批：订单只能在异步运行中向 ERP 核对。",
            "Not put up for approval: orders are checked with the ERP only in async runs.",
        )
        return {
            "messages": [
                ToolMessage(note, name=c["name"], tool_call_id=c["id"], status="error")
                for c in calls
            ]
        }

    @staticmethod
    def _blocked(review: OrderReview, name: str, call_id: str) -> ToolMessage:
        return ToolMessage(
            blocked_text(review),
            name=name,
            tool_call_id=call_id,
            status="error",
            artifact={"order_check": review.get("check"), "problem": review.get("problem")},
        )

    async def review(
        self,
        tool: str,
        args: Mapping[str, Any],
        *,
        lang: Lang,
        requester: str,
        thread_id: str,
    ) -> OrderReview:
        """The ERP's check of one call, its likely duplicate and the approval rule for it."""
        content = content_of(args)
        checked = {k: content[k] for k in _CHECKED_ARGS.get(tool, ()) if content.get(k) is not None}
        text = await self._registry.call(
            self._server, CHECK_TOOL, checked, call_timeout_s=self._timeout
        )
        check = None if text.lstrip().startswith("Error") else parse_json(text)
        review = OrderReview(
            tool=tool,
            message_id="",
            args=content,
            lang=lang,
            requester=requester,
            check=check if isinstance(check, dict) and "ok" in check else None,
            problem=None,
            blocked=False,
            duplicate=None,
            replay_of=None,
            needs_approver=False,
            limit=None,
        )
        if review["check"] is None:
            review["problem"] = text
            review["blocked"] = True
            return review
        review["blocked"] = not review["check"].get("ok")
        order = review["check"].get("order") or {}
        if tool == "order_create" and not review["blocked"]:
            await self._find_duplicate(review, thread_id)
        if tool == "order_create" or content.get("status") == "approved" or content.get("lines"):
            currency = order.get("currency")
            review["needs_approver"] = self.policy.needs_approver(
                order.get("total_minor"), currency
            )
            review["limit"] = self.policy.limit_text(currency)
        return review

    async def _find_duplicate(self, review: OrderReview, thread_id: str) -> None:
        """Note on ``review`` a recent order of the requester with the same supplier and
        lines: the very order this call placed before (same key), or a likely duplicate."""
        hours = self.policy.duplicate_window_hours
        server = self._registry.server_for(self._agent, SEARCH_TOOL)
        if hours <= 0 or server is None:
            return
        args = review["args"]
        since = datetime.now(UTC) - timedelta(hours=hours)
        query = {
            "supplier_id": args.get("supplier_id"),
            "requested_by": review["requester"],
            "date_from": since.date().isoformat(),
            "size": 50,
        }
        text = await self._registry.call(server, SEARCH_TOOL, query, call_timeout_s=self._timeout)
        found = parse_json(text) if not text.lstrip().startswith("Error") else None
        if not isinstance(found, dict):
            logger.warning("duplicate check skipped: %s", text[:200])
            return
        key = order_idempotency_key(thread_id, args)
        stamp = since.strftime("%Y-%m-%dT%H:%M:%SZ")
        for order in found.get("items") or []:
            if order.get("status") == "cancelled" or str(order.get("created_at", "")) < stamp:
                continue
            if not same_lines(order.get("lines"), args.get("lines")):
                continue
            if order.get("idempotency_key") == key:
                review["replay_of"] = str(order.get("order_no"))
                review["duplicate"] = _summary(order)
                return
            if review["duplicate"] is None:
                review["duplicate"] = _summary(order)

    # ---- around the tool call: re-check edits, fill in the people, explain refusals -----

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Run a committing call as reviewed (an edited one checked again) with the people
        filled in; say ERP refusals and statuses in the buyer's language."""
        call = request.tool_call
        name = call["name"]
        if name not in self._tools and name not in _ORDER_RESULTS:
            return await handler(request)
        state: Mapping[str, Any] = request.state or {}
        review = (state.get("order_reviews") or {}).get(str(call["id"]))
        lang: Lang = review["lang"] if review else buyer_language(state.get("messages") or [])
        if name not in self._tools:
            return _in_words(await handler(request), lang)
        context = getattr(request.runtime, "context", None)
        content = content_of(call["args"])
        requester = review["requester"] if review else user_of(context)[0]
        if review is None or _canonical(content) != _canonical(review["args"]):
            refusal = await self._recheck(name, content, review, lang, requester)
            if refusal is not None:
                return ToolMessage(refusal, name=name, tool_call_id=call["id"], status="error")
        filled = dict(content)
        decided = (state.get("order_decisions") or {}).get(str(call["id"]))
        approver = decided["by"] if decided and decided["decision"] != "reject" else None
        if name == "order_create":
            filled["requested_by"] = requester
            if approver:
                filled["approved_by"] = approver
        elif filled.get("status") == "approved" and approver:
            filled["approved_by"] = approver
        filled["actor"] = user_of(context)[0]
        result = await handler(request.override(tool_call={**call, "args": filled}))
        return _in_words(result, lang)

    async def _recheck(
        self,
        name: str,
        content: dict[str, Any],
        review: OrderReview | None,
        lang: Lang,
        requester: str,
    ) -> str | None:
        """Why an edited (or never reviewed) call must not run, or None to run it."""
        if review is not None:
            bad = edit_problem(review["args"], content)
            if bad:
                return pick(
                    lang,
                    f"没有执行：审批时的编辑只能改数量、到货日期和备注，不能改：{', '.join(bad)}。",
                    "Not carried out: an approval's edit may change only quantities, the "
                    f"delivery date and the note, not: {', '.join(bad)}.",
                )
        fresh = await self.review(
            name, content, lang=lang, requester=requester, thread_id=_thread_id()
        )
        return blocked_text(fresh) if fresh["blocked"] else None

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Sync runs have no MCP tools (see McpToolsMiddleware); pass everything on."""
        return handler(request)


def _summary(order: Mapping[str, Any]) -> dict[str, Any]:
    keys = ("order_no", "status", "created_at", "total_minor", "currency", "requested_by")
    return {k: order.get(k) for k in keys}


def _in_words(result: ToolMessage | Command[Any], lang: Lang) -> ToolMessage | Command[Any]:
    """An ERP refusal as one sentence in ``lang`` with its code; statuses with their words."""
    if not isinstance(result, ToolMessage):
        return result
    text = message_text(result)
    if result.status == "error" or text.lstrip().startswith("Error"):
        sentence, code = explain_refusal(text, lang, issue_sentence=issue_sentence)
        said = pick(lang, f"ERP 没有执行：{sentence}（代码 {code}）",
                    f"The ERP did not carry this out: {sentence} (code {code})")  # fmt: skip
        return result.model_copy(
            update={"content": said, "status": "error", "artifact": {"erp_error": text}}
        )
    data = parse_json(text)
    orders = data.get("items") if isinstance(data, dict) and "items" in data else [data]
    touched = False
    for order in orders if isinstance(orders, list) else []:
        if isinstance(order, dict) and isinstance(order.get("status"), str):
            order["status_text"] = status_word(order["status"], lang)
            touched = True
    if not touched:
        return result
    return result.model_copy(update={"content": json.dumps(data, ensure_ascii=False)})
