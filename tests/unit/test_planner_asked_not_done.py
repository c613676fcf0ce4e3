"""Questions and remarks that read like a request but ask for none of it, through the
planner's real decision path against the real seeded ERP (figures read from the ERP).

From a red-team round: "买500个的话哪家最划算" right after a quote made an approval card for
the cheapest supplier; "如果买500个IU9，哪家最便宜" was answered as an order waiting on a
condition; "…就问问，先不比价分析" started the analysis the buyer said not to run; "fyi 听说
刹车片下个月要涨价" started one; "=不是GZMT就行" answering which supplier made a card for GZMT.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.unit.planner_harness import (
    PlannerWorld,
    Script,
    parts_on_offer,
)


async def _sold_by_several(world: PlannerWorld) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A part its model names alone, with at least three offers valid today from active
    suppliers in one currency (cheapest first)."""
    async for part, offers in parts_on_offer(world):
        if len(offers) >= 3 and len({o["currency"] for o in offers}) == 1:
            return part, sorted(offers, key=lambda o: o["price_minor"])
    raise AssertionError("the seed has no part with three current offers")


def _no_order(run: Any) -> None:
    assert run.proposal is None and not run.called("order_create"), run.last_text
    assert not run.delegations, run.delegations


def _money(minor: int) -> str:
    return f"{minor / 100:,.2f}"


@pytest.mark.parametrize(
    ("first", "then"),
    [("{model} 多少钱", "买{q}个的话哪家最划算"), ("price of {model}?", None),
     ("如果买{q}个{model}，哪家最便宜", None),
     ("which supplier gives the best price on {model} if we buy {q}?", None)],
)  # fmt: skip
async def test_which_is_cheapest_for_a_quantity_is_a_quote_with_totals(
    world: PlannerWorld, first: str, then: str | None
) -> None:
    part, offers = await _sold_by_several(world)
    q = max(o["min_order_qty"] for o in offers) * 5
    run = await world.run(first.format(model=part["model"], q=q))
    if then is not None:
        run = await world.run(then.format(q=q), history=world.thread())
    _no_order(run)
    if "{q}" in (then or first):
        for offer in offers:  # every offer's total for that quantity, read from the ERP
            assert _money(offer["price_minor"] * q) in run.last_text, run.last_text


@pytest.mark.parametrize(
    "template",
    ["{cat}现在哪家报价最低？就问问，先不比价分析", "有没有比较便宜的{cat}供应商？先别跑分析",
     "fyi 听说{cat}下个月要涨价", "FYI: {cat_en} prices go up next month"],
)  # fmt: skip
async def test_no_analysis_is_started_when_none_is_asked(
    world: PlannerWorld, template: str
) -> None:
    category = (await world.erp("/categories"))["items"][0]
    before = world.fingerprint()
    run = await world.run(
        template.format(cat=category["name_zh"], cat_en=category["name_en"].lower())
    )
    _no_order(run)
    assert run.last_text.strip() and world.fingerprint() == before


@pytest.mark.parametrize("answer", ["=不是{code}就行", "=anyone but {code}", "=除了{code}都行"])
async def test_a_supplier_ruled_out_in_an_answer_is_never_chosen(
    world: PlannerWorld, answer: str
) -> None:
    part, offers = await _sold_by_several(world)
    out = offers[0]  # the cheapest: the one a careless reading would pick
    q = max(o["min_order_qty"] for o in offers)
    text = f"订{part['model']} {q}个" if "不" in answer or "除" in answer else (
        f"order {q} {part['model']}")  # fmt: skip
    script = Script(answers=[answer[1:].format(code=out["supplier_code"])])
    run = await world.run(text, script=script)
    assert not any(a["supplier_id"] == out["supplier_id"] for a in run.called("order_create"))
    if run.proposal is not None:
        assert run.proposal[1]["supplier_id"] != out["supplier_id"], run.proposal
    else:
        assert run.question is not None, run.last_text
        assert not any(o.startswith(f"{out['supplier_code']} ") for o in run.question["options"])
        assert any(o.startswith(f"{offers[1]['supplier_code']} ") for o in run.question["options"])
