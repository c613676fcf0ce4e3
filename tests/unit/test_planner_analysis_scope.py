"""What a comparison leaves out or limits, through the planner's real decision path against
the real seeded ERP, as the analyst will read it from the delegation's scope.

Written from the buyer's side: "except Bosch", "除了博世", "不要冠军的", "exclude GZMT" leave
those out (they were read as "only Bosch": the opposite); "只看国产的" / "imported
suppliers only" limit the suppliers by country, also said after the analysis started; two
parts named ("IU7和IU9哪家便宜") are the parts compared. The launch reply says each limit.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import SystemMessage

from graphs.offline.scope import Scope, read_scope
from tests.unit.planner_harness import PlannerWorld, Run


def _scope(run: Run) -> Scope:
    [delegation] = run.delegations
    return read_scope(delegation)


async def _category_of_makers(world: PlannerWorld) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A category and the makers (active suppliers whose code is a brand of its parts)."""
    suppliers = await world.suppliers()
    for category in (await world.erp("/categories"))["items"]:
        parts = (await world.erp("/parts", category=category["code"], size=100))["items"]
        brands = {p["brand"].casefold() for p in parts}
        makers = [s for s in suppliers if s["kind"] == "maker" and s["code"].casefold() in brands]
        if len(makers) >= 2:
            return category, makers
    pytest.fail("the seed has no category with two makers")  # pragma: no cover


@pytest.mark.parametrize(
    "template",
    ["compare {cat_en} suppliers except {en}", "{cat_zh}比价，除了{zh}",
     "做一个{cat_zh}比价，不要{zh}的", "{cat_en} price comparison excluding {code}"],
)  # fmt: skip
async def test_a_maker_left_out_is_excluded_not_the_only_one(
    world: PlannerWorld, template: str
) -> None:
    category, makers = await _category_of_makers(world)
    maker = makers[0]
    names = {"en": maker["name_en"], "zh": maker["name_zh"], "code": maker["code"]}
    text = template.format(cat_en=category["name_en"].lower(), cat_zh=category["name_zh"], **names)
    run = await world.run(text)
    scope = _scope(run)
    assert scope.categories == [category["code"]], (text, scope)
    assert maker["code"] not in scope.brands and maker["code"] in scope.excluded, (text, scope)
    assert "不含" in run.last_text or "leaving out" in run.last_text, run.last_text


async def test_a_distributor_left_out(world: PlannerWorld) -> None:
    suppliers = await world.suppliers()
    distributor = next(
        s for s in suppliers if s["kind"] == "distributor" and s["status"] == "active"
    )
    category, _ = await _category_of_makers(world)
    run = await world.run(f"I need a report comparing {category['name_en'].lower()} suppliers, "
                          f"please exclude {distributor['code']}")  # fmt: skip
    assert _scope(run).excluded == [distributor["code"]], run.delegations


async def test_domestic_only_after_the_start_restarts_it_so(world: PlannerWorld) -> None:
    category, _ = await _category_of_makers(world)
    first = await world.run(f"{category['name_zh']}比价")
    assert first.delegations and _scope(first).origin is None
    thread = [m for m in world._messages if not isinstance(m, SystemMessage)]
    run = await world.run("只看国产的", history=thread)
    scope = _scope(run)
    assert scope.origin == "domestic" and scope.categories == [category["code"]], scope
    assert "只看国内供应商" in run.last_text, run.last_text
    abroad = await world.run(
        f"compare {category['name_en'].lower()} prices, imported suppliers only"
    )
    assert _scope(abroad).origin == "imported", abroad.delegations


async def test_two_parts_named_are_the_parts_compared(world: PlannerWorld) -> None:
    category, _ = await _category_of_makers(world)
    parts = (await world.erp("/parts", category=category["code"], size=100))["items"]
    unique = []
    for part in parts:
        if len((await world.erp("/parts/search", name=part["model"], limit=5))["items"]) == 1:
            unique.append(part)
        if len(unique) == 2:
            break
    a, b = unique
    run = await world.run(f"{a['model']}和{b['model']}哪家便宜，帮我比一下")
    assert sorted(_scope(run).parts) == sorted([a["sku"], b["sku"]]), run.delegations
    assert a["sku"] in run.last_text and b["sku"] in run.last_text, run.last_text


@pytest.mark.parametrize(
    "template",
    ["{cat_zh}比价，不要 {a} 和 {b}", "{cat_zh}比价，不要{a}、{b}",
     "compare {cat_en} prices, not {a} or {b}", "compare {cat_en} suppliers besides {a} and {b}"],
)  # fmt: skip
async def test_several_left_out_are_all_excluded(world: PlannerWorld, template: str) -> None:
    category, makers = await _category_of_makers(world)
    suppliers = await world.suppliers()
    distributor = next(
        s for s in suppliers if s["kind"] == "distributor" and s["status"] == "active"
    )
    a, b = makers[0]["code"], distributor["code"]
    text = template.format(cat_en=category["name_en"].lower(), cat_zh=category["name_zh"], a=a, b=b)
    run = await world.run(text)
    scope = _scope(run)
    assert sorted(scope.excluded) == sorted([a, b]), (text, scope)
    assert a not in scope.brands, (text, scope)
    assert "是经销商" not in run.last_text and "is a distributor" not in run.last_text, (
        run.last_text
    )


@pytest.mark.parametrize(
    "template", ["比较{cat_zh}价格，{code} 去掉", "{cat_zh}比价，把 {code} 排除掉"]
)
async def test_left_out_with_the_word_after_the_name(world: PlannerWorld, template: str) -> None:
    category, makers = await _category_of_makers(world)
    code = makers[0]["code"]
    run = await world.run(template.format(cat_zh=category["name_zh"], code=code))
    scope = _scope(run)
    assert scope.excluded == [code] and code not in scope.brands, scope


@pytest.mark.parametrize(
    ("said", "named"),
    [
        # the nineteenth red-team round: "ERP 里没有“刹片”这个零件类别"; what motorcycle buyers
        # call brake pads and brake discs in short
        ("刹片多少钱", "刹车片"),
        ("刹盘哪家便宜", "刹车盘"),
        ("帮我比较一下刹片供应商", "刹车片"),
    ],
)
async def test_a_category_named_in_short_is_that_category(
    world: PlannerWorld, said: str, named: str
) -> None:
    [category] = [c for c in (await world.erp("/categories"))["items"] if c["name_zh"] == named]
    run = await world.run(said)
    assert _scope(run).categories == [category["code"]], run.last_text
    assert named in run.last_text, run.last_text  # the launch reply names the category


async def test_an_everyday_word_is_no_category(world: PlannerWorld) -> None:
    run = await world.run("机器坏了")  # "the machine broke": not 机油滤清器
    assert not run.delegations and run.proposal is None, run.last_text
    assert run.final_note == "out-of-scope", run.last_text
