"""A buyer's own orders ("我上个月下了几张单", "my orders", "cancel my last order") and a note
written the way buyers write one, through the planner's real decision path against the real
seeded ERP.

From the twelfth red-team round: "我上个月下了几张单" counted the whole company's 52 orders as
the buyer's; "cancel my last order" and "把我最近那张单的数量改成80" took the newest order of
anyone; "add a note to my last order: deliver to warehouse B" listed the 98 parts below
safety stock ("warehouse" read as a stock word); "leave a note on PO… saying …" asked for a
quantity or a date. The signed-in buyer is who ContextInjection names in the prompt, and
the ERP's requester of the orders they place.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld, sold_part

_PO = re.compile(r"PO\d{11}")


async def _busiest_requester(world: PlannerWorld) -> str:
    summary = await world.erp("/orders/summary", group_by="requester")
    return str(summary["groups"][0]["key"])


async def _in_november(world: PlannerWorld) -> list[dict[str, Any]]:
    return await world.erp_pages(
        "/orders/search-details", date_from="2026-11-01", date_to="2026-11-30"
    )


@pytest.mark.parametrize(
    "asked",
    [
        "我上个月下了几张单",
        "what did I order last month?",
        "show me the orders I placed in November",
    ],
)
async def test_my_orders_of_a_month_are_the_signed_in_buyers(
    world: PlannerWorld, asked: str
) -> None:
    world.user = await _busiest_requester(world)
    november = await _in_november(world)
    mine = {o["order_no"] for o in november if o["requested_by"] == world.user}
    others = {o["order_no"] for o in november} - mine
    assert mine and others, "the seed has orders of this buyer and of others in November"
    run = await world.run(asked)
    assert run.proposal is None and not run.called("order_create"), run.calls
    listed = set(_PO.findall(run.last_text))
    assert listed and listed <= mine, (listed - mine, run.last_text)
    assert re.search(rf"共 {len(mine)} 张|: {len(mine)}\b", run.last_text), run.last_text


@pytest.mark.parametrize(
    "asked", ["我上个月下了几张单", "my orders", "我批的单", "cancel my last order",
              "把我最近那张单的数量改成80"],
)  # fmt: skip
async def test_a_buyer_with_no_orders_is_told_so(world: PlannerWorld, asked: str) -> None:
    world.user = "buyer-new"
    before = world.fingerprint()
    run = await world.run(asked)
    assert run.proposal is None, run.proposal  # nobody else's order changed in their name
    assert world.fingerprint() == before
    assert "buyer-new" in run.last_text and not _PO.search(run.last_text), run.last_text


async def test_cancel_my_last_order_is_my_own_newest(world: PlannerWorld) -> None:
    world.user = "buyer-new"
    part, supplier, quantity = await sold_part(world)

    async def placed(requested_by: str, day: str) -> str:
        answer = await world.erp_post("/orders/create", {
            "idempotency_key": f"own-{requested_by}-{day}", "supplier_id": supplier["id"],
            "lines": [{"part_id": part["id"], "quantity": quantity}],
            "requested_by": requested_by, "order_date": day,
        })  # fmt: skip
        assert answer.status_code == 201, answer.text
        return str(answer.json()["order_no"])

    own = await placed("buyer-new", "2026-12-02")
    newer = await placed(await _busiest_requester(world), "2026-12-03")  # someone else's, later
    for asked in ("cancel my last order", "把我最近那张单取消了"):
        run = await world.run(asked)
        assert run.proposal is not None, run.last_text
        name, args = run.proposal
        assert (name, args["order_id"], args.get("status")) == ("order_update", own, "cancelled")
        assert newer not in run.last_text


@pytest.mark.parametrize(
    ("template", "note"),
    [
        ("add a note to {order}: deliver to warehouse B", "deliver to warehouse B"),
        ("put a remark on {order}: call before delivery", "call before delivery"),
        ("leave a note on {order} saying gate 3 only", "gate 3 only"),
    ],
)
async def test_a_note_written_as_buyers_write_it(
    world: PlannerWorld, template: str, note: str
) -> None:
    world.user = await _busiest_requester(world)
    newest = next(o for o in await _in_november(world) if o["requested_by"] == world.user)
    for order in (newest["order_no"], "my last order"):
        run = await world.run(template.format(order=order))
        assert run.proposal is not None, (order, run.last_text)
        name, args = run.proposal
        assert name == "order_update" and args["note"] == note, run.proposal
        latest = max(
            (o for o in await world.erp_pages("/orders/search-details", requested_by=world.user)),
            key=lambda o: (o["order_date"], o["order_no"]),
        )
        expected = newest["order_no"] if order != "my last order" else latest["order_no"]
        assert args["order_id"] == expected
        assert "安全库存" not in run.last_text and "safety stock" not in run.last_text
