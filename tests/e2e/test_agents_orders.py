"""Orders end to end: langgraph dev + the LangGraph SDK + the real ERP, on the offline planner.

- an order the ERP would refuse (below the MOQ, a blocked supplier, a part the supplier does
  not sell, a date it cannot reach) is answered with the fix and never put up for approval;
  the ERP is unchanged (its orders and its audit);
- missing quantity → a question → the approval card names supplier, part, prices and
  totals → approve → one ERP row with requested_by / approved_by, the audit's actor the
  user; the same request again on the thread replays that order;
- reject → no row; edit → the edited quantity;
- the same order sent again on a new thread is flagged as a likely duplicate, its approval
  does not stand, and rejected it leaves one ERP row.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from langgraph_sdk.client import LangGraphClient

from runstack.threads import interrupts
from tests.e2e.agents_stack import Stack, orders_from

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

APPROVE = {"resume": {"decisions": [{"type": "approve"}]}}


def user(user_id: str) -> dict[str, str]:
    # One user per test: the duplicate guard looks at a requester's recent orders.
    return {"user_id": user_id, "username": user_id}


async def run(
    client: LangGraphClient, thread_id: str, who: dict[str, str], **kwargs: Any
) -> dict[str, Any]:
    await client.runs.wait(thread_id, "orchestrator", context=who, **kwargs)
    return await client.threads.get(thread_id)  # type: ignore[return-value]


async def last_message(client: LangGraphClient, thread_id: str) -> dict[str, Any]:
    state: Any = await client.threads.get_state(thread_id)
    return dict(state["values"]["messages"][-1])


def erp_totals(stack: Stack) -> tuple[int, int]:
    """How many orders and audit rows the ERP holds."""
    orders = stack.erp_get("/orders/search-details", size=1)["total"]
    audit = stack.erp_get("/audit", size=1)["total"]
    return orders, audit


async def new_thread(client: LangGraphClient) -> str:
    return str((await client.threads.create())["thread_id"])


async def approval_for(
    client: LangGraphClient, request: str, who: dict[str, str]
) -> tuple[str, dict[str, Any]]:
    """A new thread asked ``request``, and the approval its order waits for."""
    thread_id = await new_thread(client)
    thread = await run(
        client, thread_id, who, input={"messages": [{"role": "user", "content": request}]}
    )
    [approval] = interrupts(thread)
    return thread_id, approval


REFUSED = [
    ("below MOQ", "给 NGK 下单 20 个火花塞 IU7", "BELOW_MOQ", ["起订量是 50", "把数量提高到 50"]),
    ("unreachable date", "给 NGK 下单 200 个火花塞 IU7，明天到货", "DATE_UNREACHABLE",
     ["来不及", "交期 29 天", "或之后"]),
    ("blocked supplier", "给 LIFAN 下单 40 个刹车片 FA512HH", "SUPPLIER_BLOCKED",
     ["已停用", "可改向这些供应商订购"]),
    ("part not supplied", "在钱江摩配买 300 个 NGK 的 IU7", "PART_NOT_SUPPLIED",
     ["不供应", "可改向这些供应商订购"]),
]  # fmt: skip


@pytest.mark.parametrize(("why", "request_", "code", "says"), REFUSED, ids=[r[0] for r in REFUSED])
async def test_an_order_the_erp_would_refuse_gets_the_fix_and_no_approval(
    stack: Stack, client: LangGraphClient, why: str, request_: str, code: str, says: list[str]
) -> None:
    before = erp_totals(stack)
    thread_id = await new_thread(client)
    thread = await run(
        client, thread_id, user("refused-1"),
        input={"messages": [{"role": "user", "content": request_}]},
    )  # fmt: skip
    assert thread["status"] == "idle" and interrupts(thread) == []
    text = str((await last_message(client, thread_id))["content"])
    assert "没有提交审批" in text and f"（{code}）" in text, text
    for words in says:
        assert words in text, text
    assert erp_totals(stack) == before  # no order, no audit row


async def test_missing_quantity_then_a_readable_card_then_one_row_with_its_people(
    stack: Stack, client: LangGraphClient
) -> None:
    who = user("buyer-card")
    request = "给 NGK 下单火花塞 IU7，8周内到货"
    thread_id = await new_thread(client)
    thread = await run(
        client, thread_id, who, input={"messages": [{"role": "user", "content": request}]}
    )
    [asked] = interrupts(thread)
    assert asked["value"]["type"] == "request_order_info"
    assert asked["value"]["fields"] == ["quantity"]

    thread = await run(client, thread_id, who, command={"resume": {"quantity": 200}})
    [approval] = interrupts(thread)
    action = approval["value"]["action_requests"][0]
    assert action["name"] == "order_create"
    assert action["args"]["lines"][0]["quantity"] == 200
    assert not {"idempotency_key", "requested_by", "approved_by", "actor"} & set(action["args"])
    assert approval["value"]["review_configs"][0]["allowed_decisions"] == [
        "approve",
        "edit",
        "reject",
    ]
    card = action["description"]
    for words in ("供应商：日本特殊陶业 NGK（NGK）", "NGK 火花塞 IU7（SP-NGK-IU7）", "200 个",
                  "54.30 CNY", "10,860.00 CNY", "订单总额：10,860.00 CNY", "最早可到",
                  "申请人：buyer-card"):  # fmt: skip
        assert words in card, card
    card_args = action["args"]
    assert orders_from(stack, card_args) == []  # nothing committed before approval

    thread = await run(client, thread_id, who, command=APPROVE)
    assert thread["status"] == "idle"
    [order] = orders_from(stack, card_args)
    assert order["supplier_code"] == "NGK" and order["status"] == "approved"
    assert (order["requested_by"], order["approved_by"]) == ("buyer-card", "buyer-card")
    assert [(ln["sku"], ln["quantity"]) for ln in order["lines"]] == [("SP-NGK-IU7", 200)]
    assert order["expected_date"] == (date.today() + timedelta(weeks=8)).isoformat()
    audit = stack.erp_get("/audit", entity_id=order["id"])["items"]
    assert [(e["action"], e["actor"]) for e in audit] == [("order.create", "buyer-card")]
    final = await last_message(client, thread_id)
    assert order["order_no"] in str(final["content"])
    assert final["response_metadata"]["offline_planner"] is True

    # The same order asked for again on this thread (a retry) replays, never duplicates.
    await run(client, thread_id, who, input={"messages": [{"role": "user", "content": request}]})
    thread = await run(client, thread_id, who, command={"resume": {"quantity": 200}})
    [again] = interrupts(thread)
    assert order["order_no"] in again["value"]["action_requests"][0]["description"]
    await run(client, thread_id, who, command=APPROVE)
    assert [o["order_no"] for o in orders_from(stack, card_args)] == [order["order_no"]]


async def test_reject_leaves_no_row(stack: Stack, client: LangGraphClient) -> None:
    who = user("buyer-reject")
    thread_id, approval = await approval_for(client, "Order 120 NGK spark plugs IU7 from NGK", who)
    card = approval["value"]["action_requests"][0]["description"]
    assert "Supplier: NGK Spark Plug Co. (NGK)" in card  # an English buyer reads English
    card_args = approval["value"]["action_requests"][0]["args"]
    thread = await run(
        client, thread_id, who,
        command={"resume": {"decisions": [{"type": "reject", "message": "not now"}]}},
    )  # fmt: skip
    assert thread["status"] == "idle"
    assert orders_from(stack, card_args) == []
    assert "reject" in str((await last_message(client, thread_id))["content"]).lower()


async def test_edit_commits_the_edited_quantity(stack: Stack, client: LangGraphClient) -> None:
    who = user("buyer-edit")
    thread_id, approval = await approval_for(client, "Order 130 NGK spark plugs IU7 from NGK", who)
    args = dict(approval["value"]["action_requests"][0]["args"])
    args["lines"] = [{**args["lines"][0], "quantity": 350}]
    edit = {"type": "edit", "edited_action": {"name": "order_create", "args": args}}
    thread = await run(client, thread_id, who, command={"resume": {"decisions": [edit]}})
    assert thread["status"] == "idle"
    [order] = orders_from(stack, args)
    assert [ln["quantity"] for ln in order["lines"]] == [350]
    assert order["approved_by"] == "buyer-edit"


async def test_the_same_order_on_a_new_thread_is_flagged_and_rejected_leaves_one_row(
    stack: Stack, client: LangGraphClient
) -> None:
    who = user("buyer-dup")
    request = "给 NGK 下单 160 个火花塞 IU7"
    first, approval = await approval_for(client, request, who)
    card_args = approval["value"]["action_requests"][0]["args"]
    await run(client, first, who, command=APPROVE)
    [placed] = orders_from(stack, card_args)

    # The buyer retries on a new conversation (say the first one seemed to fail).
    second, approval = await approval_for(client, request, who)
    card = approval["value"]["action_requests"][0]["description"]
    assert "可能重复" in card and placed["order_no"] in card
    thread = await run(client, second, who, command=APPROVE)  # not confirmed: does not stand
    [still] = interrupts(thread)
    assert still["value"]["action_requests"][0]["description"].startswith(
        "⚠ 上一次的决定没有生效：这很可能是重复订单"
    )
    thread = await run(client, second, who, command={"resume": {"decisions": [{"type": "reject"}]}})
    assert thread["status"] == "idle"
    assert [o["order_no"] for o in orders_from(stack, card_args)] == [placed["order_no"]]
