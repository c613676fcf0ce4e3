"""Grounding a buyer's words in the ERP: which categories, suppliers and parts they name.

Every name comes from the ERP's own answers (``category_list``, ``supplier_query``,
``part_search``, ``part_by_supplier``), never from a list in code:

- categories by their Chinese and English names and the aliases the ERP keeps for them
  (火嘴, 刹车皮, tyres), English plurals and hyphen / space variants; typos are forgiven
  when they are close (Damerau-Levenshtein through ``rapidfuzz``: "spark pulgs",
  "carbuerator") or, in Chinese, when they sound the same (the usual input-method typo:
  火花赛 for 火花塞, through ``pypinyin``);
- suppliers by code, full name or short name (:func:`graphs.names.name_variants`);
  a supplier code inside a model number (KN-189, FCC-2857) is part of the model number;
- parts by SKU or model number, as written with or without spaces and hyphens.

A word the lexicon knows ("stock", "order") is never taken for a typo of a name. What is
left over once every known word is removed is the request's unknown content: the thing
the buyer named that the ERP does not know ("挡风玻璃", "pizza").
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from pypinyin import lazy_pinyin
from rapidfuzz.distance import DamerauLevenshtein

from graphs.names import CJK, name_variants
from graphs.offline import lexicon
from graphs.offline.text import model_tokens

__all__ = [
    "Grounding",
    "Mention",
    "find_categories",
    "find_parts",
    "find_suppliers",
    "ground",
    "not_negated",
    "ruled_out",
    "supplier_marked",
    "unknown_words",
]

Record = dict[str, Any]
_CJK_RUN = re.compile(r"[\u4e00-\u9fff]+")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z']*")
# Where a name is "ordered from": 给 NGK 下单, 从博世采购, "from Bosch", "with Mikuni".
_SUPPLIER_MARK = re.compile(
    r"(?:\bfrom|\bvia|\bwith|\bto|\bat|向|给|找|跟|从|在|供应商[:：]?)\s*(?:the\s+)?$", re.I
)


@dataclass(frozen=True)
class Mention:
    """An ERP record named in the text: where, by which words, and whether exactly."""

    record: Record
    start: int
    end: int
    term: str
    exact: bool = True

    @property
    def code(self) -> str:
        """The record's code (categories, suppliers) or SKU (parts)."""
        return str(self.record.get("code") or self.record.get("sku") or "")


def _boundary(body: str) -> str:
    return r"(?<![A-Za-z0-9])" + body + r"(?![A-Za-z0-9])"


def _latin_pattern(term: str, *, plural: bool) -> str:
    words = [re.escape(w) for w in re.split(r"[\s\-]+", term.strip()) if w]
    body = r"[\s\-]*".join(words)
    if plural and re.search(r"[a-z]$", term, re.I):
        body += r"(?:s|es)?" if not term.lower().endswith("y") else r"(?:s)?"
        if term.lower().endswith("y"):
            body = "(?:" + body + "|" + r"[\s\-]*".join(words)[:-1] + "ies)"
    return _boundary(body)


@lru_cache(maxsize=4096)
def _compiled(term: str, plural: bool, case: bool) -> re.Pattern[str]:
    return re.compile(_latin_pattern(term, plural=plural), 0 if case else re.I)


def _exact(text: str, record: Record, term: str, *, plural: bool, case: bool) -> list[Mention]:
    if CJK.search(term):
        return [
            Mention(record, m.start(), m.end(), term) for m in re.finditer(re.escape(term), text)
        ]
    return [
        Mention(record, m.start(), m.end(), term)
        for m in _compiled(term, plural, case).finditer(text)
    ]


def _keep_longest(found: list[Mention]) -> list[Mention]:
    """Drop a mention that lies inside a longer one of another record (火花塞 in 火花塞帽)."""
    found.sort(key=lambda m: (-(m.end - m.start), m.start))
    kept: list[Mention] = []
    for m in found:
        inside = any(
            k.start <= m.start and m.end <= k.end and (k.end - k.start) > (m.end - m.start)
            for k in kept
        )
        if not inside:
            kept.append(m)
    return kept


def _one_per_record(found: Iterable[Mention]) -> list[Mention]:
    best: dict[int, Mention] = {}
    for m in found:
        prior = best.get(id(m.record))
        if prior is None or (m.exact, m.end - m.start) > (prior.exact, prior.end - prior.start):
            best[id(m.record)] = m
    return sorted(best.values(), key=lambda m: m.start)


def _covered(spans: Iterable[tuple[int, int]], start: int, end: int) -> bool:
    return any(a < end and start < b for a, b in spans)


# --- categories ---------------------------------------------------------------------------


def category_terms(category: Record) -> list[str]:
    """Every name of a category: Chinese and English names and its aliases."""
    names = [category.get("name_zh"), category.get("name_en"), *(category.get("aliases") or [])]
    return [str(n) for n in names if n and len(str(n)) >= 2]


@lru_cache(maxsize=8192)
def _sound(text: str) -> tuple[str, ...]:
    return tuple(lazy_pinyin(text))


def _latin_tolerance(term: str) -> int:
    length = len(term.replace(" ", ""))
    return 2 if length >= 9 else 1 if length >= 6 else 0


def _fuzzy_latin(
    text: str, record: Record, term: str, taken: list[tuple[int, int]]
) -> list[Mention]:
    allowed = _latin_tolerance(term)
    if not allowed:
        return []
    target = "".join(re.split(r"[\s\-]+", term.lower()))
    size = len(re.split(r"[\s\-]+", term.strip()))
    words = list(_LATIN_WORD.finditer(text))
    out = []
    # Windows one word shorter or longer too: "handle bar grips" for "Handlebar Grip".
    for width in {max(1, size - 1), size, size + 1}:
        for i in range(len(words) - width + 1):
            window = words[i : i + width]
            start, end = window[0].start(), window[-1].end()
            if _covered(taken, start, end):
                continue
            if any(lexicon.known_word(w.group(0)) for w in window):
                continue
            said = "".join(w.group(0).lower() for w in window)
            forms = {said, said[:-1] if said.endswith("s") else said, said[:-2]}
            if min(DamerauLevenshtein.distance(f, target) for f in forms) <= allowed:
                out.append(Mention(record, start, end, text[start:end], exact=False))
    return out


def _fuzzy_chinese(
    text: str, record: Record, term: str, taken: list[tuple[int, int]]
) -> list[Mention]:
    if len(term) < 3 or not CJK.fullmatch(term[0]):
        return []
    out = []
    for run in _CJK_RUN.finditer(text):
        for i in range(run.start(), run.end() - len(term) + 1):
            window = text[i : i + len(term)]
            if window == term or _covered(taken, i, i + len(term)):
                continue
            if sum(a != b for a, b in zip(window, term, strict=True)) > 1:
                continue
            if _sound(window) == _sound(term):
                out.append(Mention(record, i, i + len(term), window, exact=False))
    return out


def find_categories(text: str, categories: Sequence[Record]) -> list[Mention]:
    """The categories ``text`` names, in order; each once, exact names before typos."""
    exact: list[Mention] = []
    for category in categories:
        for term in category_terms(category):
            exact += _exact(text, category, term, plural=True, case=False)
    kept = _keep_longest(exact)
    taken = [(m.start, m.end) for m in kept]
    fuzzy: list[Mention] = []
    for category in categories:
        for term in category_terms(category):
            if CJK.search(term):
                fuzzy += _fuzzy_chinese(text, category, term, taken)
            else:
                fuzzy += _fuzzy_latin(text, category, term, taken)
    taken += [(m.start, m.end) for m in fuzzy]
    return _one_per_record(kept + _keep_longest(fuzzy) + _contractions(text, categories, taken))


def _contraction_forms(categories: Sequence[Record]) -> dict[str, Record]:
    """Two-character short forms of Chinese category names, as buyers write them: the first
    character and the head's (the last of three, the first of a longer name's last three:
    刹车片 → 刹片, 刹车盘 → 刹盘, 空气滤清器 → 空滤): each form that only one category has and
    that does not start any category's name (火花 of 火花塞帽 is 火花塞's start)."""
    names = [str(c.get("name_zh") or "") for c in categories]
    forms: dict[str, list[Record]] = {}
    for category, name in zip(categories, names, strict=True):
        if len(name) < 3 or not CJK.fullmatch(name[0]):
            continue
        form = name[0] + (name[-1] if len(name) == 3 else name[-3])  # 机油滤清器: 机滤, not 机器
        if not any(n.startswith(form) for n in names):
            forms.setdefault(form, []).append(category)
    return {form: found[0] for form, found in forms.items() if len(found) == 1}


def _contractions(
    text: str, categories: Sequence[Record], taken: list[tuple[int, int]]
) -> list[Mention]:
    """Categories named by a short form (:func:`_contraction_forms`) where nothing else was
    found ("刹片多少钱": 刹车片)."""
    out = []
    for form, category in _contraction_forms(categories).items():
        for m in re.finditer(form, text):
            if not _covered(taken, m.start(), m.end()) and not lexicon.known_word(form):
                out.append(Mention(category, m.start(), m.end(), form, exact=False))
    return out


def head_nouns(category: Record) -> set[str]:
    """The head of each English name (compounds are head-final: "Handlebar Grip" → grip) and
    the last two characters of each Chinese name (空气滤清器 → 清器 is not a word, so the
    last three: 滤清器)."""
    heads: set[str] = set()
    for term in category_terms(category):
        if CJK.search(term):
            if len(term) >= 4:
                heads.add(term[-3:])
        else:
            words = re.split(r"[\s\-]+", term.lower())
            if len(words) > 1 and len(words[-1]) >= 4:
                heads.add(words[-1])
    return heads


def by_head_noun(words: Sequence[str], categories: Sequence[Record]) -> list[Record]:
    """Categories whose head noun is one of ``words`` (the request's unknown words)."""
    stems = {w.lower().removesuffix("es") if w.lower().endswith("ches") else w.lower().rstrip("s")
             for w in words}  # fmt: skip
    out = []
    for c in categories:
        heads = head_nouns(c)
        if any(h in stems or any(h in w for w in words if CJK.search(w)) for h in heads):
            out.append(c)
    return out


# --- suppliers ----------------------------------------------------------------------------


def _supplier_terms(supplier: Record) -> list[tuple[str, bool]]:
    """``(term, case-sensitive)`` for each way to write the supplier."""
    terms: list[tuple[str, bool]] = []
    code = str(supplier.get("code") or "")
    if code:
        # A short code is a name only in capitals ("DID", not "did").
        terms.append((code, len(code) <= 3 or lexicon.known_word(code)))
    for name in name_variants(supplier.get("name_zh"), supplier.get("name_en")):
        single = " " not in name and not CJK.search(name)
        case = single and (len(name) < 5 or lexicon.known_word(name))
        terms.append((name, case))
    return terms


def find_suppliers(
    text: str, suppliers: Sequence[Record], *, skip: Sequence[tuple[int, int]] = ()
) -> list[Mention]:
    """The suppliers ``text`` names, in order, except inside the ``skip`` spans (model
    numbers). Two suppliers named by the same words are both returned: the caller asks."""
    found: list[Mention] = []
    for supplier in suppliers:
        for term, case in _supplier_terms(supplier):
            for m in _exact(text, supplier, term, plural=False, case=case):
                if not _covered(skip, m.start, m.end):
                    found.append(m)
    # A short code in lower case where a supplier is named ("order 100 IU9 from ngk",
    # "给kyb下单"): "did" alone is a verb, "from did" names the supplier.
    for supplier in suppliers:
        for term, case in _supplier_terms(supplier):
            if not case or CJK.search(term):
                continue
            for m in _exact(text, supplier, term, plural=False, case=False):
                if not _covered(skip, m.start, m.end) and _SUPPLIER_MARK.search(text[: m.start]):
                    found.append(m)
    # A typo in a one-word name ("Brmebo", "Pirreli"): long names only, where no name is.
    taken = [*skip, *((m.start, m.end) for m in found)]
    for supplier in suppliers:
        for term, _case in _supplier_terms(supplier):
            if " " not in term and not CJK.search(term) and len(term) >= 6:
                found += _fuzzy_latin(text, supplier, term, taken)
    return _one_per_record(_keep_longest(found))


def supplier_marked(text: str, mentions: Sequence[Mention]) -> list[Mention]:
    """The mentions the buyer orders *from* (给 NGK 下单, "from Bosch"), in order."""
    return [m for m in mentions if _SUPPLIER_MARK.search(text[: m.start])]


# --- parts --------------------------------------------------------------------------------


def _model_pattern(model: str) -> re.Pattern[str]:
    # Written with or without a space or hyphen where letters meet digits: PE28, PE-28, PE 28.
    pieces = []
    for i, ch in enumerate(model.strip()):
        if ch in " -":
            pieces.append(r"[\s\-]?")
            continue
        if i and model[i - 1].isalpha() != ch.isalpha() and model[i - 1] not in " -":
            pieces.append(r"[\s\-]?")
        pieces.append(re.escape(ch))
    return re.compile(_boundary("".join(pieces)), re.I)


_COUNTED = re.compile(r"\s*(?:个|件|只|套|条|片|副|支|盒|箱|根|台|对|pcs|pieces|units|sets)", re.I)


def find_parts(text: str, parts: Sequence[Record], *, bare_numbers: bool = False) -> list[Mention]:
    """Parts whose SKU or model number ``text`` contains, best (longest) first.

    A model that is only digits ("520") counts only with ``bare_numbers`` and never where
    the number counts items ("520 个").
    """
    found: list[Mention] = []
    for part in parts:
        for term in (part.get("sku"), part.get("model")):
            if not term or len(str(term)) < 2:
                continue
            digits = str(term).isdigit()
            if digits and not bare_numbers:
                continue
            for hit in _model_pattern(str(term)).finditer(text):
                if digits and _COUNTED.match(text, hit.end()):
                    continue
                found.append(Mention(part, hit.start(), hit.end(), str(term)))
    kept = _keep_longest(found)
    best: dict[int, Mention] = {}
    for m in kept:
        key = int(m.record.get("id") or id(m.record))
        if key not in best or (m.end - m.start) > (best[key].end - best[key].start):
            best[key] = m
    return sorted(best.values(), key=lambda m: (-(m.end - m.start), m.start))


def token_spans(text: str) -> list[tuple[int, int]]:
    """Where the model-number-like tokens of ``text`` are (supplier codes inside are not names)."""
    spans = []
    for token in model_tokens(text):
        for m in re.finditer(re.escape(token), text):
            spans.append((m.start(), m.end()))
    return spans


# --- what is left -------------------------------------------------------------------------


def unknown_words(text: str, spans: Iterable[tuple[int, int]]) -> list[str]:
    """The content words of ``text`` outside ``spans`` that neither the lexicon nor the ERP
    knows: what the buyer named that the ERP does not have."""
    chars = list(text)
    for a, b in spans:
        chars[a:b] = " " * (b - a)
    rest = "".join(chars)
    rest = re.sub(r"\bP\.?O\.?\s*#?\s*[-_]?\d+\b|[-+]?\d[\d,.:/-]*", " ", rest, flags=re.I)
    rest = lexicon.strip_words(rest, lexicon.GROUPS)
    words = [w for w in _CJK_RUN.findall(rest) if len(w) >= 2]
    words += [w for w in _LATIN_WORD.findall(rest) if len(w) >= 3 and not lexicon.known_word(w)]
    return words


@dataclass
class Grounding:
    """What a request names, resolved against the ERP."""

    categories: list[Mention] = field(default_factory=list)
    suppliers: list[Mention] = field(default_factory=list)
    parts: list[Mention] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)

    @property
    def anything(self) -> bool:
        """Whether the request names anything the ERP knows."""
        return bool(self.categories or self.suppliers or self.parts)


def not_negated(text: str, mentions: list[Mention]) -> list[Mention]:
    """Mentions the buyer did not rule out ("不要 M8-R", "not the M8-R")."""
    negators = lexicon.find(text, "negator")
    kept = []
    for m in mentions:
        # A clause break between them ends the negation: "no, NGK" names NGK ("not NGK"
        # rules it out).
        ruled_out = any(
            n.end <= m.start and len(text[n.end : m.start].strip().split()) <= 1
            and len(text[n.end : m.start].strip()) <= 4
            and not re.search(r"[,，;；:：。.!！?？]", text[n.end : m.start])
            for n in negators
        )  # fmt: skip
        if not ruled_out:
            kept.append(m)
    return kept


def ruled_out(text: str, mentions: Sequence[Mention]) -> list[Mention]:
    """The mentions the buyer leaves out: after an exclusion word in the same clause ("除了
    博世和NGK", "except Bosch", "exclude GZMT"), or right after a negator ("不要冠军的",
    "not Bosch")."""
    out = []
    excluding = lexicon.find(text, "exclusion")
    for m in mentions:
        if m not in not_negated(text, [m]):
            out.append(m)
            continue
        for hit in excluding:
            gap = text[hit.end : m.start]
            if hit.end <= m.start and len(gap) <= 24 and not re.search(r"[，。;；!！?？\n]", gap):
                out.append(m)
                break
    # "把 BREMBO 排除掉", "BREMBO 去掉": the exclusion word right after the name
    for m in mentions:
        if m not in out and any(0 <= hit.start - m.end <= 3 for hit in excluding):
            out.append(m)
    # "不要 CQMP 和 GZMT", "not Bosch or NGK": a name joined to a left-out one by "and" is out too
    ordered = sorted(mentions, key=lambda m: m.start)
    for before, m in itertools.pairwise(ordered):
        if before in out and m not in out and _JOINED.fullmatch(text[before.end : m.start]):
            out.append(m)
    return out


_JOINED = re.compile(r"\s*(?:和|与|跟|及|以及|或|或者|、|/|,|，|and|or|nor|&)?\s*(?:的)?\s*", re.I)


def ground(
    text: str,
    *,
    categories: Sequence[Record] = (),
    suppliers: Sequence[Record] = (),
    parts: Sequence[Record] = (),
) -> Grounding:
    """Categories, suppliers and parts ``text`` names, and the words the ERP does not know."""
    part_hits = not_negated(text, find_parts(text, parts))
    models = token_spans(text)
    named = find_suppliers(text, suppliers, skip=models)
    out = ruled_out(text, named)
    found = Grounding(
        categories=find_categories(text, categories),
        suppliers=[m for m in named if m not in out],
        parts=part_hits,
    )
    spans = [(m.start, m.end) for m in (*found.categories, *found.suppliers, *part_hits)]
    found.unknown = unknown_words(text, [*spans, *models])
    if not found.categories:
        found.categories = _by_head(text, found.unknown, categories)
        found.unknown = [w for w in found.unknown if w not in {m.term for m in found.categories}]
    return found


def _by_head(text: str, words: Sequence[str], categories: Sequence[Record]) -> list[Mention]:
    """A category named only by its head noun ("grips" → Handlebar Grip), when exactly one
    category has it (a word two categories share names neither: the caller asks)."""
    for word in words:
        heads = by_head_noun([word], categories)
        at = text.find(word)
        if len(heads) == 1 and at >= 0:
            return [Mention(heads[0], at, at + len(word), word, exact=False)]
    return []
