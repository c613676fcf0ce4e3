"""Questions about the list of suppliers and a supplier's contact details, through the
planner's real decision path against the real seeded ERP.

From a red-team round: "哪些供应商停用了" asked which category to analyse, "which of our
suppliers are Japanese?" asked for a category named "Japanese", "评分最高的5家供应商" and
"NGK的联系电话" were out of scope, and "哪些供应商卖刹车片" started a whole price comparison.
Each expected supplier is read from the ERP (its records, and for a category every part's
offers valid today); nothing may be ordered or analysed.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.unit.planner_harness import (
    PlannerWorld,
    Run,
    priced_today,
    sold_part,
)

_LISTED = re.compile(r"^- (\S+) ", re.M)


def _listed(run: Run) -> set[str]:
    assert run.proposal is None and not run.delegations and not run.called("task"), run.calls
    return set(_LISTED.findall(run.last_text))


@pytest.mark.parametrize(
    ("text", "fits"),
    [
        ("哪些供应商停用了", lambda s: s["status"] == "blocked"),
        ("which suppliers are on hold?", lambda s: s["status"] == "on_hold"),
        ("which of our suppliers are Japanese?", lambda s: s["country"] == "JP"),
        ("德国的供应商有哪些", lambda s: s["country"] == "DE"),
        ("list our distributors", lambda s: s["kind"] == "distributor"),
        ("进口的厂家有哪些", lambda s: s["country"] != "CN" and s["kind"] == "maker"),
    ],
)
async def test_suppliers_that_fit_a_record_field(world: PlannerWorld, text: str, fits: Any) -> None:
    expected = {s["code"] for s in await world.suppliers() if fits(s)}
    assert expected, "the seed has such suppliers"
    run = await world.run(text)
    assert _listed(run) == expected, run.last_text


@pytest.mark.parametrize(("text", "n"), [("评分最高的5家供应商", 5), ("top 3 rated suppliers", 3)])
async def test_the_best_rated_suppliers(world: PlannerWorld, text: str, n: int) -> None:
    suppliers = await world.suppliers()
    ratings = sorted((s["rating"] for s in suppliers), reverse=True)
    run = await world.run(text)
    listed = _listed(run)
    assert len(listed) == n, run.last_text
    rated = {s["code"]: s["rating"] for s in suppliers}
    assert sorted((rated[c] for c in listed), reverse=True) == ratings[:n], run.last_text


async def _sellers(world: PlannerWorld, category: str) -> set[str]:
    codes = {s["id"]: s["code"] for s in await world.suppliers()}
    sellers: set[str] = set()
    page = 1
    while True:
        listed = await world.erp("/parts", category=category, size=100, page=page)
        for item in listed["items"]:
            part = await world.erp(f"/parts/{item['id']}")
            sellers |= {codes[o["supplier_id"]] for o in part["offers"]
                        if priced_today({"offer": o})}  # fmt: skip
        if not listed.get("has_more"):
            return sellers
        page += 1


@pytest.mark.parametrize(
    "template",
    [
        "哪些供应商卖{zh}",
        "which suppliers sell us {en}?",
        "国产的{zh}供应商有哪些",
        "{zh}有几个供应商在供货？",
        "哪几个供应商卖{zh}",
    ],
)
async def test_the_suppliers_of_a_category(world: PlannerWorld, template: str) -> None:
    categories = (await world.erp("/categories"))["items"]
    category = categories[len(categories) // 2]
    expected = await _sellers(world, category["code"])
    if "国产" in template:
        domestic = {s["code"] for s in await world.suppliers() if s["country"] == "CN"}
        expected &= domestic
    assert expected
    text = template.format(zh=category["name_zh"], en=category["name_en"].lower() + "s")
    run = await world.run(text)
    assert _listed(run) == expected, run.last_text


async def test_a_price_question_about_suppliers_stays_a_comparison(world: PlannerWorld) -> None:
    category = (await world.erp("/categories"))["items"][0]
    run = await world.run(f"哪些供应商的{category['name_zh']}最便宜")
    assert run.delegations, run.last_text


@pytest.mark.parametrize(
    "text", ["{code}的联系电话", "what's {en}'s phone number?", "{code}的网址是多少"]
)
async def test_contact_details_are_what_the_record_holds(world: PlannerWorld, text: str) -> None:
    supplier = next(s for s in await world.suppliers() if s["website"])
    run = await world.run(text.format(code=supplier["code"], en=supplier["name_en"]))
    assert run.proposal is None and not run.delegations
    assert supplier["website"] in run.last_text, run.last_text
    if "网址" not in text:  # a phone asked: said not kept, never made up
        assert "没有电话" in run.last_text or "no phone" in run.last_text, run.last_text


async def test_a_country_that_is_also_in_a_name(world: PlannerWorld) -> None:
    suppliers = await world.suppliers()
    expected = {s["code"] for s in suppliers if s["country"] == "HK"}
    assert expected
    run = await world.run("有哪些香港的供应商")
    assert _listed(run) == expected, run.last_text


@pytest.mark.parametrize(
    "template",
    ["top rated {en} supplier", "best rated {en} supplier?", "{zh}哪家供应商评级最高"],
)
async def test_the_best_rated_supplier_of_a_category(world: PlannerWorld, template: str) -> None:
    """From a red-team round: "top rated tyre supplier" was "out of scope"."""
    categories = (await world.erp("/categories"))["items"]
    category = categories[-1]
    sellers = await _sellers(world, category["code"])
    rated = {s["code"]: s["rating"] for s in await world.suppliers() if s["code"] in sellers}
    run = await world.run(template.format(zh=category["name_zh"], en=category["name_en"].lower()))
    assert not run.delegations, run.delegations  # a look-up, no analysis
    listed = _listed(run)
    assert listed and listed <= sellers, run.last_text
    assert max(rated[c] for c in listed) == max(rated.values()), run.last_text


@pytest.mark.parametrize(
    "template",
    [
        "{model} 有哪些供应商在卖",
        "哪些厂家能供{model}",
        "{model} 哪里能买到",
        "suppliers of {model}?",
        "where can we buy {model}",
    ],
)
async def test_who_sells_a_part_is_its_offers_not_an_analysis(
    world: PlannerWorld, template: str
) -> None:
    """From a red-team round: "电瓶 YB5L-B 有哪些供应商在卖" started a whole analysis of the
    category; the buyer asked for the part's sellers, which the ERP's offers answer."""
    part, _supplier, _q = await sold_part(world)
    codes = {s["id"]: s["code"] for s in await world.suppliers()}
    detail = await world.erp(f"/parts/{part['id']}")
    sellers = {codes[o["supplier_id"]] for o in detail["offers"] if priced_today({"offer": o})}
    run = await world.run(template.format(model=part["model"]))
    assert not run.delegations, run.delegations
    assert all(f"（{c}）" in run.last_text or f"({c})" in run.last_text for c in sellers), (
        run.last_text
    )


@pytest.mark.parametrize(
    ("template", "zh"),
    [
        # the nineteenth red-team round: "outside what I do"
        ("帮我看下{zh}哪个牌子质量好", True),
        ("{zh}哪家质量好", True),
        ("which {en} supplier is most reliable?", False),
    ],
)
async def test_quality_asked_of_a_category_ranks_its_sellers_by_rating(
    world: PlannerWorld, template: str, zh: bool
) -> None:
    category = (await world.erp("/categories"))["items"][-1]
    sellers = await _sellers(world, category["code"])
    rated = {s["code"]: s["rating"] for s in await world.suppliers() if s["code"] in sellers}
    run = await world.run(template.format(zh=category["name_zh"], en=category["name_en"].lower()))
    assert not run.delegations and run.proposal is None, run.calls
    order = _LISTED.findall(run.last_text)
    assert order and set(order) <= sellers, run.last_text
    best = sorted(rated.values(), reverse=True)[: len(order)]
    assert [rated[c] for c in order] == best, run.last_text  # the best rated, highest first
    # what the ERP cannot say is said: it keeps no quality records
    assert ("没有质量记录" in run.last_text) if zh else ("no quality" in run.last_text), (
        run.last_text
    )


@pytest.mark.parametrize(
    ("template", "zh"),
    [("Is {en} still a good supplier?", False), ("{zh}还靠谱吗", True),
     ("Is {en} a reliable supplier?", False), ("Is {en} reliable?", False)],
)  # fmt: skip
async def test_whether_a_supplier_is_good_gives_its_record(
    world: PlannerWorld, template: str, zh: bool
) -> None:
    """The nineteenth red-team round: "out of scope" or a menu of what to do."""
    supplier = next(s for s in await world.suppliers() if s["status"] == "on_hold")
    run = await world.run(template.format(en=supplier["name_en"], zh=supplier["name_zh"]))
    assert not run.delegations and run.proposal is None, run.calls
    text = run.last_text
    assert supplier["code"] in text and str(supplier["rating"]) in text, text
    assert ("暂停合作" in text) if zh else ("on hold" in text), text  # its status, said
    assert ("没有质量记录" in text) if zh else ("no quality" in text), text
