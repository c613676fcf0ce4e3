"""ClientTools: lend the model the tools a JSON-RPC client registered (DESIGN section 8).

The client's tools travel in the run's context (``client_tools``: a list of
``{"name", "description", "parameters"}`` with a JSON-schema object for the
parameters; the shapes below are typed once, in :mod:`core.client_tools`, which the
adapter imports too). This middleware shows them to the model next to the graph's own
tools, and when the model calls any of them it pauses the run with one
``interrupt`` that carries every such call of the turn::

    {"type": "client_tool_call",
     "calls": [{"call_id": ..., "tool_name": ..., "arguments": {...}}]}

The run is resumed with one answer per call, keyed by call id::

    {"<call_id>": {"success": true, "result": ...}}
    {"<call_id>": {"success": false, "error": "text the model should see"}}

A failed, timed-out or missing answer reaches the model as a
``ToolMessage(status="error")`` carrying the client's text, so it can react.
Bad specs in the context are logged and skipped; the agent keeps running.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langchain.agents.middleware import AgentState, ModelRequest
from langchain_core.messages import AIMessage, ToolMessage
from langgraph.config import get_config
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.runtime import Runtime
from langgraph.types import Command, interrupt

from core.client_tools import (
    CLIENT_TOOL_INTERRUPT,
    CONTEXT_FIELD,
    ClientToolInterrupt,
    ClientToolSpec,
)
from graphs.middleware.request_rewrite import RequestRewrite

__all__ = ["ClientToolsMiddleware", "client_tool_specs"]

logger = logging.getLogger(__name__)

_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_MAX_RESULT_CHARS = 20_000


def _raw_specs(context: Any) -> Any:
    if context is None:
        pass
    elif isinstance(context, Mapping):
        if CONTEXT_FIELD in context:
            return context[CONTEXT_FIELD]
    elif getattr(context, CONTEXT_FIELD, None) is not None:
        return getattr(context, CONTEXT_FIELD)
    # Graphs whose context_schema drops unknown fields still see it in configurable.
    try:
        return (get_config().get("configurable") or {}).get(CONTEXT_FIELD)
    except RuntimeError:
        return None


def client_tool_specs(context: Any) -> dict[str, ClientToolSpec]:
    """The valid client tools in ``context`` by name; invalid entries are logged and dropped."""
    raw = _raw_specs(context)
    if not raw:
        return {}
    if not isinstance(raw, list):
        logger.warning("client_tools: context field is not a list; ignoring it")
        return {}
    specs: dict[str, ClientToolSpec] = {}
    for item in raw:
        name = item.get("name") if isinstance(item, Mapping) else None
        if not isinstance(name, str) or not _NAME.match(name):
            logger.warning("client_tools: skipping a tool with an invalid name: %r", name)
            continue
        params = item.get("parameters") or item.get("input_schema") or {"type": "object"}
        if not isinstance(params, Mapping) or params.get("type", "object") != "object":
            logger.warning("client_tools: skipping %s: parameters must be an object schema", name)
            continue
        specs[name] = {
            "name": name,
            "description": str(item.get("description") or f"Client tool {name}"),
            "parameters": dict(params),
        }
    return specs


def _openai_tool(spec: Mapping[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": dict(spec)}


def _tool_name(tool: Any) -> str | None:
    if isinstance(tool, Mapping):
        fn = tool.get("function")
        return fn.get("name") if isinstance(fn, Mapping) else tool.get("name")
    return getattr(tool, "name", None)


def _as_text(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    if len(text) > _MAX_RESULT_CHARS:
        text = text[:_MAX_RESULT_CHARS] + f"\n[... truncated at {_MAX_RESULT_CHARS} characters]"
    return text


def answer_to_message(call: Mapping[str, Any], answer: Any) -> ToolMessage:
    """The ToolMessage the model sees for one client answer (or for a missing one)."""
    call_id, name = call["id"], call["name"]
    if not isinstance(answer, Mapping):
        return ToolMessage(
            content=f"Client tool {name} returned no answer; it may be unavailable.",
            tool_call_id=call_id,
            name=name,
            status="error",
        )
    if answer.get("success", False) is True:
        return ToolMessage(
            content=_as_text(answer.get("result", "")), tool_call_id=call_id, name=name
        )
    error = answer.get("error") or answer.get("result") or "the client reported a failure"
    prefix = "timed out" if answer.get("timeout") else "failed"
    return ToolMessage(
        content=f"Client tool {name} {prefix}: {_as_text(error)}",
        tool_call_id=call_id,
        name=name,
        status="error",
    )


def _ask_client(calls: list[Mapping[str, Any]]) -> list[ToolMessage]:
    payload: ClientToolInterrupt = {
        "type": CLIENT_TOOL_INTERRUPT,
        "calls": [
            {"call_id": c["id"], "tool_name": c["name"], "arguments": c.get("args") or {}}
            for c in calls
        ],
    }
    answers = interrupt(payload)
    if not isinstance(answers, Mapping):
        logger.warning("client_tools: resume value is not a mapping; answering with errors")
        answers = {}
    return [answer_to_message(c, answers.get(c["id"])) for c in calls]


class ClientToolsMiddleware(RequestRewrite):
    """Offer the client's registered tools to the model and run their calls on the client."""

    def rewrite(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """The request with the client's tools added to the graph's."""
        specs = client_tool_specs(request.runtime.context if request.runtime else None)
        if not specs:
            return request
        taken = {n for n in map(_tool_name, request.tools) if n}
        extra = []
        for name, spec in specs.items():
            if name in taken:
                logger.warning("client_tools: %s shadows a graph tool; the graph's wins", name)
                continue
            extra.append(_openai_tool(spec))
        return request.override(tools=[*request.tools, *extra]) if extra else request

    def _pending_client_calls(self, state: Any, runtime: Runtime[Any]) -> list[Mapping[str, Any]]:
        messages = state.get("messages") or []
        last_ai = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
        if last_ai is None or not last_ai.tool_calls:
            return []
        specs = client_tool_specs(runtime.context)
        if not specs:
            return []
        answered = {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}
        return [c for c in last_ai.tool_calls if c["name"] in specs and c.get("id") not in answered]

    def after_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Pause once for every client-tool call of this turn; record the client's answers."""
        calls = self._pending_client_calls(state, runtime)
        if not calls:
            return None
        return {"messages": _ask_client(calls)}

    async def aafter_model(
        self, state: AgentState[Any], runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """Async twin of :meth:`after_model`."""
        return self.after_model(state, runtime)

    def _client_call(self, request: ToolCallRequest) -> Mapping[str, Any] | None:
        if request.tool is not None:
            return None
        specs = client_tool_specs(request.runtime.context if request.runtime else None)
        return request.tool_call if request.tool_call["name"] in specs else None

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Run a client-tool call that reached the tool node (normally answered in after_model)."""
        call = self._client_call(request)
        if call is None:
            return handler(request)
        return _ask_client([call])[0]

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Async twin of :meth:`wrap_tool_call`."""
        call = self._client_call(request)
        if call is None:
            return await handler(request)
        return _ask_client([call])[0]
