"""A report read as its reader reads it: the words of another language, links that lead
nowhere off this machine, exports that open.

The language check is written from the reader's side, not from the renderer's word lists:
in a Chinese report every run of Latin letters must be something a Chinese buyer sees in
their own ERP (a supplier's code or Chinese name, a SKU, a model, a unit, a Chinese part
or category name that holds Latin letters), a currency code, the name "ERP", or part of a
URL or file name; anything else (``flat``, ``on_hold``, ``Total-cost``) fails. In an English
report, no Chinese character may appear outside a URL.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from tests.e2e.agents_stack import Stack

__all__ = ["erp_vocabulary", "foreign_words", "loopback_urls", "pdf_pages", "visible_text"]

_URL = re.compile(r"(?:https?://|/artifacts/)\S+?(?=[)\s>\]]|$)")
_TARGET = re.compile(r"\]\([^)]*\)")  # a Markdown link's or image's target
_FILE = re.compile(r"\b[\w./-]+\.(?:md|png|html|pdf|json)\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9&'._/-]*[A-Za-z0-9&]|[A-Za-z]")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
CURRENCIES = {"CNY", "USD", "EUR", "JPY", "RMB"}
SYSTEM = {"ERP"}  # the system's own name: Chinese buyers call it that


def _pages(stack: Stack, path: str) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    page = 1
    while True:
        got = stack.erp_get(path, page=page, size=100)
        items += got["items"]
        if page * 100 >= int(got.get("total") or 0):
            return items
        page += 1


def erp_vocabulary(stack: Stack, *, zh: bool) -> set[str]:
    """The Latin-letter tokens a reader of this language meets in the ERP's own data."""
    texts: list[str] = []
    names = ("name_zh",) if zh else ("name_en",)
    for s in _pages(stack, "/suppliers/search"):
        texts += [str(s.get("code") or ""), *(str(s.get(n) or "") for n in names)]
    for p in _pages(stack, "/parts"):
        texts += [str(p.get(k) or "") for k in ("sku", "model", "unit", "brand_zh", *names)]
        if not zh:
            texts.append(str(p.get("brand") or ""))
    for c in stack.erp_get("/categories")["items"]:
        texts += [str(c.get("code") or ""), str(c.get("unit") or "")]
        texts += [str(c.get(n) or "") for n in names]
    return {w.lower() for t in texts for w in _WORD.findall(t)}


def visible_text(report: str, *, drop: tuple[str, ...] = ()) -> str:
    """The report as a reader reads it: without URLs, link targets, file names and ``drop``."""
    text = _TARGET.sub("]", report)
    text = _URL.sub(" ", text)
    text = _FILE.sub(" ", text)
    for known in drop:
        text = text.replace(known, " ")
    return text


def foreign_words(
    report: str, vocabulary: set[str], *, zh: bool, drop: tuple[str, ...] = ()
) -> list[str]:
    """What a reader of the report's language would call a foreign word, in order."""
    text = visible_text(report, drop=drop)
    if not zh:
        return _CJK.findall(text)
    allowed = vocabulary | {c.lower() for c in CURRENCIES | SYSTEM}
    return [w for w in _WORD.findall(text) if w.lower() not in allowed]


def loopback_urls(text: str, *, except_origins: tuple[str, ...] = ()) -> list[str]:
    """Links into this machine (127.0.0.1, localhost, 0.0.0.0), but the given origins."""
    found = re.findall(
        r"https?://(?:127\.\d+\.\d+\.\d+|localhost|0\.0\.0\.0|\[::1\])[^\s)\]]*", text
    )
    return [u for u in found if not u.startswith(except_origins)]


def pdf_pages(pdf: Path, folder: Path) -> list[Image.Image]:
    """The PDF's pages as images (poppler's pdftoppm), each checked to carry ink."""
    folder.mkdir(parents=True, exist_ok=True)
    subprocess.run(["pdftoppm", "-png", "-r", "40", str(pdf), str(folder / "page")], check=True)
    pages = [Image.open(p).convert("L") for p in sorted(folder.glob("page*.png"))]
    for page in pages:
        pixels = np.asarray(page)
        assert pixels.min() < 100 and (pixels < 200).mean() > 0.002, "a blank PDF page"
    return pages
