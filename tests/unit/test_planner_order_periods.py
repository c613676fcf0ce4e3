"""An existing order named by when it was placed ("上周给博世下的订单", "the order we placed
with NGK last month"), through the planner's real decision path against the real seeded ERP.

Written from the buyer's side: "last week" means last week, not "the newest order, whenever
it was". A look-up shows the orders of that period (or says there were none, and which is
the newest); a change or a cancellation acts only on an order of that period and asks
which one when there are several. The supplier each test names is chosen from the ERP's
own orders, so the situation it needs exists whatever the seed holds.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld

LAST_WEEK = (date(2026, 11, 23), date(2026, 11, 29))
LAST_MONTH = (date(2026, 11, 1), date(2026, 11, 30))
ORDER_NO = re.compile(r"PO\d{11}")


async def _orders(
    world: PlannerWorld, supplier_id: int, span: tuple[date, date] | None = None
) -> list[dict[str, Any]]:
    """The supplier's orders (in ``span``), newest first, as the ERP lists them."""
    query: dict[str, Any] = {"supplier_id": supplier_id, "size": 100}
    if span:
        query.update(date_from=span[0].isoformat(), date_to=span[1].isoformat())
    return list((await world.erp("/orders/search-details", **query))["items"])


async def _supplier_with(
    world: PlannerWorld, span: tuple[date, date], count: range, *, outside: bool = True
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """An active supplier with ``count`` orders in ``span`` (and, when ``outside``, a newer
    or older one outside it, so "the newest order" would be the wrong answer)."""
    suppliers = await world.suppliers()
    for supplier in suppliers:
        inside = await _orders(world, supplier["id"], span)
        if len(inside) not in count:
            continue
        every = await _orders(world, supplier["id"])
        if outside and len(every) == len(inside):
            continue
        return supplier, inside
    pytest.fail(f"the seed has no supplier with {count} orders in {span}")  # pragma: no cover


def _named(run_text: str) -> set[str]:
    return set(ORDER_NO.findall(run_text))


async def test_a_look_up_by_last_week_lists_that_weeks_orders(world: PlannerWorld) -> None:
    supplier, inside = await _supplier_with(world, LAST_WEEK, range(1, 6))
    run = await world.run(f"上周给{supplier['name_zh']}下的订单有哪些")
    assert run.proposal is None and not run.delegations
    shown = _named(run.last_text)
    assert {o["order_no"] for o in inside} <= shown, (inside, run.last_text)
    every = {o["order_no"]: o for o in await _orders(world, supplier["id"])}
    assert all(LAST_WEEK[0].isoformat() <= every[n]["order_date"] <= LAST_WEEK[1].isoformat()
               for n in shown), run.last_text  # fmt: skip


async def test_a_period_without_orders_says_so_and_names_the_newest(world: PlannerWorld) -> None:
    suppliers = await world.suppliers()
    for supplier in suppliers:
        every = await _orders(world, supplier["id"])
        if every and not await _orders(world, supplier["id"], LAST_WEEK):
            break
    else:  # pragma: no cover
        pytest.fail("every supplier with orders has one last week")
    run = await world.run(f"What did we order from {supplier['name_en']} last week?")
    text = run.last_text
    assert run.proposal is None
    assert re.search(r"\bno\b", text, re.I), text
    assert "2026-11-23" in text and "2026-11-29" in text, text
    assert _named(text) == {every[0]["order_no"]}, text  # the newest, said to be outside


async def test_a_change_by_last_month_asks_which_of_its_orders(world: PlannerWorld) -> None:
    supplier, inside = await _supplier_with(world, LAST_MONTH, range(2, 50))
    before = world.fingerprint()
    run = await world.run(f"把上个月给{supplier['name_zh']}的订单改到 12 月 28 日到货")
    assert run.proposal is None, run.proposal
    assert run.question is not None and "order_no" in run.question["fields"], run.last_text
    offered = _named(" ".join(run.question.get("options") or []))
    assert offered and offered <= {o["order_no"] for o in inside}, run.question
    assert world.fingerprint() == before


async def test_a_change_acts_only_on_the_one_order_of_the_period(world: PlannerWorld) -> None:
    supplier, inside = await _supplier_with(world, LAST_WEEK, range(1, 2))
    [order] = inside
    run = await world.run(f"把上周给{supplier['name_zh']}的那张订单推迟 3 天到货")
    named = _named(run.last_text) | ({run.proposal[1]["order_id"]} if run.proposal else set())
    assert named == {order["order_no"]}, run.last_text
    assert run.proposal is not None and run.proposal[0] == "order_update"
    moved = date.fromisoformat(order["expected_date"]) + timedelta(days=3)
    assert run.proposal[1]["expected_date"] == moved.isoformat()


@pytest.mark.parametrize(
    ("text", "note"),
    [
        ("给上次给NGK的订单加个备注：第二批", "第二批"),
        ("add a note to my last NGK order: urgent", "urgent"),
        ("put a note on the last NGK order: second batch", "second batch"),
    ],
)
async def test_a_note_added_to_the_last_order_is_the_change(
    world: PlannerWorld, text: str, note: str
) -> None:
    suppliers = (await world.erp("/suppliers/search", name="NGK", size=20))["items"]
    [ngk] = [s for s in suppliers if s["code"] == "NGK"]
    newest = (await _orders(world, ngk["id"]))[0]
    run = await world.run(text)
    assert run.proposal is not None, (run.notes, run.last_text)
    name, args = run.proposal
    assert name == "order_update" and args["order_id"] == newest["order_no"]
    assert args["note"] == note and "lines" not in args and "expected_date" not in args


MONTHS_EN = ("January", "February", "March", "April", "May", "June", "July", "August",
             "September", "October", "November", "December")  # fmt: skip


@pytest.mark.parametrize("template", ["{month}月份给{zh}的单", "orders from {code} in {month_en}"])
async def test_a_month_named_lists_that_months_orders(world: PlannerWorld, template: str) -> None:
    month = date(2026, 10, 1)
    span = (month, date(2026, 10, 31))
    supplier, inside = await _supplier_with(world, span, range(1, 20))
    text = template.format(month=month.month, zh=supplier["name_zh"], code=supplier["code"],
                           month_en=MONTHS_EN[month.month - 1])  # fmt: skip
    run = await world.run(text)
    assert run.proposal is None and not run.delegations
    shown = _named(run.last_text)
    assert shown == {o["order_no"] for o in inside}, (text, inside, run.last_text)


async def test_a_month_without_a_supplier_counts_that_months_orders(world: PlannerWorld) -> None:
    every = (await world.erp("/orders/search-details", date_from="2026-11-01",
                             date_to="2026-11-30", size=1))["total"]  # fmt: skip
    for text in ("11月份的采购订单有哪些", "show me all orders we placed in November"):
        run = await world.run(text)
        assert run.question is None and run.proposal is None, run.last_text
        assert str(every) in run.last_text, (text, run.last_text)


async def _ordered_skus(world: PlannerWorld, start: str, end: str) -> set[str]:
    """The SKUs on the orders of [start, end] that were not cancelled, read page by page."""
    orders = await world.erp_pages("/orders/search-details", date_from=start, date_to=end)
    return {ln["sku"] for o in orders if o["status"] != "cancelled" for ln in o["lines"]}


@pytest.mark.parametrize(
    ("template", "months", "one_category"),
    [
        # the nineteenth red-team round: each listed the period's orders instead
        ("Which parts haven't been ordered in 6 months?", 6, False),
        ("哪些零件半年没订过", 6, False),
        ("{zh}里哪些型号超过3个月没采购了", 3, True),
        ("which {en}s have we not bought in the last 3 months?", 3, True),
    ],
)
async def test_the_parts_nobody_ordered_over_a_period(
    world: PlannerWorld, template: str, months: int, one_category: bool
) -> None:
    category = (await world.erp("/categories"))["items"][0]
    today = world.today
    back = {6: date(2026, 6, 4), 3: date(2026, 9, 4)}[months]  # the day after, months back
    assert today == date(2026, 12, 3)
    ordered = await _ordered_skus(world, back.isoformat(), today.isoformat())
    query = {"category": category["code"]} if one_category else {}
    catalogue = {p["sku"] for p in await world.erp_pages("/parts", **query)}
    idle = catalogue - ordered
    before = world.fingerprint()
    run = await world.run(template.format(zh=category["name_zh"], en=category["name_en"].lower()))
    assert run.proposal is None and not run.delegations, run.calls
    text = run.last_text
    assert back.isoformat() in text and today.isoformat() in text, text  # the period, said
    assert re.search(rf"(?<!\d){len(idle)}(?!\d)", text) and str(len(catalogue)) in text, text
    shown = set(re.findall(r"[A-Z]{2}-[A-Z0-9][\w.-]*[A-Za-z0-9]", text))
    assert shown and shown <= idle, shown - idle  # every part named was not ordered
    assert world.fingerprint() == before


@pytest.mark.parametrize(
    ("said", "days"),
    [
        # the nineteenth red-team round: the newest order alone, or "which order is it?"
        ("给我看看最近一周的订单", 7),
        ("show me orders from the past week", 7),
        ("近10天的订单", 10),
        ("orders from the last 14 days", 14),
    ],
)
async def test_orders_of_a_rolling_window_are_listed(
    world: PlannerWorld, said: str, days: int
) -> None:
    start = world.today - timedelta(days=days - 1)
    orders = await world.erp_pages("/orders/search-details", date_from=start.isoformat(),
                                   date_to=world.today.isoformat())  # fmt: skip
    assert len(orders) >= 2  # a list, not the newest order alone
    run = await world.run(said)
    assert run.proposal is None and run.question is None, run.last_text
    assert start.isoformat() in run.last_text, run.last_text
    shown = set(re.findall(r"PO\d{11}", run.last_text))
    assert shown == {o["order_no"] for o in orders}, run.last_text
