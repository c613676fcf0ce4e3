"""Model-call and tool-call limits (layers 6 and 7 of DESIGN section 4's stack).

Each agent's numbers are in its table (:mod:`graphs.stacks`).

langchain's own ``ModelCallLimitMiddleware`` and ``ToolCallLimitMiddleware``, per run,
ending the run (``exit_behavior="end"``) with a message instead of raising, so a
runaway loop stops and the user still gets an answer. Their closing message is an
English sentence for developers; the buyer reads one notice in their own language (the
language of their newest message) with the count that was reached, and langchain's
sentence stays in the message's ``response_metadata["limit"]``.
"""

from __future__ import annotations

import re
from typing import Any, TypedDict

from langchain.agents.middleware import ModelCallLimitMiddleware, ToolCallLimitMiddleware
from langchain.agents.middleware.types import hook_config
from langchain_core.messages import AIMessage, BaseMessage

from graphs.orders.language import buyer_language

__all__ = [
    "LIMIT_NOTICE_EN",
    "LIMIT_NOTICE_ZH",
    "BilingualModelCallLimit",
    "BilingualToolCallLimit",
    "Limits",
    "build_limits",
]

LIMIT_NOTICE_ZH = "〔本轮已达到调用上限，先停在这里。请把请求拆小，或发一条新消息让我接着做。〕"
LIMIT_NOTICE_EN = (
    "[This turn reached its call limit, so I stopped here. Split the request, or send a new "
    "message and I will carry on.]"
)
_COUNT = re.compile(r"\((\d+)/(\d+)")


class Limits(TypedDict):
    """Per-run caps of one agent."""

    model_calls: int
    tool_calls: int


def _notice(original: str, kind: str, lang: str) -> str:
    """The buyer's notice: which limit, the count reached (from langchain's sentence)."""
    found = _COUNT.search(original)  # "(3/2 calls)": the third call past a limit of two
    count = f"{found.group(2)}/{found.group(2)}" if found else ""
    if lang == "en":
        what = f" ({kind} calls {count})" if count else ""
        return LIMIT_NOTICE_EN.replace("its call limit", f"its call limit{what}")
    what = f"（{'模型' if kind == 'model' else '工具'}调用 {count}）" if count else ""
    return LIMIT_NOTICE_ZH.replace("调用上限", f"调用上限{what}", 1)


def _bilingual(update: dict[str, Any] | None, state: Any, kind: str) -> dict[str, Any] | None:
    """The limit hook's update with each closing AI message in the buyer's language, once.

    langchain's async hooks call the sync ones, which are overridden here too: a message
    already carrying ``response_metadata["limit"]`` is left as it is.
    """
    if not update or not update.get("messages"):
        return update
    history: list[BaseMessage] = list((state or {}).get("messages") or [])
    lang = buyer_language(history)
    messages = []
    for m in update["messages"]:
        closing = isinstance(m, AIMessage) and not m.tool_calls and isinstance(m.content, str)
        if closing and "limit" not in m.response_metadata:
            m = m.model_copy(
                update={
                    "content": _notice(str(m.content), kind, lang),
                    "response_metadata": {**m.response_metadata, "limit": m.content},
                }
            )
        messages.append(m)
    return {**update, "messages": messages}


class BilingualModelCallLimit(ModelCallLimitMiddleware[Any, Any]):
    """``ModelCallLimitMiddleware`` whose closing message speaks the buyer's language."""

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Stop before a model call past the limit, saying so in the buyer's language."""
        return _bilingual(super().before_model(state, runtime), state, "model")

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Stop before a model call past the limit, saying so in the buyer's language."""
        return _bilingual(await super().abefore_model(state, runtime), state, "model")


class BilingualToolCallLimit(ToolCallLimitMiddleware[Any, Any]):
    """``ToolCallLimitMiddleware`` whose closing message speaks the buyer's language."""

    @hook_config(can_jump_to=["end"])
    def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Refuse tool calls past the limit and end the run, saying so in the buyer's language."""
        return _bilingual(super().after_model(state, runtime), state, "tool")

    @hook_config(can_jump_to=["end"])
    async def aafter_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        """Refuse tool calls past the limit and end the run, saying so in the buyer's language."""
        return _bilingual(await super().aafter_model(state, runtime), state, "tool")


def build_limits(
    limits: Limits,
) -> tuple[ModelCallLimitMiddleware[Any, Any], ToolCallLimitMiddleware[Any, Any]]:
    """The two limit middleware for ``limits``, each ending the run with a notice."""
    return (
        BilingualModelCallLimit(run_limit=limits["model_calls"], exit_behavior="end"),
        BilingualToolCallLimit(run_limit=limits["tool_calls"], exit_behavior="end"),
    )
