"""Suppliers named as buyers type them, through the planner's real decision path against the
real seeded ERP: a short code in lower case where a supplier is named ("from ngk", "给kyb下单")
and a Chinese company name inside an English message ("from 日本特殊陶业") name that
supplier; the order card is for it. Every supplier of the kind the ERP holds is tried.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld


async def _one_part(world: PlannerWorld, supplier: dict[str, Any]) -> dict[str, Any] | None:
    """A part the supplier prices today (the ERP's order date) whose model names one part."""
    parts = (await world.erp(f"/parts/supplier/{supplier['id']}", size=20))["items"]
    now = date.today().isoformat()
    for part in (p for p in parts if p.get("offer")
                 and p["offer"]["valid_from"] <= now <= p["offer"]["valid_to"]):  # fmt: skip
        same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
        if len(same) == 1:
            return part
    return None


async def _check(world: PlannerWorld, supplier: dict[str, Any], template: str) -> None:
    part = await _one_part(world, supplier)
    if part is None:
        return
    q = part["offer"]["min_order_qty"]
    text = template.format(q=q, model=part["model"])
    run = await world.run(text)
    assert run.proposal is not None, (text, run.last_text)
    assert run.proposal[1]["supplier_id"] == supplier["id"], (text, run.proposal)


async def test_a_short_code_in_lower_case_names_the_supplier(world: PlannerWorld) -> None:
    suppliers = await world.suppliers()
    short = [s for s in suppliers if s["status"] == "active" and len(s["code"]) <= 3]
    assert short, "the seed has no supplier with a short code"
    for supplier in short:
        code = supplier["code"].lower()
        await _check(world, supplier, f"order {{q}} {{model}} from {code}")
        await _check(world, supplier, f"给{code}下单 {{model}} {{q}}个")


async def test_a_chinese_name_in_an_english_message(world: PlannerWorld) -> None:
    suppliers = await world.suppliers()
    named = [(s, m.group(1)) for s in suppliers if s["status"] == "active"
             and (m := re.match(r"([\u4e00-\u9fff]{4,})\s+[A-Za-z]", s["name_zh"]))]  # fmt: skip
    assert named, "the seed has no supplier named '<Chinese> <code>'"
    for supplier, chinese in named:
        await _check(world, supplier, f"please order {{q}} {{model}} from {chinese}")


async def test_a_maker_named_by_its_brand_alone(world: PlannerWorld) -> None:
    """ "不要朝阳的" / "跟朝阳订…": 朝阳轮胎's parts carry the brand 朝阳, the name buyers use."""
    suppliers = await world.suppliers()
    for supplier in (s for s in suppliers if s["kind"] == "maker" and s["status"] == "active"):
        part = await _one_part(world, supplier)
        brand = part and part["brand_zh"]
        if brand and brand != supplier["name_zh"] and supplier["name_zh"].startswith(brand):
            break
    else:
        pytest.fail("the seed has no maker named '<brand><goods>'")  # pragma: no cover
    category = part["category_zh"]
    run = await world.run(f"比较{category}供应商，不要{brand}的")
    [delegation] = run.delegations
    assert f'"excluded": ["{supplier["code"]}"]' in delegation, delegation
    await _check(world, supplier, f"跟{brand}订 {{model}} {{q}}个")
