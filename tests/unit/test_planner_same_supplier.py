""" "The same supplier as last time", said with an order or as the answer to "which supplier?",
through the planner's real decision path against the real seeded ERP.

From a red-team round: "=跟上次一样的供应商" answering the supplier question was asked again
("没能从你的回答里读出供应商"). The buyer means the supplier of the part's most recent order
(one not cancelled); the card must be for that supplier and say why it was chosen.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld, Script, sold_part


async def _last_order(world: PlannerWorld, part: dict[str, Any]) -> dict[str, Any] | None:
    """The part's most recent order that was not cancelled, as the ERP lists them."""
    found = await world.erp("/orders/search-details", part_id=part["id"], size=50)
    live = [o for o in found["items"] if o["status"] != "cancelled"]
    return max(live, key=lambda o: (o["order_date"], o["id"])) if live else None


async def _bought_before(world: PlannerWorld) -> tuple[dict[str, Any], dict[str, Any], int]:
    part, _, q = await sold_part(world)
    last = await _last_order(world, part)
    assert last is not None, f"the seed has no order of {part['sku']}"
    return part, last, q


@pytest.mark.parametrize(
    ("request_", "answer"),
    [
        ("订{q}个{model}", "跟上次一样的供应商"),
        ("订{q}个{model}", "还是上次那家"),
        ("order {q} {model}", "same supplier as last time"),
        ("{model} 还是上次那家，{q}个", None),
        ("order {q} {model} from the one we used last time", None),
    ],
)
async def test_the_last_orders_supplier_is_chosen_and_said(
    world: PlannerWorld, request_: str, answer: str | None
) -> None:
    part, last, q = await _bought_before(world)
    script = Script(answers=[answer] if answer else [])
    run = await world.run(request_.format(q=q, model=part["model"]), script=script)
    assert run.proposal is not None and run.proposal[0] == "order_create", run.last_text
    args = run.proposal[1]
    assert args["supplier_id"] == last["supplier_id"], (args, last["order_no"])
    assert args["lines"] == [{"part_id": part["id"], "quantity": q}], args
    assert last["order_no"] in run.last_text, run.last_text  # why this supplier, said
