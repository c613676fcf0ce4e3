"""Follow-ups right after a quote, through the planner's real decision path against the real
seeded ERP.

From a red-team round: after "IU7 报个价", "那CQMP呢" and "哪个最快" got a menu of what the
assistant can do, and "哪家最便宜" / "which one is cheapest?" started a whole analysis of the
category. They ask about the quote just given: a supplier's offer, or which offer is cheapest
or fastest, answered first from the ERP's offers. Asking for a study still starts one.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld, parts_on_offer


async def _quoted(world: PlannerWorld, ask: str) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """A part named alone by its model with three or more offers today from active suppliers
    in one currency, each with its own price and lead time; its quote asked for (``ask``
    formats it), and the offers with the suppliers' codes."""
    suppliers = await world.suppliers()
    codes = {s["id"]: s["code"] for s in suppliers}
    async for part, offers in parts_on_offer(world):
        if (
            len(offers) >= 3
            and len({o["currency"] for o in offers}) == 1
            and len({o["price_minor"] for o in offers}) == len(offers)
            and len({o["lead_time_days"] for o in offers}) == len(offers)
        ):
            run = await world.run(ask.format(model=part["model"]))
            assert not run.delegations and run.final_note == "quote-answer", run.last_text
            return offers, codes
    raise AssertionError("the seed has no part with three distinct offers")


@pytest.mark.parametrize(
    ("ask", "then", "best"),
    [
        ("{model} 报个价", "哪个最快", "lead_time_days"),
        ("{model} 多少钱", "哪家交期最短？", "lead_time_days"),
        ("price of {model}?", "which one is fastest?", "lead_time_days"),
        ("{model} 报个价", "哪家最便宜", "price_minor"),
        ("how much is {model}?", "which one is cheapest?", "price_minor"),
    ],
)
async def test_which_offer_is_best_is_answered_first(
    world: PlannerWorld, ask: str, then: str, best: str
) -> None:
    offers, codes = await _quoted(world, ask)
    winner = codes[min(offers, key=lambda o: o[best])["supplier_id"]]
    run = await world.run(then, history=world.thread())
    assert not run.delegations, run.delegations  # no analysis for a look at the quote
    first = run.last_text.removeprefix("〔离线〕").removeprefix("[offline]").strip().splitlines()[0]
    assert winner in first, run.last_text


@pytest.mark.parametrize(
    ("ask", "then"), [("{model} 报个价", "那{code}呢"), ("price of {model}?", "what about {code}?")]
)
async def test_a_supplier_asked_after_the_quote_is_its_offer(
    world: PlannerWorld, ask: str, then: str
) -> None:
    offers, codes = await _quoted(world, ask)
    dearest = max(offers, key=lambda o: o["price_minor"])  # not the one listed first anyway
    code = codes[dearest["supplier_id"]]
    run = await world.run(then.format(code=code), history=world.thread())
    assert not run.delegations, run.delegations
    offer_lines = [ln for ln in run.last_text.splitlines() if ln.startswith("- ")]
    assert offer_lines and code in offer_lines[0], run.last_text
    assert dearest["price"] in offer_lines[0], run.last_text


async def test_a_study_asked_after_the_quote_is_started(world: PlannerWorld) -> None:
    await _quoted(world, "{model} 报个价")
    run = await world.run("帮我做个比价分析", history=world.thread())
    assert run.delegations, run.last_text
