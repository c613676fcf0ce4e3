"""Changing the lines of an order just placed, through the planner's real decision path
against the real seeded ERP (each check on the ERP's row after approval).

From a red-team round: "drop the IU9 line" cancelled the whole two-line order; "IU9那行删掉"
was out of scope; "刚才那单的IU7换成IU9，200个" added IU9 beside IU7 instead of in its place;
"IU7换成IU9" asked for a BOM; "再幫我加20條" (Traditional) set the quantity to 20.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld, Script, priced_today

APPROVE = {"type": "approve"}


async def _two_parts_one_supplier(
    world: PlannerWorld,
) -> tuple[dict[str, Any], list[tuple[dict[str, Any], dict[str, Any]]]]:
    """An active supplier and two parts (named alone by their models) it offers today."""
    active = {s["id"]: s for s in await world.suppliers()
              if s["status"] == "active"}  # fmt: skip
    by_supplier: dict[int, list[tuple[dict[str, Any], dict[str, Any]]]] = {}
    for category in (await world.erp("/categories"))["items"]:
        for listed in (await world.erp("/parts", category=category["code"], size=20))["items"]:
            part = await world.erp(f"/parts/{listed['id']}")
            same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
            if len(same) != 1:
                continue
            for offer in part["offers"]:
                if offer["supplier_id"] in active and priced_today({"offer": offer}):
                    found = by_supplier.setdefault(offer["supplier_id"], [])
                    found.append((part, offer))
                    if len(found) == 2:
                        return active[offer["supplier_id"]], found
    raise AssertionError("no supplier offers two parts today")


async def _row(world: PlannerWorld, order_no: str) -> dict[str, Any]:
    [order] = (await world.erp("/orders/search-details", order_no=order_no))["items"]
    return dict(order)


async def _placed(world: PlannerWorld, text: str) -> dict[str, Any]:
    run = await world.run(text, script=Script(decisions=[APPROVE]))
    [order_no] = set(re.findall(r"PO\d{11}", run.final))
    return await _row(world, order_no)


def _lines(order: dict[str, Any]) -> dict[int, int]:
    return {ln["part_id"]: ln["quantity"] for ln in order["lines"]}


@pytest.mark.parametrize("said", ["drop the {model} line", "{model}那行删掉"])
async def test_a_line_dropped_keeps_the_order(world: PlannerWorld, said: str) -> None:
    supplier, [(p1, o1), (p2, o2)] = await _two_parts_one_supplier(world)
    q1, q2 = o1["min_order_qty"], o2["min_order_qty"]
    order = await _placed(world, f"{supplier['code']} 订{p1['model']} {q1}个和{p2['model']} {q2}个")
    assert _lines(order) == {p1["id"]: q1, p2["id"]: q2}
    run = await world.run(said.format(model=p2["model"]), history=world.thread(),
                          script=Script(decisions=[APPROVE]))  # fmt: skip
    assert run.proposal is not None and "status" not in run.proposal[1], run.proposal
    after = await _row(world, order["order_no"])
    assert after["status"] != "cancelled" and _lines(after) == {p1["id"]: q1}


@pytest.mark.parametrize(
    "said", ["刚才那单的{old}换成{new}，{q}个", "swap the {old} for {new}, {q} pcs"]
)
async def test_a_part_put_in_place_of_another(world: PlannerWorld, said: str) -> None:
    supplier, [(p1, o1), (p2, o2)] = await _two_parts_one_supplier(world)
    order = await _placed(world, f"{supplier['code']} 订{p1['model']} {o1['min_order_qty']}个")
    q = o2["min_order_qty"] * 2
    run = await world.run(said.format(old=p1["model"], new=p2["model"], q=q),
                          history=world.thread(), script=Script(decisions=[APPROVE]))  # fmt: skip
    assert run.proposal is not None and run.proposal[0] == "order_update", run.last_text
    assert _lines(await _row(world, order["order_no"])) == {p2["id"]: q}


async def test_more_asked_in_traditional_characters_is_added(world: PlannerWorld) -> None:
    supplier, [(p1, o1), _] = await _two_parts_one_supplier(world)
    q = o1["min_order_qty"]
    order = await _placed(world, f"跟{supplier['code']}訂{p1['model']} {q}個")
    step = o1["order_step"]
    await world.run(f"再幫我加{step * 2}個", history=world.thread(),
                    script=Script(decisions=[APPROVE]))  # fmt: skip
    assert _lines(await _row(world, order["order_no"])) == {p1["id"]: q + step * 2}


async def test_an_order_named_by_one_of_its_parts_is_cancelled_whole(world: PlannerWorld) -> None:
    supplier, [(p1, o1), (p2, o2)] = await _two_parts_one_supplier(world)
    order = await _placed(
        world,
        f"{supplier['code']} 订{p1['model']} {o1['min_order_qty']}个和{p2['model']} "
        f"{o2['min_order_qty']}个",
    )
    await world.run(f"cancel the {p1['model']} order", history=world.thread(),
                    script=Script(decisions=[APPROVE]))  # fmt: skip
    assert (await _row(world, order["order_no"]))["status"] == "cancelled"


@pytest.mark.parametrize(
    ("said", "place"),
    [
        ("第二行改成{n}", 1),
        ("第2行数量改为{n}个", 1),
        ("最后一行改成{n}", -1),
        ("第一行改成{n}个", 0),
        ("change line 2 to {n}", 1),
        ("make the first line {n} pcs", 0),
        ("the last row should be {n}", -1),
    ],
)
async def test_a_line_named_by_its_place_is_changed(
    world: PlannerWorld, said: str, place: int
) -> None:
    """From a red-team round: "第二行改成300" asked which line. The place is the line's place
    on the order as the ERP lists it (and the card shows it); the others are unchanged."""
    supplier, [(p1, o1), (p2, o2)] = await _two_parts_one_supplier(world)
    q1, q2 = o1["min_order_qty"], o2["min_order_qty"]
    order = await _placed(world, f"{supplier['code']} 订{p1['model']} {q1}个和{p2['model']} {q2}个")
    shown = order["lines"]
    target = shown[place]
    offer = o1 if target["part_id"] == p1["id"] else o2
    n = offer["min_order_qty"] * 3
    run = await world.run(said.format(n=n), history=world.thread(),
                          script=Script(decisions=[APPROVE]))  # fmt: skip
    assert run.proposal is not None, run.last_text
    after = await _row(world, order["order_no"])
    expected = {ln["part_id"]: ln["quantity"] for ln in shown} | {target["part_id"]: n}
    assert _lines(after) == expected, (after["lines"], run.last_text)


async def test_a_place_the_order_does_not_have_changes_nothing(world: PlannerWorld) -> None:
    supplier, [(p1, o1), (p2, o2)] = await _two_parts_one_supplier(world)
    q1, q2 = o1["min_order_qty"], o2["min_order_qty"]
    order = await _placed(world, f"{supplier['code']} 订{p1['model']} {q1}个和{p2['model']} {q2}个")
    before = world.fingerprint()
    run = await world.run(f"第五行改成{q1 * 3}", history=world.thread(),
                          script=Script(decisions=[APPROVE]))  # fmt: skip
    assert run.proposal is None, run.proposal
    assert order["order_no"] in run.last_text, run.last_text  # it asks which line of it
    assert world.fingerprint() == before


@pytest.mark.parametrize(
    ("said", "keep_first"),
    [
        # the nineteenth red-team round: said to the card of a two-part order instead of
        # deciding it, each made a new card for the part named *alone* (at the other's count)
        ("drop the {model} line", True),
        ("delete the {model} line", True),
        ("{model}那行删掉", True),
        ("不要{model}了", True),
        ("without {model} please", True),
        ("only the {model}", False),
    ],
)
async def test_a_line_taken_out_of_the_card_being_made(
    world: PlannerWorld, said: str, keep_first: bool
) -> None:
    supplier, [(p1, o1), (p2, o2)] = await _two_parts_one_supplier(world)
    q1, q2 = o1["min_order_qty"] * 2, o2["min_order_qty"] * 3
    before = world.fingerprint()
    card = await world.run(f"{supplier['code']} 订{p1['model']} {q1}个和{p2['model']} {q2}个")
    assert card.proposal is not None, card.last_text  # left open: the buyer writes instead
    run = await world.run(said.format(model=p2["model"]), history=world.thread())
    assert run.proposal is not None and run.proposal[0] == "order_create", run.last_text
    assert run.proposal[1]["supplier_id"] == supplier["id"], run.proposal
    kept = [(p1["id"], q1)] if keep_first else [(p2["id"], q2)]
    assert [(ln["part_id"], ln["quantity"]) for ln in run.proposal[1]["lines"]] == kept
    assert world.fingerprint() == before  # nothing written before the new card is approved
