"""A shop's own product search: terms in Chinese or English against a part's names."""

from __future__ import annotations

import re

from sim.catalog import Supplier
from sim.suppliers.quotes import Quote

# Words that say "I want a price" but name no product: they never decide a match alone.
_GENERIC = {
    "price",
    "prices",
    "quote",
    "quotes",
    "quotation",
    "buy",
    "cost",
    "supplier",
    "suppliers",
    "shop",
    "online",
    "for",
    "the",
    "and",
    "of",
    "报价",
    "价格",
    "多少钱",
    "采购",
    "供应商",
    "购买",
    "比价",
    "摩托车",
    "motorcycle",
    "moto",
    "part",
    "parts",
    "配件",
}
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.&/-]*|[\u4e00-\u9fff]+")


def terms(query: str) -> list[str]:
    """Lower-cased search terms of ``query``: ASCII words and runs of Chinese characters."""
    out = []
    for t in (m.lower() for m in _TOKEN.findall(query)):
        if t in _GENERIC:
            continue
        if re.match(r"[\u4e00-\u9fff]", t):  # "火花塞价格" -> "火花塞"
            for word in sorted(_GENERIC, key=len, reverse=True):
                t = t.replace(word, "")
        if t:
            out.append(t)
    return out


def _cjk_hit(term: str, text: str) -> float:
    if term in text:
        return 1.0
    # An unsegmented Chinese run ("NGK火花塞价格"): score by the share of its bigrams found.
    grams = [term[i : i + 2] for i in range(len(term) - 1)] or [term]
    found = sum(1 for g in grams if g in text)
    return found / len(grams) if found / len(grams) > 0.5 else 0.0


def haystack(q: Quote, supplier: Supplier) -> str:
    """Everything a search term may match for ``q``, lower-cased."""
    p = q.part
    fields = (
        p.sku,
        p.model,
        p.name_zh,
        p.name_en,
        p.category_zh,
        p.category_en,
        p.brand,
        p.brand_zh,
        supplier.code,
        supplier.name_zh,
        supplier.name_en,
    )
    return " ".join(fields).lower()


def score(q: Quote, supplier: Supplier, query_terms: list[str]) -> float:
    """How well ``q`` matches; 0 means not at all. Every term must match something."""
    if not query_terms:
        return 0.0
    text = haystack(q, supplier)
    total = 0.0
    for t in query_terms:
        hit = _cjk_hit(t, text) if re.match(r"[\u4e00-\u9fff]", t) else float(t in text)
        if hit == 0:
            return 0.0
        # A term naming the model or sku is worth more than one naming the category,
        # and one naming the category exactly more than one inside a longer name.
        weight = 2.0 if t in p_keys(q) else 1.0
        if t in (q.part.category_zh, q.part.category_en.lower()):
            weight += 0.5
        total += hit * weight
    return total


def p_keys(q: Quote) -> str:
    """The part's identifiers, lower-cased."""
    return f"{q.part.sku} {q.part.model}".lower()
