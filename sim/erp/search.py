"""Fuzzy search in Chinese and English over a small in-memory corpus.

The whole catalogue (hundreds of parts, dozens of suppliers) fits in memory, so
an index is built once at start-up and after a reset, and a query is answered
without touching the database. Matching is case- and width-insensitive (NFKC):

* the whole query, spaces and punctuation removed, as a substring of a field
  ("博世火花塞" in "博世 火花塞 IU7", "cr7hsa" in "CR7HSA");
* each token: English words (plurals folded: "pads" → "pad") match a word of a
  field exactly or as a prefix; Chinese runs are cut into words known to the
  corpus ("火花塞博世" → "火花塞" + "博世") and match as substrings.

Every token must match; when no document matches them all, the documents that
match the most tokens are returned, ranked lower. Scores weigh which field
matched (a SKU or model beats a name) and how (exact beats prefix beats substring).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

_CJK = r"\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_TOKEN = re.compile(rf"[0-9a-z]+|[{_CJK}]+")
_NOT_TEXT = re.compile(rf"[^0-9a-z{_CJK}]+")
_IS_CJK = re.compile(rf"[{_CJK}]")
# Words a buyer adds that every part of this catalogue shares, so they select nothing.
STOPWORDS = frozenset(
    {"摩托车", "摩托", "机车", "配件", "零件", "的", "motorcycle", "motorbike", "moto", "part"}
    | {"for", "the", "and", "of"}
)
_SYNONYMS = {"tyre": "tire", "lamp": "bulb", "sparkplug": "spark"}
_MAX_QUERY = 200
# Share of a field's weight a document gains when the query names that field whole.
_WHOLE_FIELD = 0.5


def normalize(text: str) -> str:
    """NFKC and case-folded: full-width letters become ASCII, capitals lower case."""
    return unicodedata.normalize("NFKC", text).casefold()


def compact(text: str) -> str:
    """``text`` normalized with spaces and punctuation removed."""
    return _NOT_TEXT.sub("", normalize(text))


def _stem(word: str) -> str:
    if _IS_CJK.match(word):
        return word
    word = _SYNONYMS.get(word, word)
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True)
class Hit:
    """One matching document: its key, its score, and how many query tokens it matched."""

    key: int
    score: float
    matched: int


class SearchIndex:
    """Documents (key → weighted text fields) searchable by :meth:`search`.

    Built once; answers come from an inverted index of words (exact and prefix
    matches) and a flat list of field texts (substring matches), and the last
    thousand queries are cached.
    """

    def __init__(self, documents: Iterable[tuple[int, Sequence[tuple[str, float]]]]) -> None:
        # word -> {key: best field weight}
        self._postings: dict[str, dict[int, float]] = {}
        # (key, weight, compacted field text), for substring and phrase matches
        self._fields: list[tuple[int, float, str]] = []
        # key -> (weight, the field's words) per field, for fields a query names whole
        self._words: dict[int, list[tuple[float, frozenset[str]]]] = {}
        self._keys: list[int] = []
        for key, fields in documents:
            self._keys.append(key)
            for text, weight in fields:
                self._fields.append((key, weight, compact(text)))
                words = frozenset(_stem(w) for w in _TOKEN.findall(normalize(text)))
                self._words.setdefault(key, []).append((weight, words))
                for word in _TOKEN.findall(normalize(text)):
                    posting = self._postings.setdefault(_stem(word), {})
                    posting[key] = max(posting.get(key, 0.0), weight)
        self._vocabulary = sorted(self._postings)
        # One string to look Chinese fragments up in while cutting a query into words.
        self._corpus = "|".join(f for _k, _w, f in self._fields)
        self._cached = lru_cache(maxsize=1024)(self._search)

    def __len__(self) -> int:
        return len(self._keys)

    def search(self, query: str) -> tuple[Hit, ...]:
        """Matching documents, best first (ties by key); empty when nothing matches."""
        return self._cached(query[:_MAX_QUERY])

    def tokens(self, query: str) -> list[str]:
        """The query's tokens: English words stemmed, Chinese runs cut into corpus words."""
        out: list[str] = []
        for raw in _TOKEN.findall(normalize(query[:_MAX_QUERY])):
            if _IS_CJK.match(raw):
                out.extend(self._segment(raw))
            else:
                out.append(_stem(raw))
        kept = [t for t in out if t not in STOPWORDS]
        return kept or out

    def _known(self, piece: str) -> bool:
        return piece in STOPWORDS or piece in self._corpus

    def _segment(self, run: str) -> list[str]:
        if run in self._corpus:
            return [run]
        words: list[str] = []
        i = 0
        while i < len(run):
            # Longest piece starting here that the corpus knows; else one character.
            j = len(run)
            while j > i + 1 and not self._known(run[i:j]):
                j -= 1
            words.append(run[i:j])
            i = j
        return words

    def _token_scores(self, token: str) -> dict[int, float]:
        scores: dict[int, float] = dict(self._postings.get(token, {}))

        def offer(key: int, value: float) -> None:
            if value > scores.get(key, 0.0):
                scores[key] = value

        cjk = bool(_IS_CJK.match(token))
        if not cjk and len(token) >= 2:
            for word in self._vocabulary:
                if word != token and word.startswith(token):
                    for key, weight in self._postings[word].items():
                        offer(key, weight * 0.6)
        if cjk or len(token) >= 3:
            factor = 0.7 if cjk else 0.4
            for key, weight, text in self._fields:
                if token in text:
                    offer(key, weight * factor)
        if not scores and not cjk and len(token) >= 4:
            # Nothing at all: allow one typo ("cr7hsa" finds CR8HSA, "brmebo" Brembo).
            for word in self._vocabulary:
                if _one_edit_apart(token, word):
                    for key, weight in self._postings[word].items():
                        offer(key, weight * 0.5)
        return scores

    def _search(self, query: str) -> tuple[Hit, ...]:
        whole = compact(query)
        tokens = self.tokens(query)
        if not whole or not tokens:
            return ()
        score: dict[int, float] = {}
        matched: dict[int, int] = {}
        for token in tokens:
            for key, value in self._token_scores(token).items():
                score[key] = score.get(key, 0.0) + value
                matched[key] = matched.get(key, 0) + 1
        phrase: dict[int, float] = {}
        if len(whole) >= 2:
            for key, weight, text in self._fields:
                if whole == text:
                    value = weight * 3
                elif whole in text:
                    value = weight * (1.5 if text.startswith(whole) else 1.0)
                else:
                    continue
                phrase[key] = max(phrase.get(key, 0.0), value)
        for key, value in phrase.items():
            score[key] = score.get(key, 0.0) + value
            # The query appears as written: every token counts as matched.
            matched[key] = len(tokens)
        if not matched:
            return ()
        most = max(matched.values())
        named = set(tokens)
        hits = [
            Hit(k, round(score[k] + self._named_whole(k, named), 2), most)
            for k, n in matched.items()
            if n == most
        ]
        hits.sort(key=lambda h: (-h.score, h.key))
        return tuple(hits)

    def _named_whole(self, key: int, tokens: set[str]) -> float:
        """A bonus per field the query names whole: "ngk spark plug" names a plug's brand
        and category (Spark Plug) whole, a plug cap's brand only. A text several fields
        share (NGK as brand and Chinese brand) counts once, at its best weight."""
        best: dict[frozenset[str], float] = {}
        for weight, words in self._words.get(key, ()):
            if words and words <= tokens:
                best[words] = max(best.get(words, 0.0), weight)
        return sum(best.values()) * _WHOLE_FIELD


def _one_edit_apart(a: str, b: str) -> bool:
    """True when ``b`` is ``a`` with one letter changed, added, dropped or swapped."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            return True
        i, j = diff[0], diff[-1]
        return len(diff) == 2 and j == i + 1 and a[i] == b[j] and a[j] == b[i]
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    i = 0
    while i < len(short) and short[i] == long_[i]:
        i += 1
    return short[i:] == long_[i + 1 :]
