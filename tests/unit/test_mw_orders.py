"""The order agent's controls with ANY model: a scripted chat model proposes orders, the real
ERP (in-process, behind the real ERP MCP server) checks them, people decide.

- a hard violation (below MOQ, blocked supplier, part not supplied, unreachable date) is
  answered with the problem and its fix in the buyer's language, no approval is asked,
  and the ERP is unchanged (every table's rows and the audit);
- a valid order's approval card names supplier, part, prices and totals, in LangChain's
  standard HITL shape; approve → the ERP row has requested_by / approved_by and the audit
  row's actor is the user;
- an edit is checked again before it runs; an edit of the supplier does not stand;
- above the approval limit, with auth: the requester's own approval and a non-approver's
  are refused and the approval stays pending; an approver's creates exactly one order;
  a refused answer is never replayed under a later person's identity;
- a likely duplicate (same requester, supplier and lines, another thread) needs an
  explicit confirmation; the very same call again on its thread replays;
- ERP refusals and statuses reach the buyer as words, with the ERP's code kept.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastmcp import Client
from langchain.agents import create_agent
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from langgraph.types import Command

from core.settings import REPO_ROOT
from graphs.context import APPROVE_PERMISSION, Context
from graphs.mcp_registry import McpRegistry
from graphs.middleware.mcp_tools import McpToolsMiddleware
from graphs.middleware.order_approval import OrderApproval
from graphs.middleware.order_guard import OrderGuard
from graphs.order_keys import fill_order_key
from graphs.orders.policy import ApprovalPolicy
from graphs.orders.words import pick
from tests.unit.erp_inprocess import InProcessErp, pinned_settings
from tests.unit.test_mw_support import call, scripted

AGENT = "procurement-order"
NGK, IU7 = 1, 1  # NGK Spark Plug Co. sells SP-NGK-IU7 at 54.30 CNY, MOQ 50, step 10, 29 days


def today() -> date:
    """The ERP's today, read when asked: a module constant went stale when a run crossed
    midnight (UTC) between collecting the tests and running them."""
    return datetime.now(UTC).date()


def in_days(n: int) -> str:
    """The date ``n`` days from :func:`today`, as the ERP writes it."""
    return (today() + timedelta(days=n)).isoformat()


@tool
def note_down(text: str) -> str:
    """Keep a note (a local tool, so the agent has a tool node besides the MCP tools)."""
    return text


class Flags:
    """Records the approval flags set on threads (stands in for the Agent Server)."""

    def __init__(self) -> None:
        self.marks: list[tuple[str, str]] = []

    async def mark(self, thread_id: str, value: str, *, decided_by: str | None = None) -> None:
        self.marks.append((thread_id, value if decided_by is None else f"{value} by {decided_by}"))


def registry_for(erp: InProcessErp) -> McpRegistry:
    """The repo's mcp_servers.yaml, its ERP server reached in memory."""
    from mcp_erp.server import create_server

    servers = yaml.safe_load((REPO_ROOT / "mcp_servers.yaml").read_text())["servers"]

    def factory(server: str, timeout: float) -> Client[Any]:
        return Client(create_server(pinned_settings(), transport=erp.transport), timeout=timeout)

    return McpRegistry(servers, client_factory=factory, fillers={"order_create": fill_order_key})


class Agent:
    """An order agent over the real ERP; one graph per scripted conversation."""

    def __init__(self, erp: InProcessErp, policy: ApprovalPolicy) -> None:
        self.erp = erp
        self.registry = registry_for(erp)
        self.policy = policy
        self.store = InMemoryStore()
        self.saver = InMemorySaver()
        self.flags = Flags()

    def graph(self, *turns: list[dict[str, Any]] | str) -> Any:
        tools = ("order_create", "order_update")
        return create_agent(
            scripted(*turns),
            tools=[note_down],
            middleware=[
                McpToolsMiddleware(self.registry, agent=AGENT),
                OrderApproval(tools, policy=self.policy, flag=self.flags),
                OrderGuard(self.registry, agent=AGENT, tools=tools, policy=self.policy),
            ],
            context_schema=Context,
            store=self.store,
            checkpointer=self.saver,
        )

    async def ask(self, graph: Any, config: dict[str, Any], user: str, request: Any) -> Any:
        payload = {"messages": [HumanMessage(request)]} if isinstance(request, str) else request
        await graph.ainvoke(payload, config, context=Context(user_id=user))
        return await graph.aget_state(config)


def config(user: str | None = None, *, approver: bool = False) -> dict[str, Any]:
    """A run config on a new thread; ``user``: authenticated as the server would set it."""
    configurable: dict[str, Any] = {"thread_id": f"t-{uuid.uuid4().hex[:10]}"}
    if user is not None:
        configurable |= auth(user, approver=approver)
    return {"configurable": configurable}


def auth(user: str, *, approver: bool = False) -> dict[str, Any]:
    """What the Agent Server puts in a run's config for an authenticated caller."""
    return {
        "langgraph_auth_user": {"identity": user, "is_authenticated": True, "display_name": user},
        "langgraph_auth_user_id": user,
        "langgraph_auth_permissions": [APPROVE_PERMISSION] if approver else [],
    }


def as_user(cfg: dict[str, Any], user: str, *, approver: bool = False) -> dict[str, Any]:
    """The same thread, resumed by another authenticated caller."""
    return {"configurable": {**cfg["configurable"], **auth(user, approver=approver)}}


def create(qty: int, **extra: Any) -> list[dict[str, Any]]:
    args = {"supplier_id": NGK, "lines": [{"part_id": IU7, "quantity": qty}], **extra}
    return [call("order_create", args)]


def tool_answer(state: Any, name: str = "order_create") -> ToolMessage:
    return [m for m in state.values["messages"] if isinstance(m, ToolMessage) and m.name == name][
        -1
    ]


def card(state: Any) -> dict[str, Any]:
    [pending] = state.interrupts
    value: dict[str, Any] = pending.value
    return value


async def ngk_orders(erp: InProcessErp) -> list[dict[str, Any]]:
    found = await erp.get("/orders/search-details", supplier_id=NGK, date_from=today().isoformat())
    return [o for o in found["items"] if o["order_date"] == today().isoformat()]


@pytest.fixture
def agent(real_erp: InProcessErp) -> Agent:
    return Agent(real_erp, ApprovalPolicy(approver_above="CNY 50000", duplicate_window_hours=24))


# ---------------------------------------------------------------- checked before approval


def _unsold() -> int:
    from sim.catalog import generate

    catalog = generate()
    sold = {p.part_id for p in catalog.prices if p.supplier_id == NGK}
    return next(p.id for p in catalog.parts if p.id not in sold)


def _lifan() -> tuple[int, int]:
    from sim.catalog import generate

    catalog = generate()
    lifan = catalog.supplier("LIFAN")
    offer = next(p for p in catalog.prices if p.supplier_id == lifan.id)
    return lifan.id, offer.part_id


Says = list[str | Callable[[], str]]  # a date is worked out when the test runs
REFUSED: list[tuple[str, Callable[[], dict[str, Any]], str, Says]] = [
    ("below MOQ", lambda: {"supplier_id": NGK, "lines": [{"part_id": IU7, "quantity": 20}]},
     "BELOW_MOQ", ["起订量是 50", "把数量提高到 50", "GZMT"]),
    ("blocked supplier",
     lambda: {"supplier_id": _lifan()[0], "lines": [{"part_id": _lifan()[1], "quantity": 500}]},
     "SUPPLIER_BLOCKED", ["已停用", "可改向这些供应商订购"]),
    ("part not supplied",
     lambda: {"supplier_id": NGK, "lines": [{"part_id": _unsold(), "quantity": 100}]},
     "PART_NOT_SUPPLIED", ["不供应", "可改向这些供应商订购"]),
    ("unreachable date",
     lambda: {"supplier_id": NGK, "lines": [{"part_id": IU7, "quantity": 100}],
              "expected_date": in_days(2)},
     "DATE_UNREACHABLE", ["来不及", "交期 29 天", lambda: in_days(29)]),
]  # fmt: skip


@pytest.mark.parametrize(("why", "args", "code", "says"), REFUSED, ids=[r[0] for r in REFUSED])
async def test_an_order_the_erp_would_refuse_is_never_put_up_for_approval(
    agent: Agent, why: str, args: Callable[[], dict[str, Any]], code: str, says: Says
) -> None:
    before = agent.erp.fingerprint()
    graph = agent.graph([call("order_create", args())], "说明了问题")
    state = await agent.ask(graph, config(), "li.lei", "帮我下单火花塞")
    assert state.interrupts == ()  # nobody was asked to approve
    answer = tool_answer(state)
    assert answer.status == "error"
    assert answer.text.startswith("没有提交审批：ERP 预检发现这张订单不能下")
    assert f"（{code}）" in answer.text
    for said in says:
        words = said() if callable(said) else said
        assert words in answer.text, answer.text
    assert agent.erp.fingerprint() == before  # no order, no audit row
    assert agent.erp.transport.count("POST", "/orders/create") == 0


async def test_a_valid_order_gets_a_readable_card_then_is_placed_with_its_people(
    agent: Agent,
) -> None:
    cfg = config()
    graph = agent.graph(create(200), "已下单")
    state = await agent.ask(graph, cfg, "li.lei", "给 NGK 下单 200 个火花塞 IU7")
    value = card(state)
    # LangChain's standard HITL request: Studio, Agent Chat UI and the SDK show it as is.
    assert set(value) == {"action_requests", "review_configs"}
    [action] = value["action_requests"]
    assert action["name"] == "order_create" and action["args"]["lines"][0]["quantity"] == 200
    assert value["review_configs"] == [
        {"action_name": "order_create", "allowed_decisions": ["approve", "edit", "reject"]}
    ]
    text = action["description"]
    for words in ("日本特殊陶业 NGK（NGK）", "NGK 火花塞 IU7（SP-NGK-IU7）", "200 个",
                  "54.30 CNY", "10,860.00 CNY", "订单总额：10,860.00 CNY",
                  f"最早可到 {in_days(29)}", "申请人：li.lei",
                  "批准 / 编辑"):  # fmt: skip
        assert words in text, text
    # As a buyer reads it: the line right after its colon, no date asked said in words.
    assert "（SP-NGK-IU7）：200 个 × 54.30 CNY" in text, text
    assert "到货日期：未指定日期（按交期）；最早可到" in text, text
    assert await ngk_orders(agent.erp) == []  # nothing committed before the decision

    await graph.ainvoke(
        Command(resume={"decisions": [{"type": "approve"}]}), cfg, context=Context(user_id="li.lei")
    )
    [order] = await ngk_orders(agent.erp)
    assert (order["requested_by"], order["approved_by"], order["status"]) == (
        "li.lei",
        "li.lei",
        "approved",
    )
    audit = await agent.erp.get("/audit", entity_id=order["id"])
    assert [(e["action"], e["actor"]) for e in audit["items"]] == [("order.create", "li.lei")]
    state = await graph.aget_state(cfg)
    assert '"status_text": "已批准"' in tool_answer(state).text
    assert agent.flags.marks == []  # below the limit: no approver needed, nothing flagged


async def test_an_edit_is_checked_again_and_may_change_only_quantity_date_and_note(
    agent: Agent,
) -> None:
    cfg = config()
    graph = agent.graph(create(100), "结束")
    state = await agent.ask(graph, cfg, "li.lei", "给 NGK 下单 100 个 IU7")
    args = card(state)["action_requests"][0]["args"]
    before = agent.erp.fingerprint()

    swapped = {**args, "supplier_id": 33}
    edit = {"type": "edit", "edited_action": {"name": "order_create", "args": swapped}}
    state = await agent.ask(graph, cfg, "li.lei", Command(resume={"decisions": [edit]}))
    description = card(state)["action_requests"][0]["description"]
    assert description.startswith("⚠ 上一次的决定没有生效：编辑只能改数量、到货日期和备注")
    assert "supplier_id" in description

    too_few = {**args, "lines": [{"part_id": IU7, "quantity": 30}], "note": "改少一点"}
    edit = {"type": "edit", "edited_action": {"name": "order_create", "args": too_few}}
    state = await agent.ask(graph, cfg, "li.lei", Command(resume={"decisions": [edit]}))
    assert state.interrupts == ()
    answer = tool_answer(state)
    assert answer.status == "error" and "（BELOW_MOQ）" in answer.text
    assert agent.erp.fingerprint() == before  # the edited call never ran


async def test_an_edited_quantity_is_what_the_erp_records(agent: Agent) -> None:
    cfg = config()
    graph = agent.graph(create(100), "结束")
    state = await agent.ask(graph, cfg, "li.lei", "给 NGK 下单 100 个 IU7")
    args = card(state)["action_requests"][0]["args"]
    edited = {**args, "lines": [{"part_id": IU7, "quantity": 150}],
              "expected_date": in_days(40)}  # fmt: skip
    edit = {"type": "edit", "edited_action": {"name": "order_create", "args": edited}}
    await agent.ask(graph, cfg, "li.lei", Command(resume={"decisions": [edit]}))
    [order] = await ngk_orders(agent.erp)
    assert [ln["quantity"] for ln in order["lines"]] == [150]
    assert order["expected_date"] == edited["expected_date"]
    assert order["approved_by"] == "li.lei"


async def test_english_buyers_read_english(agent: Agent) -> None:
    graph = agent.graph(create(20), "done")
    state = await agent.ask(graph, config(), "tom", "Order 20 NGK spark plugs IU7 from NGK")
    answer = tool_answer(state)
    assert answer.text.startswith("Not put up for approval: the ERP's check found")
    assert "Raise the quantity to 50 pcs" in answer.text and "(BELOW_MOQ)" in answer.text

    cfg = config()
    graph = agent.graph(create(200), "done")
    state = await agent.ask(graph, cfg, "tom", "Order 200 NGK spark plugs IU7 from NGK")
    text = card(state)["action_requests"][0]["description"]
    assert "Supplier: NGK Spark Plug Co. (NGK)" in text and "Order total: 10,860.00 CNY" in text


async def test_an_outsized_quantity_is_flagged_on_the_card(agent: Agent) -> None:
    # 1万个 of a part ordered a few hundred at a time: the ERP takes it, with a warning
    # the approver reads in their language.
    async with agent.erp.rest() as rest:
        checked = await rest.post("/orders/validate", json=create(10000)[0]["args"])
    [warning] = [w for w in checked.json()["warnings"] if w["code"] == "QUANTITY_UNUSUAL"]
    facts = warning["details"]
    times = f"{facts['times']:g}"
    says = {
        "zh": f"NGK 火花塞 IU7（SP-NGK-IU7） 订 10000 个，是平时用量（近 12 个月单张订单最多 "
              f"{facts['largest_order_qty']}，在库 {facts['on_hand']}，安全库存 "
              f"{facts['safety_stock']}）的 {times} 倍。请确认数量没有多打零。（QUANTITY_UNUSUAL）",
        "en": f"NGK Spark Plug IU7 (SP-NGK-IU7): 10000 pcs is {times} times the usual amount (at "
              f"most {facts['largest_order_qty']} on one order in the last 12 months, "
              f"{facts['on_hand']} in stock, safety stock {facts['safety_stock']}). Check that "
              "no extra zero was typed. (QUANTITY_UNUSUAL)",
    }  # fmt: skip
    asked = [("li.lei", "给 NGK 下单 1万个 IU7", "zh"),
             ("tom", "Order 10000 NGK spark plugs IU7 from NGK", "en")]  # fmt: skip
    for user, request, lang in asked:
        graph = agent.graph(create(10000), "结束")
        state = await agent.ask(graph, config(), user, request)
        text = card(state)["action_requests"][0]["description"]  # put up for approval
        assert pick(lang, "提醒：", "Warnings:") in text, text
        assert says[lang] in text, text
    assert await ngk_orders(agent.erp) == []  # nothing placed before a decision


async def test_an_unreachable_erp_means_no_approval(agent: Agent, real_erp: InProcessErp) -> None:
    real_erp.transport.fail("POST", "/orders/validate", 503, times=10)
    graph = agent.graph(create(200), "结束")
    state = await agent.ask(graph, config(), "li.lei", "给 NGK 下单 200 个 IU7")
    assert state.interrupts == ()
    answer = tool_answer(state)
    assert answer.text.startswith("没有提交审批：无法向 ERP 核对这张订单")
    assert "ERP_ERROR" in answer.text
    assert real_erp.transport.count("POST", "/orders/create") == 0


# ---------------------------------------------------------------- segregation of duties


@pytest.fixture
def strict(real_erp: InProcessErp) -> Agent:
    # 200 × 54.30 = 10,860 CNY: above this limit.
    return Agent(real_erp, ApprovalPolicy(approver_above="CNY 5000", duplicate_window_hours=24))


async def test_above_the_limit_only_another_approver_can_approve(strict: Agent) -> None:
    cfg = config("alice")
    graph = strict.graph(create(200), "已下单")
    state = await strict.ask(graph, cfg, "alice", "给 NGK 下单 200 个 IU7")
    assert (
        "须由申请人以外、有审批权限（orders:approve）的人批准"
        in card(state)["action_requests"][0]["description"]
    )
    assert strict.flags.marks == [(cfg["configurable"]["thread_id"], "awaiting_approver")]

    approve: Command[Any] = Command(resume={"decisions": [{"type": "approve"}]})
    state = await strict.ask(graph, cfg, "alice", approve)  # the requester
    text = card(state)["action_requests"][0]["description"]
    assert text.startswith("⚠ 上一次的决定没有生效：alice 是这张订单的申请人")
    state = await strict.ask(graph, as_user(cfg, "bob"), "bob", approve)  # no permission
    assert card(state)["action_requests"][0]["description"].startswith(
        "⚠ 上一次的决定没有生效：bob 没有审批权限"
    )
    assert await ngk_orders(strict.erp) == []

    state = await strict.ask(graph, as_user(cfg, "carol", approver=True), "carol", approve)
    assert state.interrupts == ()
    [order] = await ngk_orders(strict.erp)
    assert (order["requested_by"], order["approved_by"]) == ("alice", "carol")
    audit = await strict.erp.get("/audit", entity_id=order["id"])
    assert [e["actor"] for e in audit["items"]] == ["carol"]
    assert strict.flags.marks[-1] == (cfg["configurable"]["thread_id"], "decided by carol")


async def test_a_refused_approval_is_not_replayed_under_the_next_persons_name(
    strict: Agent,
) -> None:
    cfg = config("alice")
    graph = strict.graph(create(200), "结束")
    await strict.ask(graph, cfg, "alice", "给 NGK 下单 200 个 IU7")
    approve: Command[Any] = Command(resume={"decisions": [{"type": "approve"}]})
    state = await strict.ask(graph, cfg, "alice", approve)
    assert state.interrupts  # refused, still pending
    # The approver rejects: the requester's earlier approve must not count as hers.
    no = {"type": "reject", "message": "预算不够"}
    reject: Command[Any] = Command(resume={"decisions": [no]})
    state = await strict.ask(graph, as_user(cfg, "carol", approver=True), "carol", reject)
    assert state.interrupts == ()
    assert await ngk_orders(strict.erp) == []
    assert "预算不够" in tool_answer(state).text


async def test_without_auth_the_policy_records_who_approved(strict: Agent) -> None:
    cfg = config()  # no auth: nobody's identity can be checked
    graph = strict.graph(create(200), "结束")
    await strict.ask(graph, cfg, "alice", "给 NGK 下单 200 个 IU7")
    await strict.ask(graph, cfg, "dave", Command(resume={"decisions": [{"type": "approve"}]}))
    [order] = await ngk_orders(strict.erp)
    assert (order["requested_by"], order["approved_by"]) == ("alice", "dave")


# ---------------------------------------------------------------- duplicates


async def test_the_same_order_on_a_new_thread_is_a_likely_duplicate(agent: Agent) -> None:
    first = config()
    graph = agent.graph(create(200), "已下单")
    await agent.ask(graph, first, "li.lei", "给 NGK 下单 200 个 IU7")
    await agent.ask(graph, first, "li.lei", Command(resume={"decisions": [{"type": "approve"}]}))
    [placed] = await ngk_orders(agent.erp)

    again = config()  # e.g. a retry after the server died mid-run
    graph = agent.graph(create(200), "结束")
    state = await agent.ask(graph, again, "li.lei", "给 NGK 下单 200 个 IU7")
    text = card(state)["action_requests"][0]["description"]
    assert "可能重复：li.lei 在" in text and placed["order_no"] in text
    state = await agent.ask(
        graph, again, "li.lei", Command(resume={"decisions": [{"type": "approve"}]})
    )
    assert card(state)["action_requests"][0]["description"].startswith(
        "⚠ 上一次的决定没有生效：这很可能是重复订单"
    )
    reject: Command[Any] = Command(resume={"decisions": [{"type": "reject"}]})
    await agent.ask(graph, again, "li.lei", reject)
    assert [o["order_no"] for o in await ngk_orders(agent.erp)] == [placed["order_no"]]

    # An explicit confirmation places another one.
    third = config()
    graph = agent.graph(create(200), "结束")
    state = await agent.ask(graph, third, "li.lei", "给 NGK 下单 200 个 IU7")
    args = {**card(state)["action_requests"][0]["args"], "confirm_duplicate": True}
    edit = {"type": "edit", "edited_action": {"name": "order_create", "args": args}}
    await agent.ask(graph, third, "li.lei", Command(resume={"decisions": [edit]}))
    assert len(await ngk_orders(agent.erp)) == 2
    # Another requester's identical order is not theirs to worry about.
    other = agent.graph(create(200), "结束")
    state = await agent.ask(other, config(), "han.mei", "给 NGK 下单 200 个 IU7")
    assert "可能重复" not in card(state)["action_requests"][0]["description"]


async def test_the_same_call_again_on_its_thread_replays_the_order(agent: Agent) -> None:
    cfg = config()
    graph = agent.graph(create(200), "已下单", create(200), "又一次")
    await agent.ask(graph, cfg, "li.lei", "给 NGK 下单 200 个 IU7")
    await agent.ask(graph, cfg, "li.lei", Command(resume={"decisions": [{"type": "approve"}]}))
    state = await agent.ask(graph, cfg, "li.lei", "给 NGK 下单 200 个 IU7")  # a client retry
    assert "这张订单已经在 ERP 中" in card(state)["action_requests"][0]["description"]
    await agent.ask(graph, cfg, "li.lei", Command(resume={"decisions": [{"type": "approve"}]}))
    assert len(await ngk_orders(agent.erp)) == 1


# ---------------------------------------------------------------- words, not codes


async def test_changes_show_status_words_and_erp_refusals_are_sentences(
    agent: Agent, real_erp: InProcessErp
) -> None:
    async with real_erp.rest() as rest:
        made = await rest.post(
            "/orders/create",
            json={"idempotency_key": "words-0001", "supplier_id": NGK, "requested_by": "li.lei",
                  "lines": [{"part_id": IU7, "quantity": 100}]},
        )  # fmt: skip
    order = made.json()
    cancel = {"order_id": order["order_no"], "expected_version": 1, "status": "cancelled"}
    cfg = config()
    graph = agent.graph([call("order_update", cancel)], "已取消")
    state = await agent.ask(graph, cfg, "li.lei", f"取消订单 {order['order_no']}")
    text = card(state)["action_requests"][0]["description"]
    assert f"修改订单 {order['order_no']}（现在：草稿，第 1 版）" in text
    assert "状态 草稿 → 已取消" in text
    await agent.ask(graph, cfg, "li.lei", Command(resume={"decisions": [{"type": "approve"}]}))
    held = await real_erp.get(f"/orders/{order['id']}")
    assert held["status"] == "cancelled"
    audit = await real_erp.get("/audit", entity_id=order["id"])
    assert audit["items"][0]["actor"] == "li.lei"

    # An ERP failure at the moment of commit: one sentence, the code kept.
    real_erp.transport.fail("POST", "/orders/create", 503, times=1)
    cfg = config()
    graph = agent.graph(create(300), "结束")
    await agent.ask(graph, cfg, "li.lei", "给 NGK 下单 300 个 IU7")
    state = await agent.ask(
        graph, cfg, "li.lei", Command(resume={"decisions": [{"type": "approve"}]})
    )
    answer = tool_answer(state)
    assert answer.status == "error"
    said = "ERP 出了故障，什么都没有提交；请稍后再试，或联系 ERP 管理员。"
    assert answer.text == f"ERP 没有执行：{said}（代码 ERP_ERROR）"
    assert "ERP_ERROR" in str(answer.artifact)


async def test_order_lookups_carry_status_words(agent: Agent) -> None:
    graph = agent.graph([call("order_search_details", {"supplier_id": NGK, "size": 3})], "好")
    state = await agent.ask(graph, config(), "li.lei", "NGK 最近的订单")
    found = tool_answer(state, "order_search_details").text
    assert '"status_text": "已关闭"' in found or '"status_text": "已到货"' in found


def test_the_guard_needs_order_validate(tmp_path: Path, real_erp: InProcessErp) -> None:
    servers = yaml.safe_load((REPO_ROOT / "mcp_servers.yaml").read_text())["servers"]
    for s in servers:
        s["agents"][AGENT]["tools"].remove("order_validate") if AGENT in s["agents"] else None
    with pytest.raises(ValueError, match="order_validate"):
        OrderGuard(McpRegistry(servers), agent=AGENT)
