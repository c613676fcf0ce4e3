"""Reading messages whatever their shape: their text, JSON inside a text, and task notifications.

Neutral ground for the middleware, the tools and the offline planner alike (none of them
imports another for these).
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import BaseMessage

__all__ = [
    "DO_NOT_RENDER",
    "INTERNAL_TAGS",
    "NOTIFICATION_KEY",
    "is_notification",
    "message_text",
    "parse_json",
]

NOTIFICATION_KEY = "deepagents_notification"
"""deepagents' marker (in ``additional_kwargs``) on the user-role message that reports an
async task's end to its parent: a notification, not something the user said."""

INTERNAL_TAGS = ("nostream", "langsmith:nostream")
"""Tags of model calls a user never reads (summaries, memory extraction): LangGraph's
``messages`` stream mode skips calls tagged ``nostream`` (Python servers), and
``langsmith:nostream`` is the same convention in LangGraph.js and Agent Chat UI."""

DO_NOT_RENDER = "do-not-render-"
"""Id prefix of messages a chat UI should not show (Agent Chat UI's convention); the
thread stores task notifications under it (``graphs/state.py``)."""


def message_text(message: BaseMessage | Any) -> str:
    """The text of a message whatever its content shape (string or content blocks)."""
    content = getattr(message, "content", message)
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts: list[str] = []
        for block in content:
            if isinstance(block, str):
                parts.append(block)
            elif isinstance(block, dict) and block.get("type") == "text":
                parts.append(str(block.get("text", "")))
        return "".join(parts)
    return str(content)


def is_notification(message: BaseMessage) -> bool:
    """Whether a user-role message is deepagents' async-task notification, not the user."""
    return NOTIFICATION_KEY in (getattr(message, "additional_kwargs", None) or {})


def parse_json(text: str) -> Any:
    """JSON in a text: the whole text, else the first object or array in it; else None.

    Tool results and model replies often wrap their JSON in prose or a code fence.
    """
    text = text.strip()
    if not text:
        return None
    try:
        return json.loads(text)
    except ValueError:
        pass
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if 0 <= start < end:
            try:
                return json.loads(text[start : end + 1])
            except ValueError:
                continue
    return None
