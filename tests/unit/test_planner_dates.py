"""Delivery dates as buyers write them, through the planner's real decision path against the
real seeded ERP: the order card carries the date asked for, or the buyer is asked.

Written from the buyer's side: "元旦前", "下个月10号", "下个月上旬", "12.28前", "needed by
the 28th", "before New Year", "due EOM", "by mid-January", "by year end" are dates; a date
the planner cannot place ("春节前", "by Easter") is asked about instead of silently becoming
the standard lead time; "as soon as possible" asks for no date; a date already past is
refused by the ERP and said so. The supplier and part come from the ERP's price lists (the
shortest lead time, so that the dates are reachable).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld, priced_today


async def _quick_offer(world: PlannerWorld) -> tuple[dict[str, Any], dict[str, Any], int]:
    """The active supplier's priced part with the shortest lead time (its model naming one
    part), and a quantity it takes."""
    best: tuple[int, dict[str, Any], dict[str, Any]] | None = None
    suppliers = await world.suppliers()
    for supplier in (s for s in suppliers if s["status"] == "active"):
        parts = (await world.erp(f"/parts/supplier/{supplier['id']}", size=50))["items"]
        for part in (p for p in parts if priced_today(p)):
            lead = part["offer"]["lead_time_days"]
            if best is None or lead < best[0]:
                same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
                if len(same) == 1:
                    best = (lead, supplier, part)
    if best is None:
        pytest.fail("the seed has no active supplier with a priced part")  # pragma: no cover
    _, supplier, part = best
    return supplier, part, part["offer"]["min_order_qty"]


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("给{zh}下单{model} {q}个，元旦前到", "2026-12-31"),
        ("给{zh}下单{model} {q}个，下个月10号到", "2027-01-10"),
        ("给{zh}下单{model} {q}个，下个月上旬到货", "2027-01-10"),
        ("给{zh}下单{model} {q}个，12.28前到", "2026-12-28"),
        ("给{zh}下单{model} {q}个 28号到", "2026-12-28"),
        ("order {q} {model} from {code}, needed by the 28th", "2026-12-28"),
        ("order {q} {model} from {code} for delivery before New Year", "2026-12-31"),
        ("order {q} {model} from {code}, due EOM", "2026-12-31"),
        ("order {q} {model} from {code} by mid-January", "2027-01-15"),
        ("order {q} {model} from {code}, we need them by year end", "2026-12-31"),
        ("order {q} {model} from {code}, EOM Jan", "2027-01-31"),
        ("给{zh}下单{model} {q}个，1月底前到", "2027-01-31"),
        ("order {q} {model} from {code}, deliver by 30/12/2026", "2026-12-30"),
    ],
)
async def test_the_card_carries_the_date_asked_for(
    world: PlannerWorld, template: str, expected: str
) -> None:
    supplier, part, q = await _quick_offer(world)
    text = template.format(zh=supplier["name_zh"], code=supplier["code"], model=part["model"], q=q)
    run = await world.run(text)
    assert run.proposal is not None, (text, run.last_text)
    assert run.proposal[1].get("expected_date") == expected, (text, run.proposal)


@pytest.mark.parametrize(
    "template",
    ["给{zh}下单{model} {q}个，春节前到货", "order {q} {model} from {code} by Easter",
     "给{zh}下单{model} {q}个，2月30号到",
     "order {q} {model} from {code}, deliver before Chinese New Year"],
)  # fmt: skip
async def test_a_date_the_planner_cannot_place_is_asked(world: PlannerWorld, template: str) -> None:
    supplier, part, q = await _quick_offer(world)
    text = template.format(zh=supplier["name_zh"], code=supplier["code"], model=part["model"], q=q)
    run = await world.run(text)
    assert run.proposal is None, (text, run.proposal)
    assert run.question is not None and run.question["fields"] == ["expected_date"], run.last_text


async def test_as_soon_as_possible_asks_for_no_date(world: PlannerWorld) -> None:
    supplier, part, q = await _quick_offer(world)
    for text in (f"给{supplier['name_zh']}下单{part['model']} {q}个，尽快到货",
                 f"order {q} {part['model']} from {supplier['code']} asap"):  # fmt: skip
        run = await world.run(text)
        assert run.proposal is not None and "expected_date" not in run.proposal[1], run.last_text


async def test_a_past_date_is_refused_and_named(world: PlannerWorld) -> None:
    supplier, part, q = await _quick_offer(world)
    run = await world.run(f"order {q} {part['model']} from {supplier['code']}, by yesterday")
    assert run.proposal is None
    assert "2026-12-02" in run.last_text, run.last_text
