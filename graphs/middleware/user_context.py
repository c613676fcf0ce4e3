"""Tell the model whose run this is: user id, name, and their memory and report paths.

A minimal context injection for the graphs of issue 5 (the full ContextInjection with
preferences and fallbacks belongs to the middleware stack of DESIGN section 4). It
edits the system message of each model call and adds no messages to the state.
"""

from __future__ import annotations

from typing import Any

from langchain.agents.middleware.types import ModelRequest
from langchain_core.messages import SystemMessage

from graphs.context import user_of
from graphs.middleware.request_rewrite import RequestRewrite

__all__ = ["TASK_TEMPLATE", "USER_CONTEXT_TEMPLATE", "UserContextMiddleware"]

USER_CONTEXT_TEMPLATE = (
    "Current user: user_id={user_id}; username={username}. "
    "Preferences: /memories/{user_id}/preferences.md. Reports: /reports/{user_id}/."
)
TASK_TEMPLATE = "This run's task_id={task_id} (its thread; name your files after it)."


def _thread_id() -> str | None:
    """The thread this run is on (a background task's id), when inside a run."""
    try:
        from langgraph.config import get_config

        configurable = get_config().get("configurable") or {}
    except RuntimeError:  # outside a runnable context: no thread to name
        return None
    thread = configurable.get("thread_id")
    return str(thread) if thread else None


class UserContextMiddleware(RequestRewrite):
    """Append the current user's identity and paths to the system message."""

    def rewrite(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """The request with the user's note added to the system message."""
        context = request.runtime.context if request.runtime is not None else None
        user_id, username = user_of(context)
        note = USER_CONTEXT_TEMPLATE.format(user_id=user_id, username=username)
        # Reports are named after the task, so two analyses on one day never collide.
        thread = _thread_id()
        if thread:
            note += " " + TASK_TEMPLATE.format(task_id=thread)
        current = request.system_message
        text = f"{current.text}\n\n{note}" if current is not None else note
        return request.override(system_message=SystemMessage(content=text))
