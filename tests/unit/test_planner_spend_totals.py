"""Spend questions answered from every order of the period, through the planner's real
decision path against the real seeded ERP (each expected figure added up here from the
ERP's own order pages).

From a red-team round: "what's our biggest supplier by spend in 2026?" answered a total of
the newest 240 orders (less than half the year) and named no supplier; "how much did we
spend on batteries in 2025?" was all categories; "2026年三季度…" was the whole year; "monthly
spend" had no months. The order agent now asks the ERP to add up (``order_summary``).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.planner_harness import TODAY, PlannerWorld


async def _placed(world: PlannerWorld, start: str, end: str) -> list[dict[str, Any]]:
    """Every order of the period that was not cancelled, page by page."""
    out, page = [], 1
    while True:
        found = await world.erp("/orders/search-details", date_from=start, date_to=end,
                                page=page, size=100)  # fmt: skip
        out += [o for o in found["items"] if o["status"] != "cancelled"]
        if page * 100 >= found["total"]:
            return out
        page += 1


def _money(minor: int) -> str:
    return f"{minor / 100:,.2f}"


def _cny(orders: list[dict[str, Any]]) -> int:
    return sum(o["total_minor"] for o in orders if o["currency"] == "CNY")


async def test_the_biggest_supplier_of_the_year(world: PlannerWorld) -> None:
    orders = await _placed(world, "2026-01-01", TODAY.isoformat())
    assert len(orders) > 240
    by_supplier: dict[str, int] = {}
    for o in orders:
        if o["currency"] == "CNY":
            by_supplier[o["supplier_code"]] = (
                by_supplier.get(o["supplier_code"], 0) + o["total_minor"]
            )
    top = max(by_supplier, key=lambda k: by_supplier[k])
    run = await world.run("what's our biggest supplier by spend in 2026?")
    text = run.last_text
    assert _money(_cny(orders)) in text and f"{len(orders)} orders" in text, text
    first = next(line for line in text.splitlines() if line.startswith("- "))
    assert first.startswith(f"- {top} ") and _money(by_supplier[top]) in first, first
    assert run.proposal is None and not run.delegations


async def test_a_category_in_a_year_counts_its_own_lines(world: PlannerWorld) -> None:
    category = (await world.erp("/categories"))["items"][0]
    skus = {
        p["sku"] for p in (await world.erp("/parts", category=category["code"], size=100))["items"]
    }
    spent = sum(
        ln["amount_minor"]
        for o in await _placed(world, "2025-01-01", "2025-12-31")
        if o["currency"] == "CNY"
        for ln in o["lines"]
        if ln["sku"] in skus
    )
    run = await world.run(f"how much did we spend on {category['name_en'].lower()} in 2025?")
    assert _money(spent) in run.last_text, run.last_text


@pytest.mark.parametrize(
    ("said", "start", "end"),
    [("2026年三季度一共花了多少", "2026-07-01", "2026-09-30"),
     ("how much did we spend in Q1 2026?", "2026-01-01", "2026-03-31")],
)  # fmt: skip
async def test_a_quarter_by_its_number(
    world: PlannerWorld, said: str, start: str, end: str
) -> None:
    orders = await _placed(world, start, end)
    run = await world.run(said)
    assert f"{start}" in run.last_text and _money(_cny(orders)) in run.last_text, run.last_text


async def test_monthly_spend_lists_each_month(world: PlannerWorld) -> None:
    orders = await _placed(world, "2026-01-01", TODAY.isoformat())
    march = [o for o in orders if o["order_date"].startswith("2026-03")]
    run = await world.run("show me our monthly spend for this year")
    line = next(x for x in run.last_text.splitlines() if x.startswith("- 2026-03"))
    assert _money(_cny(march)) in line and f"({len(march)} orders)" in line, line
