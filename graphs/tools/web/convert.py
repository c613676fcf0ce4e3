"""Bytes to text, and HTML to Markdown a model can read.

Charset: the HTTP header, then a BOM, then ``<meta>``, then UTF-8, then
charset-normalizer; GB2312/GBK are read as GB18030 (their superset).

HTML: nesting is bounded first (:mod:`.nesting`: no page can make the parser crawl or
the conversion recurse too deep), selectolax (lexbor) parses and repairs the page,
JSON is lifted from ``<script type="application/json">`` / ``ld+json`` (shops that
render prices with JavaScript only have them there), scripts, styles, navigation and
footers are dropped, ``<main>``/``<article>`` is picked, and markdownify writes the
rest with tables as pipe tables.

This module imports neither the HTTP client nor LangChain: the conversion workers
(:mod:`.worker`) load it alone.
"""

from __future__ import annotations

import codecs
import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

from charset_normalizer import from_bytes
from markdownify import markdownify
from selectolax.lexbor import LexborHTMLParser

from graphs.tools.web.errors import ErrorCode
from graphs.tools.web.nesting import SOURCE_SCAN_TAGS, bound_source, flatten

__all__ = [
    "Converted",
    "convert",
    "convert_safely",
    "decode",
    "html_to_markdown",
    "json_block",
]

_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_CHARSET_ALIASES = {"gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "cp936": "gb18030"}
_HTML_LANG = re.compile(rb"""<html[^>]*\slang\s*=\s*["']?([A-Za-z]+)""", re.I)
# The legacy charsets of a declared page language (charset_normalizer's names).
_LANG_CHARSETS = {
    "zh": ("gb18030", "gb2312", "gbk", "big5", "cp950", "hz"),
    "ja": ("shift_jis", "cp932", "euc_jp", "iso2022_jp"),
    "ko": ("cp949", "euc_kr", "iso2022_kr", "johab"),
}
_DROP_TAGS = (
    "script", "style", "noscript", "template", "svg", "iframe", "object", "embed", "nav",
    "footer", "form", "button", "input", "select", "textarea", "link", "meta", "head",
)  # fmt: skip
_JSON_SCRIPTS = 'script[type="application/json"], script[type="application/ld+json"]'


@dataclass
class Converted:
    """A response body made readable, or why it could not be (``error``)."""

    title: str = ""
    markdown: str = ""
    blocks: list[str] = field(default_factory=list)
    charset: str = "utf-8"
    error: str | None = None
    error_code: ErrorCode | None = None


def decode(body: bytes, content_type: str) -> tuple[str, str]:
    """``(text, charset)``: header, BOM, ``<meta>``, UTF-8, then detection."""
    charset = None
    m = re.search(r"charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", content_type, re.I)
    if m:
        charset = m.group(1)
    elif body.startswith(codecs.BOM_UTF8):
        charset = "utf-8-sig"
    elif body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        charset = "utf-16"
    else:
        meta = _META_CHARSET.search(body[:4096])
        if meta:
            charset = meta.group(1).decode("ascii", "ignore")
    if charset:
        name = _CHARSET_ALIASES.get(charset.lower(), charset)
        try:
            codecs.lookup(name)
            return body.decode(name, "replace"), name
        except LookupError:
            pass
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    detected = _detected(body)
    if detected:
        return body.decode(detected, "replace"), detected
    return body.decode("utf-8", "replace"), "utf-8"


def _detected(body: bytes) -> str | None:
    """The detector's best charset; among candidates as good as the best, one of the
    language the page declares (``<html lang="zh-CN">``): a short Chinese GBK page reads
    as well in Korean cp949 by the byte statistics alone."""
    found = from_bytes(body)
    best = found.best()
    if best is None or not best.encoding:
        return None
    lang = _HTML_LANG.search(body[:4096])
    family = _LANG_CHARSETS.get(lang.group(1).decode("ascii").lower(), ()) if lang else ()
    equal = [m.encoding for m in found if (m.chaos, m.coherence) == (best.chaos, best.coherence)]
    chosen = next((e for e in equal if e.lower() in family), best.encoding)
    return _CHARSET_ALIASES.get(chosen.lower(), chosen)


def json_block(raw: str, cap: int) -> str | None:
    """JSON text made compact (or left as written when it does not parse), capped."""
    raw = raw.strip()
    if not raw:
        return None
    try:
        text = json.dumps(json.loads(raw), ensure_ascii=False)
    except (ValueError, RecursionError):  # not JSON, or nested too deep to re-write
        text = raw
    if len(text) > cap:
        text = text[:cap] + "\n… (truncated)"
    return text


def _clean(tree: LexborHTMLParser, base_url: str) -> None:
    """Drop chrome and scripts, make links absolute, unwrap headings broken markup left open."""
    for tag in _DROP_TAGS:
        for node in tree.css(tag):
            node.decompose()
    for a in tree.css("a"):
        href = (a.attributes.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "mailto:")):
            a.unwrap()
        elif base_url:
            a.attrs["href"] = urljoin(base_url, href)
    for img in tree.css("img"):
        img.decompose()
    # Headings left open by broken markup swallow whole sections: unwrap those.
    for heading in tree.css("h1, h2, h3, h4, h5, h6"):
        if heading.css_first("p, div, table, section, ul, ol, dl, h1, h2, h3") is not None:
            heading.unwrap()


def html_to_markdown(
    html: str, base_url: str = "", *, max_json_chars: int = 8000
) -> tuple[str, str, list[str]]:
    """Convert a page to ``(title, markdown, embedded_json_blocks)``.

    Tables become pipe tables, links absolute; scripts, styles, navigation, footers
    and forms are dropped, but JSON in ``application/json`` and ``application/ld+json``
    scripts is returned (pretty-printed) because some pages carry their data only there.
    Nesting beyond a sane depth is flattened (text kept), so no page raises
    ``RecursionError`` or takes the parser minutes.
    """
    if html.count("<") > SOURCE_SCAN_TAGS:
        html = bound_source(html)
    tree = LexborHTMLParser(html)
    flatten(tree)
    title_node = tree.css_first("title")
    title = title_node.text(strip=True) if title_node else ""
    blocks = [
        b
        for node in tree.css(_JSON_SCRIPTS)
        if (b := json_block(node.text(deep=True), max_json_chars)) is not None
    ]
    _clean(tree, base_url)
    root: Any = None
    for selector in ("main", "article", '[role="main"]'):
        found = tree.css_first(selector)
        if found is not None and len(found.text(strip=True)) >= 40:
            root = found
            break
    if root is None:
        root = tree.body or tree.root
    fragment = root.html if root is not None else ""
    md = markdownify(fragment or "", heading_style="ATX", bullets="-", escape_underscores=False)
    md = re.sub(r"[ \t]+\n", "\n", md)
    md = re.sub(r"\n{3,}", "\n\n", md).strip()
    return title, md, blocks


def _is_html(content_type: str, body: bytes) -> bool:
    ct = content_type.split(";")[0].strip().lower()
    if ct in ("text/html", "application/xhtml+xml"):
        return True
    if ct:
        return False
    head = body[:512].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html")) or b"<body" in head


def convert(body: bytes, content_type: str, url: str, max_json_chars: int) -> Converted:
    """A response body as Markdown: HTML converted, JSON fenced, text as is."""
    text, charset = decode(body, content_type)
    ct = content_type.split(";")[0].strip().lower()
    if _is_html(content_type, body):
        title, md, blocks = html_to_markdown(text, url, max_json_chars=max_json_chars)
        return Converted(title, md, blocks, charset)
    if ct.endswith("json"):
        block = json_block(text, max_json_chars * 4)
        return Converted("", f"```json\n{block or ''}\n```", [], charset)
    if ct.startswith("text/") or not ct:
        return Converted("", text.strip(), [], charset)
    return Converted(
        charset=charset,
        error=f"{url} is {ct}, not a web page fetch_url can read.",
        error_code="unsupported_content",
    )


def convert_safely(body: bytes, content_type: str, url: str, max_json_chars: int) -> Converted:
    """:func:`convert`, with any failure returned as ``Converted(error=...)``, never raised."""
    try:
        return convert(body, content_type, url, max_json_chars)
    except Exception as exc:  # a page that trips a bug is one failed page, not a crash
        return Converted(
            error=f"{url} could not be converted to text ({type(exc).__name__}: {exc}).",
            error_code="conversion",
        )
