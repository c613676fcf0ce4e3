"""Two orders placed in one conversation, then a message about one or both of them, through
the planner's real decision path against the real seeded ERP (each check on the ERP's rows).

From a red-team round: after two orders, "第一张改成120个" changed the second; "把GZMT那张取消"
cancelled the other supplier's; "这两张单都取消" cancelled only the last and said nothing of
the first; "这两张一共多少钱" asked which category to analyse. The orders a conversation showed
are now known by place ("第一张", "the first one"), by a name pointed at ("GZMT 那张", "the
GZMT one"), or all together (each handed to the order agent in turn, each with its card).
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld, Script, offered_part

APPROVE = {"type": "approve"}


async def _two_orders(world: PlannerWorld, zh: bool) -> list[dict[str, Any]]:
    """Two orders placed and approved through the planner, from two suppliers: their ERP
    rows, oldest first."""
    part1, offer1, sup1 = await offered_part(world)
    part2, offer2, sup2 = await offered_part(world, lambda o: o["supplier_id"] != sup1["id"])
    placed = []
    for part, offer, sup in ((part1, offer1, sup1), (part2, offer2, sup2)):
        q = offer["min_order_qty"]
        text = (f"{sup['code']} 订{part['model']} {q}个" if zh
                else f"order {q} {part['model']} from {sup['code']}")  # fmt: skip
        run = await world.run(text, history=world.thread(), script=Script(decisions=[APPROVE]))
        [order_no] = set(re.findall(r"PO\d{11}", run.final))
        placed.append(order_no)
    return [await _row(world, no) for no in placed]


async def _row(world: PlannerWorld, order_no: str) -> dict[str, Any]:
    [order] = (await world.erp("/orders/search-details", order_no=order_no))["items"]
    return dict(order)


@pytest.mark.parametrize(
    ("zh", "said"), [(True, "第一张改成{n}个"), (False, "the first one should be {n} not {q}")]
)
async def test_the_first_order_by_its_place(world: PlannerWorld, zh: bool, said: str) -> None:
    first, second = await _two_orders(world, zh)
    q = first["lines"][0]["quantity"]
    n = q * 2
    run = await world.run(said.format(n=n, q=q), history=world.thread(),
                          script=Script(decisions=[APPROVE]))  # fmt: skip
    assert run.proposal is not None and run.proposal[1]["order_id"] == first["order_no"]
    assert (await _row(world, first["order_no"]))["lines"][0]["quantity"] == n
    assert await _row(world, second["order_no"]) == second  # untouched


@pytest.mark.parametrize(
    ("zh", "said"), [(True, "把{code}那张取消"), (False, "cancel the {code} one")]
)
async def test_an_order_by_its_supplier(world: PlannerWorld, zh: bool, said: str) -> None:
    first, second = await _two_orders(world, zh)
    run = await world.run(said.format(code=first["supplier_code"]), history=world.thread(),
                          script=Script(decisions=[APPROVE]))  # fmt: skip
    assert run.proposal is not None and run.proposal[1]["order_id"] == first["order_no"]
    assert (await _row(world, first["order_no"]))["status"] == "cancelled"
    assert await _row(world, second["order_no"]) == second


@pytest.mark.parametrize(("zh", "said"), [(True, "这两张单都取消掉"), (False, "cancel both")])
async def test_both_orders_each_with_its_card(world: PlannerWorld, zh: bool, said: str) -> None:
    first, second = await _two_orders(world, zh)
    run = await world.run(said, history=world.thread(), script=Script(decisions=[APPROVE, APPROVE]))
    cancels = [a["order_id"] for a in run.called("order_update") if a.get("status") == "cancelled"]
    assert sorted(cancels) == sorted([first["order_no"], second["order_no"]]), run.calls
    for order in (first, second):
        assert (await _row(world, order["order_no"]))["status"] == "cancelled"
        assert order["order_no"] in run.last_text, run.last_text  # both answers relayed


@pytest.mark.parametrize(
    ("zh", "said"), [(True, "这两张一共多少钱"), (False, "what do both come to?")]
)
async def test_the_total_of_both(world: PlannerWorld, zh: bool, said: str) -> None:
    first, second = await _two_orders(world, zh)
    before = world.fingerprint()
    run = await world.run(said, history=world.thread())
    assert run.proposal is None and not run.delegations, run.last_text
    assert first["currency"] == second["currency"]
    total = (first["total_minor"] + second["total_minor"]) / 100
    assert f"{total:,.2f} {first['currency']}" in run.last_text, run.last_text
    assert world.fingerprint() == before


async def test_a_name_with_an_order_is_a_new_order(world: PlannerWorld) -> None:
    first, _ = await _two_orders(world, True)
    line = first["lines"][0]
    part = await world.erp(f"/parts/{line['part_id']}")
    run = await world.run(f"{first['supplier_code']} 再订{part['model']} {line['quantity']}个",
                          history=world.thread())  # fmt: skip
    assert run.proposal is not None and run.proposal[0] == "order_create", run.last_text


async def test_two_new_orders_are_not_the_two_shown(world: PlannerWorld) -> None:
    first, second = await _two_orders(world, True)
    lines = []
    for order in (first, second):
        part = await world.erp(f"/parts/{order['lines'][0]['part_id']}")
        lines.append(f"{order['supplier_code']} {part['model']} {order['lines'][0]['quantity']}个")
    run = await world.run("再下两张单：" + "；".join(lines), history=world.thread())
    assert not run.called("order_update"), run.calls
    for order in (first, second):
        assert await _row(world, order["order_no"]) == order


async def test_both_moved_to_a_date(world: PlannerWorld) -> None:
    first, second = await _two_orders(world, True)
    day = max(first["expected_date"], second["expected_date"])
    later = date.fromisoformat(day).replace(day=28) if day[8:] < "28" else date.fromisoformat(day)
    run = await world.run(f"两张都推迟到{later.month}月{later.day}号到", history=world.thread(),
                          script=Script(decisions=[APPROVE, APPROVE]))  # fmt: skip
    assert len(run.called("order_update")) == 2, run.calls
    for order in (first, second):
        assert (await _row(world, order["order_no"]))["expected_date"] == later.isoformat()
