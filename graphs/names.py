"""Finding names a record carries (suppliers, parts, categories) in a buyer's text.

The names come from the records themselves (the ERP's answers), never from a list of
phrases: a name matches as written, without company suffixes (天顶贸易有限公司 → 天顶),
or as a simple plural. Used by the memory layer and the offline planner alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["CJK", "Match", "display_name", "match_names", "name_variants"]

CJK = re.compile(r"[\u4e00-\u9fff]")
"""A CJK ideograph (Chinese names match anywhere; Latin ones only as whole words)."""

_ZH_SUFFIXES = (
    "有限公司", "股份公司", "集团", "公司", "销售", "配件", "进出口", "工业", "贸易", "实业",
    "科技", "摩配", "供应链", "股份",
)  # fmt: skip
_EN_SUFFIXES = (" co.", " co", " inc.", " inc", " ltd.", " ltd", " corporation", " group")


def name_variants(*names: str | None) -> list[str]:
    """The ways a buyer may write a name: itself, without company suffixes, simple plurals."""
    out: list[str] = []
    for raw in names:
        if not raw:
            continue
        name = raw.strip()
        variants = {name}
        stem = name
        stripped = True
        while stripped:  # 天顶贸易有限公司 → 天顶贸易 → 天顶
            stripped = False
            for suffix in _ZH_SUFFIXES:
                if stem.endswith(suffix) and len(stem) - len(suffix) >= 2:
                    stem = stem[: -len(suffix)]
                    variants.add(stem)
                    stripped = True
        low = name.lower()
        for suffix in _EN_SUFFIXES:
            if low.endswith(suffix) and len(name) - len(suffix) >= 3:
                variants.add(name[: -len(suffix)])
        if re.fullmatch(r"[A-Za-z][A-Za-z .&'-]*", name):
            variants.update({name + "s", name + "es"})
            if low.endswith("y"):
                variants.add(name[:-1] + "ies")
        out.extend(v for v in variants if len(v) >= 2)
    return out


@dataclass(frozen=True)
class Match:
    """A record whose name occurs in the text, and how strongly."""

    record: dict[str, Any]
    term: str
    start: int

    @property
    def strength(self) -> int:
        """Longer names win: 火花塞帽 over 火花塞."""
        return len(self.term)


def _occurs(term: str, text: str) -> int:
    if CJK.search(term):
        return text.find(term)
    m = re.search(r"(?<![A-Za-z0-9])" + re.escape(term) + r"(?![A-Za-z0-9])", text, re.I)
    return m.start() if m else -1


def match_names(text: str, records: Iterable[dict[str, Any]], fields: Sequence[str]) -> list[Match]:
    """Records any of whose ``fields`` (with :func:`name_variants`) occur in ``text``.

    Best first: the longest matching name, then the earliest. A shorter name that is
    only part of a longer match (火花塞 inside 火花塞帽) does not count on its own.
    """
    found: dict[int, Match] = {}
    for record in records:
        for f in fields:
            for term in name_variants(str(record.get(f) or "")):
                pos = _occurs(term, text)
                if pos < 0:
                    continue
                key = id(record)
                prior = found.get(key)
                if prior is None or len(term) > prior.strength:
                    found[key] = Match(record, term, pos)
    matches = sorted(found.values(), key=lambda m: (-m.strength, m.start))
    return [m for m in matches if not _covered_by_longer(m, matches)]


def _covered_by_longer(m: Match, others: list[Match]) -> bool:
    return any(
        k.strength > m.strength
        and k.start <= m.start
        and m.start + len(m.term) <= k.start + len(k.term)
        for k in others
    )


def display_name(record: dict[str, Any]) -> str:
    """How a matched supplier record is written down: its Chinese name, else English, else code."""
    return str(record.get("name_zh") or record.get("name_en") or record.get("code"))
