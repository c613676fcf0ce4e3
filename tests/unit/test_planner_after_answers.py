"""What buyers say right after an answer, and questions about goods on their way, through
the planner's real decision path against the real seeded ERP, with the thread as deepagents
keeps it.

From a red-team round: right after an analysis started, "取消", "算了不用了" and "进度怎么样了"
were out of scope, "取消所有分析" stopped one of two, and "换成近6个月" asked for a BOM; right
after a quote, "换成200个呢总价多少" asked which category to analyse, "what about 500 pcs?" was
out of scope and "CQMP那家交期几天" asked which part; "IU7 报个价" asked what to do; "上次跟
GZMT订IU7是什么价" quoted today's prices; "IU7什么时候到" and "这周有什么货到" were not
understood ("when will the IU7 arrive?" quoted lead times). Every figure is read from the ERP.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest

from tests.unit.planner_harness import (
    TODAY,
    PlannerWorld,
    Run,
    Script,
    priced_today,
    sold_part,
)

_TASK = re.compile(r"task_id: ([0-9a-f-]{36})")


async def _category(world: PlannerWorld) -> dict[str, Any]:
    return (await world.erp("/categories"))["items"][0]


def _nothing_done(run: Run) -> None:
    committing = ("order_create", "order_update", "order_validate")
    assert run.proposal is None and not run.delegations, run.calls
    assert not any(run.called(t, "procurement-order") for t in committing), run.calls


@pytest.mark.parametrize(
    ("said", "tool"),
    [("取消", "cancel_async_task"), ("算了不用了", "cancel_async_task"),
     ("never mind", "cancel_async_task"), ("进度怎么样了", "check_async_task"),
     ("is it done yet?", "check_async_task")],
)  # fmt: skip
async def test_a_bare_word_after_a_launch_is_about_that_analysis(
    world: PlannerWorld, said: str, tool: str
) -> None:
    category = await _category(world)
    started = await world.run(f"帮我做一下{category['name_zh']}的供应商比价")
    [task_id] = _TASK.findall(started.last_text)
    run = await world.run(said, history=world.thread())
    _nothing_done(run)
    [call] = run.called(tool)
    assert call["task_id"] == task_id, run.calls
    assert task_id in run.last_text, run.last_text


async def test_cancelling_all_analyses_cancels_each(world: PlannerWorld) -> None:
    first, second = (await world.erp("/categories"))["items"][:2]
    await world.run(f"比较一下{first['name_zh']}的价格")
    history = world.thread()
    await world.run(f"再比较一下{second['name_zh']}", history=history)
    history = world.thread()
    ids = [m for t in history if getattr(t, "name", "") == "start_async_task"
           for m in _TASK.findall(str(t.content))]  # fmt: skip
    assert len(ids) == 2
    run = await world.run("取消所有分析", history=history)
    assert sorted(c["task_id"] for c in run.called("cancel_async_task")) == sorted(ids)
    assert all(i in run.last_text for i in ids), run.last_text


async def test_a_new_window_after_a_launch_starts_it_again(world: PlannerWorld) -> None:
    category = await _category(world)
    await world.run(f"比较一下{category['name_zh']}的价格")
    run = await world.run("换成近6个月", history=world.thread())
    assert run.delegations, run.last_text
    assert '"window_months": 6' in run.delegations[-1] and category["code"] in run.delegations[-1]


async def _quoted(world: PlannerWorld) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A part its model names alone with two or more offers valid today in one currency."""
    for category in (await world.erp("/categories"))["items"]:
        for listed in (await world.erp("/parts", category=category["code"], size=20))["items"]:
            part = await world.erp(f"/parts/{listed['id']}")
            same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
            offers = [o for o in part["offers"] if priced_today({"offer": o})]
            if len(same) == 1 and len(offers) >= 2 and len({o["currency"] for o in offers}) == 1:
                return part, sorted(offers, key=lambda o: o["price_minor"])
    pytest.fail("the seed has no such part")  # pragma: no cover


@pytest.mark.parametrize("ask", ["{model} 报个价", "给个{model}的价", "quote me {model}"])
async def test_a_quote_asked_in_few_words_is_a_quote(world: PlannerWorld, ask: str) -> None:
    part, offers = await _quoted(world)
    run = await world.run(ask.format(model=part["model"]))
    _nothing_done(run)
    assert all(o["supplier_code"] in run.last_text for o in offers), run.last_text


@pytest.mark.parametrize(
    ("ask", "then"),
    [("{model} 报个价", "换成{q}个呢总价多少"), ("how much is {model}?", "what about {q} pcs?")],
)
async def test_a_quantity_after_a_quote_is_the_total(
    world: PlannerWorld, ask: str, then: str
) -> None:
    part, offers = await _quoted(world)
    q = max(o["min_order_qty"] for o in offers) * 3
    await world.run(ask.format(model=part["model"]))
    run = await world.run(then.format(q=q), history=world.thread())
    _nothing_done(run)
    for offer in offers:
        assert f"{offer['price_minor'] * q / 100:,.2f}" in run.last_text, run.last_text


async def test_a_supplier_named_after_a_quote_is_that_offer(world: PlannerWorld) -> None:
    part, offers = await _quoted(world)
    dearest = offers[-1]
    await world.run(f"{part['model']} 报个价")
    run = await world.run(f"{dearest['supplier_code']}那家交期几天", history=world.thread())
    _nothing_done(run)
    first = next(ln for ln in run.last_text.splitlines() if ln.startswith("- "))
    assert dearest["supplier_code"] in first and f"{dearest['lead_time_days']} 天" in first


async def test_the_price_paid_last_time_with_a_supplier(world: PlannerWorld) -> None:
    for order in (await world.erp("/orders/search-details", size=30))["items"]:
        if order["status"] == "cancelled":
            continue
        line = order["lines"][-1]
        part = await world.erp(f"/parts/{line['part_id']}")
        same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
        newest = (await world.erp("/orders/search-details", supplier_id=order["supplier_id"],
                                  part_id=part["id"], size=1))["items"]  # fmt: skip
        if len(same) == 1 and newest[0]["order_no"] == order["order_no"]:
            break
    else:  # pragma: no cover
        pytest.fail("no order to read a price from")
    run = await world.run(f"上次跟{order['supplier_code']}订{part['model']}是什么价")
    _nothing_done(run)
    assert order["order_no"] in run.last_text, run.last_text
    assert f"{line['unit_price_minor'] / 100:.2f}" in run.last_text, run.last_text


async def test_when_goods_arrive_lists_the_open_orders(world: PlannerWorld) -> None:
    part, offers = await _quoted(world)
    offer = offers[0]
    q = offer["min_order_qty"] * offer["order_step"]
    none = await world.run(f"{part['model']}什么时候到")
    _nothing_done(none)
    assert "没有" in none.last_text and part["sku"] in none.last_text, none.last_text
    await world.run(f"给{offer['supplier_code']}订{part['model']} {q}个",
                    script=Script(decisions=[{"type": "approve"}]))  # fmt: skip
    [placed] = (await world.erp("/orders/search-details", part_id=part["id"],
                                status="draft", size=5))["items"]  # fmt: skip
    for ask in (f"{part['model']}什么时候到", f"when will the {part['model']} arrive?"):
        run = await world.run(ask)
        _nothing_done(run)
        assert placed["order_no"] in run.last_text, (ask, run.last_text)
        assert str(placed["expected_date"]) in run.last_text, (ask, run.last_text)


@pytest.mark.parametrize(
    "ask", ["这周有什么货到", "what's arriving this week?", "Any deliveries due this week?"]
)
async def test_what_arrives_this_week(world: PlannerWorld, ask: str) -> None:
    monday = TODAY - timedelta(days=TODAY.weekday())
    sunday = monday + timedelta(days=6)
    due = [o for s in ("draft", "pending_approval", "approved", "partially_received")
           for o in (await world.erp("/orders/search-details", status=s, size=100))["items"]
           if monday.isoformat() <= str(o["expected_date"]) <= sunday.isoformat()]  # fmt: skip
    run = await world.run(ask)
    _nothing_done(run)
    assert monday.isoformat() in run.last_text and sunday.isoformat() in run.last_text
    assert all(o["order_no"] in run.last_text for o in due), run.last_text
    if not due:
        assert "没有" in run.last_text or "No orders" in run.last_text, run.last_text


async def test_a_brand_added_to_an_unlimited_comparison_is_already_in(world: PlannerWorld) -> None:
    category = await _category(world)
    suppliers = await world.suppliers()
    maker = next(s for s in suppliers if s["kind"] == "maker" and s["status"] == "active")
    await world.run(f"比较一下{category['name_zh']}的价格")
    run = await world.run(f"also include {maker['code']}", history=world.thread())
    assert not run.delegations, run.delegations  # nothing narrowed to that brand
    assert maker["name_en"] in run.last_text and "already" in run.last_text, run.last_text
    # with a brand limit, the brand named is added to it
    other = next(s for s in suppliers if s["kind"] == "maker" and s is not maker)
    await world.run(f"比较一下{category['name_zh']}的价格，只看{other['code']}")
    run = await world.run(f"把{maker['name_zh']}也加上", history=world.thread())
    [description] = run.delegations
    assert maker["code"] in description and other["code"] in description, description


async def test_a_distributor_or_a_blocked_supplier_named_is_said(world: PlannerWorld) -> None:
    category = await _category(world)
    suppliers = await world.suppliers()
    for s in suppliers:
        if s["kind"] != "distributor":
            continue
        run = await world.run(f"比较一下{category['name_zh']}的价格，只看{s['code']}")
        assert run.delegations, run.last_text
        assert f"（{s['code']}）是经销商" in run.last_text, run.last_text
        assert ("不能向它下单" in run.last_text) == (s["status"] != "active"), run.last_text


async def test_only_domestic_after_a_launch_restarts_it_so(world: PlannerWorld) -> None:
    category = await _category(world)
    await world.run(f"比较一下{category['name_zh']}的价格")
    run = await world.run("换成只看国内供应商", history=world.thread())
    [description] = run.delegations
    assert '"origin": "domestic"' in description, description


@pytest.mark.parametrize("ask", ["报告出来了没", "is the report done?"])
async def test_a_report_asked_for_with_none_running(world: PlannerWorld, ask: str) -> None:
    run = await world.run(ask)
    _nothing_done(run)
    assert run.final_note == "no-task", (run.final_note, run.last_text)


@pytest.mark.parametrize(
    "ask",
    ["谁卖 {model}", "哪家有{model}卖", "who supplies {model}?",
     "is there an alternative supplier for {model}?", "{model} 还有别的供应商吗"],
)  # fmt: skip
async def test_who_sells_a_part_is_its_quote(world: PlannerWorld, ask: str) -> None:
    part, offers = await _quoted(world)
    run = await world.run(ask.format(model=part["model"]))
    _nothing_done(run)
    assert all(o["supplier_code"] in run.last_text for o in offers), run.last_text


@pytest.mark.parametrize(("said", "expect"), [("actually make it 3 months", '"window_months": 3'),
                                              ("换成近6个月", '"window_months": 6')])  # fmt: skip
async def test_a_window_said_after_a_launch(world: PlannerWorld, said: str, expect: str) -> None:
    category = await _category(world)
    await world.run(f"比较一下{category['name_zh']}的价格")
    run = await world.run(said, history=world.thread())
    [description] = run.delegations
    assert expect in description, description


async def test_how_long_after_a_launch_checks_it(world: PlannerWorld) -> None:
    category = await _category(world)
    started = await world.run(f"compare {category['name_en'].lower()} prices")
    [task_id] = _TASK.findall(started.last_text)
    run = await world.run("how long will it take?", history=world.thread())
    [call] = run.called("check_async_task")
    assert call["task_id"] == task_id


async def _another_part(world: PlannerWorld, part: dict[str, Any]) -> dict[str, Any]:
    """Another part of ``part``'s category that its model names alone."""
    for p in (await world.erp("/parts", category=part["category_code"], size=50))["items"]:
        same = (await world.erp("/parts/search", name=p["model"], limit=5))["items"]
        if p["id"] != part["id"] and "-" not in p["model"] and len(same) == 1:
            return dict(p)
    pytest.fail("no other part in the category")  # pragma: no cover


async def test_another_part_after_a_launch_is_compared(world: PlannerWorld) -> None:
    part, _ = await _quoted(world)
    other = await _another_part(world, part)
    await world.run(f"比价 {part['model']}")
    run = await world.run(f"换成 {other['model']}", history=world.thread())
    [description] = run.delegations
    assert other["sku"] in description and part["sku"] not in description, description


@pytest.mark.parametrize(
    "ask",
    [
        "下单前先帮我查下 {sup} 的 {model} 库存和报价",
        "{model} 哪家最便宜？直接报价就行，不用做分析",
    ],
)
async def test_a_quote_asked_before_ordering_or_without_a_study(
    world: PlannerWorld, ask: str
) -> None:
    part, offers = await _quoted(world)
    run = await world.run(ask.format(sup=offers[0]["supplier_code"], model=part["model"]))
    _nothing_done(run)
    assert run.question is None, run.question
    assert offers[0]["supplier_code"] in run.last_text and part["sku"] in run.last_text


async def test_two_parts_compared_each(world: PlannerWorld) -> None:
    part, _ = await _quoted(world)
    other = await _another_part(world, part)
    run = await world.run(f"{part['model']} 和 {other['model']} 分别比一下价")
    assert run.proposal is None and run.question is None, run.last_text
    [description] = run.delegations
    assert part["sku"] in description and other["sku"] in description, description


@pytest.mark.parametrize("ask", ["{sup} 有没有卖 {model}", "does {sup} sell {model}?"])
async def test_whether_a_supplier_sells_a_part(world: PlannerWorld, ask: str) -> None:
    part, offers = await _quoted(world)
    sellers = {o["supplier_id"] for o in part["offers"]}
    suppliers = await world.suppliers()
    other = next(s for s in suppliers if s["id"] not in sellers and s["kind"] == "maker")
    run = await world.run(ask.format(sup=other["code"], model=part["model"]))
    _nothing_done(run)
    assert "不供应" in run.last_text or "does not sell" in run.last_text, run.last_text
    assert offers[0]["supplier_code"] in run.last_text, run.last_text


async def test_a_quote_marks_a_supplier_that_takes_no_orders(world: PlannerWorld) -> None:
    suppliers = {s["id"]: s for s in await world.suppliers()}
    for category in (await world.erp("/categories"))["items"]:
        for listed in (await world.erp("/parts", category=category["code"], size=50))["items"]:
            part = await world.erp(f"/parts/{listed['id']}")
            same = (await world.erp("/parts/search", name=part["model"], limit=5))["items"]
            stopped = [o for o in part["offers"] if priced_today({"offer": o})
                       and suppliers[o["supplier_id"]]["status"] != "active"]  # fmt: skip
            if stopped and len(same) == 1:
                run = await world.run(f"{part['model']} 报个价")
                line = next(ln for ln in run.last_text.splitlines()
                            if f"（{stopped[0]['supplier_code']}）" in ln)  # fmt: skip
                assert "不能下单" in line, line
                return
    pytest.fail("no part priced by a supplier that is not active")  # pragma: no cover


@pytest.mark.parametrize(
    ("first", "then"),
    [("比较一下{zh}价格，只看经销商", None), ("比较一下{zh}价格", "only distributors please")],
)
async def test_a_limit_by_kind_is_said_not_dropped(
    world: PlannerWorld, first: str, then: str | None
) -> None:
    category = await _category(world)
    run = await world.run(first.format(zh=category["name_zh"]))
    if then is not None:
        run = await world.run(then, history=world.thread())
        assert not run.delegations, run.delegations  # nothing restarted for a limit it cannot take
    assert "不能按供应商类型" in run.last_text or "kind of supplier" in run.last_text, run.last_text


# From the thirteenth red-team round: each of these follow-ups was "outside what I do", a
# menu, or a question for a category to analyse.


@pytest.mark.parametrize("why", ["why not?", "为什么", "how come?"])
async def test_why_after_the_erp_refused_says_its_reasons_again(
    world: PlannerWorld, why: str
) -> None:
    received = (await world.erp("/orders/search-details", status="received", size=1))["items"]
    [order] = received
    refused = await world.run(f"cancel {order['order_no']}")
    assert refused.proposal is None, refused.last_text
    codes = re.findall(r"[（(]([A-Z][A-Z_]{3,})[)）]", refused.last_text)
    assert codes, refused.last_text
    before = world.fingerprint()
    run = await world.run(why, history=world.thread())
    _nothing_done(run)
    assert world.fingerprint() == before
    assert all(c in run.last_text for c in codes) and order["order_no"] in run.last_text


@pytest.mark.parametrize(
    ("ordered", "why"),
    [("给{code}订{q}个{model}", "为什么被拒了"), ("给{code}订{q}个{model}", "why was it rejected?"),
     ("給{code}訂{q}個{model}", "為什麼被拒了")],  # Traditional: the answer read back in it
)  # fmt: skip
async def test_why_after_the_buyer_rejected_the_card(
    world: PlannerWorld, ordered: str, why: str
) -> None:
    part, supplier, quantity = await sold_part(world)
    rejected = await world.run(
        ordered.format(code=supplier["code"], q=quantity, model=part["model"]),
        script=Script(decisions=[{"type": "reject", "message": "no"}]),
    )
    assert rejected.proposal is not None, rejected.last_text
    before = world.fingerprint()
    run = await world.run(why, history=world.thread())
    _nothing_done(run)
    assert world.fingerprint() == before
    said = ("审批卡片上拒绝", "審批卡片上拒絕", "rejected it on the approval card")
    assert any(w in run.last_text for w in said), run.last_text


async def _two_suppliers(world: PlannerWorld) -> list[dict[str, Any]]:
    found = await world.suppliers()
    return [found[3], found[len(found) // 2]]


@pytest.mark.parametrize(("first", "again"), [("what currency do we pay {en} in?", "and {en}?"),
                                               ("{zh}是哪个国家的", "那{zh}呢")])  # fmt: skip
async def test_the_same_question_about_another_supplier(
    world: PlannerWorld, first: str, again: str
) -> None:
    one, other = await _two_suppliers(world)
    await world.run(first.format(en=one["name_en"], zh=one["name_zh"]))
    run = await world.run(again.format(en=other["name_en"], zh=other["name_zh"]),
                          history=world.thread())  # fmt: skip
    _nothing_done(run)
    for value in (other["code"], other["country"], other["currency"]):
        assert value in run.last_text, (value, run.last_text)
    assert one["code"] not in run.last_text, run.last_text


@pytest.mark.parametrize(("menu", "asked"), [("帮我看看{zh}", "报价"), ("{en}", "prices?")])
async def test_prices_asked_of_a_supplier_are_its_price_list(
    world: PlannerWorld, menu: str, asked: str
) -> None:
    supplier = next(s for s in await _two_suppliers(world))
    parts = await world.erp(f"/parts/supplier/{supplier['id']}", size=50)
    await world.run(menu.format(zh=supplier["name_zh"], en=supplier["name_en"]))
    run = await world.run(asked, history=world.thread())
    _nothing_done(run)
    assert str(parts["total"]) in run.last_text, run.last_text
    assert parts["items"][0]["model"] in run.last_text, run.last_text


@pytest.mark.parametrize(
    ("stock", "restock"),
    [("哪些零件缺货", "帮我补一下"), ("which parts are out of stock?", "restock them")],
)
async def test_restock_after_a_stock_answer_asks_what_to_order(
    world: PlannerWorld, stock: str, restock: str
) -> None:
    shown = await world.run(stock)
    skus = re.findall(r"^- (\S+)", shown.last_text, re.M)
    assert skus, shown.last_text
    before = world.fingerprint()
    run = await world.run(restock, history=world.thread())
    _nothing_done(run)
    assert run.handed_over is None and world.fingerprint() == before
    assert all(s in run.last_text for s in skus), run.last_text
