"""Later turns of a conversation, through the planner's real decision path against the real
seeded ERP, with the conversation as the thread keeps it (the planner's own messages, tool
calls and results).

Written from the buyer's side: a message that only names something ("NGK 200", "C8HSA",
an order number) is answered in the language the buyer has been writing in; the answer
about a background analysis is said in words, not the task tool's JSON or English. Right
after an order card, a question or a refusal, a message about that order ("改成500个",
"不对，是博世的", "no, NGK", "算了", "yes go ahead", "那就50个") acts on that order; a whole
new order is its own.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest
from langchain_core.messages import BaseMessage, SystemMessage

from tests.unit.planner_harness import PlannerWorld, Run, Script

_CJK = re.compile(r"[\u4e00-\u9fff]")


def _thread(world: PlannerWorld) -> list[BaseMessage]:
    """The conversation as the thread holds it after the last run (without the prompt)."""
    return [m for m in world._messages if not isinstance(m, SystemMessage)]


async def _then(world: PlannerWorld, first: str, second: str) -> Run:
    await world.run(first)
    return await world.run(second, history=_thread(world))


def _chinese(text: str) -> bool:
    body = re.sub(r"^\S+\s", "", text)  # the offline mark
    return len(_CJK.findall(body)) > 10


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("帮我查一下IU7的库存", "C8HSA"),
        ("NGK 的 IU7 多少钱", "NGK 200"),
        ("最近给NGK下过什么单", "{order_no}"),
    ],
)
async def test_a_bare_name_is_answered_in_the_conversations_chinese(
    world: PlannerWorld, first: str, second: str
) -> None:
    newest = (await world.erp("/orders/search-details", size=1))["items"][0]
    run = await _then(world, first, second.format(order_no=newest["order_no"]))
    assert _chinese(run.last_text), run.last_text


async def test_a_bare_name_is_answered_in_the_conversations_english(world: PlannerWorld) -> None:
    run = await _then(world, "how many IU7 do we have in stock?", "C8HSA")
    assert not _chinese(run.last_text), run.last_text
    alone = await world.run("C8HSA")
    assert not _chinese(alone.last_text), alone.last_text


async def test_stopping_an_analysis_is_said_in_words(world: PlannerWorld) -> None:
    started = await world.run("帮我做一下火花塞的供应商比价")
    assert started.delegations, started.last_text
    run = await world.run("算了，不用分析了", history=_thread(world))
    [cancel] = run.called("cancel_async_task")
    assert f"已取消后台分析（task_id: {cancel['task_id']}）" in run.last_text, run.last_text
    assert "async subagent" not in run.last_text


@pytest.mark.parametrize(
    "template",
    ["status of PO {digits}", "po#{digits} details pls", "查一下{digits}",
     "订单号：{digits} 到了吗", "P.O. No. {digits}?"],
)  # fmt: skip
async def test_an_order_number_as_buyers_write_it(world: PlannerWorld, template: str) -> None:
    newest = (await world.erp("/orders/search-details", size=1))["items"][0]
    digits = newest["order_no"].removeprefix("PO")
    run = await world.run(template.format(digits=digits))
    assert run.proposal is None
    assert newest["order_no"] in run.last_text, run.last_text
    assert newest["lines"][0]["sku"] in run.last_text, run.last_text


async def test_a_number_a_digit_short_is_not_another_order(world: PlannerWorld) -> None:
    newest = (await world.erp("/orders/search-details", size=1))["items"][0]
    short = newest["order_no"][:-1]
    run = await world.run(f"{short} 查一下")
    assert "找不到" in run.last_text and short in run.last_text, run.last_text
    assert not re.search(r"状态：", run.last_text), run.last_text  # no order shown as that one


async def test_full_width_letters_and_digits_are_read(world: PlannerWorld) -> None:
    parts = (await world.erp("/parts/search", name="IU7", limit=5))["items"]
    wide = "".join(chr(ord(c) + 0xFEE0) if c.isalnum() else c for c in parts[0]["model"])
    run = await world.run(f"查下库存 {wide}")
    assert parts[0]["sku"] in run.last_text, run.last_text


# --- an order being made, then a word about it ------------------------------------------


async def _two_sellers(
    world: PlannerWorld,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """A part (its model naming it alone) that two active suppliers price today, with their
    offers: the cheaper first."""
    now = date.today().isoformat()
    suppliers = {s["id"]: s for s in await world.suppliers()}
    for category in (await world.erp("/categories"))["items"]:
        parts = (await world.erp("/parts", category=category["code"], size=20))["items"]
        for listed in parts:
            part = await world.erp(f"/parts/{listed['id']}")
            offers = [o for o in part["offers"] if o["valid_from"] <= now <= o["valid_to"]
                      and suppliers[o["supplier_id"]]["status"] == "active"]  # fmt: skip
            same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
            if len(offers) >= 2 and len(same) == 1:
                return part, offers[0], offers[1]
    pytest.fail("the seed has no part two active suppliers sell")  # pragma: no cover


def _ordered(run: Run) -> tuple[int, int, int] | None:
    """(supplier, part, quantity) of the order card, None without one."""
    if run.proposal is None or run.proposal[0] != "order_create":
        return None
    args = run.proposal[1]
    [line] = args["lines"]
    return args["supplier_id"], line["part_id"], line["quantity"]


async def _card_then(world: PlannerWorld, first: str, second: str) -> Run:
    card = await world.run(first)
    assert card.proposal is not None, card.last_text
    return await world.run(second, history=world.thread())


async def test_a_new_quantity_after_the_card_makes_a_new_card(world: PlannerWorld) -> None:
    part, offer, _ = await _two_sellers(world)
    q, step = offer["min_order_qty"], offer["order_step"]
    first = f"给{offer['supplier_name_zh']}下单{part['model']} {q}个"
    run = await _card_then(world, first, f"改成{q + 4 * step}个")
    assert _ordered(run) == (offer["supplier_id"], part["id"], q + 4 * step), run.last_text
    english = f"order {q} {part['model']} from {offer['supplier_code']}"
    run = await _card_then(world, english, f"make it {q + 2 * step}")
    assert _ordered(run) == (offer["supplier_id"], part["id"], q + 2 * step), run.last_text


async def test_another_supplier_after_the_card_makes_a_card_for_it(world: PlannerWorld) -> None:
    part, offer, other = await _two_sellers(world)
    q = max(offer["min_order_qty"], other["min_order_qty"]) * offer["order_step"] * other[
        "order_step"]  # fmt: skip
    first = f"给{offer['supplier_name_zh']}下单{part['model']} {q}个"
    run = await _card_then(world, first, f"不对，是{other['supplier_name_zh']}的")
    assert _ordered(run) == (other["supplier_id"], part["id"], q), run.last_text
    english = f"order {q} {part['model']} from {offer['supplier_code']}"
    run = await _card_then(world, english, f"no, {other['supplier_code']}")
    assert _ordered(run) == (other["supplier_id"], part["id"], q), run.last_text


@pytest.mark.parametrize("second", ["算了不要了", "never mind", "cancel that"])
async def test_dropping_it_after_the_card_orders_nothing(world: PlannerWorld, second: str) -> None:
    part, offer, _ = await _two_sellers(world)
    before = world.fingerprint()
    first = f"order {offer['min_order_qty']} {part['model']} from {offer['supplier_code']}"
    run = await _card_then(world, first, second)
    assert run.proposal is None and not run.called("task"), run.calls
    assert "不下了" in run.last_text or "dropped" in run.last_text, run.last_text
    assert world.fingerprint() == before


@pytest.mark.parametrize("second", ["好的，就这样", "yes go ahead"])
async def test_confirming_after_the_card_shows_the_card_again(
    world: PlannerWorld, second: str
) -> None:
    part, offer, _ = await _two_sellers(world)
    q = offer["min_order_qty"]
    run = await _card_then(
        world, f"order {q} {part['model']} from {offer['supplier_code']}", second
    )
    assert _ordered(run) == (offer["supplier_id"], part["id"], q), run.last_text


async def test_the_answer_typed_as_a_new_message_completes_the_order(world: PlannerWorld) -> None:
    part, offer, _ = await _two_sellers(world)
    asked = await world.run(f"{part['model']}下单")
    assert asked.question is not None, asked.last_text
    q = offer["min_order_qty"]
    run = await world.run(f"{offer['supplier_code']} {q}个", history=world.thread())
    assert _ordered(run) == (offer["supplier_id"], part["id"], q), run.last_text


async def test_after_a_refusal_the_fix_makes_the_card(world: PlannerWorld) -> None:
    part, offer, _ = await _two_sellers(world)
    q, step = offer["min_order_qty"], offer["order_step"]
    if q <= step:
        pytest.fail("the chosen offer has no quantity below its minimum")  # pragma: no cover
    refused = await world.run(f"给{offer['supplier_name_zh']}下单{part['model']} {q - step}个")
    assert refused.proposal is None, refused.last_text
    run = await world.run(f"那就{q}个", history=_thread(world))
    assert _ordered(run) == (offer["supplier_id"], part["id"], q), run.last_text


async def test_a_whole_new_order_after_the_card_is_its_own(world: PlannerWorld) -> None:
    part, offer, other = await _two_sellers(world)
    first = f"order {offer['min_order_qty']} {part['model']} from {offer['supplier_code']}"
    q = other["min_order_qty"] * other["order_step"]
    second = f"order {q} {part['model']} from {other['supplier_code']}"
    run = await _card_then(world, first, second)
    assert _ordered(run) == (other["supplier_id"], part["id"], q), run.last_text


# --- the order just made, then a word about "it" ------------------------------------------


async def _placed(world: PlannerWorld, zh: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """An order placed through the planner and approved (its ERP row), and its offer."""
    part, offer, _ = await _two_sellers(world)
    q = offer["min_order_qty"]
    text = (f"给{offer['supplier_name_zh']}下单{part['model']} {q}个" if zh
            else f"order {q} {part['model']} from {offer['supplier_code']}")  # fmt: skip
    run = await world.run(text, script=Script(decisions=[{"type": "approve"}]))
    [order_no] = set(re.findall(r"PO\d{11}", run.final))
    order = (await world.erp("/orders/search-details", order_no=order_no))["items"][0]
    return order, offer


@pytest.mark.parametrize(
    ("zh", "said", "change"),
    [
        (False, "cancel it", {"status": "cancelled"}),
        (False, "make it {bigger}", {"lines": "bigger"}),
        (True, "把这张单的交期改到 2027-02-15", {"expected_date": "2027-02-15"}),
        (True, "备注写上：加急", {"note": "加急"}),
        (False, "can it still be cancelled?", None),
    ],
)
async def test_a_word_about_the_order_just_placed_acts_on_it(
    world: PlannerWorld, zh: bool, said: str, change: dict[str, Any] | None
) -> None:
    order, offer = await _placed(world, zh)
    bigger = offer["min_order_qty"] + 2 * offer["order_step"]
    run = await world.run(said.format(bigger=bigger), history=_thread(world))
    if change is None:  # a question: answered, nothing proposed
        assert run.proposal is None and order["order_no"] in run.last_text, run.last_text
        return
    assert run.proposal is not None and run.proposal[0] == "order_update", run.last_text
    args = run.proposal[1]
    assert args["order_id"] == order["order_no"], args
    if change.get("lines") == "bigger":
        assert args["lines"][0]["quantity"] == bigger, args
    else:
        assert {k: args.get(k) for k in change} == change, args
