"""What a policy returns, and the helpers every policy uses."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ADDED_SECTION", "Decision", "local_name", "say", "section"]


@dataclass
class Decision:
    """The planner's next message: text, and tool calls as ``(name, args)`` pairs."""

    text: str
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    note: str = ""


def say(zh: bool, chinese: str, english: str) -> str:
    """The sentence in the request's language."""
    return chinese if zh else english


def local_name(record: dict[str, Any], zh: bool) -> str:
    """A supplier's, part's or category's name in the request's language (else its code)."""
    return str(record.get("name_zh" if zh else "name_en") or record.get("code") or "")


def section(text: str, name: str) -> str | None:
    """The body of a 【name】 section of a delegation message, if present."""
    m = re.search(r"【" + re.escape(name) + r"】(.*?)(?=【[^】]+】|\Z)", text, re.S)
    return m.group(1).strip() if m else None


def blocked(results: list[Any], zh: bool) -> Decision | None:
    """A final answer when a tool the plan depends on failed: the agent says why and stops.

    Retrying a down server or a refused request in a loop would only burn the run's
    call limits; the error text (which names the server and the fix) goes to the user.
    """
    failed = [r for r in results if not r.ok]
    if not failed:
        return None
    details = "\n".join(f"- {r.name}: {r.body.strip()[:600]}" for r in failed)
    return Decision(
        say(
            zh,
            f"无法继续：工具调用失败。\n{details}",
            f"I cannot continue: a tool failed.\n{details}",
        ),
        note="blocked",
    )


ADDED_SECTION = "【补充】"
"""The delegation section with what the buyer said about an order after asking for it
(newest first): the order agent reads it as the buyer's latest answer."""


def request_body(text: str) -> str:
    """The buyer's own words inside a delegation message (else the whole message)."""
    return section(text, "分析需求正文") or section(text, "需求正文") or text
