"""Questions a buyer asks about one thing the ERP holds, answered from the ERP at once:
what can replace one part ("C8HSA 有哪些替代型号", "what can replace Bosch C8HSA?"), and
who a supplier is ("NGK 的供应商信息", "NGK 的评级怎么样", "tell me about Brembo").

Written from the buyer's side, through the planner's real decision path against the real
seeded ERP: no BOM is asked for when no BOM was mentioned, nothing is "outside what I do"
when it names a supplier the ERP holds, nothing is ordered and no analysis is started.
Every value the tests expect is read from the ERP.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld, Run


async def _part(world: PlannerWorld, model: str, brand_code: str) -> dict[str, Any]:
    found = await world.erp("/parts/search", name=model, limit=20)
    [part] = [
        p for p in found["items"]
        if p["model"] == model and p["sku"].split("-")[1] == brand_code
    ]  # fmt: skip
    return part


async def _supplier(world: PlannerWorld, code: str) -> dict[str, Any]:
    found = await world.erp("/suppliers/search", name=code, size=20)
    [supplier] = [s for s in found["items"] if s["code"] == code]
    return dict(supplier)


def _answered(run: Run) -> None:
    assert run.proposal is None and run.handed_over is None and not run.delegations
    assert run.question is None, run.question
    assert run.final, run.notes


@pytest.mark.parametrize(
    "text",
    # the last two from the twelfth red-team round: a price comparison of the category
    ["帮我查一下 C8HSA 有哪些替代型号", "what can replace Bosch C8HSA?", "C8HSA 的等效件有哪些",
     "is there a cheaper alternative to C8HSA?", "alternatives to C8HSA"],
)  # fmt: skip
async def test_the_equivalents_of_one_part_are_listed(world: PlannerWorld, text: str) -> None:
    part = await _part(world, "C8HSA", "BOSCH")
    truth = await world.erp(f"/parts/{part['id']}/equivalents")
    assert truth["equivalents"], "the seed has no equivalent of C8HSA"
    before = world.fingerprint()
    run = await world.run(text)
    _answered(run)
    assert not re.search(r"哪份 ?BOM|which BOM|paste", run.final, re.I), run.final  # not asked
    for equivalent in truth["equivalents"][:5]:
        assert equivalent["part"]["sku"] in run.final, (equivalent["part"]["sku"], run.final)
    assert world.fingerprint() == before


async def test_the_equivalents_of_one_brand_only(world: PlannerWorld) -> None:
    part = await _part(world, "C8HSA", "BOSCH")
    every = await world.erp(f"/parts/{part['id']}/equivalents")
    brands = {e["part"]["sku"].split("-")[1] for e in every["equivalents"]}
    brand = "NGK" if "NGK" in brands else sorted(brands)[0]
    only = await world.erp(f"/parts/{part['id']}/equivalents", brand=brand)
    run = await world.run(f"C8HSA 有没有 {brand} 的替代型号？")
    _answered(run)
    shown = {e["part"]["sku"] for e in every["equivalents"] if e["part"]["sku"] in run.final}
    assert shown == {e["part"]["sku"] for e in only["equivalents"][:5]}, run.final


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("给我看看 NGK 的供应商信息", "NGK"),
        ("NGK 的评级怎么样", "NGK"),
        ("Tell me about supplier Brembo", "BREMBO"),
        ("博世是哪个国家的供应商？", "BOSCH"),
    ],
)
async def test_a_supplier_is_described_from_its_erp_record(
    world: PlannerWorld, text: str, code: str
) -> None:
    supplier = await _supplier(world, code)
    before = world.fingerprint()
    run = await world.run(text)
    _answered(run)
    for value in (supplier["code"], str(supplier["rating"]), supplier["country"],
                  supplier["currency"]):  # fmt: skip
        assert value in run.final, (value, run.final)
    assert world.fingerprint() == before


@pytest.mark.parametrize(
    ("text", "code"), [("NGK 供应哪些零件", "NGK"), ("What does Bosch sell us?", "BOSCH")]
)
async def test_what_a_supplier_sells_is_listed_from_the_erp(
    world: PlannerWorld, text: str, code: str
) -> None:
    supplier = await _supplier(world, code)
    parts = await world.erp(f"/parts/supplier/{supplier['id']}", size=50)
    run = await world.run(text)
    _answered(run)
    assert str(parts["total"]) in run.final, run.final
    assert parts["items"][0]["model"] in run.final, run.final


async def test_what_we_are_short_on_is_the_stock_warnings(world: PlannerWorld) -> None:
    warnings = await world.erp("/inventory/warnings", size=5)
    run = await world.run("What parts are we short on?")
    _answered(run)
    for item in warnings["items"][:3]:
        assert item["sku"] in run.final, (item["sku"], run.final)


@pytest.mark.parametrize(
    "text", ["which parts are out of stock?", "哪些零件缺货", "有没有断货的零件"]
)
async def test_out_of_stock_is_nothing_available_not_below_safety(
    world: PlannerWorld, text: str
) -> None:
    # The twelfth red-team round: the 98 parts below safety stock were listed for "out of
    # stock"; those with nothing available are the answer ("快缺货了" stays the warnings).
    warnings = await world.erp_pages("/inventory/warnings")
    empty = {w["sku"] for w in warnings if w["on_hand"] - w["reserved"] <= 0}
    low = {w["sku"] for w in warnings} - empty
    assert empty and low, "the seed has parts with nothing available and parts merely low"
    run = await world.run(text)
    _answered(run)
    shown = set(re.findall(r"^- (\S+)", run.final, re.M))
    assert shown == empty, run.final
    assert str(len(warnings)) in run.final  # how many are below safety stock, said


@pytest.mark.parametrize(
    ("text", "own"),
    [("Is IU7 in stock at NGK?", "our own stock"), ("NGK 那边 IU7 有现货吗", "我们自己的库存")],
)
async def test_stock_asked_of_a_supplier_says_it_is_ours(
    world: PlannerWorld, text: str, own: str
) -> None:
    part = await _part(world, "IU7", "NGK")
    stock = (await world.erp(f"/parts/{part['id']}"))["inventory"]
    run = await world.run(text)
    _answered(run)
    assert str(stock["on_hand"]) in run.final and own in run.final, run.final


@pytest.mark.parametrize(
    ("said", "named", "zh"),
    [
        # the nineteenth red-team round: "outside what I do", or a menu of what to do
        ("空气滤清器有哪些型号", "空气滤清器", True),
        ("what models of air filters do we have?", "空气滤清器", False),
        ("空滤有哪些", "空气滤清器", True),
        ("火花塞有多少个型号", "火花塞", True),
        ("list all spark plug parts", "火花塞", False),
        ("show me the brake pads we carry", "刹车片", False),
    ],
)
async def test_the_models_of_a_category_are_listed(
    world: PlannerWorld, said: str, named: str, zh: bool
) -> None:
    [category] = [c for c in (await world.erp("/categories"))["items"] if c["name_zh"] == named]
    parts = await world.erp_pages("/parts", category=category["code"])
    before = world.fingerprint()
    run = await world.run(said)
    assert run.proposal is None and not run.delegations, run.calls
    text = run.last_text
    assert f" {len(parts)} " in text, text  # how many the ERP holds
    for part in parts:  # every model, under its brand's line
        brand = part["brand_zh"] if zh else part["brand"]
        line = next((ln for ln in text.splitlines() if ln.startswith(f"- {brand}")), "")
        assert re.search(rf"[：:、,]\s*{re.escape(part['model'])}(?:[、,]|$)", line), (part, text)
    assert world.fingerprint() == before


async def test_a_suppliers_parts_are_still_its_price_list(world: PlannerWorld) -> None:
    run = await world.run("NGK有哪些零件")
    assert run.final_note == "supplier-parts", run.last_text
