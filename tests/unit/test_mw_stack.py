"""The agents' tables: order, limits, summarization and compaction, all layers failing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from deepagents.backends.protocol import BackendProtocol
from deepagents.middleware.filesystem import FilesystemMiddleware
from deepagents.middleware.summarization import SummarizationToolMiddleware
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.tools import tool

from graphs.context import Context
from graphs.middleware.analysis_outcome import AnalysisOutcome
from graphs.middleware.analyst_progress import AnalystProgress
from graphs.middleware.authenticated_user import AuthenticatedUser
from graphs.middleware.client_tools import ClientToolsMiddleware
from graphs.middleware.context_injection import ContextInjection
from graphs.middleware.current_date import CurrentDate
from graphs.middleware.fail_soft import FailSoft
from graphs.middleware.limits import (
    CallLimits,
)
from graphs.middleware.mcp_tools import McpToolsMiddleware
from graphs.middleware.memory_update import MemoryUpdate
from graphs.middleware.order_approval import OrderApproval
from graphs.middleware.order_guard import OrderGuard
from graphs.middleware.skills_sync import SkillsSync
from graphs.middleware.substitution import Substitution
from graphs.middleware.summarization import SoftSummarization, build_summarization
from graphs.middleware.user_context import UserContextMiddleware
from graphs.middleware.user_skills_restore import UserSkillsRestore
from graphs.offline import OfflinePlanner
from graphs.stacks import TABLES, build_stack
from tests.unit.test_mw_support import (
    Boom,
    Env,
    ScriptedChatModel,
    agent,
    call,
    make_env,
    scripted,
    thread,
)


async def _no_suppliers() -> list[dict[str, Any]]:
    return []


def _stack(tmp_path: Path, agent_name: Any, *, env: Env | None = None, **kw: Any) -> list[Any]:
    env = env or make_env(tmp_path)
    return build_stack(
        agent_name,
        backend=env.backend,
        sandbox=env.sandbox,
        skills_dir=tmp_path,
        summary_model=OfflinePlanner(policy="summary"),
        memory_model=OfflinePlanner(policy="memory"),
        suppliers=_no_suppliers,
        **kw,
    )


def test_order_and_limits(tmp_path: Path) -> None:
    stack = _stack(tmp_path, "orchestrator")
    core = [
        FilesystemMiddleware,
        AuthenticatedUser,
        ContextInjection,
        SkillsSync,
        UserSkillsRestore,
        SoftSummarization,
        SummarizationToolMiddleware,
    ]
    limits = [CallLimits]
    assert [type(m) for m in stack] == [
        McpToolsMiddleware,  # its read-only ERP tools (grounding names, stock answers)
        *core,
        MemoryUpdate,
        *limits,
        ClientToolsMiddleware,
        Substitution,  # after ClientTools: it withholds the client's apply tool
        CurrentDate,
    ]
    assert stack[6].name == "SummarizationMiddleware"  # replaces deepagents' default in place
    assert stack[1].name == "FilesystemMiddleware"  # so does the file layer
    assert (stack[-4].model_calls, stack[-4].tool_calls) == (50, 200)
    analyst = _stack(tmp_path, "analyst")
    assert [type(m) for m in analyst] == [
        UserContextMiddleware,
        McpToolsMiddleware,
        *core,
        *limits,
        CurrentDate,
        AnalystProgress,
        AnalysisOutcome,  # innermost: a failed analysis raises inside deepagents' notifier
    ]
    assert (analyst[-4].model_calls, analyst[-4].tool_calls) == (50, 200)
    order = _stack(tmp_path, "procurement-order")
    # The approval step, then the ERP's check: after_model hooks run last-listed first, so
    # every order is checked before anyone is asked to approve it.
    assert [type(m) for m in order] == [
        McpToolsMiddleware,
        *core,
        *limits,
        CurrentDate,
        OrderApproval,
        OrderGuard,
    ]
    assert (order[-4].model_calls, order[-4].tool_calls) == (20, 50)
    assert TABLES["procurement-order"].limits == {"model_calls": 20, "tool_calls": 50}
    # Our layers fail soft through the one base; the one that pins the user fails closed,
    # and so does the one that ends a failed analysis in error (hiding it is its opposite);
    # the limits only count and stop; compact_conversation is deepagents' own.
    ours = [m for m in [*stack, *analyst] if type(m).__module__.startswith("graphs.")]
    unguarded = {type(m) for m in ours if not isinstance(m, FailSoft)}
    assert unguarded == {AuthenticatedUser, AnalysisOutcome, Substitution, *limits}


async def test_model_call_limit_ends_the_run(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    limits = {"model_calls": 2, "tool_calls": 100}
    stack = _stack(tmp_path, "procurement-order", env=env, limits=limits)
    turns = [[call("calculator_missing", {}, i)] for i in range(5)]
    graph = agent(env, scripted(*turns, "never"), stack)
    result = await graph.ainvoke(
        {"messages": [HumanMessage("帮我查一下这个")]}, thread(), context=Context(user_id="u1")
    )
    assert "never" not in [m.text for m in result["messages"]]
    last = result["messages"][-1]
    assert isinstance(last, AIMessage) and not last.tool_calls
    # One notice, in the buyer's language, with the count; langchain's sentence in metadata.
    assert last.text.startswith("〔本轮已达到调用上限（模型调用 2/2），先停在这里。")
    assert last.text.count("上限") == 1 and "limit" not in last.text
    assert "model call limit" in last.response_metadata["limit"].lower()


async def test_tool_call_limit_ends_the_run_in_the_buyers_language(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    limits = {"model_calls": 50, "tool_calls": 2}
    stack = _stack(tmp_path, "procurement-order", env=env, limits=limits)
    turns = [[call("ls", {"path": "/"}, i)] for i in range(5)]
    graph = agent(env, scripted(*turns, "never"), stack)
    result = await graph.ainvoke(
        {"messages": [HumanMessage("list the files please")]},
        thread(),
        context=Context(user_id="u1"),
    )
    ran = [m for m in result["messages"] if isinstance(m, ToolMessage) and m.status != "error"]
    assert len(ran) == 2  # the third call was refused
    last = result["messages"][-1]
    assert isinstance(last, AIMessage) and not last.tool_calls
    assert last.text.startswith("[This turn reached its call limit (tool calls 2/2), so I stop")
    assert last.text.count("call limit") == 1 and not any(
        "\u4e00" <= c <= "\u9fff" for c in last.text
    )
    assert "tool call limit" in last.response_metadata["limit"].lower()


async def test_an_answer_past_the_tool_limit_runs_none_of_its_calls_and_the_next_run_starts_afresh(
    tmp_path: Path,
) -> None:
    env = make_env(tmp_path)
    limits = {"model_calls": 50, "tool_calls": 3}
    stack = _stack(tmp_path, "procurement-order", env=env, limits=limits)
    batch = [call("ls", {"path": "/"}, i) for i in range(4)]  # one more than the limit
    graph = agent(env, scripted(batch, [call("ls", {"path": "/"}, 9)], "done"), stack)
    config, context = thread(), Context(user_id="u1")
    first = await graph.ainvoke({"messages": [HumanMessage("列出文件")]}, config, context=context)
    results = {m.tool_call_id: m for m in first["messages"] if isinstance(m, ToolMessage)}
    # Every call of the answer has a result (the history stays valid); none of them ran.
    assert set(results) == {c["id"] for c in batch}
    assert all(m.status == "error" for m in results.values())
    assert "limit exceeded" in results["call_ls_3"].text  # the one past the limit
    assert all("stopped before" in results[f"call_ls_{i}"].text for i in range(3))
    last = first["messages"][-1]
    assert isinstance(last, AIMessage) and not last.tool_calls
    assert last.text.startswith("〔本轮已达到调用上限（工具调用 3/3），先停在这里。")
    assert sum(isinstance(m, AIMessage) for m in first["messages"]) == 2  # no model call after
    # A new run on the thread counts from zero: its call runs.
    second = await graph.ainvoke(
        {"messages": [HumanMessage("again please")]}, config, context=context
    )
    ran = [
        m
        for m in second["messages"]
        if isinstance(m, ToolMessage) and m.tool_call_id == "call_ls_9"
    ]
    assert len(ran) == 1 and ran[0].status != "error"
    assert second["messages"][-1].text == "done"


def test_limits_that_allow_no_model_call_are_refused_when_the_stack_is_built() -> None:
    with pytest.raises(ValueError, match="model_calls >= 1"):
        CallLimits(model_calls=0, tool_calls=5)
    with pytest.raises(ValueError, match="tool_calls=-1"):
        CallLimits(model_calls=3, tool_calls=-1)


async def test_the_model_limit_speaks_english_to_an_english_buyer(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    stack = _stack(tmp_path, "analyst", env=env, limits={"model_calls": 1, "tool_calls": 10})
    graph = agent(env, scripted([call("ls", {"path": "/"}, 0)], "never"), stack)
    result = await graph.ainvoke(
        {"messages": [HumanMessage("compare spark plug suppliers")]},
        thread(),
        context=Context(user_id="u1"),
    )
    last = result["messages"][-1]
    assert last.text.startswith("[This turn reached its call limit (model calls 1/1), so I stop")
    assert "never" not in [m.text for m in result["messages"]]


async def test_summarization_fails_soft(tmp_path: Path) -> None:
    class Broken(ScriptedChatModel):
        async def ainvoke(self, *a: Any, **k: Any) -> Any:
            raise Boom("summary model down")

        def invoke(self, *a: Any, **k: Any) -> Any:
            raise Boom("summary model down")

    env = make_env(tmp_path)
    summ = build_summarization(
        Broken(messages=iter([])), env.backend, trigger=("messages", 3), keep=("messages", 1)
    )
    history = [HumanMessage(f"q{i}") if i % 2 == 0 else AIMessage(f"a{i}") for i in range(10)]
    graph = agent(env, scripted("answered"), summ)
    result = await graph.ainvoke(
        {"messages": [*history, HumanMessage("now")]}, thread(), context=Context(user_id="u1")
    )
    assert result["messages"][-1].text == "answered"


async def test_compact_conversation_shrinks_the_context(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    summ = build_summarization(
        OfflinePlanner(policy="summary"),
        env.backend,
        trigger=("messages", 40),
        keep=("messages", 4),
    )
    history = [
        HumanMessage(f"火花塞报价问题 {i} " + "详情 " * 50)
        if i % 2 == 0
        else AIMessage("回答 " * 80)
        for i in range(30)
    ]
    # No context: compact_conversation's schema types the runtime context as None, and
    # pydantic warns (an error here) when serialising a Context into it.
    graph = agent(
        env, scripted([call("compact_conversation", {})], "compacted"), summ, context_schema=None
    )
    config = thread()
    result = await graph.ainvoke({"messages": [*history, HumanMessage("压缩一下")]}, config)
    [tool_msg] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert "error" not in tool_msg.text.lower(), tool_msg.text
    assert tool_msg.text.startswith("Conversation compacted"), tool_msg.text
    state = (await graph.aget_state(config)).values
    event = state["_summarization_event"]
    engine = summ[0]
    assert isinstance(engine, SoftSummarization)
    effective = engine._apply_event_to_messages(state["messages"], event)
    before = count_tokens_approximately(state["messages"])
    after = count_tokens_approximately(effective)
    assert after < before / 2, (before, after)


async def test_whole_stack_with_every_layer_broken(tmp_path: Path) -> None:
    class BrokenFiles(BackendProtocol):
        async def adownload_files(self, paths: list[str]) -> Any:
            raise Boom("store down")

        async def aglob(self, pattern: str, path: str | None = None) -> Any:
            raise Boom("store down")

        def download_files(self, paths: list[str]) -> Any:
            raise Boom("store down")

    def no_sandbox() -> BackendProtocol:
        raise Boom("sandbox down")

    async def no_erp() -> list[dict[str, Any]]:
        raise Boom("erp down")

    class BrokenModel(ScriptedChatModel):
        async def ainvoke(self, *a: Any, **k: Any) -> Any:
            raise Boom("model down")

    env = make_env(tmp_path)
    stack = build_stack(
        "orchestrator",
        backend=BrokenFiles(),
        sandbox=no_sandbox,
        skills_dir=tmp_path,
        summary_model=BrokenModel(messages=iter([])),
        memory_model=BrokenModel(messages=iter([])),
        suppliers=no_erp,
    )
    graph = agent(env, scripted([call("calculator", {"expression": "1"})], "still answered"), stack)
    result = await graph.ainvoke(
        {"messages": [HumanMessage("给博世下单 200 个火花塞")]},
        thread(),
        context=Context(user_id="u1"),
    )
    assert result["messages"][-1].text == "still answered"


async def test_a_large_tool_result_goes_to_a_file_not_into_the_state(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    page = "".join(f"| part {i:05d} | {i * 7 % 1000} CNY |\n" for i in range(3000))  # ~90 KB

    @tool
    def big_page() -> str:
        """A large quote page."""
        return page

    stack = _stack(tmp_path, "procurement-order", env=env, evict_tokens=2_000)
    graph = agent(env, scripted([call("big_page", {})], "done"), stack, tools=[big_page])
    config = thread()
    result = await graph.ainvoke(
        {"messages": [HumanMessage("fetch")]}, config, context=Context(user_id="u1")
    )
    [message] = [m for m in result["messages"] if isinstance(m, ToolMessage)]
    assert len(message.text) < 12_000 < len(page)  # the state keeps a preview only
    assert "/large_tool_results/" in message.text
    workspace = env.data_dir / "sandboxes" / config["configurable"]["thread_id"]
    [saved] = list((workspace / "large_tool_results").iterdir())
    assert saved.read_text(encoding="utf-8") == page  # the whole result, in the sandbox
