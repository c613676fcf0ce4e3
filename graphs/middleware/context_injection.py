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

from typing import Any

from langchain.agents.middleware.types import AgentState, ContextT, ResponseT
from langchain_core.messages import SystemMessage
from langgraph.runtime import Runtime

from graphs.context import user_fields
from graphs.memory.preferences import preferences_path
from graphs.middleware.fail_soft import FailSoft

__all__ = ["CONTEXT_INJECTION_PROMPT", "CONTEXT_MESSAGE_ID", "ContextInjection"]

CONTEXT_MESSAGE_ID = "context-injection"

CONTEXT_INJECTION_PROMPT = (
    "当前用户 / Current user: user_id={user_id}, username={username}.\n"
    "用户偏好文件 / Preferences file: {preferences_path} — 开始处理采购请求前用 read_file "
    "读取它（文件可能还不存在），按其中的偏好和最近记录（recent_suppliers / recent_queries）"
    "工作；用户要求记住的偏好写在标记块之外。\n"
    "Only /memories/{user_id}/ and /reports/{user_id}/ belong to this user."
)


class ContextInjection(FailSoft):
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

    def before_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """The context message, or nothing (fallbacks, unchanged, or on error)."""
        return self.soft(lambda: self._update(state, runtime), None)

    async def abefore_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """The context message, or nothing (fallbacks, unchanged, or on error)."""
        return self.soft(lambda: self._update(state, runtime), None)
