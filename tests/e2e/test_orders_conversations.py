"""Order conversations end to end (issue 14, items 5 and 6): langgraph dev + the LangGraph SDK +
the real ERP, on the offline planner.

- a free-text answer to the order agent's question keeps everything it gives: the quantity,
  the delivery date and a note reach the ERP row;
- a change by description ("the latest order to KMC") finds the order through the ERP's
  order search, shows it before proposing the change, and after approval that order (and
  no other) has the new date and the next version;
- a description several orders fit gets a question naming them; the one the buyer picks
  is the one changed.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from langgraph_sdk.client import LangGraphClient

from runstack.threads import interrupts
from tests.e2e.agents_stack import Stack, orders_from
from tests.e2e.test_agents_orders import APPROVE, new_thread, run, user

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def said(text: str) -> dict[str, Any]:
    return {"messages": [{"role": "user", "content": text}]}


def next_friday(today: date) -> date:
    monday = today - timedelta(days=today.weekday())
    friday = monday + timedelta(days=7 + 4)
    return friday if friday > today else friday + timedelta(days=7)


def kmc_orders(stack: Stack) -> list[dict[str, Any]]:
    """KMC's orders, newest first, as the ERP has them now."""
    [kmc] = [s for s in stack.erp_get("/suppliers/search", name="KMC")["items"]
             if s["code"] == "KMC"]  # fmt: skip
    items: list[dict[str, Any]] = stack.erp_get(
        "/orders/search-details", supplier_id=kmc["id"], size=5
    )["items"]
    return items


async def test_a_free_text_answer_keeps_its_quantity_date_and_note(
    stack: Stack, client: LangGraphClient
) -> None:
    who = user("buyer-free-text")
    thread_id = await new_thread(client)
    thread = await run(client, thread_id, who, input=said("给 NGK 下单火花塞 IU7"))
    [asked] = interrupts(thread)
    assert asked["value"]["type"] == "request_order_info"
    assert asked["value"]["fields"] == ["quantity"]

    # The buyer answers in a sentence, not a form: every field it gives is kept.
    answer = "要 240 个，6周内到货，备注：补安全库存"
    thread = await run(client, thread_id, who, command={"resume": answer})
    [approval] = interrupts(thread)
    args = approval["value"]["action_requests"][0]["args"]
    due = (date.today() + timedelta(weeks=6)).isoformat()
    assert args["lines"][0]["quantity"] == 240 and args["expected_date"] == due, args
    assert orders_from(stack, args) == []  # nothing before approval

    await run(client, thread_id, who, command=APPROVE)
    [order] = orders_from(stack, args)
    assert [(ln["sku"], ln["quantity"]) for ln in order["lines"]] == [("SP-NGK-IU7", 240)]
    assert order["expected_date"] == due
    assert "补安全库存" in order["note"]


async def test_a_change_by_description_shows_the_order_then_changes_only_it(
    stack: Stack, client: LangGraphClient
) -> None:
    who = user("buyer-change")
    newest, *older = kmc_orders(stack)
    due = next_friday(date.today()).isoformat()
    assert newest["expected_date"] != due
    thread_id = await new_thread(client)
    thread = await run(client, thread_id, who, input=said("把最近一次给桂盟的订单交期推迟到下周五"))
    [approval] = interrupts(thread)
    action = approval["value"]["action_requests"][0]
    assert action["name"] == "order_update"
    assert action["args"]["order_id"] == newest["order_no"]
    assert action["args"]["expected_version"] == newest["version"]
    # The buyer sees the order found (number, supplier, its lines and dates) before deciding.
    card = action["description"]
    for words in (newest["order_no"], "桂盟", newest["lines"][0]["sku"], f"→ {due}"):
        assert words in card, card
    assert kmc_orders(stack)[0]["version"] == newest["version"]  # nothing before approval

    await run(client, thread_id, who, command=APPROVE)
    after = {o["order_no"]: o for o in kmc_orders(stack)}
    changed = after[newest["order_no"]]
    assert changed["expected_date"] == due
    assert changed["version"] == newest["version"] + 1
    for order in older:  # no other KMC order moved
        assert after[order["order_no"]]["version"] == order["version"]
    audit = stack.erp_get("/audit", entity_id=changed["id"])["items"]
    assert audit[0]["actor"] == "buyer-change"


async def test_several_orders_fit_the_description_so_the_buyer_picks_one(
    stack: Stack, client: LangGraphClient
) -> None:
    who = user("buyer-picks")
    newest, *older = kmc_orders(stack)
    # An older order whose date can still change (a closed one cannot).
    second = next(o for o in older if o["status"] not in ("closed", "cancelled"))
    thread_id = await new_thread(client)
    thread = await run(client, thread_id, who, input=said("把给桂盟的那个订单交期改到下周五"))
    [asked] = interrupts(thread)
    assert asked["value"]["fields"] == ["order_no"]
    options = " ".join(asked["value"].get("options") or [])
    assert newest["order_no"] in options and second["order_no"] in options

    thread = await run(client, thread_id, who, command={"resume": f"是 {second['order_no']}"})
    [approval] = interrupts(thread)
    assert approval["value"]["action_requests"][0]["args"]["order_id"] == second["order_no"]
    await run(client, thread_id, who, command=APPROVE)
    after = {o["order_no"]: o for o in kmc_orders(stack)}
    assert after[second["order_no"]]["version"] == second["version"] + 1
    assert after[second["order_no"]]["expected_date"] == next_friday(date.today()).isoformat()
    assert after[newest["order_no"]]["version"] == newest["version"]
