"""The orchestrator's offline policy on a scripted ERP unlike the seed: routing by intent after
grounding names in the ERP, questions instead of guesses, task ids, notifications."""

from __future__ import annotations

import re
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.offline import LABEL, MARKS, OfflinePlanner
from graphs.offline.scope import read_scope
from tests.unit.test_offline_world import TOOL_NAMES, World, converse, tools


def step(messages: list) -> AIMessage:
    model = OfflinePlanner(policy="orchestrator").bind_tools(tools())
    reply = model.invoke(messages)
    assert isinstance(reply, AIMessage)
    assert reply.response_metadata["offline_planner"] is True
    assert reply.response_metadata["offline_label"] == LABEL
    assert reply.response_metadata["policy"] == "orchestrator"
    return reply


def calls(world: World, name: str) -> list[dict[str, Any]]:
    return [args for n, args in world.calls if n == name]


@pytest.mark.parametrize(
    ("request_text", "category"),
    [
        ("帮我对链轮做供应商比价分析", "SK"),
        ("评估一下反光镜的供应商", "MR"),  # an alias the ERP keeps
        ("给我一份牙盘的行情报告", "SK"),
        ("Compare suppliers for sprockets", "SK"),
        ("Please analyse our side mirror suppliers and recommend one", "MR"),
    ],
)
def test_analysis_starts_the_analyst_with_the_erp_category(
    request_text: str, category: str
) -> None:
    world = World()
    messages = converse("orchestrator", request_text, world)
    [start] = calls(world, "start_async_task")
    assert start["subagent_type"] == "analyst"
    for section in (
        "【任务目标】",
        "【用户偏好】",
        "【分析需求正文】",
        "【分析范围】",
        "【输出要求】",
    ):
        assert section in start["description"]
    assert request_text in start["description"]
    assert read_scope(start["description"]).categories == [category]
    assert "task_id" in str(messages[-1].content)


def test_several_categories_start_one_analysis_each() -> None:
    world = World()
    converse("orchestrator", "链轮和后视镜都比一下价", world)
    scopes = [read_scope(a["description"]) for a in calls(world, "start_async_task")]
    assert sorted(c for s in scopes for c in s.categories) == ["MR", "SK"]


@pytest.mark.parametrize("request_text", ["帮我分析一下挡风玻璃的供应商", "哪家供应商最便宜？"])
def test_an_analysis_on_nothing_the_erp_knows_is_a_question(request_text: str) -> None:
    world = World()
    messages = converse("orchestrator", request_text, world)
    assert calls(world, "start_async_task") == []
    text = str(messages[-1].content)
    assert "链轮" in text and "后视镜" in text  # the question names the ERP's categories


@pytest.mark.parametrize(
    "request_text",
    ["给 天顶贸易 下单 20 副后视镜 M8", "把订单 PO20261200001 的数量改成 500",
     "取消订单 PO20261200001", "Place an order for 50 sprockets from Acme",
     "what's the status of PO20261200001?"],
)  # fmt: skip
def test_order_operations_go_to_the_order_agent(request_text: str) -> None:
    world = World()
    converse("orchestrator", request_text, world)
    [task] = calls(world, "task")
    assert task["subagent_type"] == "procurement-order"
    assert calls(world, "start_async_task") == []


@pytest.mark.parametrize(
    "request_text", ["帮我分析一下这段Python代码", "帮我订一张去北京的机票", "order me a pizza",
                     "今天天气怎么样", "tell me a joke"],
)  # fmt: skip
def test_out_of_scope_is_one_sentence_and_starts_nothing(request_text: str) -> None:
    world = World()
    messages = converse("orchestrator", request_text, world)
    assert calls(world, "start_async_task") == [] and calls(world, "task") == []
    text = str(messages[-1].content)
    assert ("采购助理" in text) or ("purchasing assistant" in text)
    assert text.count("\n") == 0  # one sentence, not the capability menu


def test_the_mark_is_once_and_in_the_buyers_language() -> None:
    english = step([HumanMessage(content="hello there")])
    assert str(english.content).startswith(MARKS[False]) and LABEL not in str(english.content)
    chinese = step([HumanMessage(content="你好")])
    assert str(chinese.content).startswith(MARKS[True])


def test_a_task_notification_is_reported_to_the_user() -> None:
    note = HumanMessage(
        content=[
            {"type": "text", "text": "[SYSTEM NOTIFICATION]\n<task-notification>\n"},
            {"type": "text", "text": "<result>\n报告：/analysis/report_20261202.md\n"
                                     "![图](/artifacts/t-1/analysis/c.png?exp=1&amp;sig=2)\n</result>"},
        ],
        additional_kwargs={
            "deepagents_notification": {"task_id": "t-1", "agent_name": "analyst",
                                        "status": "success"}
        },
    )  # fmt: skip
    reply = step([HumanMessage(content="帮我对链轮做供应商比价分析"), note])
    assert reply.tool_calls == []
    assert "t-1" in str(reply.content) and "/analysis/report_20261202.md" in str(reply.content)
    assert "c.png?exp=1&sig=2)" in str(reply.content)  # unescaped: the link works
    assert sum(str(reply.content).count(m) for m in MARKS.values()) == 1


def test_an_analysis_that_ended_without_a_report_is_not_called_finished() -> None:
    note = HumanMessage(
        content="<result>没能从请求中识别出 ERP 的零件类别。</result>",
        additional_kwargs={"deepagents_notification": {"task_id": "t-2", "status": "success"}},
    )
    reply = step([HumanMessage(content="帮我对链轮做供应商比价分析"), note])
    text = str(reply.content)
    assert "已完成" not in text and "没有完成" in text and "t-2" in text


@pytest.mark.parametrize(
    ("error", "said", "advice"),
    [
        ("The subagent failed (AnalysisCategoryNotFound).", "零件类别", "说明要分析哪一类"),
        ("The subagent failed (AnalysisDataUnavailable).", "ERP", "稍后|过几分钟"),
        ("The subagent failed (AnalysisScriptFailed).", "分析脚本", "再发起一次"),
        ("The subagent failed (KeyError).", "出错", "再发起一次"),
    ],
)
def test_a_failed_analysis_is_told_as_failed_with_what_to_try(
    error: str, said: str, advice: str
) -> None:
    note = HumanMessage(
        content=[
            {"type": "text", "text": "[SYSTEM NOTIFICATION]\n<task-notification>\n"},
            {"type": "text", "text": f'<details>{{"error": "{error}"}}</details>\n'},
        ],
        additional_kwargs={"deepagents_notification": {"task_id": "t-3", "status": "error"}},
    )
    reply = step([HumanMessage(content="帮我对雨刷做供应商比价分析"), note])
    text = str(reply.content)
    assert "t-3" in text and "失败" in text and "已完成" not in text
    assert said in text and re.search(advice, text), text


def test_several_categories_are_said_to_get_one_report_each() -> None:
    request = HumanMessage(content="帮我对链轮和后视镜做供应商比价分析")
    first = AIMessage(content="", tool_calls=[
        {"name": "start_async_task", "args": {}, "id": f"c{i}", "type": "tool_call"}
        for i in (1, 2)
    ])  # fmt: skip
    started = [
        ToolMessage(content=f"Launched. task_id: {t}", tool_call_id=f"c{i}",
                    name="start_async_task")
        for i, t in ((1, "aaaaaaaa-1111"), (2, "bbbbbbbb-2222"))
    ]  # fmt: skip
    launched = step([request, first, *started])
    assert "2 个类别" in str(launched.content) and "各出一份报告" in str(launched.content)
    note = HumanMessage(
        content="<result>报告：/analysis/report_20261202_bbbbbbbb.md</result>",
        additional_kwargs={"deepagents_notification": {"task_id": "bbbbbbbb-2222",
                                                       "status": "success"}},
    )  # fmt: skip
    reply = step([request, first, *started, launched, note])
    assert "2 个类别" in str(reply.content) and "第 2 份" in str(reply.content)


@pytest.mark.parametrize(
    "request_text",
    # the last five from a red-team round: "去年" was read as a category to analyse, "last
    # week's report" was out of scope
    ["我的报告", "把我以前的报告列出来", "show my reports", "我想看看去年的采购报告",
     "把上次的比价报告发我一份", "上个月的比价报告呢", "show me last week's report",
     "send me the last spark plug report", "show me the report from last month",
     "上周那份报告发我看看",
     # from the twelfth: out of scope, or a new analysis of spark plugs
     "what did the last report recommend?", "summarize my latest spark plug report",
     "上一份报告的结论是什么"],
)  # fmt: skip
def test_my_reports_opens_the_archive_index(request_text: str) -> None:
    from langchain_core.messages import SystemMessage

    system = SystemMessage(content="当前用户 / Current user: user_id=alice, username=Alice.\n")
    first = step([system, HumanMessage(content=request_text)])
    assert [(c["name"], c["args"]) for c in first.tool_calls] == [
        ("read_file", {"file_path": "/reports/alice/index.md"})
    ]
    index = "| 2026-12-03 | [report_20261203_ab12cd34.md](report_20261203_ab12cd34.md) | 链轮 |"
    # as deepagents' read_file returns it: a status header, then the file verbatim
    read = f"@@ lines 1-1 of 1 @@\n{index}"
    done = ToolMessage(content=read, tool_call_id=first.tool_calls[0]["id"] or "x",
                       name="read_file")  # fmt: skip
    reply = step([system, HumanMessage(content=request_text), first, done])
    assert "report_20261203_ab12cd34.md" in str(reply.content) and not reply.tool_calls
    assert "@@" not in str(reply.content)  # the buyer sees the list, not the tool's header


@pytest.mark.parametrize(
    "request_text",
    ["做一份上个月的采购报告", "帮我出一份去年的火花塞采购报告", "run a report for last month",
     "run a new report on brake pads like the last report"],
)  # fmt: skip
def test_a_report_to_make_of_a_past_period_is_not_the_archive(request_text: str) -> None:
    from langchain_core.messages import SystemMessage

    system = SystemMessage(content="当前用户 / Current user: user_id=alice, username=Alice.\n")
    first = step([system, HumanMessage(content=request_text)])
    assert all(c["name"] != "read_file" for c in first.tool_calls), first.tool_calls


def test_no_archive_yet_is_said_in_words() -> None:
    from langchain_core.messages import SystemMessage

    system = SystemMessage(content="当前用户 / Current user: user_id=bob, username=Bob.\n")
    first = step([system, HumanMessage(content="我的报告")])
    missing = ToolMessage(content="Error: File '/reports/bob/index.md' not found",
                          tool_call_id=first.tool_calls[0]["id"] or "x", name="read_file",
                          status="error")  # fmt: skip
    reply = step([system, HumanMessage(content="我的报告"), first, missing])
    assert "还没有找到你的报告存档" in str(reply.content) and "Error" not in str(reply.content)


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
        request = HumanMessage(content="帮我对链轮做供应商比价分析")
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
    said = str(final.content)
    assert final.tool_calls == [] and task in said, said
    assert "已取消后台分析" in said or "Cancelled the background analysis" in said, said
    assert "async subagent" not in said, said  # the tool's words for a model, not a buyer


def test_cancelling_an_order_or_without_a_task_is_not_a_task_cancel() -> None:
    with_task = _with_tasks(TASK)
    [order] = cancel_step([*with_task, HumanMessage(content="取消订单 PO20261200001")]).tool_calls
    assert order["name"] == "task"  # the order agent cancels orders
    fresh = cancel_step([HumanMessage(content="取消这个分析")])
    assert fresh.tool_calls == []  # nothing is running in this thread: it says so
    assert "没有正在运行" in str(fresh.content)
