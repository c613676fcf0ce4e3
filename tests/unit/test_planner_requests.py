"""Single requests buyers wrote that the planner misread, through its real decision path
against the real seeded ERP (the names come from the ERP's own records).

Written from the buyer's side: "order 100 of the cheapest X" orders from the lowest offer
(it started a comparison report and ordered nothing); "不要给A下单，给B下 X 200个" orders
from B, named by its brand (it said "OK, no order"); "X 的库存和价格" answers both; "what's
the lead time on X" is answered from the price lists (it was out of scope); "你是谁？能干嘛"
and a bare "?" get the introduction.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

import pytest

from tests.unit.planner_harness import PlannerWorld, Script, nothing_done, parts_on_offer


async def _offered(
    world: PlannerWorld, *, sellers: int
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A part (its model naming it alone) with at least ``sellers`` active offers valid today
    in one currency, and those offers."""
    now = date.today().isoformat()
    active = {s["id"] for s in await world.suppliers()
              if s["status"] == "active"}  # fmt: skip
    for category in (await world.erp("/categories"))["items"]:
        for listed in (await world.erp("/parts", category=category["code"], size=20))["items"]:
            part = await world.erp(f"/parts/{listed['id']}")
            offers = [o for o in part["offers"] if o["supplier_id"] in active
                      and o["valid_from"] <= now <= o["valid_to"]]  # fmt: skip
            same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
            if (
                len(offers) >= sellers
                and len({o["currency"] for o in offers}) == 1
                and len(same) == 1
            ):
                return part, offers
    pytest.fail(f"the seed has no part with {sellers} sellers")  # pragma: no cover


@pytest.mark.parametrize(
    "template", ["order {q} of the cheapest {model}", "从最便宜的那家订 {q} 个 {model}"]
)
async def test_ordering_the_cheapest_orders_from_the_lowest_offer(
    world: PlannerWorld, template: str
) -> None:
    part, offers = await _offered(world, sellers=2)
    best = min(offers, key=lambda o: o["price_minor"])
    q = max(o["min_order_qty"] for o in offers) * max(o["order_step"] for o in offers)
    run = await world.run(template.format(q=q, model=part["model"]))
    assert not run.delegations, run.delegations
    assert run.proposal is not None, run.last_text
    assert run.proposal[1]["supplier_id"] == best["supplier_id"], (best, run.proposal)
    assert best["price"] in run.last_text, run.last_text


async def test_not_from_one_maker_but_from_another_named_by_its_brand(world: PlannerWorld) -> None:
    suppliers = await world.suppliers()
    makers = {s["code"].casefold(): s for s in suppliers if s["kind"] == "maker"}
    for category in (await world.erp("/categories"))["items"]:
        parts = (await world.erp("/parts", category=category["code"], size=50))["items"]
        brands = [p for p in parts if p["brand"].casefold() in makers
                  and makers[p["brand"].casefold()]["status"] == "active"
                  and p["brand_zh"] not in makers[p["brand"].casefold()]["name_zh"]]  # fmt: skip
        others = [m for m in makers.values() if m["code"] != (brands[0]["brand"] if brands else "")]
        if brands and others:
            break
    else:
        pytest.fail("the seed has no maker named apart from its brand")  # pragma: no cover
    part = brands[0]
    maker = makers[part["brand"].casefold()]
    detail = await world.erp(f"/parts/{part['id']}")
    offer = next(o for o in detail["offers"] if o["supplier_id"] == maker["id"])
    q = offer["min_order_qty"]
    text = f"不要给{others[0]['name_zh']}下单，给{part['brand_zh']}下{part['model']} {q}个"
    run = await world.run(text)
    assert run.proposal is not None, (text, run.last_text)
    assert run.proposal[1]["supplier_id"] == maker["id"], (text, run.proposal)


async def test_stock_and_price_of_a_part_are_both_answered(world: PlannerWorld) -> None:
    part, offers = await _offered(world, sellers=1)
    stock = part["inventory"]
    run = await world.run(f"{part['model']}的库存和价格")
    assert run.proposal is None and not run.delegations
    assert f"在库 {stock['on_hand']}" in run.last_text, run.last_text
    assert all(o["price"] in run.last_text.replace(",", "") for o in offers), run.last_text


async def test_lead_time_is_answered_from_the_price_lists(world: PlannerWorld) -> None:
    part, offers = await _offered(world, sellers=1)
    for text in (f"what's the lead time on {part['model']}?", f"{part['model']} 交期多久"):
        run = await world.run(text)
        assert run.proposal is None and not run.delegations, text
        days = {str(o["lead_time_days"]) for o in offers}
        assert all(f"{d} 天" in run.last_text or f"{d} days" in run.last_text for d in days), (
            text, run.last_text)  # fmt: skip


@pytest.mark.parametrize("text", ["你是谁？能干嘛", "?", "……", "what can you help with?"])
async def test_who_are_you_gets_the_introduction(world: PlannerWorld, text: str) -> None:
    run = await world.run(text)
    assert run.final_note == "greeting", (text, run.final_note, run.last_text)
    assert not run.calls or all(n in ("category_list", "supplier_query") for _, n, _ in run.calls)


@pytest.mark.parametrize(
    ("text", "reply"),
    [
        # the nineteenth red-team round: "out of scope" to a buyer closing the talk
        ("谢谢，没事了", "不客气"),
        ("没事了", "随时找我"),
        ("先这样，明天再说", "随时找我"),
        ("ok that's all for now", "any time"),
        ("no thanks", "any time"),
    ],
)
async def test_a_buyer_closing_the_talk_is_answered_in_kind(
    world: PlannerWorld, text: str, reply: str
) -> None:
    run = await world.run(text)
    assert run.final_note == "greeting", (text, run.final_note, run.last_text)
    assert reply in run.last_text, run.last_text
    if text == "no thanks":  # declined, not thanked for anything
        assert "welcome" not in run.last_text.lower(), run.last_text
    assert not run.calls or all(n in ("category_list", "supplier_query") for _, n, _ in run.calls)


async def test_closing_words_with_a_request_still_do_the_request(world: PlannerWorld) -> None:
    part, _offers = await _offered(world, sellers=1)
    run = await world.run(f"没事了，帮我查一下{part['model']}的库存")
    assert run.final_note != "greeting", run.last_text
    assert part["sku"] in run.last_text, run.last_text


@pytest.mark.parametrize(
    ("text", "zh"), [("Cancel everything", False), ("全部取消", True), ("取消", True),
                     ("stop", False), ("cancel all", False)]
)  # fmt: skip
async def test_cancel_with_nothing_running_says_so_and_changes_nothing(
    world: PlannerWorld, text: str, zh: bool
) -> None:
    """The nineteenth red-team round: "out of scope". Nothing runs in a new conversation, and
    orders are never cancelled in bulk: said, with how an order is cancelled."""
    before = world.fingerprint()
    run = await world.run(text)
    nothing_done(run)
    assert run.question is None and not run.called("cancel_async_task"), run.calls
    reply = run.last_text
    assert ("没有正在运行" in reply and "订单号" in reply) if zh else (
        "no background analysis" in reply and "its number" in reply), reply  # fmt: skip
    assert world.fingerprint() == before


async def test_what_price_now_is_a_quote(world: PlannerWorld) -> None:
    part, offers = await _offered(world, sellers=1)
    run = await world.run(f"{part['model']}现在什么价")
    assert run.proposal is None and not run.delegations, run.last_text
    assert part["sku"] in run.last_text and offers[0]["price"] in run.last_text.replace(",", "")


async def test_which_orders_lists_them_and_a_count_is_kept(world: PlannerWorld) -> None:
    newest = (await world.erp("/orders/search-details", size=3))["items"]
    run = await world.run("show me our last 3 purchase orders")
    shown = re.findall(r"PO\d{11}", run.last_text)
    assert shown == [o["order_no"] for o in newest], run.last_text
    supplier_id = newest[0]["supplier_id"]
    theirs = (await world.erp("/orders/search-details", supplier_id=supplier_id, size=5))["items"]
    name = theirs[0]["supplier_name_zh"]
    listed = await world.run(f"最近给{name}下过哪些单")
    assert re.findall(r"PO\d{11}", listed.last_text) == [o["order_no"] for o in theirs], (
        listed.last_text)  # fmt: skip


async def test_cancelled_orders_are_counted_as_cancelled(world: PlannerWorld) -> None:
    year = (await world.erp("/orders/search-details", status="cancelled", size=100,
                            date_from="2026-01-01", date_to="2026-12-03"))  # fmt: skip
    run = await world.run("how many orders did we cancel this year")
    assert f": {year['total']}" in run.last_text, run.last_text
    assert "below safety" not in run.last_text
    shown = set(re.findall(r"PO\d{11}", run.last_text))
    assert shown and shown <= {o["order_no"] for o in year["items"]}, run.last_text


async def test_should_i_reorder_gets_a_verdict(world: PlannerWorld) -> None:
    part, _ = await _offered(world, sellers=1)
    inv = part["inventory"]
    run = await world.run(f"{part['model']}要不要补货")
    assert run.proposal is None and run.final_note == "inventory-answer", run.last_text
    low = inv["on_hand"] - inv["reserved"] + inv["on_order"] < inv["safety_stock"]
    assert ("建议补货" if low else "暂时不用补货") in run.last_text, run.last_text


@pytest.mark.parametrize(
    "template", ["把{model}的安全库存改成100", "set {code}'s price for {model} to 10 CNY",
                 "帮我把{code}的{model}单价改成 12 元"],
)  # fmt: skip
async def test_master_data_is_not_changed_here(world: PlannerWorld, template: str) -> None:
    part, offers = await _offered(world, sellers=1)
    before = world.fingerprint()
    run = await world.run(template.format(model=part["model"], code=offers[0]["supplier_code"]))
    assert run.final_note == "master-data", (run.final_note, run.last_text)
    assert run.proposal is None and world.fingerprint() == before


async def test_a_note_added_to_keeps_the_note_there(world: PlannerWorld) -> None:
    part, offers = await _offered(world, sellers=1)
    offer = offers[0]
    q = offer["min_order_qty"]
    placed = await world.run(
        f"给{offer['supplier_name_zh']}下单{part['model']} {q}个，备注：第一批",
        script=Script(decisions=[{"type": "approve"}]),
    )
    [order_no] = set(re.findall(r"PO\d{11}", placed.final))
    order = (await world.erp("/orders/search-details", order_no=order_no))["items"][0]
    assert order["note"].endswith("第一批"), order["note"]
    run = await world.run(f"{order_no} 备注加一句：已验收")
    assert run.proposal is not None, run.last_text
    assert run.proposal[1]["note"] == order["note"] + "；已验收", run.proposal


async def test_the_x_one_answers_which_part_and_keeps_the_quantity(world: PlannerWorld) -> None:
    part, offers = await _offered(world, sellers=1)
    offer = offers[0]
    q = offer["min_order_qty"] * 3
    text = f"order {q} {part['category_en'].lower()}s from {offer['supplier_code']}"
    run = await world.run(text, script=Script(answers=[f"the {part['model']} one"]))
    assert run.proposal is not None, run.last_text
    [line] = run.proposal[1]["lines"]
    assert (line["part_id"], line["quantity"]) == (part["id"], q), run.proposal


async def test_should_i_order_more_is_answered_with_the_stock(world: PlannerWorld) -> None:
    part, _ = await _offered(world, sellers=1)
    for text in (f"should I order more {part['model']}?", f"是不是应该多备点{part['model']}"):
        run = await world.run(text)
        assert run.proposal is None and not run.called("task"), (text, run.calls)
        # the stock answer, or the same figures under "your call" (an opinion asked)
        assert run.final_note in ("inventory-answer", "held-order"), run.final_note
        assert part["sku"] in run.last_text, run.last_text


async def test_a_minimum_order_question_is_a_quote(world: PlannerWorld) -> None:
    part, offers = await _offered(world, sellers=1)
    run = await world.run(f"{part['model']} 的最小起订量是多少")
    assert run.proposal is None and not run.called("task")
    assert f"起订 {offers[0]['min_order_qty']}" in run.last_text, run.last_text
    bare = await world.run("最小起订量是多少")
    assert bare.final_note == "ask:part" and not bare.called("task"), bare.last_text


async def test_a_change_says_what_it_changes(world: PlannerWorld) -> None:
    part, offers = await _offered(world, sellers=1)
    offer = offers[0]
    placed = await world.run(
        f"order {offer['min_order_qty']} {part['model']} from {offer['supplier_code']}",
        script=Script(decisions=[{"type": "approve"}]),
    )
    [order_no] = set(re.findall(r"PO\d{11}", placed.final))
    order = (await world.erp("/orders/search-details", order_no=order_no))["items"][0]
    for text in (f"can {order_no} still be cancelled?", f"{order_no} 还能改交期吗"):
        asked = await world.run(text)
        assert asked.proposal is None and not asked.called("order_update"), asked.calls
    run = await world.run(f"{order_no} 交期改到 2027-02-15")
    assert run.proposal is not None, run.last_text
    assert f"到货日期 {order['expected_date']} → 2027-02-15" in run.last_text, run.last_text


async def test_spend_over_a_period_is_the_orders_totals(world: PlannerWorld) -> None:
    month = await world.erp("/orders/search-details", date_from="2026-11-01",
                            date_to="2026-11-30", size=100)  # fmt: skip
    placed = [o for o in month["items"] if o["status"] != "cancelled"]
    cny = sum(o["total_minor"] for o in placed if o["currency"] == "CNY")
    run = await world.run("11月份采购总额是多少")
    assert run.proposal is None and not run.called("request_order_info"), run.last_text
    assert f"{cny / 100:,.2f} CNY" in run.last_text and f"{len(placed)} 张" in run.last_text, (
        run.last_text)  # fmt: skip
    supplier_id = placed[0]["supplier_id"]
    theirs = [o for o in placed if o["supplier_id"] == supplier_id]
    name = placed[0]["supplier_name_en"]
    english = await world.run(f"how much did we spend with {name} last month?")
    total = sum(o["total_minor"] for o in theirs if o["currency"] == theirs[0]["currency"])
    assert f"{total / 100:,.2f} {theirs[0]['currency']}" in english.last_text, english.last_text


async def test_the_price_paid_last_time_is_the_newest_order_of_the_part(
    world: PlannerWorld,
) -> None:
    part, _ = await _offered(world, sellers=1)
    bought = (await world.erp("/orders/search-details", part_id=part["id"], size=20))["items"]
    bought = [o for o in bought if o["status"] != "cancelled"]
    if not bought:
        pytest.fail("the seed has no order of the part")  # pragma: no cover
    newest = bought[0]
    [line] = [ln for ln in newest["lines"] if ln["part_id"] == part["id"]]
    run = await world.run(f"上次买{part['model']}是什么价")
    assert newest["order_no"] in run.last_text and str(line["unit_price"]) in run.last_text, (
        run.last_text)  # fmt: skip


async def test_an_expired_price_is_said_expired_not_never_sold(world: PlannerWorld) -> None:
    today = date.today().isoformat()
    for category in (await world.erp("/categories"))["items"]:
        for listed in (await world.erp("/parts", category=category["code"], size=30))["items"]:
            part = await world.erp(f"/parts/{listed['id']}")
            ended = [o for o in part["offers"] if o["valid_to"] < today]
            live = {o["supplier_code"] for o in part["offers"] if o["valid_to"] >= today}
            same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
            if ended and ended[0]["supplier_code"] not in live and len(same) == 1:
                offer = ended[0]
                run = await world.run(f"what does {offer['supplier_name_en']} charge for "
                                      f"{part['model']}")  # fmt: skip
                assert f"expired on {offer['valid_to']}" in run.last_text, run.last_text
                return
    pytest.fail("the seed has no expired price")  # pragma: no cover


async def test_a_suppliers_status_is_answered_from_its_record(world: PlannerWorld) -> None:
    suppliers = await world.suppliers()
    held = next(s for s in suppliers if s["status"] == "on_hold")
    run = await world.run(f"is {held['name_en']} still an active supplier?")
    assert "on hold" in run.last_text and held["code"] in run.last_text, run.last_text
    zh = await world.run(f"{held['name_zh']}这个供应商现在什么状态")
    assert "暂停合作" in zh.last_text, zh.last_text


async def _brand_not_cheapest(
    world: PlannerWorld,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any], int]:
    """A part whose maker (the active supplier whose code is its brand) sells it, but not at
    the lowest price valid today (all its active offers in one currency): the part, its
    maker's offer, the lowest offer and a quantity both accept."""
    active = {s["id"]: s for s in await world.suppliers() if s["status"] == "active"}
    async for part, offers in parts_on_offer(world):
        live = [o for o in offers if o["supplier_id"] in active]
        maker = [o for o in live if active[o["supplier_id"]]["code"].casefold()
                 == part["brand"].casefold()]  # fmt: skip
        if not maker or len({o["currency"] for o in live}) != 1:
            continue
        best = min(live, key=lambda o: o["price_minor"])
        if best["price_minor"] < maker[0]["price_minor"]:
            q = max(o["min_order_qty"] for o in live) * max(o["order_step"] for o in live)
            return part, maker[0], best, q
    pytest.fail("the seed has no part whose maker is not its cheapest seller")  # pragma: no cover


@pytest.mark.parametrize(
    "template",
    [
        # the nineteenth red-team round: the brand before the model was taken for the supplier
        # (its maker carded at its own higher price); "Place an order for …" started an analysis
        "order {q} {brand} {model} from the cheapest supplier",
        "{brand_zh} {model} {q}个，找最便宜的供应商下单",
        "Place an order for {q} {brand} {model} with the cheapest supplier",
    ],
)
async def test_the_cheapest_supplier_asked_is_not_the_parts_brand(
    world: PlannerWorld, template: str
) -> None:
    part, _maker, best, q = await _brand_not_cheapest(world)
    said = template.format(q=q, brand=part["brand"], brand_zh=part["brand_zh"],
                           model=part["model"])  # fmt: skip
    run = await world.run(said)
    assert not run.delegations, run.delegations
    assert run.proposal is not None, run.last_text
    assert run.proposal[1]["supplier_id"] == best["supplier_id"], (best, run.proposal)
    assert best["price"] in run.last_text, run.last_text


async def test_ordering_from_the_maker_by_name_still_orders_from_it(world: PlannerWorld) -> None:
    part, maker, _best, q = await _brand_not_cheapest(world)
    run = await world.run(f"给{part['brand_zh']}下单 {part['model']} {q}个")
    assert run.proposal is not None, run.last_text
    assert run.proposal[1]["supplier_id"] == maker["supplier_id"], run.proposal
