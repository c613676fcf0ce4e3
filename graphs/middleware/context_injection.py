"""ContextInjection: tell the agent whose run this is and where their preferences live.

First layer of DESIGN section 4's stack (``before_agent``). It adds one system message
with the user's id, display name and preferences path, so the agent can read
``/memories/{user_id}/preferences.md`` (written by MemoryUpdate and by the user) before
answering. Three-level fallback: no context → nothing; no usable ``user_id`` →
nothing; no ``username`` → the ``user_id`` is the name.

The message has a fixed id: a thread gets it once, and it is replaced in place (not
repeated) when the user's details change.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware, AgentState, ContextT, ResponseT
from langchain_core.messages import SystemMessage
from langgraph.runtime import Runtime

from graphs.context import claimed_user
from graphs.user_scope import valid_user_id

__all__ = ["CONTEXT_INJECTION_PROMPT", "CONTEXT_MESSAGE_ID", "ContextInjection", "user_fields"]

logger = logging.getLogger(__name__)

CONTEXT_MESSAGE_ID = "context-injection"

CONTEXT_INJECTION_PROMPT = (
    "当前用户 / Current user: user_id={user_id}, username={username}.\n"
    "用户偏好文件 / Preferences file: {preferences_path} — 开始处理采购请求前用 read_file "
    "读取它（文件可能还不存在），按其中的偏好和最近记录（recent_suppliers / recent_queries）"
    "工作；用户要求记住的偏好写在标记块之外。\n"
    "Only /memories/{user_id}/ and /reports/{user_id}/ belong to this user."
)


def preferences_path(user_id: str) -> str:
    """The virtual path of ``user_id``'s preferences file."""
    return f"/memories/{user_id}/preferences.md"


def user_fields(context: object) -> tuple[str, str] | None:
    """``(user_id, username)`` from a run context, or ``None`` when there is no usable user.

    Accepts the dataclass context, a dict (as the SDK sends it) or ``None``.
    """
    raw_id, raw_name = claimed_user(context)
    if raw_id is None:
        return None
    user_id = valid_user_id(raw_id)
    if user_id is None:
        if raw_id:
            logger.warning("ContextInjection: user_id %r is not a usable id; skipped", raw_id)
        return None
    username = str(raw_name).strip() if raw_name else ""
    return user_id, username or user_id


class ContextInjection(AgentMiddleware[AgentState[ResponseT], ContextT, ResponseT]):
    """Add the user's identity and preferences path as a system message (once per thread)."""

    def _update(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        fields = user_fields(getattr(runtime, "context", None))
        if fields is None:
            return None
        user_id, username = fields
        text = CONTEXT_INJECTION_PROMPT.format(
            user_id=user_id, username=username, preferences_path=preferences_path(user_id)
        )
        for message in state.get("messages", []):
            if getattr(message, "id", None) == CONTEXT_MESSAGE_ID and message.content == text:
                return None
        return {"messages": [SystemMessage(content=text, id=CONTEXT_MESSAGE_ID)]}

    def _soft(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        try:
            return self._update(state, runtime)
        except Exception:  # fail soft: the run goes on without the note
            logger.warning("ContextInjection failed; the run continues without it", exc_info=True)
            return None

    def before_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """The context message, or nothing (fallbacks, unchanged, or on error)."""
        return self._soft(state, runtime)

    async def abefore_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """The context message, or nothing (fallbacks, unchanged, or on error)."""
        return self._soft(state, runtime)
