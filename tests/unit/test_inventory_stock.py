"""Stock questions naming several parts, through the offline planner against the real ERP.

A buyer asks for the stock of a few parts by SKU, in Chinese or English. The orchestrator
reads them in one ``part_query(part_ids=...)`` call (a tool step of the graph per call
otherwise) and answers every part with the ERP's own figures.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld


async def _three_parts(world: PlannerWorld) -> list[dict[str, Any]]:
    """One part of each of three categories (the seed decides which)."""
    found = []
    for category in ("SP", "BP", "CH"):
        found.append((await world.erp("/parts", category=category, size=5))["items"][-1])
    return found


@pytest.mark.parametrize(
    "ask",
    ["{a}、{b} 和 {c} 现在库存多少？", "What's the stock of {a}, {b} and {c}?"],
)
async def test_several_parts_stock_is_one_read_with_each_parts_figures(
    world: PlannerWorld, ask: str
) -> None:
    parts = await _three_parts(world)
    run = await world.run(ask.format(a=parts[0]["sku"], b=parts[1]["sku"], c=parts[2]["sku"]))

    reads = run.called("part_query")
    assert len(reads) == 1, reads
    assert sorted(reads[0]["part_ids"]) == sorted(p["id"] for p in parts)
    assert not run.delegations and run.proposal is None  # a question, not an analysis or order
    lines = run.final.splitlines()
    for part in parts:
        inv = (await world.erp(f"/parts/{part['id']}"))["inventory"]
        [line] = [ln for ln in lines if part["sku"] in ln]
        assert str(inv["on_hand"]) in line
        assert str(inv["on_hand"] - inv["reserved"]) in line
        assert str(inv["safety_stock"]) in line
