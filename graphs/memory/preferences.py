"""The preferences file, ``/memories/{user_id}/preferences.md``: the user's text plus one block
the system keeps.

``recent_suppliers`` (at most :data:`MAX_SUPPLIERS`, newest first, no duplicates) and
``recent_queries`` (at most :data:`MAX_QUERIES`) live between :data:`BLOCK_BEGIN` and
:data:`BLOCK_END`; the user's own text around the block is kept byte for byte. A missing
file starts as a short header inviting the user to write their own preferences.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "BLOCK_BEGIN",
    "BLOCK_END",
    "MAX_QUERIES",
    "MAX_SUPPLIERS",
    "Extraction",
    "RecentActivity",
    "merge_preferences",
    "merge_recent",
    "parse_block",
    "preferences_path",
]

MAX_SUPPLIERS = 10
MAX_QUERIES = 5

BLOCK_BEGIN = "<!-- memory:begin 由系统维护，请在此块之外书写 / maintained automatically -->"
BLOCK_END = "<!-- memory:end -->"
_BEGIN_RE = re.compile(r"<!-- memory:begin[^>]*-->")
_NEW_FILE = (
    "# 用户偏好 / Preferences\n\n"
    "（在这里写下你的采购偏好：常用供应商、预算、交期要求等。/ Write your own preferences "
    "here.）\n\n"
)


def preferences_path(user_id: str) -> str:
    """The virtual path of ``user_id``'s preferences file."""
    return f"/memories/{user_id}/preferences.md"


@dataclass
class Extraction:
    """What an exchange contributes to memory."""

    suppliers: list[str]
    query: str | None

    @property
    def empty(self) -> bool:
        """Whether there is nothing to remember."""
        return not self.suppliers and not self.query


@dataclass
class RecentActivity:
    """The machine-managed block of a preferences file."""

    suppliers: list[str]
    queries: list[str]

    def render(self) -> str:
        """The block, markers included."""
        lines = [BLOCK_BEGIN, "## 最近记录 / Recent activity", "", "### recent_suppliers"]
        lines += [f"- {s}" for s in self.suppliers] or ["（无 / none）"]
        lines += ["", "### recent_queries"]
        lines += [f"- {q}" for q in self.queries] or ["（无 / none）"]
        lines.append(BLOCK_END)
        return "\n".join(lines)


def parse_block(text: str) -> tuple[RecentActivity, tuple[int, int] | None]:
    """The recent-activity block of ``text`` and its span (``None`` when there is none)."""
    begin = _BEGIN_RE.search(text)
    end = text.find(BLOCK_END, begin.end()) if begin else -1
    if begin is None or end < 0:
        return RecentActivity([], []), None
    body = text[begin.end() : end]
    sections: dict[str, list[str]] = {"recent_suppliers": [], "recent_queries": []}
    current: list[str] | None = None
    for line in body.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            current = sections.get(stripped.lstrip("#").strip())
        elif stripped.startswith("- ") and current is not None:
            current.append(stripped[2:].strip())
    span = (begin.start(), end + len(BLOCK_END))
    return RecentActivity(sections["recent_suppliers"], sections["recent_queries"]), span


def merge_recent(old: Sequence[str], new: Sequence[str], limit: int) -> list[str]:
    """``new`` first (in order), then ``old``; duplicates (case-insensitive) dropped; capped."""
    out: list[str] = []
    seen: set[str] = set()
    for item in [*new, *old]:
        key = item.strip().casefold()
        if key and key not in seen:
            seen.add(key)
            out.append(item.strip())
    return out[:limit]


def merge_preferences(text: str | None, extraction: Extraction) -> str:
    """``text`` with its recent-activity block updated; everything else kept as it was."""
    base = _NEW_FILE if text is None else text
    recent, span = parse_block(base)
    merged = RecentActivity(
        merge_recent(recent.suppliers, extraction.suppliers, MAX_SUPPLIERS),
        merge_recent(recent.queries, [extraction.query] if extraction.query else [], MAX_QUERIES),
    )
    block = merged.render()
    if span is None:
        sep = "" if not base or base.endswith("\n\n") else ("\n" if base.endswith("\n") else "\n\n")
        return f"{base}{sep}{block}\n"
    return base[: span[0]] + block + base[span[1] :]
