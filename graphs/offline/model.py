"""The offline planner: a deterministic chat model that drives the real tools by fixed policies.

It is a LangChain ``BaseChatModel``, so the graphs, middleware and tools are exactly the
ones a real model drives. Each agent's graph names the policy (``orchestrator``,
``analyst``, ``procurement-order``, ``summary``, ``memory``); the policy reads the
request and the real tool results in the conversation and returns the next tool
calls or the final answer. Every message it produces is labelled: the full label in
``response_metadata``, and one short mark at the start of its text in the buyer's
language (〔离线〕 or [offline]), never repeated when a message quotes another.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool
from pydantic import Field

from graphs.offline.history import View
from graphs.offline.policies import Decision, decide
from graphs.offline.text import is_chinese, to_traditional
from graphs.orders.language import buyer_language

__all__ = ["LABEL", "MARKS", "OfflinePlanner", "PolicyName", "offline_label"]

logger = logging.getLogger(__name__)

PolicyName = Literal["orchestrator", "analyst", "procurement-order", "summary", "memory"]
LABEL = "〔离线规划器 offline planner〕"
MARKS = {True: "〔离线〕", False: "[offline]"}
"""The visible mark, by whether the buyer writes Chinese."""


def offline_label(text: str, *, zh: bool = True) -> str:
    """``text`` with one offline mark in front, in the buyer's language (quoted marks removed)."""
    for mark in (LABEL, *MARKS.values()):
        text = text.replace(mark + " ", "").replace(mark, "")
    return f"{MARKS[zh]} {text.strip()}"


_SCHEMAS: dict[int, tuple[Any, tuple[str, dict[str, Any]]]] = {}
_SCHEMAS_KEPT = 512  # a few agents' tools, each bound at every model call


def _convert(tool: Any) -> tuple[str, dict[str, Any]]:
    spec = convert_to_openai_tool(tool)
    fn = spec.get("function", spec)
    return str(fn.get("name")), dict(fn.get("parameters") or {})


def _schema(tool: Any) -> tuple[str, dict[str, Any]]:
    """``(name, parameters)`` of a tool as a model would be shown it. A graph's tool objects
    live as long as the graph and are bound again at every model call, so each is
    converted once (the entry holds the tool: its id cannot be another's meanwhile)."""
    if isinstance(tool, dict):  # a client's schema, built anew for each call: no key
        return _convert(tool)
    kept = _SCHEMAS.get(id(tool))
    if kept is not None and kept[0] is tool:
        name, parameters = kept[1]
        return name, dict(parameters)
    found = _convert(tool)
    _SCHEMAS[id(tool)] = (tool, found)
    if len(_SCHEMAS) > _SCHEMAS_KEPT:
        _SCHEMAS.pop(next(iter(_SCHEMAS)), None)  # the oldest
    return found[0], dict(found[1])


def _schema_only(tool: Any) -> tuple[str, dict[str, Any]] | None:
    """``(name, {"description", "parameters"})`` of a tool bound as a bare schema (a client's).

    Graph tools arrive as ``BaseTool`` objects; a tool the graph cannot run itself (the
    ClientTools middleware adds a JSON-RPC client's in OpenAI form) arrives as a dict.
    """
    if not isinstance(tool, dict):
        return None
    inner = tool.get("function")
    fn: dict[str, Any] = inner if isinstance(inner, dict) else tool
    if not isinstance(fn.get("name"), str):
        return None
    return fn["name"], {
        "description": str(fn.get("description") or ""),
        "parameters": dict(fn.get("parameters") or {}),
    }


class OfflinePlanner(BaseChatModel):
    """Deterministic stand-in for an LLM; ``policy`` says which agent it drives."""

    policy: PolicyName = "orchestrator"
    tool_schemas: dict[str, dict[str, Any]] = Field(default_factory=dict)
    client_tools: dict[str, dict[str, Any]] = Field(default_factory=dict)

    @property
    def _llm_type(self) -> str:
        return "offline-planner"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"policy": self.policy}

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        """A copy of the planner that knows the tools' names and argument schemas."""
        schemas = dict(_schema(t) for t in tools)
        client = dict(found for t in tools if (found := _schema_only(t)) is not None)
        return self.model_copy(update={"tool_schemas": schemas, "client_tools": client})

    def _decide(self, messages: list[BaseMessage]) -> AIMessage:
        view = View.of(self.policy, messages, self.tool_schemas, self.client_tools)
        try:
            decision = decide(view)
        except Exception as e:  # a policy bug must not take the run down: say so instead
            logger.exception("offline planner policy %s failed", self.policy)
            decision = Decision(
                text=f"离线规划器出错（{type(e).__name__}: {e}），本次运行到此为止。"
                if is_chinese(view.request)
                else f"Offline planner error ({type(e).__name__}: {e}); the run stops here.",
                note="error",
            )
        tool_calls = [
            {"name": name, "args": args, "id": f"call_{uuid.uuid4().hex[:20]}", "type": "tool_call"}
            for name, args in decision.calls
        ]
        zh = buyer_language(view.messages) == "zh"
        text = offline_label(decision.text, zh=zh)
        if view.traditional:
            # A buyer who wrote in Traditional characters reads the answer in them; the
            # offline mark stays as it is (clients and logs look for it).
            mark = MARKS[zh]
            text = mark + to_traditional(text[len(mark) :])
        return AIMessage(
            content=text,
            tool_calls=tool_calls,
            response_metadata={
                "offline_planner": True,
                "offline_label": LABEL,
                "policy": self.policy,
                "step": decision.note,
                "model_name": "offline-planner",
            },
        )

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._decide(messages))])

    async def _agenerate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: AsyncCallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        # Pure computation over the messages, no I/O: safe on the event loop.
        return ChatResult(generations=[ChatGeneration(message=self._decide(messages))])
