"""The sandbox as a deep agent's backend: the ``execute`` tool runs in bubblewrap.

Driven by a scripted chat model, as deepagents' own tests are.
"""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from typing import Any

import pytest
from deepagents import create_deep_agent
from deepagents.backends import CompositeBackend, StateBackend
from deepagents.backends.protocol import ExecuteResponse, LsResult
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.sandbox import (
    BubblewrapSandbox,
    SandboxSettings,
    ThreadSandboxBackend,
    check_bubblewrap,
    make_bubblewrap_sandbox,
    workspace_path,
)
from graphs.sandbox.errors import SandboxConfigError
from tests.blocking import no_blocking_calls
from tests.unit.test_mw_support import ScriptedChatModel

# scripts/setup installs bubblewrap; its absence is a failure here, never a skip.
check_bubblewrap()

SCRIPT = (
    "python3 -c 'import json, pandas as pd; "
    'df = pd.DataFrame({"supplier": ["NGK", "Bosch"], "price": [12.5, 11.0]}); '
    'json.dump({"cheapest": df.loc[df.price.idxmin(), "supplier"]}, '
    'open("/data/analysis_result.json", "w")); print("saved")\''
)


def scripted(*tool_calls: dict[str, Any]) -> ScriptedChatModel:
    calls = [
        {"name": c["name"], "args": c["args"], "id": f"call_{i}", "type": "tool_call"}
        for i, c in enumerate(tool_calls)
    ]
    return ScriptedChatModel(
        messages=iter([AIMessage(content="", tool_calls=calls), AIMessage(content="done")])
    )


def tool_messages(result: dict[str, Any]) -> list[ToolMessage]:
    return [m for m in result["messages"] if isinstance(m, ToolMessage)]


@pytest.fixture
def settings(tmp_path: Path) -> SandboxSettings:
    return SandboxSettings(data_dir=tmp_path, provider="bubblewrap")


def test_execute_tool_runs_in_the_sandbox_and_read_file_sees_the_result(
    settings: SandboxSettings,
) -> None:
    backend = make_bubblewrap_sandbox("agent-thread", settings=settings)
    assert isinstance(backend, BubblewrapSandbox)
    model = scripted(
        {"name": "execute", "args": {"command": SCRIPT}},
    )
    agent = create_deep_agent(model=model, backend=backend)

    result = agent.invoke({"messages": [HumanMessage("compare suppliers")]})

    (execute_msg,) = tool_messages(result)
    assert execute_msg.name == "execute"
    assert "saved" in str(execute_msg.content)
    assert "exit code 0" in str(execute_msg.content)
    written = backend.root / "data" / "analysis_result.json"
    assert json.loads(written.read_text()) == {"cheapest": "Bosch"}
    assert result["messages"][-1].content == "done"


async def test_thread_router_inside_a_composite_backend(settings: SandboxSettings) -> None:
    sandboxes = ThreadSandboxBackend(settings=settings)
    backend = CompositeBackend(default=sandboxes, routes={"/memories/": StateBackend()})
    model = scripted(
        {"name": "execute", "args": {"command": SCRIPT}},
        {"name": "write_file", "args": {"file_path": "/memories/notes.md", "content": "hi"}},
    )
    agent = create_deep_agent(model=model, backend=backend)

    result = await agent.ainvoke(
        {"messages": [HumanMessage("compare suppliers")]},
        config={"configurable": {"thread_id": "thread/with:odd chars"}},
    )

    execute_msg, write_msg = tool_messages(result)
    assert "exit code 0" in str(execute_msg.content), execute_msg.content
    assert write_msg.status != "error", write_msg.content
    workspaces = list(settings.sandboxes_dir.iterdir())
    assert len(workspaces) == 1
    assert json.loads((workspaces[0] / "data" / "analysis_result.json").read_text()) == {
        "cheapest": "Bosch"
    }
    # /memories/ went to the state backend, not into the sandbox workspace.
    assert not (workspaces[0] / "memories").exists()


def test_thread_router_refuses_use_outside_a_run(settings: SandboxSettings) -> None:
    sandboxes = ThreadSandboxBackend(settings=settings)

    with pytest.raises(SandboxConfigError, match="outside a LangGraph run"):
        sandboxes.execute("true")


def test_thread_router_separates_threads(settings: SandboxSettings) -> None:
    sandboxes = ThreadSandboxBackend(settings=settings, max_cached=1)

    a, b = sandboxes.for_thread("a"), sandboxes.for_thread("b")

    assert a is not b
    assert a.id != b.id
    # Evicted from the cache, rebuilt on the same workspace.
    again = sandboxes.for_thread("a")
    assert isinstance(again, BubblewrapSandbox) and isinstance(a, BubblewrapSandbox)
    assert again.root == a.root


async def test_async_run_never_blocks_the_event_loop(settings: SandboxSettings) -> None:
    # langgraph dev raises on blocking calls in the event loop (blockbuster);
    # the sandbox's async path must pass the same check, first use included.
    sandboxes = ThreadSandboxBackend(settings=settings)
    model = scripted(
        {"name": "execute", "args": {"command": "echo hi > /data/hi.txt && cat /data/hi.txt"}},
        {"name": "read_file", "args": {"file_path": "/data/hi.txt"}},
        {"name": "ls", "args": {"path": "/data"}},
    )
    agent = create_deep_agent(model=model, backend=sandboxes)
    with no_blocking_calls(["graphs.sandbox", "deepagents"]):
        result = await agent.ainvoke(
            {"messages": [HumanMessage("hi")]}, config={"configurable": {"thread_id": "bb"}}
        )

    execute_msg, read_msg, ls_msg = tool_messages(result)
    assert "exit code 0" in str(execute_msg.content), execute_msg.content
    assert str(read_msg.content).splitlines()[-1].strip() == "hi", read_msg.content
    assert "/data/hi.txt" in str(ls_msg.content), ls_msg.content


class _LateCommand(BubblewrapSandbox):
    """A workspace whose commands start late: each waits (at most ``GRACE_S``) until a
    listing has been made, as a command may when the machine is busy. Without the issue
    order the listing issued after the command is made first, every time."""

    GRACE_S = 1.0

    def __init__(self, *args: Any, listed: threading.Event, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.listed = listed

    def ls(self, path: str) -> LsResult:
        try:
            return super().ls(path)
        finally:
            self.listed.set()

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:  # noqa: ASYNC109
        await asyncio.to_thread(self.listed.wait, self.GRACE_S)
        return await super().aexecute(command, timeout=timeout)


async def test_calls_of_one_message_see_each_other_in_the_order_issued(
    settings: SandboxSettings,
) -> None:
    # A model's tool calls of one message run concurrently (ToolNode gathers them): the
    # listing issued after the command must still list what the command wrote, however
    # late the command gets to run.
    listed = threading.Event()

    def late(thread_id: str, *, settings: SandboxSettings) -> _LateCommand:
        return _LateCommand(
            workspace_path(settings.sandboxes_dir, thread_id), settings=settings, listed=listed
        )

    sandboxes = ThreadSandboxBackend(settings=settings, factory=late)
    model = scripted(
        {"name": "execute", "args": {"command": "echo hi > /data/hi.txt"}},
        {"name": "ls", "args": {"path": "/data"}},
        {"name": "read_file", "args": {"file_path": "/data/hi.txt"}},
    )
    agent = create_deep_agent(model=model, backend=sandboxes)

    result = await agent.ainvoke(
        {"messages": [HumanMessage("hi")]}, config={"configurable": {"thread_id": "late"}}
    )

    execute_msg, ls_msg, read_msg = tool_messages(result)
    assert "exit code 0" in str(execute_msg.content), execute_msg.content
    assert "/data/hi.txt" in str(ls_msg.content), ls_msg.content
    assert str(read_msg.content).splitlines()[-1].strip() == "hi", read_msg.content
