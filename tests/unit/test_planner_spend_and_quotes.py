"""Questions about money spent, quantities bought and whether a delivery date can be made,
through the planner's real decision path against the real seeded ERP.

Written from a red-team round of buyer phrasings: "KMC 2026年的采购金额", "how much did we
spend with Bosch last quarter?", "我们今年从桂盟买了多少钱的货" (read as a part category named
"今年"), "我们今年买了多少IU7" (a list of orders, no quantity), "老板让我问下GZMT IU7 100个能
不能12月20号到" (a price list with no word about the date), "GZMT的IU7起订量多少？" (every
supplier's offer, the one asked about lost among them). Every expected figure is read from
the ERP's own orders and offers; nothing may be ordered.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest

from tests.unit.planner_harness import TODAY, PlannerWorld, Run, priced_today

LAST_QUARTER = (date(2026, 7, 1), date(2026, 9, 30))  # July to September, the calendar's
THIS_YEAR = (date(2026, 1, 1), TODAY)
COMMITTING = ("order_create", "order_update", "order_validate")


def _nothing_ordered(run: Run) -> None:
    assert not any(run.called(t) for t in COMMITTING), run.calls
    assert run.proposal is None and run.question is None, (run.proposal, run.question)
    assert not run.delegations, run.delegations


async def _orders(world: PlannerWorld, span: tuple[date, date], **query: Any) -> list[Any]:
    found = await world.erp("/orders/search-details", date_from=span[0].isoformat(),
                            date_to=span[1].isoformat(), size=100, **query)  # fmt: skip
    assert not found.get("has_more"), "more than a page: the test would undercount"
    return list(found["items"])


def _money(orders: list[dict[str, Any]]) -> str:
    total = sum(o["total_minor"] for o in orders if o["status"] != "cancelled")
    return f"{total / 100:,.2f}"


async def _supplier_with_orders(world: PlannerWorld, span: tuple[date, date]) -> Any:
    for supplier in await world.suppliers():
        orders = await _orders(world, span, supplier_id=supplier["id"])
        if len([o for o in orders if o["status"] != "cancelled"]) >= 2:
            return supplier, orders
    pytest.fail(f"the seed has no supplier with two orders in {span}")  # pragma: no cover


@pytest.mark.parametrize(
    ("template", "span"),
    [
        ("{code} 2026年的采购金额", THIS_YEAR),
        ("我们今年从{zh}买了多少钱的货", THIS_YEAR),
        ("how much business did we do with {code} this year?", THIS_YEAR),
        ("how much did we spend with {code} last quarter?", LAST_QUARTER),
        ("上季度在{zh}身上花了多少钱", LAST_QUARTER),
    ],
)
async def test_spend_with_a_supplier_over_a_named_period(
    world: PlannerWorld, template: str, span: tuple[date, date]
) -> None:
    supplier, orders = await _supplier_with_orders(world, span)
    run = await world.run(template.format(code=supplier["code"], zh=supplier["name_zh"]))
    _nothing_ordered(run)
    text = run.last_text
    assert span[0].isoformat() in text and span[1].isoformat() in text, text
    assert _money(orders) in text, (_money(orders), text)


async def test_a_year_named_in_english_is_that_year(world: PlannerWorld) -> None:
    span = (date(2025, 12, 1), date(2025, 12, 31))  # the seed's history starts a year back
    supplier, _ = await _supplier_with_orders(world, span)
    run = await world.run(f"what did we spend with {supplier['code']} in 2025?")
    _nothing_ordered(run)
    year = await _orders(world, (date(2025, 1, 1), date(2025, 12, 31)),
                         supplier_id=supplier["id"])  # fmt: skip
    assert "2025-01-01" in run.last_text and "2025-12-31" in run.last_text, run.last_text
    assert _money(year) in run.last_text, run.last_text


@pytest.mark.parametrize(
    "template",
    [
        "我们今年买了多少{model}",
        "{model} 今年一共订了多少个",
        "how many {model} did we buy this year?",
    ],
)
async def test_the_quantity_of_a_part_bought_this_year(world: PlannerWorld, template: str) -> None:
    # A part ordered at least twice this year (not cancelled), from whichever suppliers.
    for order in await _orders(world, (date(2026, 6, 1), date(2026, 6, 30))):
        part = await world.erp(f"/parts/{order['lines'][0]['part_id']}")
        same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
        mine = [o for o in await _orders(world, THIS_YEAR, part_id=part["id"])
                if o["status"] != "cancelled"]  # fmt: skip
        if len(same) == 1 and len(mine) >= 2:
            break
    else:  # pragma: no cover
        pytest.fail("the seed has no part ordered twice this year")
    quantity = sum(ln["quantity"] for o in mine for ln in o["lines"] if ln["part_id"] == part["id"])
    run = await world.run(template.format(model=part["model"]))
    _nothing_ordered(run)
    assert str(quantity) in run.last_text and part["sku"] in run.last_text, (
        quantity,
        run.last_text,
    )
    assert all(o["order_no"] in run.last_text for o in mine[:10]), run.last_text


async def _two_sellers(world: PlannerWorld) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A part its model names alone with at least three offers valid today (the dearest
    one's supplier is the one asked about, so it is not first by price)."""
    for category in (await world.erp("/categories"))["items"]:
        for listed in (await world.erp("/parts", category=category["code"], size=20))["items"]:
            part = await world.erp(f"/parts/{listed['id']}")
            same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
            offers = [o for o in part["offers"] if priced_today({"offer": o})
                      and o.get("lead_time_days")]  # fmt: skip
            if len(same) == 1 and len(offers) >= 3 and len({o["currency"] for o in offers}) == 1:
                return part, sorted(offers, key=lambda o: o["price_minor"])
    pytest.fail("the seed has no part with three offers")  # pragma: no cover


@pytest.mark.parametrize(
    "template", ["{sup}的{model}起订量多少？", "what is {sup}'s minimum order for {model}?"]
)
async def test_the_supplier_asked_about_comes_first(world: PlannerWorld, template: str) -> None:
    part, offers = await _two_sellers(world)
    asked = offers[-1]  # the dearest
    run = await world.run(template.format(sup=asked["supplier_code"], model=part["model"]))
    _nothing_ordered(run)
    lines = [ln for ln in run.last_text.splitlines() if ln.startswith("- ")]
    assert lines and f"({asked['supplier_code']})" in lines[0].replace("（", "(").replace(
        "）", ")"), run.last_text  # fmt: skip
    assert str(asked["min_order_qty"]) in lines[0], run.last_text
    # the others are summed up in a line naming the cheapest, not dropped in silence
    assert offers[0]["supplier_code"] in run.last_text, run.last_text
    assert str(len(offers) - 1) in run.last_text, run.last_text


@pytest.mark.parametrize(
    "template",
    ["老板让我问下{sup} {model} {q}个能不能{m}月{d}号到", "can {sup} deliver {q} {model} by {en}?"],
)
async def test_whether_a_date_can_be_made_is_answered(world: PlannerWorld, template: str) -> None:
    part, offers = await _two_sellers(world)
    for offer in offers:  # one date each offer makes, one it misses (by a day)
        earliest = TODAY + timedelta(days=offer["lead_time_days"])
        for by, makes in ((earliest, True), (earliest - timedelta(days=1), False)):
            text = template.format(sup=offer["supplier_code"], model=part["model"],
                                   q=offer["min_order_qty"], m=by.month, d=by.day,
                                   en=f"{by:%B} {by.day}, {by.year}")  # fmt: skip
            run = await world.run(text)
            _nothing_ordered(run)
            said = run.last_text
            assert earliest.isoformat() in said and by.isoformat() in said, (text, said)
            if makes:
                assert "赶得上" in said or "makes" in said, (text, said)
            else:
                assert "赶不上" in said or "too late" in said, (text, said)


async def test_a_category_bought_from_one_supplier(world: PlannerWorld) -> None:
    span = (date(2026, 1, 1), TODAY)
    for supplier in await world.suppliers():
        orders = [o for o in await _orders(world, span, supplier_id=supplier["id"])
                  if o["status"] != "cancelled"]  # fmt: skip
        if orders:
            break
    else:  # pragma: no cover
        pytest.fail("no supplier with orders this year")
    first = await world.erp(f"/parts/{orders[0]['lines'][0]['part_id']}")
    code = first["category_code"]
    in_category = set()
    for item in (await world.erp("/parts", category=code, size=100))["items"]:
        in_category.add(item["id"])
    quantity = sum(ln["quantity"] for o in orders for ln in o["lines"]
                   if ln["part_id"] in in_category)  # fmt: skip
    run = await world.run(f"今年从{supplier['code']}进了多少{first['category_zh']}")
    _nothing_ordered(run)
    assert f"共 {quantity} 件" in run.last_text, (quantity, run.last_text)


@pytest.mark.parametrize(
    "ask",
    # the last two from the seventeenth round: the last order shown, or an analysis started
    [
        "{model} 最近一年采购均价多少",
        "{model} 最近一年的采购价格",
        "{model} price history for the last 12 months",
    ],
)
async def test_the_average_price_paid_for_a_part(world: PlannerWorld, ask: str) -> None:
    year = (TODAY - timedelta(days=364), TODAY)
    for order in await _orders(world, (date(2026, 6, 1), date(2026, 6, 30))):
        part = await world.erp(f"/parts/{order['lines'][0]['part_id']}")
        same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
        mine = [o for o in await _orders(world, year, part_id=part["id"])
                if o["status"] != "cancelled"]  # fmt: skip
        if len(same) == 1 and mine:
            break
    else:  # pragma: no cover
        pytest.fail("no part ordered this year")
    lines = [ln for o in mine for ln in o["lines"] if ln["part_id"] == part["id"]]
    average = sum(ln["quantity"] * ln["unit_price_minor"] for ln in lines) / sum(
        ln["quantity"] for ln in lines)  # fmt: skip
    run = await world.run(ask.format(model=part["model"]))
    _nothing_ordered(run)
    assert f"{round(average) / 100:,.2f}" in run.last_text, (average, run.last_text)
