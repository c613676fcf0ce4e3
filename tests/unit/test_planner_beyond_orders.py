"""What a buyer asks done to an order that this assistant does not do, through the planner's
real decision path against the real seeded ERP (names and numbers read from the ERP).

From red-team conversations: right after an order was placed, "收到了100个，帮我入库" made an
approval card that changed the order's quantity to what it already was; "把这张单重新激活一下"
and "email the PO to the supplier" showed the order as if done; "approve it" and "打印一下这张
单" were "out of scope" without a word on why. A buyer must hear that it is not done, why,
and what can be done, and nothing may change in the ERP. Asking whether it was done ("入库了
吗", "was it approved?") looks the order up. An order or analysis asked together with one of
these is still made ("…，下好后发邮件给他们"; "比价分析，做完发给我": "做完" was read as "is it
done?" and no analysis started).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld, Script, nothing_done, sold_part

CHANGING = ("order_create", "order_update")


async def _placed(world: PlannerWorld, zh: bool) -> str:
    """An order placed and approved through the planner: its number (from the ERP's row)."""
    part, supplier, q = await sold_part(world)
    text = (f"给{supplier['code']}下单 {part['model']} {q}个" if zh
            else f"order {q} {part['model']} from {supplier['code']}")  # fmt: skip
    run = await world.run(text, script=Script(decisions=[{"type": "approve"}]))
    [order_no] = set(re.findall(r"PO\d{11}", run.final))
    found = await world.erp("/orders/search-details", order_no=order_no)
    assert found["items"], order_no
    return order_no


def _nothing_done(run: Any) -> None:
    assert not any(run.called(t) for t in CHANGING), run.calls
    assert run.proposal is None and run.question is None, (run.proposal, run.question)


@pytest.mark.parametrize(
    ("zh", "said", "why"),
    [
        (True, "收到了{q}个，帮我入库", "收货"),
        (True, "货到了，帮我做个收货", "收货"),
        (False, "mark it as received", "delivery"),
        (True, "把这张单发给供应商", "发"),
        (False, "email the PO to the supplier", "email"),
        (True, "打印一下这张单", "打印"),
        (True, "把这张单重新激活一下", "激活"),
        (False, "reopen it please", "reactivate"),
        (True, "你直接帮我批了吧", "批准"),
        (False, "approve it yourself", "approve"),
        (True, "付款了吗", "付款"),
        (False, "pay the invoice for it", "invoice"),
        (True, "这张单的发票呢", "发票"),  # showed the order as if its invoice were in it
        # the sixteenth round: the order shown, nothing said
        (True, "这张单能退货吗", "退货"),
        (False, "return the goods on it", "returns"),
    ],
)
async def test_what_it_cannot_do_is_said_and_nothing_changes(
    world: PlannerWorld, zh: bool, said: str, why: str
) -> None:
    order_no = await _placed(world, zh)
    before = world.fingerprint()
    run = await world.run(said.format(q=7), history=world.thread())
    _nothing_done(run)
    text = run.last_text
    assert why in text.lower(), text  # what cannot be done, named
    assert order_no in text, text  # about that order: unchanged
    assert ("没有改动" in text) if zh else ("unchanged" in text), text
    assert ("下单" in text) if zh else ("place one" in text), text  # what it can do instead
    assert world.fingerprint() == before


@pytest.mark.parametrize(
    "said", ["入库了吗", "审批了没有？", "was it approved?", "has it been booked in?"]
)
async def test_asking_whether_it_was_done_looks_the_order_up(
    world: PlannerWorld, said: str
) -> None:
    order_no = await _placed(world, True)
    before = world.fingerprint()
    run = await world.run(said, history=world.thread())
    _nothing_done(run)
    looked = [a for a in run.called("order_search_details") if a.get("order_no") == order_no]
    assert looked, run.calls
    assert order_no in run.last_text, run.last_text
    assert world.fingerprint() == before


@pytest.mark.parametrize(
    "template",
    [
        "{sup} 订{model} {q}个，下好后发邮件给他们",
        "order {q} {model} from {sup} and fax it to them",
        "{sup} {model} {q}个 提交",
    ],
)
async def test_an_order_asked_with_it_is_still_prepared(world: PlannerWorld, template: str) -> None:
    part, supplier, q = await sold_part(world)
    run = await world.run(template.format(sup=supplier["code"], model=part["model"], q=q))
    assert run.proposal is not None and run.proposal[0] == "order_create", run.last_text
    args = run.proposal[1]
    assert args["supplier_id"] == supplier["id"], args
    assert args["lines"] == [{"part_id": part["id"], "quantity": q}], args


@pytest.mark.parametrize(
    "template",
    [
        "帮我对{cat}做供应商比价分析，做完发给我",
        "帮我对{cat}做比价分析，做完提交给领导",
        "compare the {cat_en} suppliers and email me the report when it's done",
    ],
)
async def test_an_analysis_with_a_word_on_after_it_is_started(
    world: PlannerWorld, template: str
) -> None:
    category = (await world.erp("/categories"))["items"][-1]
    text = template.format(cat=category["name_zh"], cat_en=category["name_en"].lower())
    run = await world.run(text)
    assert len(run.delegations) == 1, (run.notes, run.last_text)
    assert category["code"] in run.delegations[0] or category["name_zh"] in run.delegations[0]


# --- what the order shown tells: who asked, who approved, what arrived --------------------


@pytest.mark.parametrize("said", ["这个单是谁下的？", "who asked for this order?"])
async def test_the_order_shown_says_who_asked_for_it(world: PlannerWorld, said: str) -> None:
    order_no = await _placed(world, said.isascii() is False)
    run = await world.run(said, history=world.thread())
    _nothing_done(run)
    [order] = (await world.erp("/orders/search-details", order_no=order_no))["items"]
    assert order_no in run.last_text and order["requested_by"] in run.last_text, run.last_text


async def test_a_looked_up_order_says_what_of_each_line_arrived(world: PlannerWorld) -> None:
    found = await world.erp("/orders/search-details", status="partially_received", size=5)
    found = (
        found["items"] or (await world.erp("/orders/search-details", status="received"))["items"]
    )
    order = found[0]
    run = await world.run(f"{order['order_no']} 到货情况")
    _nothing_done(run)
    text = run.last_text
    for line in order["lines"]:
        row = next(r for r in text.splitlines() if line["sku"] in r)
        assert (f"已收 {line['received_qty']}" in row) == (line["received_qty"] > 0), row
    if order["approved_by"]:
        assert f"批准人 {order['approved_by']}" in text, text


@pytest.mark.parametrize(
    "said", ["把{order}的供应商换成{code}", "change the supplier of {order} to {code}"]
)
async def test_an_orders_supplier_is_fixed(world: PlannerWorld, said: str) -> None:
    # The sixteenth round: the Chinese asked which BOM to work on, the English asked for a
    # quantity or a date.
    order_no = await _placed(world, True)
    [order] = (await world.erp("/orders/search-details", order_no=order_no))["items"]
    suppliers = await world.suppliers()
    other = next(
        x for x in suppliers if x["status"] == "active" and x["id"] != order["supplier_id"]
    )
    before = world.fingerprint()
    run = await world.run(said.format(order=order_no, code=other["code"]))
    _nothing_done(run)
    assert "BOM" not in run.last_text and order_no in run.last_text, run.last_text
    assert "供应商改不了" in run.last_text or "supplier can't be changed" in run.last_text
    assert world.fingerprint() == before


@pytest.mark.parametrize("said", ["show me all draft orders", "草稿订单有哪些"])
async def test_draft_orders_are_the_unapproved_ones(world: PlannerWorld, said: str) -> None:
    # The sixteenth round: the newest orders whatever their status.
    order_no = await _placed(world, False)
    received = (await world.erp("/orders/search-details", status="received", size=1))["items"]
    run = await world.run(said)
    _nothing_done(run)
    assert order_no in run.last_text, run.last_text
    assert received[0]["order_no"] not in run.last_text, run.last_text


@pytest.mark.parametrize(
    ("zh", "said"),
    [
        # the nineteenth red-team round: each made a one-off approval card, nothing said of
        # the schedule asked for (a buyer approving it believes the schedule exists)
        (True, "每个月自动给{code}下{q}个{model}"),
        (False, "Set up a recurring order of {q} {model} from {code} every month"),
        (True, "每月固定采购{q}个{model}"),
        (False, "can you order {q} {model} from {code} every week?"),
        (False, "put {model} on a standing order, {q} a month"),
    ],
)
async def test_a_recurring_order_is_said_not_done_and_nothing_is_ordered(
    world: PlannerWorld, zh: bool, said: str
) -> None:
    part, supplier, q = await sold_part(world)
    before = world.fingerprint()
    run = await world.run(said.format(code=supplier["code"], q=q, model=part["model"]))
    nothing_done(run)
    assert run.question is None, run.question
    text = run.last_text
    assert ("定期" in text and "没有下" in text) if zh else ("recurring" in text
            and "no order was placed" in text), text  # fmt: skip
    assert ("审批卡片" in text) if zh else ("approval card" in text), text  # one order: how
    assert world.fingerprint() == before


@pytest.mark.parametrize("said", ["给{code}下单 {model} {q}个", "order {q} {model} from {code}"])
async def test_a_one_off_order_still_gets_its_card(world: PlannerWorld, said: str) -> None:
    part, supplier, q = await sold_part(world)
    run = await world.run(said.format(code=supplier["code"], q=q, model=part["model"]))
    assert run.proposal is not None, run.last_text
    name, args = run.proposal
    assert name == "order_create" and args["supplier_id"] == supplier["id"], run.proposal
    assert [(line["part_id"], line["quantity"]) for line in args["lines"]] == [(part["id"], q)]
