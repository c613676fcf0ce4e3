"""An order placed again, and the delivery date or note of an order just shown changed in
the words buyers use, through the planner's real decision path against the real seeded ERP
(each check on the ERP's rows after approval).

From a red-team round: "再来一张一模一样的" and "same order again please" right after an order
asked for the supplier, the part and the quantity all over again; "PO… 那张取消的，原样重新
下一遍" was read as a cancellation; "交期改到12月20号" (交期 as the order's date) asked for a
part; "備註寫：…" asked what to change.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld, Script, planner_world, sold_part

APPROVE = {"type": "approve"}


@pytest.fixture
async def world(erp_template: Path, tmp_path: Path) -> AsyncIterator[PlannerWorld]:
    # The planner's today is the ERP's (it stamps orders with the machine's date).
    async with planner_world(erp_template, tmp_path / "erp", date.today()) as w:
        yield w


async def _row(world: PlannerWorld, order_no: str) -> dict[str, Any]:
    [order] = (await world.erp("/orders/search-details", order_no=order_no))["items"]
    return dict(order)


def _numbers(text: str) -> set[str]:
    return set(re.findall(r"PO\d{11}", text))


async def _placed(world: PlannerWorld) -> dict[str, Any]:
    part, supplier, q = await sold_part(world)
    run = await world.run(f"{supplier['code']} 订{part['model']} {q}个",
                          script=Script(decisions=[APPROVE]))  # fmt: skip
    [order_no] = _numbers(run.final)
    return await _row(world, order_no)


def _lines(order: dict[str, Any]) -> list[tuple[int, int]]:
    return sorted((ln["part_id"], ln["quantity"]) for ln in order["lines"])


@pytest.mark.parametrize(
    "said",
    ["再来一张一模一样的", "同样的再下一张", "same order again please", "place that order again"],
)
async def test_the_order_shown_is_placed_again_as_a_new_order(
    world: PlannerWorld, said: str
) -> None:
    first = await _placed(world)
    run = await world.run(said, history=world.thread(), script=Script(decisions=[APPROVE]))
    assert run.proposal is not None and run.proposal[0] == "order_create", run.last_text
    card = next(s.text for s in run.steps if any(n == "order_create" for n, _ in s.calls))
    assert first["order_no"] in card, card  # which order it copies, said on the card
    [new_no] = _numbers(run.final) - {first["order_no"]}
    new = await _row(world, new_no)
    assert new["supplier_id"] == first["supplier_id"] and _lines(new) == _lines(first)
    assert await _row(world, first["order_no"]) == first  # the first one untouched


async def test_a_cancelled_order_named_by_number_is_placed_again(world: PlannerWorld) -> None:
    first = await _placed(world)
    no = first["order_no"]
    await world.run(f"取消 {no}", script=Script(decisions=[APPROVE]))
    assert (await _row(world, no))["status"] == "cancelled"
    run = await world.run(f"{no} 那张取消的，原样重新下一遍", script=Script(decisions=[APPROVE]))
    assert run.proposal is not None and run.proposal[0] == "order_create", run.last_text
    [new_no] = _numbers(run.final) - {no}
    new = await _row(world, new_no)
    assert new["supplier_id"] == first["supplier_id"] and _lines(new) == _lines(first)
    assert new["status"] != "cancelled" and (await _row(world, no))["status"] == "cancelled"


async def test_again_with_no_order_in_the_conversation_asks(world: PlannerWorld) -> None:
    before = world.fingerprint()
    run = await world.run("再来一张一模一样的")
    assert run.proposal is None and run.question is not None, run.last_text
    assert world.fingerprint() == before


@pytest.mark.parametrize("said", ["交期改到{d}", "把交期改成{d}", "lead time改到{d}"])
async def test_the_delivery_date_said_as_lead_time_is_changed(
    world: PlannerWorld, said: str
) -> None:
    first = await _placed(world)
    new_date = date.fromisoformat(first["expected_date"]) + timedelta(days=9)
    text = said.format(d=f"{new_date.month}月{new_date.day}号")
    run = await world.run(text, history=world.thread(), script=Script(decisions=[APPROVE]))
    assert run.proposal is not None and run.proposal[0] == "order_update", run.last_text
    after = await _row(world, first["order_no"])
    assert after["expected_date"] == new_date.isoformat(), (after, run.last_text)
    assert _lines(after) == _lines(first)


@pytest.mark.parametrize("said", ["備註寫：請分兩批送貨", "备注写：到货后通知仓库"])
async def test_a_note_written_is_set(world: PlannerWorld, said: str) -> None:
    first = await _placed(world)
    run = await world.run(said, history=world.thread(), script=Script(decisions=[APPROVE]))
    assert run.proposal is not None and run.proposal[0] == "order_update", run.last_text
    after = await _row(world, first["order_no"])
    written = said.split("：", 1)[1]
    # The note as written (a Traditional one may be kept in Simplified characters).
    assert after["note"] in (written, "请分两批送货"), after["note"]
    assert _lines(after) == _lines(first) and after["expected_date"] == first["expected_date"]


async def test_a_new_orders_note_in_traditional_is_kept_as_written(world: PlannerWorld) -> None:
    part, supplier, q = await sold_part(world)
    run = await world.run(f"{supplier['code']} 訂{part['model']} {q}個，備註：請分兩批送貨",
                          script=Script(decisions=[APPROVE]))  # fmt: skip
    [order_no] = _numbers(run.final)
    assert "請分兩批送貨" in (await _row(world, order_no))["note"]
