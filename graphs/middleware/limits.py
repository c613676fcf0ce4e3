"""Model-call and tool-call limits (layers 6 and 7 of DESIGN section 4's stack).

Each agent's numbers are in its table (:mod:`graphs.stacks`).

langchain's own ``ModelCallLimitMiddleware`` and ``ToolCallLimitMiddleware``, per run,
ending the run (``exit_behavior="end"``) with a message instead of raising, so a
runaway loop stops and the user still gets an answer. Their closing message is English;
the buyers mostly write Chinese, so it is led by a Chinese sentence that says the same.
"""

from __future__ import annotations

from typing import Any, TypedDict

from langchain.agents.middleware import ModelCallLimitMiddleware, ToolCallLimitMiddleware
from langchain.agents.middleware.types import hook_config
from langchain_core.messages import AIMessage

__all__ = [
    "LIMIT_NOTICE_ZH",
    "BilingualModelCallLimit",
    "BilingualToolCallLimit",
    "Limits",
    "build_limits",
]

LIMIT_NOTICE_ZH = "〔本轮已达到调用上限，先停在这里。请把请求拆小，或发一条新消息让我接着做。〕"


class Limits(TypedDict):
    """Per-run caps of one agent."""

    model_calls: int
    tool_calls: int


def _bilingual(update: dict[str, Any] | None) -> dict[str, Any] | None:
    """The limit hook's update with each closing AI message led by the Chinese notice."""
    if not update or not update.get("messages"):
        return update
    messages = [
        m.model_copy(update={"content": f"{LIMIT_NOTICE_ZH}\n{m.content}"})
        if isinstance(m, AIMessage) and not m.tool_calls and isinstance(m.content, str)
        else m
        for m in update["messages"]
    ]
    return {**update, "messages": messages}


class BilingualModelCallLimit(ModelCallLimitMiddleware[Any, Any]):
    """``ModelCallLimitMiddleware`` whose closing message also speaks Chinese."""

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Stop before a model call past the limit, saying so in both languages."""
        return _bilingual(super().before_model(state, runtime))

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Stop before a model call past the limit, saying so in both languages."""
        return _bilingual(await super().abefore_model(state, runtime))


class BilingualToolCallLimit(ToolCallLimitMiddleware[Any, Any]):
    """``ToolCallLimitMiddleware`` whose closing message also speaks Chinese."""

    @hook_config(can_jump_to=["end"])
    def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Refuse tool calls past the limit and end the run, saying so in both languages."""
        return _bilingual(super().after_model(state, runtime))

    @hook_config(can_jump_to=["end"])
    async def aafter_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Refuse tool calls past the limit and end the run, saying so in both languages."""
        return _bilingual(await super().aafter_model(state, runtime))


def build_limits(
    limits: Limits,
) -> tuple[ModelCallLimitMiddleware[Any, Any], ToolCallLimitMiddleware[Any, Any]]:
    """The two limit middleware for ``limits``, each ending the run with a notice."""
    return (
        BilingualModelCallLimit(run_limit=limits["model_calls"], exit_behavior="end"),
        BilingualToolCallLimit(run_limit=limits["tool_calls"], exit_behavior="end"),
    )
