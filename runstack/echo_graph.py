"""A stand-in agent for driving the JSON-RPC adapter with no model: not a product graph.

The adapter's end-to-end tests and ``scripts/bench/bench_rpc`` serve it with
:func:`langgraph_config` (graphs ``echo``, ``echo2`` and ``approval``, the adapter
mounted as the server's ``http.app``). A scripted, deterministic chat model inside
langchain's ``create_agent`` with the real ClientTools middleware. Its policy, applied
to the last user message:

- ``slow:<seconds>`` sleeps that long, then answers (agent-timeout tests);
- every bound tool whose name appears in the text is called, all in one turn
  (so two names give parallel calls); ``args={...}`` sets their arguments;
- anything else is echoed back as ``echo: <text>``.
After tool results it answers ``results: <name>[<status>]=<content>; ...``.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import uuid
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

from langchain.agents import create_agent
from langchain.agents.middleware import HumanInTheLoopMiddleware
from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import tool
from langchain_core.utils.function_calling import convert_to_openai_tool

from graphs.middleware.client_tools import ClientToolsMiddleware

__all__ = [
    "ScriptedChatModel",
    "add_numbers",
    "langgraph_config",
    "make_approval_graph",
    "make_graph",
]


@tool
def add_numbers(a: float, b: float) -> float:
    """Add two numbers (a graph-side tool, to show both kinds coexist)."""
    return a + b


def _tool_names(tools: Sequence[Any] | None) -> list[str]:
    names = []
    for t in tools or []:
        fn = convert_to_openai_tool(t)["function"]
        names.append(fn["name"])
    return names


def _text(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return " ".join(p.get("text", "") for p in content if isinstance(p, dict))


class ScriptedChatModel(BaseChatModel):
    """Deterministic chat model following the policy in the module docstring."""

    @property
    def _llm_type(self) -> str:
        return "rpc-fixture-scripted"

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:
        return self.bind(tool_names=_tool_names(tools))

    def _decide(
        self, messages: list[BaseMessage], tool_names: list[str]
    ) -> tuple[AIMessage, float]:
        trailing: list[ToolMessage] = []
        for m in reversed(messages):
            if isinstance(m, ToolMessage):
                trailing.append(m)
                continue
            break
        if trailing:
            parts = [f"{m.name}[{m.status}]={_text(m)}" for m in reversed(trailing)]
            return AIMessage(content="results: " + "; ".join(parts)), 0.0
        last = next((m for m in reversed(messages) if isinstance(m, HumanMessage)), None)
        text = _text(last) if last else ""
        if slow := re.search(r"slow:(\d+(?:\.\d+)?)", text):
            return AIMessage(content=f"slow done after {slow.group(1)}s"), float(slow.group(1))
        called = [n for n in tool_names if re.search(rf"\b{re.escape(n)}\b", text)]
        if called:
            args: dict[str, Any] = {"query": text}
            if am := re.search(r"args=(\{.*\})", text):
                args = json.loads(am.group(1))
            calls = [
                {
                    "name": n,
                    "args": args,
                    "id": f"call_{uuid.uuid4().hex[:12]}",
                    "type": "tool_call",
                }
                for n in called
            ]
            return AIMessage(content="", tool_calls=calls), 0.0
        return AIMessage(content=f"echo: {text}"), 0.0

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        msg, _ = self._decide(messages, kwargs.get("tool_names", []))
        return ChatResult(generations=[ChatGeneration(message=msg)])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        msg, delay = self._decide(messages, kwargs.get("tool_names", []))
        if delay:
            await asyncio.sleep(delay)
        return ChatResult(generations=[ChatGeneration(message=msg)])

    def _stream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> Iterator[ChatGenerationChunk]:
        msg, _ = self._decide(messages, kwargs.get("tool_names", []))
        yield from self._chunks(msg)

    async def _astream(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[ChatGenerationChunk]:
        msg, delay = self._decide(messages, kwargs.get("tool_names", []))
        if delay:
            await asyncio.sleep(delay)
        for chunk in self._chunks(msg):
            if run_manager:
                await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk

    @staticmethod
    def _chunks(msg: AIMessage) -> Iterator[ChatGenerationChunk]:
        if msg.tool_calls:
            yield ChatGenerationChunk(
                message=AIMessageChunk(
                    content="",
                    tool_call_chunks=[
                        {
                            "name": c["name"],
                            "args": json.dumps(c["args"]),
                            "id": c["id"],
                            "index": i,
                        }
                        for i, c in enumerate(msg.tool_calls)
                    ],
                )
            )
            return
        words = str(msg.content).split(" ")
        for i, word in enumerate(words):
            piece = word if i == len(words) - 1 else word + " "
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))


async def make_graph() -> Any:
    """The fixture agent: scripted model, one graph tool, the ClientTools middleware."""
    return create_agent(
        model=ScriptedChatModel(),
        tools=[add_numbers],
        middleware=[ClientToolsMiddleware()],
        name="rpc-fixture",
    )


async def make_approval_graph() -> Any:
    """The fixture agent with a human approval before ``add_numbers`` (agent.resume tests)."""
    return create_agent(
        model=ScriptedChatModel(),
        tools=[add_numbers],
        middleware=[
            ClientToolsMiddleware(),
            HumanInTheLoopMiddleware(interrupt_on={"add_numbers": True}),
        ],
        name="rpc-fixture-approval",
    )


def langgraph_config() -> dict[str, Any]:
    """A ``langgraph.json`` (as a dict, absolute paths) serving this module's graphs with the
    JSON-RPC adapter mounted as the server's ``http.app``."""
    graph = Path(__file__).resolve()
    spec = importlib.util.find_spec("rpc_adapter.app")
    if spec is None or spec.origin is None:
        msg = "rpc_adapter.app is not importable here"
        raise RuntimeError(msg)
    return {
        "dependencies": ["."],
        "graphs": {
            "echo": f"{graph}:make_graph",
            "echo2": f"{graph}:make_graph",
            "approval": f"{graph}:make_approval_graph",
        },
        "http": {"app": f"{spec.origin}:app"},
    }
