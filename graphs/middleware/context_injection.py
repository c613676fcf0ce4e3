"""ContextInjection: tell the model whose run this is and where their preferences live.

First layer of DESIGN section 4's stack. Every model request gets a note in its system
message with the user's id, display name and preferences path, so the agent can read
``/memories/{user_id}/preferences.md`` (written by MemoryUpdate and by the user) before
answering. Three-level fallback: no context → nothing; no usable ``user_id`` → nothing; no
``username`` → the ``user_id`` is the name.

The note changes the model request, not the thread: it is never stored in
``state["messages"]``, so it does not pile up, is not summarised away, and a chat UI never
shows it. It is read from the run's context at each call, so a changed name shows at once.
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware.types import ModelRequest

from graphs.context import user_fields
from graphs.memory.preferences import preferences_path
from graphs.middleware.notes import with_note
from graphs.middleware.request_rewrite import RequestRewrite

__all__ = ["CONTEXT_INJECTION_PROMPT", "ContextInjection", "context_note"]

CONTEXT_INJECTION_PROMPT = (
    "当前用户 / Current user: user_id={user_id}, username={username}.\n"
    "用户偏好文件 / Preferences file: {preferences_path} — 开始处理采购请求前用 read_file "
    "读取它（文件可能还不存在），按其中的偏好和最近记录（recent_suppliers / recent_queries）"
    "工作；用户要求记住的偏好写在标记块之外。\n"
    "Only /memories/{user_id}/ and /reports/{user_id}/ belong to this user."
)


def context_note(context: object) -> str | None:
    """The note for a run's context, or None (no context, or no usable user id)."""
    fields = user_fields(context)
    if fields is None:
        return None
    user_id, username = fields
    return CONTEXT_INJECTION_PROMPT.format(
        user_id=user_id, username=username, preferences_path=preferences_path(user_id)
    )


class ContextInjection(RequestRewrite):
    """Add the user's identity and preferences path to each model request's system message."""

    def rewrite(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """The request with the user's note, or unchanged (fallbacks; on error, logged)."""
        runtime = request.runtime
        note = context_note(getattr(runtime, "context", None) if runtime is not None else None)
        return with_note(request, note) if note else request
