"""Finding names a record carries (suppliers, parts, categories) in a buyer's text.

The names come from the records themselves (the ERP's answers), never from a list of
phrases: a name matches as written, without company suffixes (天顶贸易有限公司 → 天顶),
or as a simple plural. Used by the memory layer and the offline planner alike.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["CJK", "Match", "display_name", "match_names", "name_variants"]

CJK = re.compile(r"[\u4e00-\u9fff]")
"""A CJK ideograph (Chinese names match anywhere; Latin ones only as whole words)."""

_ZH_SUFFIXES = (
    "有限公司", "股份公司", "集团", "公司", "销售", "配件", "进出口", "工业", "贸易", "实业",
    "科技", "摩配", "供应链", "股份", "零部件", "摩托车", "摩托", "动力", "汽配", "制造", "商行",
    # What a maker makes, after its brand ("朝阳轮胎" is 朝阳, its parts' brand)
    "轮胎", "刹车", "滤清器", "离合器", "火花塞", "链条", "蓄电池", "电池", "灯泡", "减震器",
    "橡胶", "皮带",
)  # fmt: skip
_EN_SUFFIXES = (
    "co", "co.", "inc", "inc.", "ltd", "ltd.", "corporation", "corp", "corp.", "group",
    "company", "limited", "llc", "gmbh", "& export", "import & export", "import", "export",
    "supply chain", "trading", "sales", "components", "accessories", "industrial", "industries",
    "industry", "manufacturing", "technology",
)  # fmt: skip
_LATIN_NAME = re.compile(r"[A-Za-z][A-Za-z0-9 .&'/-]*")
_SCRIPT_RUN = re.compile(r"[\u4e00-\u9fff]+|[A-Za-z0-9][A-Za-z0-9 .&'/-]*[A-Za-z0-9.]?")


def _zh_stems(name: str) -> set[str]:
    """天顶贸易有限公司 → 天顶贸易, 天顶; then its place and trade-name halves (宁波远航 → 远航)."""
    variants = {name}
    stem = name
    stripped = True
    while stripped:
        stripped = False
        for suffix in _ZH_SUFFIXES:
            if stem.endswith(suffix) and len(stem) - len(suffix) >= 2:
                stem = stem[: -len(suffix)]
                variants.add(stem)
                stripped = True
    # A Chinese company name leads with a two-character place, then its trade name, then
    # what it does (苏州 清泉 泵业): the trade name alone names it too.
    if len(stem) >= 4 and stem != name:
        variants.update({stem[:2], stem[2:]})
        if len(stem) >= 6:
            variants.add(stem[2:4])
    return {v for v in variants if len(v) >= 2 and v not in _ZH_SUFFIXES}


def _en_stems(name: str) -> set[str]:
    """Chongqing Moto Parts Supply Chain → its leading words (Chongqing Moto Parts, ...)."""
    variants = {name}
    words = name.split()
    while words and (" ".join(words[-2:]).lower() in _EN_SUFFIXES or words[-1].lower().strip(
            ",") in _EN_SUFFIXES):  # fmt: skip
        cut = 2 if " ".join(words[-2:]).lower() in _EN_SUFFIXES else 1
        words = words[:-cut]
        if words:
            variants.add(" ".join(words))
    # Its leading words stand for the company only once it has shed a company suffix:
    # "Spark Plug Cap" is not "Spark".
    for n in range(1, len(words) if len(variants) > 1 else 0):
        prefix = " ".join(words[:n])
        if len(prefix.replace(" ", "")) >= 4:
            variants.add(prefix)
    if re.fullmatch(r"[A-Za-z][A-Za-z .&'-]*", name):
        variants.update({name + "s", name + "es"})
        if name.lower().endswith("y"):
            variants.add(name[:-1] + "ies")
    return {v.strip() for v in variants if len(v.strip()) >= 2}


def name_variants(*names: str | None) -> list[str]:
    """The ways a buyer may write a name: itself, its short forms, simple plurals.

    Company names lose their legal and trade suffixes (天顶贸易有限公司 → 天顶; "Chongqing
    Moto Parts Supply Chain" → "Chongqing Moto Parts", "Chongqing"); a Chinese name also
    answers to its trade name without the leading place (宁波远航 → 远航); a name mixing
    scripts ("大同工业 DID") answers to its Latin part, and to its Chinese part when that
    is a company name itself.
    """
    out: list[str] = []
    for raw in names:
        if raw:
            out.extend(_variants(raw.strip()))
    return out


@functools.lru_cache(maxsize=16384)
def _variants(name: str) -> tuple[str, ...]:
    """:func:`name_variants` of one name. The planner matches every catalogue and supplier
    name against the request at each model call: the same names, again and again."""
    variants = {name}
    runs = _SCRIPT_RUN.findall(name)
    if len(runs) > 1:  # mixed scripts
        for run in runs:
            run = run.strip()
            if CJK.search(run):
                if any(run.endswith(s) for s in _ZH_SUFFIXES):
                    variants |= _zh_stems(run)
                elif len(run) >= 4 and re.search(re.escape(run) + r"\s|\s" + re.escape(run), name):
                    # "日本特殊陶业 NGK": a Chinese name set apart from its Latin code is a name
                    # of its own ("EBC刹车", written together, ends in a word for the goods).
                    variants.add(run)
            elif len(run) >= 2:
                variants |= _en_stems(run)
    elif CJK.search(name):
        variants |= _zh_stems(name)
    elif _LATIN_NAME.fullmatch(name):
        variants |= _en_stems(name)
    return tuple(v for v in variants if len(v) >= 2)


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


@functools.lru_cache(maxsize=16384)
def _pattern(term: str) -> re.Pattern[str] | None:
    """How a Latin ``term`` is found as a whole word (None: a Chinese term, found as is)."""
    if CJK.search(term):
        return None
    # A short code in capitals (DID, CST) is a name only as written: "did" is a verb.
    flags = 0 if len(term) <= 3 and term.isupper() else re.I
    return re.compile(r"(?<![A-Za-z0-9])" + re.escape(term) + r"(?![A-Za-z0-9])", flags)


def _occurs(term: str, text: str) -> int:
    pattern = _pattern(term)
    if pattern is None:
        return text.find(term)
    m = pattern.search(text)
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
