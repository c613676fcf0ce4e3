"""What a buyer says once a price comparison has come back, through the planner's real
decision path against the real seeded ERP: the summary is the offline analyst's own
(its real writer), delivered as deepagents notifies the orchestrator.

From the fifteenth red-team round: "就按推荐的下单，IU7 200个" and "order 200 IU7 from the
recommended supplier" started another analysis ("推荐", "recommend" read as a study) and
said the finished one was "still running"; "每个推荐的各订100个", "把报告发给我老板" and "报告在
哪" were out of scope or "I don't know which user you are"; "为什么推荐广州摩托配件" asked which
category to analyse; "再做一份刹车片的" showed a menu.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from graphs.offline.text import to_simplified, to_traditional
from tests.unit.planner_harness import (
    PlannerWorld,
    Run,
    analysis_scope,
    analysis_summary,
    notify_done,
    parts_on_offer,
)

_TASK = re.compile(r"task_id: ([0-9a-f-]{36})")


Pick = tuple[dict[str, Any], dict[str, Any]]


async def _reported(
    world: PlannerWorld, zh: bool, traditional: bool = False
) -> tuple[list[Pick], Run]:
    """A comparison asked for and finished: two parts of one category, each recommended
    from an active supplier that is not the cheapest first offer (so nothing but the
    report can have chosen it); the notification's answer."""
    suppliers = {s["id"]: s for s in await world.suppliers()}  # fmt: skip
    picks: list[Pick] = []
    async for part, offers in parts_on_offer(world):
        if len(offers) >= 2 and (
            not picks or picks[0][0]["category_code"] == part["category_code"]
        ):
            picks.append((part, suppliers[offers[-1]["supplier_id"]]))
        if len(picks) == 2:
            break
    category = next(c for c in (await world.erp("/categories"))["items"]
                    if c["code"] == picks[0][0]["category_code"])  # fmt: skip
    ask = f"帮我对{category['name_zh']}做供应商比价" if zh else (
        f"compare {category['name_en'].lower()} suppliers")  # fmt: skip
    started = await world.run(to_traditional(ask) if traditional else ask)
    [task_id] = _TASK.findall(started.last_text)
    done = await notify_done(world, task_id, analysis_summary(category, picks, zh))
    return picks, done


def _nothing_ordered(run: Run) -> None:
    assert run.proposal is None and not run.called("order_create"), run.calls
    assert run.delegations == [], run.delegations


@pytest.mark.parametrize(
    ("template", "zh"),
    [("就按推荐的下单，{model} {qty}个", True), ("下单{model} {qty}个，按推荐", True),
     ("order {qty} {model} from the recommended supplier", False),
     ("就按推薦的下單，{model} {qty}個", True)],  # Traditional: the summary relayed in it
)  # fmt: skip
async def test_an_order_as_recommended_is_from_the_reports_supplier(
    world: PlannerWorld, template: str, zh: bool
) -> None:
    picks, done = await _reported(world, zh, traditional=template != to_simplified(template))
    assert "仍在后台运行" not in done.last_text and "still running" not in done.last_text
    part, supplier = picks[1]
    offer = next(o for o in part["offers"] if o["supplier_id"] == supplier["id"])
    qty = offer["min_order_qty"] * offer["order_step"] * 2
    run = await world.run(template.format(model=part["model"], qty=qty), history=world.thread())
    assert run.delegations == [], run.delegations  # no second analysis
    assert run.proposal is not None, run.last_text
    name, args = run.proposal
    assert name == "order_create" and args["supplier_id"] == supplier["id"], args
    assert args["lines"] == [{"part_id": part["id"], "quantity": qty}]


async def test_every_recommendation_is_an_order_each_sent_one_by_one(world: PlannerWorld) -> None:
    picks, _ = await _reported(world, True)
    before = world.fingerprint()
    run = await world.run("每个推荐的各订100个", history=world.thread())
    _nothing_ordered(run)
    assert world.fingerprint() == before
    for part, supplier in picks:
        assert f"{part['sku']} ← {supplier['code']}" in run.last_text, run.last_text


async def test_which_part_is_asked_when_several_were_recommended(world: PlannerWorld) -> None:
    picks, _ = await _reported(world, False)
    run = await world.run("ok, order from the recommended supplier", history=world.thread())
    _nothing_ordered(run)
    assert all(part["sku"] in run.last_text for part, _ in picks), run.last_text


@pytest.mark.parametrize("zh", [True, False])
async def test_why_a_supplier_is_recommended(world: PlannerWorld, zh: bool) -> None:
    picks, _ = await _reported(world, zh)
    part, supplier = picks[0]
    name = supplier["name_zh"] if zh else supplier["name_en"]
    asked = f"为什么推荐{name}" if zh else f"why do you recommend {name}?"
    run = await world.run(asked, history=world.thread())
    _nothing_ordered(run)
    assert part["sku"] in run.last_text and "report_" in run.last_text, run.last_text
    assert picks[1][0]["sku"] not in run.last_text  # the other part's line is not this one


@pytest.mark.parametrize(
    ("asked", "said"),
    [("把报告发给我老板", "什么都没有发出去"), ("email the report to my boss", "nothing was sent"),
     ("报告在哪", "report_"), ("where is the report?", "report_")],
)  # fmt: skip
async def test_the_report_just_made(world: PlannerWorld, asked: str, said: str) -> None:
    _, done = await _reported(world, not asked.isascii())
    [report] = re.findall(r"/analysis/report_\w+\.md", done.last_text)
    run = await world.run(asked, history=world.thread())
    _nothing_ordered(run)
    assert said in run.last_text and report in run.last_text, run.last_text


@pytest.mark.parametrize(("zh", "again"), [(True, "再做一份{zh}的"), (False, "same for {en}s")])
async def test_the_same_for_another_category(world: PlannerWorld, zh: bool, again: str) -> None:
    picks, _ = await _reported(world, zh)
    other = next(c for c in (await world.erp("/categories"))["items"]
                 if c["code"] != picks[0][0]["category_code"])  # fmt: skip
    run = await world.run(again.format(zh=other["name_zh"], en=other["name_en"].lower()),
                          history=world.thread())  # fmt: skip
    [delegation] = run.delegations
    scope = analysis_scope(delegation)
    assert scope["categories"] == [other["code"]], scope
