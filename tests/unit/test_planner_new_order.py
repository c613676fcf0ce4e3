"""A buyer asking for a new purchase order in the words purchasing teams use for it
("开一张采购单", "新建一个PO", "录一张采购单", "draft a PO", "cut a PO"), through the
planner's real decision path against the real seeded ERP.

Written from the buyer's side: such a request makes an order, so what is missing is asked
(supplier, part, quantity), never "which order do you mean?" as if it were a question about
an existing one; with the details given it goes to approval as the order they name. Words
about orders already made ("上周开的单", "open orders", "订单记录") stay look-ups.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld


async def _offer(world: PlannerWorld, model: str, supplier_code: str) -> tuple[int, int]:
    """(supplier id, part id) of ``model`` as ``supplier_code`` offers it, from the ERP."""
    found = await world.erp("/parts/search", name=model, limit=20)
    for part in found["items"]:
        detail = await world.erp(f"/parts/{part['id']}")
        for offer in detail["offers"]:
            if offer["supplier_code"] == supplier_code and detail["model"] == model:
                return offer["supplier_id"], detail["id"]
    raise AssertionError(f"{supplier_code} offers no {model}")


@pytest.mark.parametrize(
    "text",
    [
        "给我开一张采购单",
        "新建一个PO",
        "帮我做一张采购单",
        "开个采购订单",
        "录一张采购单",
        "建一张新的采购订单",
        "I want to open a new PO",
        "Create a new PO please",
        "can you draft a PO",
        "set up a purchase order for me",
        "new PO",
        "cut a PO",
    ],
)
async def test_a_new_order_without_details_asks_what_to_order(
    world: PlannerWorld, text: str
) -> None:
    before = world.fingerprint()
    run = await world.run(text)
    assert run.handed_over is not None, run.notes
    assert run.question is not None, (run.notes, run.last_text)
    asked = set(run.question["fields"])
    assert "order_no" not in asked, run.question
    assert {"supplier", "part", "quantity"} & asked, run.question
    assert run.proposal is None and not run.delegations
    assert not run.called("order_search_details"), run.notes  # not a look-up
    assert world.fingerprint() == before


@pytest.mark.parametrize(
    ("text", "model", "supplier", "quantity"),
    [
        ("新建采购单：博世 C8HSA，200 个", "C8HSA", "BOSCH", 200),
        ("开一张采购单，NGK 的 CPR8EA-9 火花塞 150 个", "CPR8EA-9", "NGK", 150),
        ("open a PO to NGK for 100 IU7", "IU7", "NGK", 100),
        ("Draft a purchase order: 300 C8HSA from Bosch", "C8HSA", "BOSCH", 300),
        ("请帮我把 IU7 的采购单发给 NGK，数量 300", "IU7", "NGK", 300),
        ("采购单：供应商 博世，型号 C8HSA，数量：120", "C8HSA", "BOSCH", 120),
        ("PO for Bosch, part C8HSA, qty 250", "C8HSA", "BOSCH", 250),
    ],
)
async def test_a_new_order_with_details_goes_to_approval_as_named(
    world: PlannerWorld, text: str, model: str, supplier: str, quantity: int
) -> None:
    supplier_id, part_id = await _offer(world, model, supplier)
    run = await world.run(text)
    assert run.proposal is not None, (run.notes, run.last_text)
    name, args = run.proposal
    assert name == "order_create"
    assert args["supplier_id"] == supplier_id
    assert args["lines"] == [{"part_id": part_id, "quantity": quantity}]


@pytest.mark.parametrize(
    "text",
    [
        "上周开的采购单到了吗",
        "show me the open orders",
        "查一下订单记录",
        "我们新建的那张单到货没有",
        "what's the status of my open order with NGK?",
        "did the new PO to Bosch arrive?",
    ],
)
async def test_words_about_orders_already_made_stay_look_ups(
    world: PlannerWorld, text: str
) -> None:
    before = world.fingerprint()
    run = await world.run(text)
    assert run.proposal is None and not run.delegations
    asked: dict[str, Any] = run.question or {}
    assert not {"supplier", "part", "quantity"} & set(asked.get("fields", [])), asked
    assert run.called("order_search_details") or "order_no" in asked.get("fields", []), run.notes
    assert world.fingerprint() == before


@pytest.mark.parametrize(
    "text", ["先不要新建采购单", "don't create a PO yet", "先别下单", "先不要下单，等我确认"]
)
async def test_a_new_order_ruled_out_makes_nothing(world: PlannerWorld, text: str) -> None:
    before = world.fingerprint()
    run = await world.run(text)
    assert run.proposal is None and run.handed_over is None and not run.delegations
    assert run.question is None
    assert world.fingerprint() == before


async def _last_line(world: PlannerWorld, supplier_id: int, part_id: int) -> tuple[str, int] | None:
    """The newest order of the supplier holding the part: its number and that line's quantity."""
    found = await world.erp(
        "/orders/search-details", supplier_id=supplier_id, part_id=part_id, size=1
    )
    for order in found["items"]:
        for line in order["lines"]:
            if line["part_id"] == part_id:
                return order["order_no"], line["quantity"]
    return None


@pytest.mark.parametrize(
    ("text", "model", "supplier"),
    [
        ("跟 NGK 再订一批 IU7，数量跟上次一样", "IU7", "NGK"),
        ("博世的 C8HSA 照上次的量再下一单", "C8HSA", "BOSCH"),
        ("reorder IU7 from NGK, same quantity as last time", "IU7", "NGK"),
    ],
)
async def test_same_quantity_as_last_time_is_read_from_the_last_order(
    world: PlannerWorld, text: str, model: str, supplier: str
) -> None:
    supplier_id, part_id = await _offer(world, model, supplier)
    last = await _last_line(world, supplier_id, part_id)
    assert last is not None, "the seed has no earlier order to repeat"
    run = await world.run(text)
    assert run.proposal is not None, (run.notes, run.last_text)
    name, args = run.proposal
    assert name == "order_create" and args["supplier_id"] == supplier_id
    assert args["lines"] == [{"part_id": part_id, "quantity": last[1]}]
    # The buyer is told where the quantity came from before approving it.
    shown = " ".join(s.text for s in run.steps)
    assert last[0] in shown and str(last[1]) in shown, shown


async def test_same_quantity_without_an_earlier_order_is_asked(world: PlannerWorld) -> None:
    # A supplier and one of its parts that were never ordered together.
    suppliers = await world.erp("/suppliers/search", name="", status="active", size=100)
    for supplier in suppliers["items"]:
        parts = (await world.erp(f"/parts/supplier/{supplier['id']}", size=100))["items"]
        for part in parts:
            if await _last_line(world, supplier["id"], part["id"]) is None:
                break
        else:
            continue
        break
    else:  # pragma: no cover
        pytest.fail("every offer was ordered before")
    run = await world.run(f"给{supplier['name_zh']}下单 {part['sku']}，数量跟上次一样")
    assert run.proposal is None, run.proposal
    assert run.question is not None and "quantity" in run.question["fields"], run.last_text
