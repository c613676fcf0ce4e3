"""Sourcing questions buyers ask in passing, through the planner's real decision path against
the real seeded ERP.

From the fourteenth red-team round: "Which is better, NGK or Denso?" was out of scope;
"Should we switch from NGK to Denso for spark plugs?" asked which BOM to work on; "Repeat
my last order" and "照上次的再下一单" asked for a supplier, a part and a quantity from
scratch, "Duplicate PO…" only showed the order; "Expedite PO…" showed it as if that were
done; "这个月预算还剩多少" listed the parts below safety stock ("剩" read as stock);
"帮我做个采购计划" and "下个月需要采购什么" asked for a supplier, part and quantity to order.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.unit.planner_harness import (
    PlannerWorld,
    Script,
    analysis_scope,
    nothing_done,
    sold_part,
)


async def _makers(world: PlannerWorld) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """Two active makers of one category's parts, and that category."""
    suppliers = await world.suppliers()
    makers = {s["code"]: s for s in suppliers if s["kind"] == "maker" and s["status"] == "active"}
    for category in (await world.erp("/categories"))["items"]:
        parts = await world.erp_pages("/parts", category=category["code"])
        brands = sorted({p["sku"].split("-")[1] for p in parts} & set(makers))
        if len(brands) >= 2:
            return makers[brands[0]], makers[brands[1]], category
    pytest.fail("the seed has no category with two makers")  # pragma: no cover


@pytest.mark.parametrize("template", ["Which is better, {a} or {b}?", "{a}和{b}哪个好"])
async def test_which_of_two_suppliers_is_better_asks_the_category(
    world: PlannerWorld, template: str
) -> None:
    a, b, _ = await _makers(world)
    zh = "哪个好" in template
    run = await world.run(template.format(a=a["name_zh" if zh else "name_en"],
                                          b=b["name_zh" if zh else "name_en"]))  # fmt: skip
    nothing_done(run)
    categories = (await world.erp("/categories"))["items"]
    assert all(c["name_zh" if zh else "name_en"] in run.last_text for c in categories)


@pytest.mark.parametrize(
    "template",
    ["Should we switch from {a} to {b} for {en}?", "{zh}要不要从{a_zh}换到{b_zh}"],
)
async def test_whether_to_switch_supplier_is_a_comparison_of_the_two(
    world: PlannerWorld, template: str
) -> None:
    a, b, category = await _makers(world)
    names = {"a": a["name_en"], "b": b["name_en"], "a_zh": a["name_zh"], "b_zh": b["name_zh"]}
    text = template.format(**names, en=category["name_en"].lower() + "s", zh=category["name_zh"])
    run = await world.run(text)
    assert not re.search(r"BOM", run.last_text), run.last_text  # not a BOM to work on
    [delegation] = run.delegations
    scope = analysis_scope(delegation)
    assert scope["categories"] == [category["code"]]
    assert set(scope.get("brands", [])) == {a["code"], b["code"]}, scope


async def _newest_of(world: PlannerWorld, **query: Any) -> dict[str, Any]:
    orders = await world.erp_pages("/orders/search-details", **query)
    placed = [o for o in orders if o["status"] != "cancelled"]
    return max(placed, key=lambda o: (o["order_date"], o["order_no"]))


def _lines(args: dict[str, Any]) -> list[tuple[int, int]]:
    return sorted((ln["part_id"], ln["quantity"]) for ln in args["lines"])


async def test_repeat_my_last_order_is_my_newest_line_by_line(world: PlannerWorld) -> None:
    summary = await world.erp("/orders/summary", group_by="requester")
    world.user = str(summary["groups"][-1]["key"])  # not the busiest: not the newest overall
    mine = await _newest_of(world, requested_by=world.user)
    run = await world.run("Repeat my last order")
    assert run.proposal is not None, run.last_text
    name, args = run.proposal
    assert name == "order_create" and args["supplier_id"] == mine["supplier_id"]
    assert _lines(args) == sorted((ln["part_id"], ln["quantity"]) for ln in mine["lines"])
    assert mine["order_no"] in run.last_text


async def test_repeat_with_nobody_known_asks_which_order(world: PlannerWorld) -> None:
    newest = await _newest_of(world)
    before = world.fingerprint()
    asked = await world.run("照上次的再下一单")
    nothing_done(asked)
    assert asked.question is not None and asked.question["fields"] == ["order_no"]
    assert world.fingerprint() == before
    run = await world.run("照上次的再下一单", script=Script(answers=[newest["order_no"]]))
    assert run.proposal is not None, run.last_text
    assert _lines(run.proposal[1]) == sorted(
        (ln["part_id"], ln["quantity"]) for ln in newest["lines"]
    )


async def test_duplicate_an_order_by_its_number(world: PlannerWorld) -> None:
    newest = await _newest_of(world)
    run = await world.run(f"Duplicate {newest['order_no']}")
    assert run.proposal is not None, run.last_text
    name, args = run.proposal
    assert name == "order_create" and args["supplier_id"] == newest["supplier_id"]


@pytest.mark.parametrize("template", ["Expedite {order}", "帮我催一下{supplier}的订单",
                                      "can you chase {supplier} on {order}?"])  # fmt: skip
async def test_chasing_a_delivery_is_said_not_done(world: PlannerWorld, template: str) -> None:
    newest = await _newest_of(world)
    before = world.fingerprint()
    run = await world.run(template.format(order=newest["order_no"],
                                          supplier=newest["supplier_code"]))  # fmt: skip
    nothing_done(run)
    assert world.fingerprint() == before
    assert "什么都没有发出去" in run.last_text or "nothing was sent" in run.last_text


@pytest.mark.parametrize("text", ["这个月预算还剩多少", "how much budget do we have left?",
                                  "我们今年的采购预算是多少"])  # fmt: skip
async def test_a_budget_is_not_in_the_erp(world: PlannerWorld, text: str) -> None:
    run = await world.run(text)
    nothing_done(run)
    assert run.handed_over is None
    assert "预算不在 ERP 里" in run.last_text or "not in the ERP" in run.last_text
    assert "安全库存" not in run.last_text and "safety stock" not in run.last_text


@pytest.mark.parametrize(
    "text", ["帮我做个采购计划", "下个月需要采购什么", "what should we order next?"]
)
async def test_what_to_buy_is_what_is_short(world: PlannerWorld, text: str) -> None:
    warnings = await world.erp("/inventory/warnings", size=3)
    run = await world.run(text)
    nothing_done(run)
    assert run.handed_over is None and run.question is None, run.last_text
    for item in warnings["items"]:
        assert item["sku"] in run.last_text, (item["sku"], run.last_text)


@pytest.mark.parametrize(
    "template", ["下个月要订多少{zh}", "{zh}该订多少", "how many {en} should we order?"]
)
async def test_how_much_of_a_category_to_order_is_what_is_short_of_it(
    world: PlannerWorld, template: str
) -> None:
    """The nineteenth red-team round: "下个月要订多少机油滤清器" asked for a supplier, part and
    quantity to order. What is short of that category is answered; nothing ordered."""
    categories = (await world.erp("/categories"))["items"]
    totals = [(await world.erp("/inventory/warnings", category=c["code"]))["total"]
              for c in categories]  # fmt: skip
    category = next(c for c, total in zip(categories, totals, strict=True) if total)
    short = await world.erp_pages("/inventory/warnings", category=category["code"])
    run = await world.run(template.format(zh=category["name_zh"], en=category["name_en"].lower()))
    nothing_done(run)
    assert run.handed_over is None and run.question is None, run.last_text
    listed = re.findall(r"^- (\S+) ", run.last_text, re.M)
    assert listed and set(listed) <= {i["sku"] for i in short}, run.last_text  # that category's
    assert f"{len(short)} " in run.last_text, run.last_text  # all of them counted


@pytest.mark.parametrize(
    ("text", "zh"),
    [
        # the nineteenth red-team round: "ERP 里没有“准时”这个零件类别", or which category
        ("哪个供应商交货最准时", True),
        ("NGK交货准时吗", True),
        ("what's our on-time delivery rate with Bosch?", False),
        ("Which supplier gives us the best payment terms?", False),
    ],
)
async def test_what_the_erp_does_not_record_is_said(
    world: PlannerWorld, text: str, zh: bool
) -> None:
    before = world.fingerprint()
    run = await world.run(text)
    nothing_done(run)
    assert run.question is None and run.handed_over is None, run.last_text
    said = run.last_text
    assert ("没有准时交货率" in said and "交期" in said) if zh else (
        "no on-time delivery" in said and "lead time" in said), said  # fmt: skip
    assert "类别" not in said.split("。")[0] and "category" not in said.split(":")[0], said
    assert world.fingerprint() == before


async def test_an_order_asked_on_time_is_still_carded(world: PlannerWorld) -> None:
    part, supplier, q = await sold_part(world)
    run = await world.run(f"给{supplier['code']}下单 {part['model']} {q}个，要准时到")
    assert run.proposal is not None and run.proposal[0] == "order_create", run.last_text
    assert run.proposal[1]["supplier_id"] == supplier["id"], run.proposal


async def _newest_with_lines(
    world: PlannerWorld, one: bool
) -> tuple[dict[str, Any], dict[str, Any]]:
    """An active supplier whose newest order that is not cancelled has one line (``one``) or
    several, and that order, as the ERP lists them."""
    for supplier in await world.suppliers():
        if supplier["status"] != "active":
            continue
        orders = (await world.erp("/orders/search-details", supplier_id=supplier["id"],
                                  size=5))["items"]  # fmt: skip
        newest = next((o for o in orders if o["status"] != "cancelled"), None)
        if newest is not None and (len(newest["lines"]) == 1) == one:
            return supplier, newest
    pytest.fail("the seed has no such supplier")  # pragma: no cover


@pytest.mark.parametrize(
    "template",
    [
        # the nineteenth red-team round: which part was asked (with every part of the
        # supplier listed), or the last order only shown
        "再从{zh}订{q}个上次那个",
        "上次跟{zh}订的那个再来{q}个",
        "Order {q} more of what we ordered from {en} last time",
        "order the same part as last time from {code}, {q} pcs",
    ],
)
async def test_the_part_ordered_last_time_at_a_new_count(
    world: PlannerWorld, template: str
) -> None:
    supplier, newest = await _newest_with_lines(world, one=True)
    [line] = newest["lines"]
    q = line["quantity"] * 4
    run = await world.run(template.format(zh=supplier["name_zh"], en=supplier["name_en"],
                                          code=supplier["code"], q=q))  # fmt: skip
    assert run.proposal is not None, run.last_text
    name, args = run.proposal
    assert name == "order_create" and args["supplier_id"] == supplier["id"], run.proposal
    assert [(ln["part_id"], ln["quantity"]) for ln in args["lines"]] == [(line["part_id"], q)]
    assert newest["order_no"] in run.last_text, run.last_text  # which order it was read from


async def test_which_part_is_asked_when_the_last_order_had_several(world: PlannerWorld) -> None:
    supplier, newest = await _newest_with_lines(world, one=False)
    run = await world.run(f"再从{supplier['name_zh']}订100个上次那个")
    assert run.proposal is None and run.question is not None, run.last_text
    assert set(run.question.get("options") or []) == {ln["sku"] for ln in newest["lines"]}
