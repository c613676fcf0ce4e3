"""A stock question that names a brand and a category ("how many NGK spark plugs do we
have", "博世的火花塞库存"), through the planner's real decision path against the real
seeded ERP: the answer lists that brand's parts, not every brand's. A question that is not
about shortage is told that the list is of the parts below safety stock.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld

SKU = re.compile(r"\b[A-Z]{2}-[A-Z0-9]+-[A-Z0-9.\-/]+")


async def _brand_with_others(
    world: PlannerWorld,
) -> tuple[dict[str, Any], dict[str, Any], set[str]]:
    """A maker, a category where both it and other brands are below safety stock, and the
    SKUs of its parts there."""
    suppliers = await world.suppliers()
    categories = (await world.erp("/categories"))["items"]
    for category in categories:
        short = await world.erp("/inventory/warnings", category=category["code"], size=100)
        brands = {i["brand"] for i in short["items"]}
        for supplier in suppliers:
            if (
                supplier["kind"] == "maker"
                and supplier["code"].casefold() in {b.casefold() for b in brands}
                and len(brands) > 1
                and len(short["items"]) <= 12
            ):
                mine = {i["sku"] for i in short["items"]
                        if i["brand"].casefold() == supplier["code"].casefold()}  # fmt: skip
                return supplier, category, mine
    pytest.fail("the seed has no category short of several brands")  # pragma: no cover


async def test_a_brand_named_lists_that_brands_parts(world: PlannerWorld) -> None:
    supplier, category, mine = await _brand_with_others(world)
    for text in (f"how many {supplier['code']} {category['name_en'].lower()}s do we have?",
                 f"{supplier['name_zh']}的{category['name_zh']}库存怎么样"):  # fmt: skip
        run = await world.run(text)
        listed = set(SKU.findall(run.last_text))
        assert listed == mine, (text, run.last_text)
        assert "低于安全库存" in run.last_text or "below safety stock" in run.last_text


async def test_a_question_not_about_shortage_says_what_the_list_is(world: PlannerWorld) -> None:
    _, category, _ = await _brand_with_others(world)
    run = await world.run(f"{category['name_zh']}还剩多少")
    assert "只列出低于安全库存" in run.last_text, run.last_text
    short = await world.run(f"哪些{category['name_zh']}快断货了")
    assert "只列出" not in short.last_text, short.last_text
