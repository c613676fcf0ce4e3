"""Runs buyer requests through the offline planner's real decision path, against the real ERP.

The orchestrator's policy and, when it hands an order over, the order agent's policy are
driven turn by turn; their ERP tools go through the real ``mcp_erp`` server (in memory)
to the real ``sim.erp`` app (in process, seeded), through the same ``McpRegistry`` and
``mcp_servers.yaml`` grants the graphs use, so the planner reads exactly the tool texts
it reads in production. Nothing is committed unless a multi-turn script approves:
a run stops where the real graph would pause (a question, an approval card) and
:class:`Run` records what the planner did.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

import httpx
import yaml
from asgi_lifespan import LifespanManager
from deepagents.middleware.patch_tool_calls import PatchToolCallsMiddleware
from fastmcp import Client
from langchain.tools import ToolRuntime
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.tools import StructuredTool
from langgraph.types import Command
from sqlalchemy import create_engine, func, select
from sqlalchemy.orm import Session

from graphs.mcp_registry import McpRegistry, load_registry
from graphs.messages import NOTIFICATION_KEY
from graphs.middleware.context_injection import context_note
from graphs.middleware.substitution import APPLY_TOOL, PLAN_TOOL, Substitution
from graphs.offline import OfflinePlanner
from graphs.offline.history import View
from graphs.offline.policies.analyst.run import Run as AnalystRun
from graphs.offline.policies.analyst.summary import final_answer
from graphs.settings import GraphSettings
from sim.erp.app import create_app
from sim.erp.masterdata import MasterData
from sim.erp.models import Category, Inventory, Part, Supplier, SupplierPrice
from tests.unit.erp_fixtures import fingerprint, settings_for
from tests.unit.erp_inprocess import BASE_URL, pinned_settings

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus"
TASK_ID = "0f7c2b9e-1234-4bcd-9def-0123456789ab"
TODAY = date(2026, 12, 3)
"""The day the planner tests run on (a Thursday): the seed's dates are fixed, so periods such as
"last week" are read against this day, never the real date."""
ORCHESTRATOR_LOCAL = (
    "task", "start_async_task", "check_async_task", "cancel_async_task", "list_async_tasks",
    "update_async_task", "assign_skill", "web_search", "get_current_time", "calculator",
    "write_file", "read_file", "ls", "edit_file", "download_artifact", "plan_substitution",
    "apply_substitution",
)  # fmt: skip
_MAX_STEPS = 25
HARNESS_USER = "buyer-harness"
# In the graphs a tool result longer than this is moved to a file and only its head and tail
# stay in the conversation (TOOL_RESULT_EVICT_TOKENS, 4 characters a token): the planner
# would not read it, so no ERP read of a policy may come back larger.
EVICTED_CHARS = 4 * GraphSettings.model_fields["tool_result_evict_tokens"].default


def stand_ins(names: Sequence[str]) -> list[StructuredTool]:
    """Tools the planner can bind (it only needs their names; the harness answers them)."""

    def noop(**_: Any) -> str:
        return ""

    return [
        StructuredTool.from_function(
            noop, name=n, description=n, args_schema={"type": "object", "properties": {}}
        )
        for n in names
    ]


def order_agent_tools(registry: McpRegistry) -> list[str]:
    """The order agent's tools as its YAML lists them (MCP ones only when granted)."""
    spec = yaml.safe_load((REPO / "subagents" / "procurement_order.yaml").read_text("utf-8"))
    granted = set(registry.declared_tools("procurement-order"))
    local = {"request_order_info", "web_search"}
    return [t for t in spec["tools"] if t in granted or t in local]


@dataclass
class Step:
    """One planner turn: which agent, its text, its calls, its note."""

    agent: str
    text: str
    calls: list[tuple[str, dict[str, Any]]]
    note: str


@dataclass
class Run:
    """Everything one request made the planner do, up to where a real graph would pause."""

    steps: list[Step] = field(default_factory=list)
    calls: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)  # agent, tool, args
    delegations: list[str] = field(default_factory=list)  # start_async_task descriptions
    handed_over: str | None = None  # the order agent's delegation
    question: dict[str, Any] | None = None  # request_order_info args
    proposal: tuple[str, dict[str, Any]] | None = None  # the committing call awaiting approval
    final: str = ""  # the last text the buyer sees
    final_note: str = ""
    order_final_note: str = ""

    def called(self, tool: str, agent: str | None = None) -> list[dict[str, Any]]:
        """Arguments of every call to ``tool`` (by ``agent``, when given)."""
        return [a for ag, t, a in self.calls if t == tool and (agent is None or ag == agent)]

    @property
    def last_text(self) -> str:
        """What the buyer sees last: the final answer, or the message that paused the run."""
        return self.final or (self.steps[-1].text if self.steps else "")

    @property
    def notes(self) -> list[str]:
        """The notes of every step, in order."""
        return [s.note for s in self.steps]


@dataclass
class Script:
    """Answers for a multi-turn run: to questions, then to approval cards."""

    answers: list[Any] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)


class PlannerWorld:
    """The real ERP behind the real MCP server, and the two policies driven against it."""

    def __init__(self, registry: McpRegistry, erp_app: Any, database_url: str, today: date):
        self.registry = registry
        self.erp_app = erp_app
        self.database_url = database_url
        self.today = today
        # The substitution tools run for real (the graph's own middleware), on this state.
        self.substitution = Substitution(registry)
        self.substitution_state: dict[str, Any] = {}
        # A JSON-RPC client's tools (specs) and its answers to their calls (a read-only BOM
        # tool: an apply tool needs the graph's interrupt, see tests/unit/test_substitution_*).
        self.client_tools: list[dict[str, Any]] = []
        self.client_answer: Callable[[str, dict[str, Any]], str] | None = None
        self._artifact: Any = None  # what the last substitution tool kept for later turns
        self._messages: list[BaseMessage] = []
        # The signed-in buyer (None: nobody known, as a run without a user in its context);
        # the ERP records them as the requester of the orders they place.
        self.user: str | None = None

    def system(self) -> SystemMessage:
        """What the CurrentDate middleware (and, with a user, ContextInjection) puts in the
        prompt."""
        note = context_note({"user_id": self.user, "username": self.user}) if self.user else None
        dated = f"今天是 {self.today.isoformat()}。"
        return SystemMessage(content=f"{note}\n{dated}" if note else dated)

    async def erp(self, path: str, **query: Any) -> Any:
        """The ERP's own JSON for ``GET path`` (the truth the judge compares with)."""
        transport = httpx.ASGITransport(app=self.erp_app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as http:
            response = await http.get(path, params=query)
        response.raise_for_status()
        return response.json()

    async def erp_pages(self, path: str, **query: Any) -> list[Any]:
        """Every item of a paged ``GET path``, page by page (100 a page)."""
        out, page = [], 1
        while True:
            found = await self.erp(path, page=page, size=100, **query)
            out += found["items"]
            if page * 100 >= found["total"]:
                return out
            page += 1

    async def suppliers(self) -> list[dict[str, Any]]:
        """Every supplier in the ERP, of any status (the seed has fewer than 100)."""
        return list((await self.erp("/suppliers/search", name="", size=100))["items"])

    async def erp_post(self, path: str, body: dict[str, Any]) -> httpx.Response:
        """The ERP's answer to ``POST path`` (rows a test needs that the seed lacks)."""
        transport = httpx.ASGITransport(app=self.erp_app)
        async with httpx.AsyncClient(transport=transport, base_url=BASE_URL) as http:
            return await http.post(path, json=body)

    def thread(self) -> list[BaseMessage]:
        """The thread as the next run sees it after the last one (without the prompt); a
        card or question left open is closed by deepagents' own middleware, as when the
        buyer writes a new message instead of answering it."""
        messages = [m for m in self._messages if not isinstance(m, SystemMessage)]
        state: Any = {"messages": messages}
        patched = PatchToolCallsMiddleware().before_agent(state, None)  # type: ignore[arg-type]
        if patched is None:
            return list(messages)
        return [m for m in patched["messages"] if not isinstance(m, RemoveMessage)]

    def fingerprint(self) -> dict[str, tuple[int, str]]:
        """Row counts and digests of every ERP table."""
        return fingerprint(self.database_url)

    async def _erp_tool(self, agent: str, name: str, args: dict[str, Any]) -> str | None:
        server = self.registry.server_for(agent, name)
        if server is None:
            return None
        # What the order agent's OrderGuard fills in production (hidden from the model):
        # the idempotency key and who asked and acted.
        if name == "order_create":
            args = {**args, "idempotency_key": f"harness-{uuid.uuid4().hex}"}
            args["requested_by"] = self.user or HARNESS_USER
        if name in ("order_create", "order_update"):
            args["actor"] = self.user or HARNESS_USER
        answer = await self.registry.call(server, name, args)
        assert len(answer) < EVICTED_CHARS, (
            f"{agent}: {name}({args}) returned {len(answer)} characters, which the graph would "
            "move to a file unread"
        )
        return answer

    async def run(
        self,
        text: str,
        *,
        history: Sequence[BaseMessage] = (),
        script: Script | None = None,
        notification: dict[str, Any] | None = None,
    ) -> Run:
        """Drive the orchestrator on ``text`` (after ``history``) until it answers or pauses;
        ``notification``: ``text`` is deepagents' notification of this task event, not the
        buyer's."""
        script = script or Script()
        run = Run()
        tools = [*ORCHESTRATOR_LOCAL, *self.registry.declared_tools("orchestrator")]
        model = OfflinePlanner(policy="orchestrator").bind_tools(stand_ins(tools))
        if self.client_tools:
            model = OfflinePlanner(policy="orchestrator").bind_tools(
                [
                    *stand_ins(tools),
                    *({"type": "function", "function": c} for c in self.client_tools),
                ]
            )
        marked = {NOTIFICATION_KEY: notification} if notification else {}
        request = HumanMessage(content=text, additional_kwargs=marked)
        messages: list[BaseMessage] = [self.system(), *history, request]
        self._messages = messages
        for _ in range(_MAX_STEPS):
            reply = await model.ainvoke(messages)
            assert isinstance(reply, AIMessage)
            self._record(run, "orchestrator", reply)
            messages.append(reply)
            if not reply.tool_calls:
                return run
            for call in reply.tool_calls:
                answer = await self._orchestrator_tool(
                    run, call["name"], dict(call["args"]), script
                )
                if answer is None:  # the real graph pauses here
                    return run
                artifact = self._artifact if call["name"] == APPLY_TOOL else None
                messages.append(ToolMessage(content=answer, tool_call_id=call["id"] or "x",
                                            name=call["name"], artifact=artifact))  # fmt: skip
        raise AssertionError(f"the orchestrator did not finish: {run.notes}")

    def _record(self, run: Run, agent: str, reply: AIMessage) -> None:
        calls = [(c["name"], dict(c["args"])) for c in reply.tool_calls]
        note = str(reply.response_metadata.get("step", ""))
        run.steps.append(Step(agent, str(reply.content), calls, note))
        run.calls += [(agent, n, a) for n, a in calls]
        if not calls:
            run.final, run.final_note = str(reply.content), note

    async def _orchestrator_tool(
        self, run: Run, name: str, args: dict[str, Any], script: Script
    ) -> str | None:
        if name == "start_async_task":
            run.delegations.append(str(args.get("description", "")))
            return f"Launched async subagent. task_id: {uuid.uuid4()}"
        if name == "task":
            run.handed_over = str(args.get("description", ""))
            return await self._order_agent(run, run.handed_over, script)
        if name == "check_async_task":
            return json.dumps({"task_id": args.get("task_id"), "status": "running"})
        if name == "cancel_async_task":
            return f"Cancelled async subagent task: {args.get('task_id')}"
        if name == "assign_skill":
            return "You have no skills yet."
        if name in (PLAN_TOOL, APPLY_TOOL):
            return await self._substitute(run, name, args, script)
        if self.client_answer and name in {c["name"] for c in self.client_tools}:
            return self.client_answer(name, args)
        answer = await self._erp_tool("orchestrator", name, args)
        return answer if answer is not None else "ok"

    async def _substitute(
        self, run: Run, name: str, args: dict[str, Any], script: Script
    ) -> str | None:
        """The graph's own substitution tools; ``apply_substitution`` pauses for approval."""
        if name == APPLY_TOOL:
            run.proposal = (name, args)
            if not script.decisions:
                return None
            if script.decisions.pop(0)["type"] == "reject":
                return f"User rejected the tool call for `{name}`. The tool was not executed."
        runtime = ToolRuntime(
            state={**self.substitution_state, "messages": list(self._messages)},
            context={"client_tools": self.client_tools}, config={}, stream_writer=lambda _: None,
            tool_call_id=f"harness-{uuid.uuid4().hex[:8]}", store=None,
        )  # fmt: skip
        tool = next(t for t in self.substitution.tools if t.name == name)
        result = await tool.ainvoke({**args, "runtime": runtime})
        assert isinstance(result, Command) and isinstance(result.update, dict)
        for key in ("substitution_plans", "substitutions_applied"):
            merged = {**self.substitution_state.get(key, {}), **result.update.get(key, {})}
            self.substitution_state[key] = merged
        [message] = result.update["messages"]
        self._artifact = message.artifact
        assert len(str(message.content)) < EVICTED_CHARS
        return str(message.content)

    async def _order_agent(self, run: Run, description: str, script: Script) -> str | None:
        tools = order_agent_tools(self.registry)
        model = OfflinePlanner(policy="procurement-order").bind_tools(stand_ins(tools))
        messages: list[BaseMessage] = [self.system(), HumanMessage(content=description)]
        for _ in range(_MAX_STEPS):
            reply = await model.ainvoke(messages)
            assert isinstance(reply, AIMessage)
            self._record(run, "procurement-order", reply)
            messages.append(reply)
            if not reply.tool_calls:
                run.order_final_note = str(reply.response_metadata.get("step", ""))
                return str(reply.content)
            for call in reply.tool_calls:
                answer = await self._order_tool(run, call["name"], dict(call["args"]), script)
                if answer is None:
                    return None
                messages.append(ToolMessage(content=answer[0], tool_call_id=call["id"] or "x",
                                            name=call["name"], status=answer[1]))  # fmt: skip
        raise AssertionError(f"the order agent did not finish: {run.notes}")

    async def _order_tool(
        self, run: Run, name: str, args: dict[str, Any], script: Script
    ) -> tuple[str, str] | None:
        if name == "request_order_info":
            run.question = args
            if not script.answers:
                return None
            reply = script.answers.pop(0)
            key = "answers" if isinstance(reply, dict) else "answer"
            return json.dumps({key: reply}, ensure_ascii=False), "success"
        if name in ("order_create", "order_update"):
            run.proposal = (name, args)
            if not script.decisions:
                return None
            decision = script.decisions.pop(0)
            if decision["type"] == "reject":
                return f"User rejected the tool call for `{name}`. The tool was not executed.", (
                    "error")  # fmt: skip
            if decision["type"] == "edit":
                args = dict(decision["args"])
        answer = await self._erp_tool("procurement-order", name, args)
        if answer is None:
            return f"Error: no such tool {name}", "error"
        return answer, "error" if answer.startswith("Error") else "success"


# --- the ERP --------------------------------------------------------------------------------


def _next_id(session: Session, model: Any) -> int:
    return int(session.scalar(select(func.max(model.id))) or 0) + 1


def add_master_data(database_url: str, spec: dict[str, Any], today: date) -> None:
    """Add a corpus's own categories, suppliers, parts, prices and stock to a seeded ERP."""
    engine = create_engine(database_url)
    with Session(engine) as session, session.begin():
        cats: dict[str, int] = {}
        for c in spec.get("categories") or []:
            cats[c["code"]] = _next_id(session, Category)
            session.add(Category(id=cats[c["code"]], code=c["code"], name_zh=c["name_zh"],
                                 name_en=c["name_en"], unit=c["unit"],
                                 aliases=list(c.get("aliases") or [])))  # fmt: skip
            session.flush()
        sups: dict[str, int] = {}
        for s in spec.get("suppliers") or []:
            sups[s["code"]] = _next_id(session, Supplier)
            session.add(Supplier(id=sups[s["code"]], code=s["code"], name_zh=s["name_zh"],
                                 name_en=s["name_en"], kind=s["kind"], status=s["status"],
                                 rating=4.0, website=f"https://{s['code'].lower()}.example",
                                 country="CN", currency=s.get("currency", "CNY")))  # fmt: skip
            session.flush()
        _add_parts(session, spec, cats, sups, today)
    engine.dispose()


def _add_parts(
    session: Session, spec: dict[str, Any], cats: dict[str, int], sups: dict[str, int], today: date
) -> None:
    parts: dict[str, int] = {}
    for p in spec.get("parts") or []:
        parts[p["sku"]] = _next_id(session, Part)
        unit = next(c["unit"] for c in spec["categories"] if c["code"] == p["category"])
        session.add(Part(id=parts[p["sku"]], sku=p["sku"], model=p["model"], name_zh=p["name_zh"],
                         name_en=p["name_en"], category_id=cats[p["category"]], brand=p["brand"],
                         brand_zh=p["brand_zh"], unit=unit, active=True))  # fmt: skip
        session.flush()
    for supplier, sku, price, moq, lead in spec.get("prices") or []:
        session.add(SupplierPrice(
            id=_next_id(session, SupplierPrice), supplier_id=sups[supplier], part_id=parts[sku],
            price_minor=round(price * 100), currency="CNY", min_order_qty=moq,
            lead_time_days=lead, valid_from=today - timedelta(days=90),
            valid_to=today + timedelta(days=365),
        ))  # fmt: skip
        session.flush()
    for sku, on_hand, safety in spec.get("inventory") or []:
        session.add(Inventory(part_id=parts[sku], on_hand=on_hand, reserved=0, on_order=0,
                              safety_stock=safety, reorder_point=int(safety * 1.5)))  # fmt: skip


@asynccontextmanager
async def planner_world(
    template: Path, folder: Path, today: date, extra: dict[str, Any] | None = None
) -> AsyncIterator[PlannerWorld]:
    """The ERP on a copy of ``template`` (plus ``extra`` master data), its MCP server in
    memory, and the registry of ``mcp_servers.yaml`` wired to it."""
    settings = settings_for(template, folder)
    if extra:
        add_master_data(settings.resolved_database_url, extra, today)
    settings.allowed_hosts = [*settings.allowed_hosts, httpx.URL(BASE_URL).host]
    async with contextlib.AsyncExitStack() as stack:
        # Every copy of one template holds the same master data: read once per process (a
        # fifth of a planner test's time); a copy with extra master data reads its own.
        with _master_read_once(None if extra else template):
            manager = await stack.enter_async_context(LifespanManager(create_app(settings)))
        from mcp_erp.server import create_server

        server = create_server(pinned_settings(), transport=httpx.ASGITransport(app=manager.app))
        registry = load_registry(
            REPO / "mcp_servers.yaml", client_factory=lambda _name, _timeout: Client(server)
        )
        yield PlannerWorld(registry, manager.app, settings.resolved_database_url, today)


_MASTER: dict[Path, MasterData] = {}


@contextlib.contextmanager
def _master_read_once(template: Path | None) -> Iterator[None]:
    """While an ERP starts on a copy of ``template``: its master data as first read from a
    copy of it in this process (None: read as usual). The ERP never changes master data
    but on a reset, which reads them again (outside this block)."""
    if template is None:
        yield
        return
    load = MasterData.load.__func__  # type: ignore[attr-defined]

    def once(cls: type[MasterData], session: Session) -> MasterData:
        if template not in _MASTER:
            _MASTER[template] = load(cls, session)
        return _MASTER[template]

    with mock.patch.object(MasterData, "load", classmethod(once)):
        yield


def copy_template(template: Path, folder: Path) -> Path:
    """A private copy of the seeded template (for callers that add master data first)."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "template.sqlite3"
    shutil.copyfile(template, target)
    return target


def task_history(task_id: str = TASK_ID) -> list[BaseMessage]:
    """A conversation in which the orchestrator started one background analysis."""
    launch = {"name": "start_async_task", "args": {}, "id": "c0", "type": "tool_call"}
    return [
        HumanMessage(content="帮我对链条做供应商比价分析"),
        AIMessage(content="", tool_calls=[launch]),
        ToolMessage(
            content=f"Launched async subagent. task_id: {task_id}",
            tool_call_id="c0",
            name="start_async_task",
        ),
        AIMessage(content=f"已在后台开始分析（task_id: {task_id}）。"),
    ]


async def offered_part(
    world: PlannerWorld, accept: Callable[[dict[str, Any]], bool] = lambda _offer: True
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A part its model names alone, an offer for it valid today from an active supplier
    that ``accept`` takes, and that supplier: the first such in the ERP's category order."""
    active = {s["id"]: s for s in await world.suppliers()
              if s["status"] == "active"}  # fmt: skip
    for category in (await world.erp("/categories"))["items"]:
        for listed in (await world.erp("/parts", category=category["code"], size=20))["items"]:
            part = await world.erp(f"/parts/{listed['id']}")
            same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
            for offer in part["offers"]:
                if (offer["supplier_id"] in active and priced_today({"offer": offer})
                        and len(same) == 1 and accept(offer)):  # fmt: skip
                    return part, offer, active[offer["supplier_id"]]
    raise AssertionError("the seed has no part with such an offer")


async def parts_on_offer(
    world: PlannerWorld,
) -> AsyncIterator[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Each part its model names alone, with its offers valid today from active suppliers,
    in the ERP's category order."""
    active = {s["id"] for s in await world.suppliers()
              if s["status"] == "active"}  # fmt: skip
    for category in (await world.erp("/categories"))["items"]:
        for listed in (await world.erp("/parts", category=category["code"], size=20))["items"]:
            part = await world.erp(f"/parts/{listed['id']}")
            same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
            if len(same) == 1:
                live = [o for o in part["offers"] if o["supplier_id"] in active]
                yield part, [o for o in live if priced_today({"offer": o})]


async def sold_part(world: PlannerWorld) -> tuple[dict[str, Any], dict[str, Any], int]:
    """A part named alone by its model, an active supplier for it, and a quantity its offer
    valid today accepts (twice the minimum)."""
    part, offer, supplier = await offered_part(world)
    return part, supplier, offer["min_order_qty"] * offer["order_step"] * 2


CHANGING = ("order_create", "order_update")


def nothing_done(run: Run) -> None:
    """No order written or put up for approval, and no analysis started."""
    assert not any(run.called(t) for t in CHANGING), run.calls
    assert run.proposal is None and run.delegations == [], (run.proposal, run.delegations)


def analysis_scope(delegation: str) -> dict[str, Any]:
    """The scope (【分析范围】) an analysis was started with."""
    found = re.search(r"【分析范围】(\{.*?\})\n", delegation)
    assert found, delegation
    scope: dict[str, Any] = json.loads(found.group(1))
    return scope


def analysis_summary(
    category: dict[str, Any], recommended: list[tuple[dict[str, Any], dict[str, Any]]], zh: bool
) -> str:
    """What the offline analyst's own summary writer says when it recommends each part's
    supplier (``recommended``: part, supplier records as the ERP gives them)."""
    view = View.of("analyst", [SystemMessage(content="今天是 2026-12-03。"),
                               HumanMessage(content="【分析需求正文】比价" if zh else "compare")],
                   {})  # fmt: skip
    parts = [
        {**part, "suppliers": [{"rank": 1, "supplier_code": supplier["code"],
                                "supplier_name_zh": supplier["name_zh"],
                                "supplier_name_en": supplier["name_en"], "contract_price": 10.5,
                                "currency": "CNY", "total_cost_score": 11.25}]}
        for part, supplier in recommended
    ]  # fmt: skip
    result = {"category": category, "parts": parts, "deviations": [], "sources": []}
    return final_answer(AnalystRun(view), result, [], [])


async def notify_done(world: PlannerWorld, task_id: str, summary: str) -> Run:
    """deepagents' notification that the analysis ``task_id`` ended with ``summary``, as the
    orchestrator's thread receives it."""
    text = (
        "[SYSTEM NOTIFICATION - NOT USER INPUT]\nAn async subagent task you started has an "
        f"update.\n<task-notification>\n<task-id>{task_id}</task-id>\n<agent-name>analyst"
        f"</agent-name>\n<status>success</status>\n<result>\n{summary}\n</result>\n"
        "</task-notification>"
    )
    event = {"task_id": task_id, "agent_name": "analyst", "status": "success"}
    return await world.run(text, history=world.thread(), notification=event)


def priced_today(part: dict[str, Any]) -> bool:
    """Whether the part's offer is valid on the ERP's order date (the machine's today)."""
    offer: dict[str, Any] | None = part.get("offer")
    now = date.today().isoformat()
    return bool(offer) and offer is not None and offer["valid_from"] <= now <= offer["valid_to"]
