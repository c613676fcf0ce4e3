"""Who we buy a category from most, which orders still wait for approval, and an order of
something the catalogue does not hold, through the planner's real decision path against
the real seeded ERP (the expected figures added up here from the ERP's own order pages).

From the ninth red-team round: "我们火花塞主要从哪家买" started a price comparison (a study of
offers, not of what we bought); "who do we buy the most chains from?" answered "whether to
place this order is your call"; "who is our main spark plug supplier?" was out of scope.
"待审批的订单" said that I cannot approve orders, "哪些订单还没批" listed the newest orders
whatever their status, "anything waiting for approval?" was out of scope. "order 2 boxes of
engine oil" and "订两箱机油" were "outside what I do" with no word about the catalogue.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

import pytest

from tests.unit.planner_harness import (
    TODAY,
    PlannerWorld,
    Script,
    nothing_done,
    sold_part,
)


async def _top_supplier(world: PlannerWorld, code: str) -> tuple[str, int, int]:
    """The supplier the category's lines of the last 12 months (orders not cancelled) spent
    most with, in CNY, its orders of them, and how many such orders there are in all."""
    ids = {p["id"] for p in await world.erp_pages("/parts", category=code)}
    start = date(TODAY.year - 1, TODAY.month, TODAY.day) + timedelta(days=1)
    orders = await world.erp_pages("/orders/search-details", date_from=start.isoformat(),
                          date_to=TODAY.isoformat())  # fmt: skip
    spent: dict[str, int] = {}
    placed: dict[str, int] = {}
    n = 0
    for order in orders:
        lines = [ln for ln in order["lines"] if ln["part_id"] in ids]
        if order["status"] == "cancelled" or not lines:
            continue
        n += 1
        placed[order["supplier_code"]] = placed.get(order["supplier_code"], 0) + 1
        if order["currency"] == "CNY":
            code_ = order["supplier_code"]
            spent[code_] = spent.get(code_, 0) + sum(ln["amount_minor"] for ln in lines)
    top = max(spent, key=lambda k: spent[k])
    return top, placed[top], n


async def _categories(world: PlannerWorld) -> list[dict[str, Any]]:
    items = (await world.erp("/categories"))["items"]
    return [items[0], items[len(items) // 2], items[-1]]


@pytest.mark.parametrize(
    "ask",
    [
        "我们{zh}主要从哪家买",
        "{zh}一般在哪家采购？",
        "who is our main {en} supplier?",
        "who do we buy the most {en}s from?",
        "{zh}我们平时找谁买",
        "who's our go-to {en} supplier?",
    ],
)
async def test_who_we_buy_a_category_from_most(world: PlannerWorld, ask: str) -> None:
    for category in await _categories(world):
        top, theirs, n = await _top_supplier(world, category["code"])
        text = ask.format(zh=category["name_zh"], en=category["name_en"].lower())
        run = await world.run(text)
        nothing_done(run)
        assert run.question is None, (text, run.question)
        first = run.last_text.splitlines()[0]
        assert re.search(rf"\b{re.escape(top)}\b", first), (text, top, run.last_text)
        assert re.search(rf"[（(]{theirs}\s", first), (text, theirs, first)  # its orders
        assert f"{n} " in run.last_text, (text, n, run.last_text)  # every order of the year


async def test_orders_waiting_for_approval_are_listed_and_none_approved(
    world: PlannerWorld,
) -> None:
    asks = ["哪些订单还没批", "待审批的订单", "show me orders pending approval",
            "anything waiting for approval?", "还有几张单没审批",
            "orders that haven't been approved yet"]  # fmt: skip
    for ask in asks:
        run = await world.run(ask)
        nothing_done(run)
        said = run.last_text
        assert ("没有" in said and "审批" in said) or ("no " in said and "approv" in said), said
    part, supplier, q = await sold_part(world)
    placed = await world.run(f"给{supplier['code']}下单 {part['model']} {q}个",
                             script=Script(decisions=[{"type": "approve"}]))  # fmt: skip
    [order_no] = set(re.findall(r"PO\d{11}", placed.final))
    [row] = (await world.erp("/orders/search-details", order_no=order_no))["items"]
    assert row["status"] in ("draft", "pending_approval")
    received = (await world.erp("/orders/search-details", status="received", size=1))["items"]
    for ask in asks:
        before = world.fingerprint()
        run = await world.run(ask)
        nothing_done(run)
        assert order_no in run.last_text, (ask, run.last_text)
        assert received[0]["order_no"] not in run.last_text, (ask, run.last_text)
        assert world.fingerprint() == before
    # Asking me to approve them is still refused: approval is a person's, on the card.
    run = await world.run("你把待审批的订单都批准了吧")
    nothing_done(run)
    assert "批准" in run.last_text, run.last_text
    [after] = (await world.erp("/orders/search-details", order_no=order_no))["items"]
    assert after["status"] == row["status"] and after["approved_by"] is None


@pytest.mark.parametrize(
    ("ask", "zh"),
    [("订两箱机油", True), ("order 2 boxes of engine oil", False), ("订20个头盔", True)],
)
async def test_an_order_of_what_the_catalogue_lacks_says_so(
    world: PlannerWorld, ask: str, zh: bool
) -> None:
    before = world.fingerprint()
    run = await world.run(ask)
    nothing_done(run)
    assert run.question is None
    said = run.last_text
    assert ("目录" in said and "没有下单" in said) if zh else ("catalogue" in said), said
    assert world.fingerprint() == before


@pytest.mark.parametrize(
    "ask", ["我们在 {code} 一年花多少钱", "我们在{name}一年花多少", "annual spend with {code}?"]
)
async def test_a_years_spend_with_a_supplier(world: PlannerWorld, ask: str) -> None:
    # "一年花多少钱" was read as a category named "年花"; a year is the last 12 months.
    newest = (await world.erp("/orders/search-details", size=1))["items"][0]
    code, name = newest["supplier_code"], newest["supplier_name_zh"]
    start = date(TODAY.year - 1, TODAY.month, TODAY.day) + timedelta(days=1)
    orders = await world.erp_pages("/orders/search-details", supplier_id=newest["supplier_id"],
                          date_from=start.isoformat(), date_to=TODAY.isoformat())  # fmt: skip
    kept = [o for o in orders if o["status"] != "cancelled"]
    cny = sum(o["total_minor"] for o in kept if o["currency"] == "CNY")
    run = await world.run(ask.format(code=code, name=name))
    nothing_done(run)
    assert run.question is None, run.question
    said = run.last_text
    assert f"{cny / 100:,.2f}" in said and str(len(kept)) in said, (cny, len(kept), said)
    assert start.isoformat() in said, said


async def test_the_last_three_orders_read_no_requesters(world: PlannerWorld) -> None:
    # "最近三张订单": 张 after a numeral is a measure word, not the family name Zhang.
    newest = (await world.erp("/orders/search-details", size=4))["items"]
    run = await world.run("最近三张订单")
    nothing_done(run)
    assert not run.called("order_summary"), run.calls
    said = run.last_text
    assert all(o["order_no"] in said for o in newest[:3]), said
    assert newest[3]["order_no"] not in said, said


@pytest.mark.parametrize("ask", ["帮我看看这个月要补哪些货", "哪些零件需要补"])
async def test_what_needs_restocking_is_the_stock_below_safety(
    world: PlannerWorld, ask: str
) -> None:
    # Both were "outside what I do"; "库存低于安全库存的都补一下" already listed them.
    short = (await world.erp("/inventory/warnings", size=5))["items"]
    assert short
    before = world.fingerprint()
    run = await world.run(ask)
    nothing_done(run)
    assert all(item["sku"] in run.last_text for item in short), run.last_text
    assert world.fingerprint() == before


async def _open_order(world: PlannerWorld, key: str, expected: str) -> str:
    """An approved order (open: nothing received) due on ``expected``, through the ERP's API."""
    part, supplier, q = await sold_part(world)
    answer = await world.erp_post("/orders/create", {
        "idempotency_key": f"overdue-{key}", "supplier_id": supplier["id"],
        "lines": [{"part_id": part["id"], "quantity": q}], "requested_by": "li.na",
        "approved_by": "chen.jing", "order_date": "2026-11-02", "expected_date": expected,
    })  # fmt: skip
    assert answer.status_code == 201, answer.text
    return str(answer.json()["order_no"])


@pytest.mark.parametrize("ask", ["哪些订单逾期了", "which orders are overdue?", "any late orders?"])
async def test_overdue_orders_are_the_open_ones_past_their_date(
    world: PlannerWorld, ask: str
) -> None:
    # They listed the newest orders (all received) or asked for an order number.
    none = await world.run(ask)
    nothing_done(none)
    assert re.findall(r"PO\d{11}", none.last_text) == [], none.last_text
    late = await _open_order(world, "late", (TODAY - timedelta(days=3)).isoformat())
    due = await _open_order(world, "due", (TODAY + timedelta(days=10)).isoformat())
    run = await world.run(ask)
    nothing_done(run)
    assert set(re.findall(r"PO\d{11}", run.last_text)) == {late}, (late, due, run.last_text)


@pytest.mark.parametrize(
    ("ask", "smallest"),
    [("what was our most expensive PO last month?", False), ("上个月金额最大的一张订单", False),
     ("smallest order last month", True), ("上个月最小的一笔订单", True),
     ("any big orders last month?", False), ("上个月有什么大单", False)],
)  # fmt: skip
async def test_the_largest_or_smallest_order_of_a_period(
    world: PlannerWorld, ask: str, smallest: bool
) -> None:
    # "largest order this year" was read as an order of something the catalogue lacks.
    orders = await world.erp_pages("/orders/search-details", date_from="2026-11-01",
                          date_to="2026-11-30")  # fmt: skip
    cny = [o for o in orders if o["status"] != "cancelled" and o["currency"] == "CNY"]
    pick = (min if smallest else max)(cny, key=lambda o: o["total_minor"])
    run = await world.run(ask)
    nothing_done(run)
    assert re.findall(r"PO\d{11}", run.last_text) == [pick["order_no"]], (pick, run.last_text)


@pytest.mark.parametrize(
    ("ask", "period"),
    # the seventeenth round: "谁下单最多" asked for a supplier, part and quantity to order; the
    # others were out of scope or a category's orders
    [("谁下单最多", None), ("which requester spends the most?", None),
     ("上个月谁花钱最多", ("2026-11-01", "2026-11-30")),
     ("who usually orders {en}s?", None)],
)  # fmt: skip
async def test_who_orders_most_is_the_spend_by_requester(
    world: PlannerWorld, ask: str, period: tuple[str, str] | None
) -> None:
    category = (await _categories(world))[0]
    start, end = period or ((TODAY - timedelta(days=364)).isoformat(), TODAY.isoformat())
    query: dict[str, Any] = {"date_from": start, "date_to": end, "group_by": "requester"}
    if "{en}" in ask:
        query["category"] = category["code"]
    top = (await world.erp("/orders/summary", **query))["groups"][0]
    run = await world.run(ask.format(en=category["name_en"].lower()))
    nothing_done(run)
    assert run.question is None, run.question
    first = run.last_text.splitlines()[0]
    assert str(top["key"]) in first and str(top["orders"]) in first, (top, run.last_text)


@pytest.mark.parametrize("ask", ["上个月采购汇总", "give me a summary of last month's purchasing"])
async def test_a_purchasing_summary_is_the_periods_spend(world: PlannerWorld, ask: str) -> None:
    summary = await world.erp("/orders/summary", date_from="2026-11-01", date_to="2026-11-30")
    run = await world.run(ask)
    nothing_done(run)
    assert run.question is None, run.question
    assert re.search(rf"\b{summary['orders']} (?:张订单|orders)", run.last_text), run.last_text


async def test_list_every_order_from_a_supplier(world: PlannerWorld) -> None:
    # The seventeenth round: "list every order from Bosch this year" asked what to order.
    orders = await world.erp_pages("/orders/search-details", date_from="2026-01-01",
                                   date_to=TODAY.isoformat())  # fmt: skip
    code = orders[len(orders) // 2]["supplier_code"]
    theirs = {o["order_no"] for o in orders if o["supplier_code"] == code}
    supplier = (await world.erp("/suppliers/search", name=code, size=5))["items"][0]
    run = await world.run(f"list every order from {supplier['name_en']} this year")
    nothing_done(run)
    listed = set(re.findall(r"PO\d{11}", run.last_text))
    assert listed and listed <= theirs, (listed - theirs, run.last_text)
