"""Quantities as buyers write them, through the planner's real decision path against the real
seeded ERP: the order card must carry the number the buyer meant, or the buyer is asked.

Written from the buyer's side: "数量1万" is ten thousand, not one; "贰佰" (the numerals of
invoices) two hundred; "2k" / "1.5k" / "10 million" what they say; "5 箱" of a part sold by
the piece is a number of boxes, so the buyer is asked how many pieces, and "一箱 N 个"
answers it; a price ("at 20 CNY each", "多少钱一个") is never a quantity. The PO's note
carries the note the buyer asked for, never the rest of the chat. The supplier and part of
each test come from the ERP's own price lists.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld, Script, priced_today


async def _offer(world: PlannerWorld) -> tuple[dict[str, Any], dict[str, Any]]:
    """An active supplier and a part it prices whose model number names one part."""
    suppliers = await world.suppliers()
    for supplier in (s for s in suppliers if s["status"] == "active"):
        parts = (await world.erp(f"/parts/supplier/{supplier['id']}", size=20))["items"]
        for part in (p for p in parts if priced_today(p)):
            same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
            if len(same) == 1:
                return supplier, part
    pytest.fail("the seed has no active supplier with a priced part")  # pragma: no cover


def _ordered(run: Any) -> int | None:
    """The quantity on the order card (None: no card)."""
    if run.proposal is None or run.proposal[0] != "order_create":
        return None
    [line] = run.proposal[1]["lines"]
    return int(line["quantity"])


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("给{zh}下单{model}，数量1万", 10_000),
        ("跟{zh}订{model} 1.5万个", 15_000),
        ("跟{zh}订贰佰个{model}", 200),
        ("给{zh}下单{model} 壹仟个", 1000),
        ("order 2k {model} from {code}", 2000),
        ("order 1.5k {model} from {code}", 1500),
        ("please order 10 million {model} from {code}", 10_000_000),
        ("order 100 {model} from {code} at 20 CNY each", 100),
        ("给{zh}下单{model} 300个，单价按 12.5 元", 300),
    ],
)
async def test_the_card_carries_the_quantity_the_buyer_wrote(
    world: PlannerWorld, template: str, expected: int
) -> None:
    supplier, part = await _offer(world)
    text = template.format(zh=supplier["name_zh"], code=supplier["code"], model=part["model"])
    run = await world.run(text)
    got = _ordered(run)
    if got is None:  # the ERP refused it (a step, a maximum): it must say the same number
        shown = run.last_text.replace(",", "")
        assert str(expected) in shown, (text, run.last_text)
        assert run.proposal is None
    else:
        assert got == expected, (text, run.proposal)


@pytest.mark.parametrize(
    "template", ["{model}多少钱一个", "{zh}的{model}一个多少钱", "{model} 单价多少钱一支"]
)
async def test_the_price_of_one_is_no_order_of_one(world: PlannerWorld, template: str) -> None:
    supplier, part = await _offer(world)
    run = await world.run(template.format(zh=supplier["name_zh"], model=part["model"]))
    assert run.proposal is None and not run.called("order_validate"), run.calls
    assert part["sku"] in run.last_text and "低于起订量" not in run.last_text, run.last_text


async def test_boxes_of_a_part_sold_by_the_piece_are_asked_then_counted(
    world: PlannerWorld,
) -> None:
    supplier, part = await _offer(world)
    text = f"给{supplier['name_zh']}订3箱{part['model']}"
    first = await world.run(text)
    assert first.proposal is None and first.question is not None, first.last_text
    assert "箱" in first.question["question"] and part["unit"] in first.question["question"]
    per_box = part["offer"]["min_order_qty"]
    answer = f"一箱{per_box}{part['unit']}"
    run = await world.run(text, script=Script(answers=[answer]))
    assert _ordered(run) == 3 * per_box, run.last_text
    english = await world.run(f"order 3 boxes of {part['model']} from {supplier['code']}")
    assert english.proposal is None and english.question is not None, english.last_text
    counted = await world.run(
        f"order 2 cartons of {part['model']} from {supplier['code']}, {per_box} pcs per carton"
    )
    assert _ordered(counted) == 2 * per_box, counted.last_text


async def test_the_po_note_is_the_note_asked_for_not_the_chat(world: PlannerWorld) -> None:
    supplier, part = await _offer(world)
    qty = part["offer"]["min_order_qty"]
    base = f"给{supplier['name_zh']}下单{part['model']} {qty}个"
    plain = await world.run(f"{base}，不过先别急着提交，我再看看")
    assert plain.proposal is not None
    assert "先别急" not in plain.proposal[1]["note"], plain.proposal
    noted = await world.run(f"{base}，备注：加急")
    assert noted.proposal is not None and noted.proposal[1]["note"].endswith("加急")
    assert base not in noted.proposal[1]["note"]
    english = await world.run(
        f"Hi, could you raise a PO with {supplier['code']} for {qty} {part['model']}? Please "
        "mention on the PO that it's for the Q1 service campaign. Thanks, Sarah"
    )
    assert english.proposal is not None, english.last_text
    note = english.proposal[1]["note"]
    assert "Q1 service campaign" in note and "Sarah" not in note, note
