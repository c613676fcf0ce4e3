"""What a policy returns, and the helpers every policy uses."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Decision", "say", "section"]


@dataclass
class Decision:
    """The planner's next message: text, and tool calls as ``(name, args)`` pairs."""

    text: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    note: str = ""


def say(zh: bool, chinese: str, english: str) -> str:
    """The sentence in the request's language."""
    return chinese if zh else english


def section(text: str, name: str) -> str | None:
    """The body of a 【name】 section of a delegation message, if present."""
    m = re.search(r"【" + re.escape(name) + r"】(.*?)(?=【[^】]+】|\Z)", text, re.S)
    return m.group(1).strip() if m else None


def request_body(text: str) -> str:
    """The buyer's own words inside a delegation message (else the whole message)."""
    return section(text, "分析需求正文") or section(text, "需求正文") or text
