"""Orders and spend of the person who asked for them, named the way buyers name colleagues,
through the planner's real decision path against the real seeded ERP (each expected figure
read here from the ERP's own order pages).

From a red-team round: "what did Zhang Wei order last month?" listed everybody's orders.
The ERP knows requesters by user id ("zhang.wei"); the seed's purchasing team is 张伟
(zhang.wei), 李娜 (li.na) and 王强 (wang.qiang).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.unit.planner_harness import TODAY, PlannerWorld, sold_part

NOVEMBER = ("2026-11-01", "2026-11-30")
THIS_YEAR = ("2026-01-01", TODAY.isoformat())


async def _orders(world: PlannerWorld, period: tuple[str, str]) -> list[dict[str, Any]]:
    return await world.erp_pages("/orders/search-details", date_from=period[0],
                                 date_to=period[1])  # fmt: skip


@pytest.mark.parametrize(
    ("asked", "user"),
    [
        ("what did Zhang Wei order last month?", "zhang.wei"),
        ("show me Na Li's orders from last month", "li.na"),
        ("张伟上个月下了哪些单", "zhang.wei"),
        ("王强上个月的订单", "wang.qiang"),
        ("li.na 上个月的订单", "li.na"),
    ],
)
async def test_the_orders_of_the_person_named(world: PlannerWorld, asked: str, user: str) -> None:
    orders = await _orders(world, NOVEMBER)
    theirs = {o["order_no"] for o in orders if o["requested_by"] == user}
    assert theirs and len(theirs) < len(orders)
    run = await world.run(asked)
    shown = set(re.findall(r"PO\d{11}", run.last_text))
    assert shown and shown <= theirs, run.last_text
    assert user in run.last_text and str(len(theirs)) in run.last_text, run.last_text
    assert run.proposal is None and not run.delegations


@pytest.mark.parametrize(
    ("asked", "user"),
    [("how much did Wang Qiang spend this year?", "wang.qiang"), ("李娜今年花了多少钱", "li.na")],
)
async def test_the_spend_of_the_person_named(world: PlannerWorld, asked: str, user: str) -> None:
    orders = await _orders(world, THIS_YEAR)
    cny = sum(o["total_minor"] for o in orders
              if o["requested_by"] == user and o["status"] != "cancelled"
              and o["currency"] == "CNY")  # fmt: skip
    run = await world.run(asked)
    assert f"{cny / 100:,.2f} CNY" in run.last_text and user in run.last_text, run.last_text


@pytest.mark.parametrize("asked", ["上个月的订单", "Spark Plug orders last month", "这张单的状态"])
async def test_no_person_named_reads_no_requesters(world: PlannerWorld, asked: str) -> None:
    run = await world.run(asked)
    assert not [a for a in run.called("order_summary") if a.get("group_by") == "requester"]
    assert not any(u in run.last_text for u in ("zhang.wei", "li.na", "wang.qiang"))


@pytest.mark.parametrize(
    "asked",
    [
        "what did Liu Yang order last month?",
        "show me orders by Liu Yang",
        "Liu Yang's orders this year",
        "liu.yang 上个月的订单",
        "刘洋下了哪些单",
        "刘洋今年花了多少钱",
    ],
)
async def test_a_person_no_requester_is_is_said_not_answered_with_everybodys(
    world: PlannerWorld, asked: str
) -> None:
    # Listing everybody's orders (or the company's spend) under a question about one person
    # reads as if they were that person's. The ERP's requesters are named instead.
    users = {o["requested_by"] for o in await _orders(world, THIS_YEAR)}
    assert "liu.yang" not in users
    before = world.fingerprint()
    run = await world.run(asked)
    said = run.last_text
    assert re.findall(r"PO\d{11}", said) == [] and "CNY" not in said, said
    assert all(u in said for u in users), (users, said)
    assert ("刘洋" in said) if "刘洋" in asked else ("liu" in said.lower()), said
    assert run.proposal is None and world.fingerprint() == before


@pytest.mark.parametrize("asked", ["Open Orders from NGK", "Spark Plug orders last month"])
async def test_capitalised_words_that_name_no_person_ask_nothing(
    world: PlannerWorld, asked: str
) -> None:
    run = await world.run(asked)
    assert "requester" not in run.last_text.lower(), run.last_text
    assert run.question is None, run.question


async def _approved_by(world: PlannerWorld, user: str, n: int) -> list[dict[str, Any]]:
    """``n`` orders of November approved by ``user`` (the seed has one approver), written
    through the ERP's own API."""
    part, supplier, q = await sold_part(world)
    rows = []
    for i in range(n):
        answer = await world.erp_post("/orders/create", {
            "idempotency_key": f"approved-by-{user}-{i:03d}", "supplier_id": supplier["id"],
            "lines": [{"part_id": part["id"], "quantity": q * (i + 1)}],
            "requested_by": "li.na", "approved_by": user, "order_date": f"2026-11-{20 + i}",
        })  # fmt: skip
        assert answer.status_code == 201, answer.text
        rows.append(answer.json())
    return rows


@pytest.mark.parametrize(
    "asked",
    ["zhao.min 批了哪些单", "赵敏上个月审批的订单", "what did Min Zhao approve last month?",
     "orders approved by Zhao Min"],
)  # fmt: skip
async def test_the_orders_an_approver_approved(world: PlannerWorld, asked: str) -> None:
    # "陈静批了哪些单" listed the newest orders whoever approved them ("审批的订单" was even read as
    # a request to approve); who approved is now a filter, like who asked.
    theirs = {o["order_no"] for o in await _approved_by(world, "zhao.min", 2)}
    before = world.fingerprint()
    run = await world.run(asked)
    assert set(re.findall(r"PO\d{11}", run.last_text)) == theirs, run.last_text
    assert "zhao.min" in run.last_text
    assert run.proposal is None and world.fingerprint() == before


async def test_what_an_approver_approved_adds_up_and_an_unknown_one_is_said(
    world: PlannerWorld,
) -> None:
    rows = await _approved_by(world, "zhao.min", 2)
    run = await world.run("赵敏今年批了多少钱的单")
    total = sum(r["total_minor"] for r in rows)
    assert f"{total / 100:,.2f}" in run.last_text and "2 张" in run.last_text, run.last_text
    unknown = await world.run("刘洋批了哪些单")
    said = unknown.last_text
    assert "刘洋" in said and "zhao.min" in said and "chen.jing" in said, said
    assert re.findall(r"PO\d{11}", said) == [], said
