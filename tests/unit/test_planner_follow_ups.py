"""Later turns of a conversation, through the planner's real decision path against the real
seeded ERP, with the conversation as the thread keeps it (the planner's own messages, tool
calls and results).

Written from the buyer's side: a message that only names something ("NGK 200", "C8HSA",
an order number) is answered in the language the buyer has been writing in; the answer
about a background analysis is said in words, not the task tool's JSON or English.
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path

import pytest
from langchain_core.messages import BaseMessage, SystemMessage

from tests.unit.planner_harness import PlannerWorld, Run, planner_world

TODAY = date(2026, 12, 3)
_CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
async def world(erp_template: Path, tmp_path: Path) -> AsyncIterator[PlannerWorld]:
    async with planner_world(erp_template, tmp_path / "erp", TODAY) as w:
        yield w


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
