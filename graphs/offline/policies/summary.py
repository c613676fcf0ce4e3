"""Summarisation policy: a bounded, deterministic digest of the text it is asked to summarise.

Keeps the user's requests and the tail of the conversation, which is what a later
turn needs; says plainly that it is an offline digest, not a model's summary.
"""

from __future__ import annotations

import re

from graphs.messages import message_text
from graphs.offline.history import View
from graphs.offline.policies.base import Decision

__all__ = ["decide"]

_HEAD, _TAIL = 600, 1400
_USER_LINE = re.compile(r"^(?:human|user)\s*[:：]\s*(.+)$", re.I | re.M)


def decide(view: View) -> Decision:
    """A digest of the newest message (the summarisation prompt with the history in it)."""
    text = message_text(view.last) if view.last is not None else ""
    requests = [m.strip()[:200] for m in _USER_LINE.findall(text)][-5:]
    body = text if len(text) <= _HEAD + _TAIL else text[:_HEAD] + "\n…\n" + text[-_TAIL:]
    parts = ["离线摘要 / offline digest (no model):"]
    if requests:
        parts.append("用户请求 / user requests:\n" + "\n".join(f"- {r}" for r in requests))
    parts.append(body)
    return Decision("\n".join(parts), note="digest")
