"""Orders a buyer makes conditional ("order 200 IU7 from NGK if our stock is below 150",
"如果IU7库存低于150就给NGK下200个"), through the planner's real decision path against the
real seeded ERP.

The planner cannot judge a condition for the buyer, and a card for an order that may not
be wanted is a wrong action waiting for a careless click. So it places nothing: it answers
with the facts the condition is about (the part's stock and its prices, read from the ERP)
and says how to order when the condition holds. A polite "if possible" is no condition.
"""

from __future__ import annotations

import pytest

from tests.unit.planner_harness import PlannerWorld, sold_part

ORDERING = ("order_create", "order_validate", "order_update")


CONDITIONAL = [
    ("en", "order {q} {model} from {sup} if our stock is below {limit}"),
    ("en", "If {model} stock drops under {limit}, buy {q} from {sup}"),
    ("en", "please get {q} {model} from {sup}, but only if we have fewer than {limit} left"),
    ("zh", "如果{model}库存低于{limit}就给{sup}下{q}个"),
    ("zh", "{model}库存不够{limit}的话，从{sup}补{q}个"),
    ("zh", "要是{sup}的{model}单价低于10块就订{q}个"),
    ("zh", "等{model}库存跌破{limit}再给{sup}下{q}个"),
]


@pytest.mark.parametrize(("lang", "template"), CONDITIONAL)
async def test_a_conditional_order_places_nothing_and_gives_the_facts(
    world: PlannerWorld, lang: str, template: str
) -> None:
    part, supplier, q = await sold_part(world)
    inv = part["inventory"]
    before = world.fingerprint()
    text = template.format(q=q, model=part["model"], sup=supplier["code"], limit=inv["on_hand"] + 7)
    run = await world.run(text)
    assert not any(run.called(t) for t in ORDERING), run.calls
    assert run.handed_over is None and not run.delegations, run.notes
    assert run.proposal is None and run.question is None
    answer = run.last_text
    # The stock the condition is about, as the ERP has it, and the prices.
    assert str(inv["on_hand"]) in answer and str(inv["safety_stock"]) in answer, answer
    assert supplier["code"] in answer, answer
    zh = any("\u4e00" <= c <= "\u9fff" for c in answer.replace("〔离线〕", ""))
    assert zh == (lang == "zh"), answer
    assert ("没有下单" in answer) if lang == "zh" else ("no order" in answer.lower()), answer
    assert world.fingerprint() == before


@pytest.mark.parametrize(
    "template",
    [
        "order {q} {model} from {sup}, if possible delivered next month",
        "如果可以的话，给{sup}下{q}个{model}",
        "麻烦给{sup}下{q}个{model}，方便的话下个月到",
    ],
)
async def test_a_polite_if_is_no_condition(world: PlannerWorld, template: str) -> None:
    part, supplier, q = await sold_part(world)
    run = await world.run(template.format(q=q, model=part["model"], sup=supplier["code"]))
    assert run.proposal is not None, run.last_text
    name, args = run.proposal
    assert name == "order_create"
    assert args["supplier_id"] == supplier["id"]
    assert args["lines"] == [{"part_id": part["id"], "quantity": q}], args


async def test_a_conditional_order_with_no_part_lists_the_short_parts(world: PlannerWorld) -> None:
    warnings = await world.erp("/inventory/warnings", size=5)
    run = await world.run("如果有零件低于安全库存，就帮我补货")
    assert not any(run.called(t) for t in ORDERING), run.calls
    assert run.proposal is None and not run.delegations
    answer = run.last_text
    assert "没有下单" in answer, answer
    if warnings["items"]:
        assert warnings["items"][0]["sku"] in answer, answer


@pytest.mark.parametrize(
    ("ask", "zh"),
    [("200个够不够用一个月", True), ("小李说要订100个，你觉得呢", True),
     ("my colleague wants to order 300, what do you think?", False)],
)  # fmt: skip
async def test_a_count_of_no_part_named_asks_which_part(
    world: PlannerWorld, ask: str, zh: bool
) -> None:
    # They answered with every part below safety stock (98 of them), not about any count.
    before = world.fingerprint()
    run = await world.run(ask)
    assert not any(run.called(t) for t in ORDERING), run.calls
    assert run.proposal is None and not run.delegations
    answer = run.last_text
    assert ("哪个零件" in answer) if zh else ("which part" in answer.lower()), answer
    assert "SKU" in answer and answer.count("\n") == 0, answer
    assert world.fingerprint() == before


@pytest.mark.parametrize(
    "ask", ["please reorder everything that is below safety stock", "reorder all parts running low"]
)
async def test_reordering_everything_short_lists_the_short_parts_first(
    world: PlannerWorld, ask: str
) -> None:
    # It asked for a supplier, a part and a quantity, where "库存低于安全库存的都补一下" lists them.
    warnings = await world.erp("/inventory/warnings", size=5)
    assert warnings["items"]
    before = world.fingerprint()
    run = await world.run(ask)
    assert not any(run.called(t) for t in ORDERING), run.calls
    assert run.proposal is None and run.question is None and not run.delegations
    assert all(w["sku"] in run.last_text for w in warnings["items"]), run.last_text
    assert world.fingerprint() == before
