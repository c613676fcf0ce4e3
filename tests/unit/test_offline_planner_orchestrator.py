"""The orchestrator's offline policy: routing by keyword class, task ids, notifications."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.offline import LABEL, OfflinePlanner
from tests.unit.test_offline_world import TOOL_NAMES, tools


def step(messages: list) -> AIMessage:
    model = OfflinePlanner(policy="orchestrator").bind_tools(tools())
    reply = model.invoke(messages)
    assert isinstance(reply, AIMessage)
    assert reply.response_metadata["offline_planner"] is True
    assert reply.response_metadata["policy"] == "orchestrator"
    assert str(reply.content).startswith(LABEL)
    return reply


@pytest.mark.parametrize(
    "request_text",
    [
        "帮我对摩托车火花塞做供应商比价分析",
        "评估一下刹车片的供应商",
        "给我一份链条的行情报告",
        "Compare suppliers for brake discs",
        "Please analyse our battery suppliers and recommend one",
    ],
)
def test_analysis_words_start_the_background_analyst(request_text: str) -> None:
    reply = step([HumanMessage(content=request_text)])
    [call] = reply.tool_calls
    assert call["name"] == "start_async_task"
    assert call["args"]["subagent_type"] == "analyst"
    description = call["args"]["description"]
    for section in ("【任务目标】", "【用户偏好】", "【分析需求正文】", "【输出要求】"):
        assert section in description
    assert request_text in description


@pytest.mark.parametrize(
    "request_text",
    [
        "给 NGK 下单 200 个火花塞，下周五前到货",
        "把订单 PO20261200001 的数量改成 500",
        "取消订单 PO20261200001",
        "Place an order for 50 chains from DID",
        "what's the status of PO20261200001?",
    ],
)
def test_order_words_go_to_the_order_agent(request_text: str) -> None:
    reply = step([HumanMessage(content=request_text)])
    [call] = reply.tool_calls
    assert call["name"] == "task"
    assert call["args"]["subagent_type"] == "procurement-order"


@pytest.mark.parametrize("request_text", ["你好", "hello", "今天天气怎么样", "tell me a joke"])
def test_other_requests_are_answered_with_the_offline_scope(request_text: str) -> None:
    reply = step([HumanMessage(content=request_text)])
    assert reply.tool_calls == []
    assert ("离线模式" in str(reply.content)) or ("Offline mode" in str(reply.content))


def test_the_task_id_is_returned_at_once() -> None:
    first = step([HumanMessage(content="帮我对链条做供应商比价分析")])
    launched = ToolMessage(
        content="Launched async subagent. task_id: 0f7c2b9e-1234-4bcd-9def-0123456789ab",
        tool_call_id=first.tool_calls[0]["id"] or "x",
        name="start_async_task",
    )
    reply = step([HumanMessage(content="帮我对链条做供应商比价分析"), first, launched])
    assert reply.tool_calls == []
    assert "0f7c2b9e-1234-4bcd-9def-0123456789ab" in str(reply.content)


def test_a_task_notification_is_reported_to_the_user() -> None:
    note = HumanMessage(
        content=[
            {"type": "text", "text": "[SYSTEM NOTIFICATION]\n<task-notification>\n"},
            {"type": "text", "text": "<result>\n报告：/analysis/report_20261202.md\n</result>"},
        ],
        additional_kwargs={
            "deepagents_notification": {"task_id": "t-1", "agent_name": "analyst",
                                        "status": "success"}
        },
    )  # fmt: skip
    reply = step([HumanMessage(content="帮我对链条做供应商比价分析"), note])
    assert reply.tool_calls == []
    assert "t-1" in str(reply.content) and "/analysis/report_20261202.md" in str(reply.content)


def test_the_order_agents_answer_is_relayed() -> None:
    first = step([HumanMessage(content="取消订单 PO1234567")])
    call_id = first.tool_calls[0]["id"] or "x"
    done = ToolMessage(content="订单 PO1234567 已取消", tool_call_id=call_id,
                       name="task")  # fmt: skip
    reply = step([HumanMessage(content="取消订单 PO1234567"), first, done])
    assert "PO1234567 已取消" in str(reply.content)


TASK = "0f7c2b9e-1234-4bcd-9def-0123456789ab"
OTHER = "9a8b7c6d-1234-4bcd-9def-0123456789ab"


def _with_tasks(*task_ids: str) -> list[Any]:
    """A thread in which the orchestrator started one background analysis per id."""
    history: list[Any] = []
    for i, task_id in enumerate(task_ids):
        request = HumanMessage(content="帮我对链条做供应商比价分析")
        launch = {"name": "start_async_task", "args": {}, "id": f"c{i}", "type": "tool_call"}
        call = AIMessage(content="", tool_calls=[launch])
        done = ToolMessage(content=f"Launched async subagent. task_id: {task_id}",
                           tool_call_id=f"c{i}", name="start_async_task")  # fmt: skip
        history += [request, call, done, AIMessage(content=f"task_id: {task_id}")]
    return history


def cancel_step(messages: list[Any]) -> AIMessage:
    model = OfflinePlanner(policy="orchestrator").bind_tools(
        tools([*TOOL_NAMES, "cancel_async_task"])
    )
    reply = model.invoke(messages)
    assert isinstance(reply, AIMessage)
    return reply


@pytest.mark.parametrize(
    ("text", "task"),
    [("取消这个分析", OTHER), ("stop the analysis", OTHER), (f"cancel task {TASK}", TASK)],
)
def test_cancel_the_analysis_stops_the_named_or_latest_task(text: str, task: str) -> None:
    messages = [*_with_tasks(TASK, OTHER), HumanMessage(content=text)]
    reply = cancel_step(messages)
    assert [c["name"] for c in reply.tool_calls] == ["cancel_async_task"]
    assert reply.tool_calls[0]["args"] == {"task_id": task}
    done = ToolMessage(content=f"Cancelled async subagent task: {task}",
                       tool_call_id=reply.tool_calls[0]["id"] or "x",
                       name="cancel_async_task")  # fmt: skip
    final = cancel_step([*messages, reply, done])
    assert final.tool_calls == [] and f"Cancelled async subagent task: {task}" in str(final.content)


def test_cancelling_an_order_or_without_a_task_is_not_a_task_cancel() -> None:
    with_task = _with_tasks(TASK)
    [order] = cancel_step([*with_task, HumanMessage(content="取消订单 PO20261200001")]).tool_calls
    assert order["name"] == "task"  # the order agent cancels orders
    [fresh] = cancel_step([HumanMessage(content="取消这个分析")]).tool_calls
    assert fresh["name"] != "cancel_async_task"  # nothing is running in this thread
