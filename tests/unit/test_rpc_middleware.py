"""ClientToolsMiddleware in a real create_agent graph with a scripted model (no sockets)."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from core.client_tools import CLIENT_TOOL_INTERRUPT
from graphs.middleware.client_tools import ClientToolsMiddleware, client_tool_specs
from runstack.echo_graph import ScriptedChatModel, add_numbers

BOM = {
    "name": "fetch_bom_tool",
    "description": "BOM of a product",
    "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
}
STOCK = {"name": "get_stock", "description": "Stock", "parameters": {"type": "object"}}


OFFERED: list[list[str]] = []


class RecordingModel(ScriptedChatModel):
    """Also records the tool names each model call was offered."""

    def _decide(self, messages: list[Any], tool_names: list[str]) -> tuple[AIMessage, float]:
        OFFERED.append(list(tool_names))
        return super()._decide(messages, tool_names)


def _agent() -> Any:
    return create_agent(
        model=RecordingModel(),
        tools=[add_numbers],
        middleware=[ClientToolsMiddleware()],
        checkpointer=InMemorySaver(),
    )


def _cfg(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


async def test_parallel_client_calls_are_one_interrupt_and_one_resume() -> None:
    agent = _agent()
    OFFERED.clear()
    ctx = {"client_tools": [BOM, STOCK]}
    out = await agent.ainvoke(
        {"messages": [{"role": "user", "content": "fetch_bom_tool and get_stock"}]},
        _cfg("t1"),
        context=ctx,
    )
    assert set(OFFERED[0]) == {"add_numbers", "fetch_bom_tool", "get_stock"}
    (intr,) = out["__interrupt__"]
    assert intr.value["type"] == CLIENT_TOOL_INTERRUPT
    calls = intr.value["calls"]
    assert [c["tool_name"] for c in calls] == ["fetch_bom_tool", "get_stock"]
    answers = {
        calls[0]["call_id"]: {"success": True, "result": {"rows": 3}},
        calls[1]["call_id"]: {"success": False, "error": "warehouse offline"},
    }
    out = await agent.ainvoke(Command(resume={intr.id: answers}), _cfg("t1"), context=ctx)
    tools = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert [(m.name, m.status) for m in tools] == [
        ("fetch_bom_tool", "success"),
        ("get_stock", "error"),
    ]
    assert tools[0].content == '{"rows": 3}'
    assert tools[1].content == "Client tool get_stock failed: warehouse offline"
    assert out["messages"][-1].content.startswith("results: ")


@pytest.mark.parametrize(
    ("answer", "expected"),
    [
        ({"success": False, "timeout": True, "error": "no answer in 5 s"}, "timed out: no answer"),
        (None, "returned no answer"),
        ("not a mapping", "returned no answer"),
    ],
)
async def test_timeouts_and_missing_answers_reach_the_model_as_errors(
    answer: Any, expected: str
) -> None:
    agent = _agent()
    ctx = {"client_tools": [BOM]}
    out = await agent.ainvoke(
        {"messages": [{"role": "user", "content": "fetch_bom_tool"}]}, _cfg("t2"), context=ctx
    )
    (intr,) = out["__interrupt__"]
    call_id = intr.value["calls"][0]["call_id"]
    resume = {call_id: answer} if answer is not None else {}
    out = await agent.ainvoke(Command(resume={intr.id: resume}), _cfg("t2"), context=ctx)
    tool = next(m for m in out["messages"] if isinstance(m, ToolMessage))
    assert tool.status == "error" and expected in str(tool.content)


async def test_without_client_tools_the_graph_is_unchanged() -> None:
    agent = _agent()
    OFFERED.clear()
    out = await agent.ainvoke(
        {"messages": [{"role": "user", "content": "fetch_bom_tool please"}]}, _cfg("t3")
    )
    assert OFFERED == [["add_numbers"]]
    assert "__interrupt__" not in out
    assert out["messages"][-1].content == "echo: fetch_bom_tool please"


async def test_graph_tools_still_run_next_to_client_tools() -> None:
    agent = _agent()
    out = await agent.ainvoke(
        {"messages": [{"role": "user", "content": 'add_numbers args={"a": 2, "b": 3}'}]},
        _cfg("t4"),
        context={"client_tools": [BOM]},
    )
    assert "__interrupt__" not in out
    assert out["messages"][-1].content == "results: add_numbers[success]=5.0"


def test_bad_specs_are_skipped_with_a_log(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    specs = client_tool_specs(
        {
            "client_tools": [
                BOM,
                {"name": "bad name"},
                {"name": "arr", "parameters": {"type": "array"}},
                "junk",
            ]
        }
    )
    assert list(specs) == ["fetch_bom_tool"]
    assert "invalid name" in caplog.text and "object schema" in caplog.text
    assert client_tool_specs({"client_tools": "nope"}) == {}


def test_specs_from_a_dataclass_context() -> None:
    from graphs.context import Context

    assert list(client_tool_specs(Context(user_id="u", client_tools=[BOM]))) == ["fetch_bom_tool"]
    assert client_tool_specs(Context(user_id="u")) == {}


def test_client_tool_shadowing_a_graph_tool_is_ignored(caplog: pytest.LogCaptureFixture) -> None:
    agent = _agent()
    OFFERED.clear()
    caplog.set_level(logging.WARNING)
    agent.invoke(
        {"messages": [{"role": "user", "content": "hi"}]},
        _cfg("t5"),
        context={"client_tools": [{"name": "add_numbers", "parameters": {"type": "object"}}]},
    )
    assert OFFERED == [["add_numbers"]]
    assert "shadows a graph tool" in caplog.text


async def test_works_inside_a_deep_agent() -> None:
    # the product graphs are deepagents graphs: their own middleware must leave client tools be
    from deepagents import create_deep_agent

    OFFERED.clear()
    agent = create_deep_agent(
        model=RecordingModel(),
        tools=[add_numbers],
        middleware=[ClientToolsMiddleware()],
        checkpointer=InMemorySaver(),
    )
    ctx = {"client_tools": [BOM]}
    out = await agent.ainvoke(
        {"messages": [{"role": "user", "content": "fetch_bom_tool"}]}, _cfg("d1"), context=ctx
    )
    assert "fetch_bom_tool" in OFFERED[0]
    (intr,) = out["__interrupt__"]
    call_id = intr.value["calls"][0]["call_id"]
    out = await agent.ainvoke(
        Command(resume={intr.id: {call_id: {"success": True, "result": "2 rows"}}}),
        _cfg("d1"),
        context=ctx,
    )
    assert out["messages"][-1].content == "results: fetch_bom_tool[success]=2 rows"
