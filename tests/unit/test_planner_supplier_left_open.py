"""The buyer leaves the supplier to the assistant ("=随便哪家", "=你定吧", "=up to you", "订100个
IU7，哪家都行"), through the planner's real decision path against the real seeded ERP.

From a red-team round: these answers to "which supplier?" were asked again and again. A buyer
who says "any" expects a choice made for them and said, on a card they still approve: the
lowest offer when the offers are comparable (one currency). Words that leave something else
open ("哪天到都行": any delivery date) do not choose a supplier.
"""

from __future__ import annotations

from math import lcm
from typing import Any

import pytest

from tests.unit.planner_harness import (
    PlannerWorld,
    Script,
    parts_on_offer,
)


async def _contested(world: PlannerWorld) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """A part named alone by its model, sold today by two or more active suppliers in one
    currency, with a quantity every one of those offers takes."""
    async for part, offers in parts_on_offer(world):
        if len(offers) < 2 or len({o["currency"] for o in offers}) > 1:
            continue
        prices = sorted(o["price_minor"] for o in offers)
        if prices[0] == prices[1]:
            continue  # a tie: the lowest would not name one supplier
        step = lcm(*(o["order_step"] for o in offers))
        least = max(o["min_order_qty"] for o in offers)
        return part, offers, -(-least // step) * step * 2
    raise AssertionError("the seed has no part sold by two suppliers in one currency")


def _lowest(offers: list[dict[str, Any]]) -> dict[str, Any]:
    return min(offers, key=lambda o: o["price_minor"])


@pytest.mark.parametrize(
    ("request_", "answer"),
    [
        ("订{q}个{model}", "随便哪家"),
        ("订{q}个{model}", "你定吧"),
        ("訂{q}個{model}", "都可以"),
        ("给我下个单，{model} {q}个", "你帮我选"),
        ("order {q} {model}", "up to you"),
        ("please order {q} x {model}", "whichever, doesn't matter"),
        ("订{q}个{model}，哪家都行", None),
        ("order {q} {model} from any supplier", None),
    ],
)
async def test_the_lowest_offer_is_chosen_and_said(
    world: PlannerWorld, request_: str, answer: str | None
) -> None:
    part, offers, q = await _contested(world)
    before = world.fingerprint()
    script = Script(answers=[answer] if answer else [])
    run = await world.run(request_.format(q=q, model=part["model"]), script=script)
    assert run.proposal is not None and run.proposal[0] == "order_create", run.last_text
    args = run.proposal[1]
    best = _lowest(offers)
    assert args["supplier_id"] == best["supplier_id"], (args, offers)
    assert args["lines"] == [{"part_id": part["id"], "quantity": q}], args
    # Why this one, said on the card the buyer approves; nothing written before approval.
    assert str(best["price"]) in run.last_text, run.last_text
    assert any(w in run.last_text for w in ("最低价", "最低價", "lowest price")), run.last_text
    assert world.fingerprint() == before


async def test_another_one_ruled_out_and_the_rest_left_open(world: PlannerWorld) -> None:
    part, offers, q = await _contested(world)
    best = _lowest(offers)
    suppliers = await world.suppliers()
    code = next(s["code"] for s in suppliers if s["id"] == best["supplier_id"])
    rest = [o for o in offers if o["supplier_id"] != best["supplier_id"]]
    script = Script(answers=[f"除了{code}都行"])
    run = await world.run(f"订{q}个{part['model']}", script=script)
    if len({o["currency"] for o in rest}) == 1 and rest:
        assert run.proposal is not None, run.last_text
        assert run.proposal[1]["supplier_id"] == _lowest(rest)["supplier_id"], (run.proposal, rest)
    assert not any(
        p[1].get("supplier_id") == best["supplier_id"] for p in [run.proposal] if p is not None
    )


@pytest.mark.parametrize(
    "request_",
    [
        "订{q}个{model}，哪天到都行",
        "order {q} {model}, any delivery date is fine",
        "订{q}个{model}，不急",
        "订{q}个{model}",
    ],
)
async def test_other_words_leave_the_supplier_to_the_buyer(
    world: PlannerWorld, request_: str
) -> None:
    part, _offers, q = await _contested(world)
    run = await world.run(request_.format(q=q, model=part["model"]))
    assert run.proposal is None, run.proposal
    assert run.question is not None and "supplier" in run.question["fields"], run.question
