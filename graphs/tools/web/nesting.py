"""Bound how deeply a page nests before it is parsed and converted.

Two costs grow with nesting, not with size: lexbor's tree builder checks the stack
of open elements for most block tags, so 200,000 nested ``<div>`` take minutes to
parse (the cost is quadratic in depth), and markdownify walks the tree recursively,
so a few hundred levels raise ``RecursionError``. Real pages nest a few dozen levels
(browsers cap the tree at 512).

- :func:`bound_source` runs on the HTML text of pages with many tags, before the
  parser: one linear scan that tracks open elements (void elements, raw-text elements,
  comments and the common implied end tags understood) and drops the tags that would
  open an element beyond ``SOURCE_DEPTH``, keeping their text.
- :func:`flatten` runs on the parsed tree: every element deeper than ``TREE_DEPTH`` is
  unwrapped (its children move up), found by one selector in lexbor's C code.

A page within the limits is left exactly as it was.
"""

from __future__ import annotations

import re
from collections import Counter

from selectolax.lexbor import LexborHTMLParser

__all__ = ["SOURCE_DEPTH", "SOURCE_SCAN_TAGS", "TREE_DEPTH", "bound_source", "flatten"]

TREE_DEPTH = 128  # elements from <html> down; markdownify needs ~2.5 frames a level
SOURCE_DEPTH = 512  # as browsers cap their trees; lexbor parses that depth in milliseconds
SOURCE_SCAN_TAGS = 10_000  # fewer tags than this cannot nest deep enough to be slow

_TAG = re.compile(r"<(/?)([A-Za-z][^\s/<>]*)[^<>]*>")
_VOID = frozenset(
    ("area", "base", "basefont", "bgsound", "br", "col", "embed", "frame", "hr", "img",
     "input", "keygen", "link", "meta", "param", "source", "track", "wbr")
)  # fmt: skip
# Their content is text up to their end tag.
_RAW_TEXT_END = {
    name: re.compile(rf"</{name}\s*>", re.I)
    for name in ("script", "style", "textarea", "title", "xmp", "iframe", "noembed",
                 "noframes", "noscript")
}  # fmt: skip
# Start tags that close an open <p>.
_BLOCKS = frozenset(
    ("address", "article", "aside", "blockquote", "center", "details", "dialog", "dir",
     "div", "dl", "fieldset", "figcaption", "figure", "footer", "header", "hgroup", "main",
     "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "ul", "h1", "h2", "h3",
     "h4", "h5", "h6", "hr", "form", "li", "dd", "dt")
)  # fmt: skip
# A start tag closes an open element of these kinds when it is the current one.
_IMPLIED = {
    "p": frozenset({"p"}),
    "li": frozenset({"li", "p"}),
    "dt": frozenset({"dt", "dd", "p"}),
    "dd": frozenset({"dt", "dd", "p"}),
    "td": frozenset({"td", "th"}),
    "th": frozenset({"td", "th"}),
    "tr": frozenset({"td", "th", "tr"}),
    "thead": frozenset({"td", "th", "tr", "thead", "tbody", "tfoot"}),
    "tbody": frozenset({"td", "th", "tr", "thead", "tbody", "tfoot"}),
    "tfoot": frozenset({"td", "th", "tr", "thead", "tbody", "tfoot"}),
    "option": frozenset({"option"}),
    "optgroup": frozenset({"option", "optgroup"}),
}
_CLOSES_P = frozenset({"p"})


class _Stack:
    """Open elements, with a count per name so an end tag finds its match in O(1)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.open: Counter[str] = Counter()

    def push(self, name: str) -> None:
        self.names.append(name)
        self.open[name] += 1

    def pop(self) -> None:
        self.open[self.names.pop()] -= 1

    def close(self, name: str) -> None:
        """An end tag: pop to the nearest open ``name``; ignored when none is open."""
        if self.open[name] > 0:
            while self.names[-1] != name:
                self.pop()
            self.pop()

    def start(self, name: str) -> None:
        """Close what the start tag ``name`` implicitly ends."""
        closes = _IMPLIED.get(name) or (_CLOSES_P if name in _BLOCKS else None)
        while closes and self.names and self.names[-1] in closes:
            self.pop()


def _skip(html: str, pos: int) -> int | None:
    """Where scanning resumes after a comment or declaration at ``pos``; None: not one."""
    if html.startswith("<!--", pos):
        end = html.find("-->", pos + 4)
        return len(html) if end < 0 else end + 3
    if html.startswith(("<!", "<?"), pos):
        end = html.find(">", pos)
        return len(html) if end < 0 else end + 1
    return None


def bound_source(html: str, depth: int = SOURCE_DEPTH) -> str:
    """``html`` with the tags that would nest beyond ``depth`` removed (text kept).

    Returns ``html`` itself when nothing had to go. Linear in the length of the text.
    """
    stack = _Stack()
    dropped: Counter[str] = Counter()
    cuts: list[tuple[int, int]] = []
    pos = 0
    while (lt := html.find("<", pos)) >= 0:
        resume = _skip(html, lt)
        if resume is not None:
            pos = resume
            continue
        m = _TAG.match(html, lt)
        if m is None:
            pos = lt + 1
            continue
        pos = m.end()
        name = m.group(2).lower()
        if m.group(1):  # an end tag
            if dropped[name] > 0:
                dropped[name] -= 1
                cuts.append(m.span())
            else:
                stack.close(name)
        elif name in _RAW_TEXT_END:
            closed = _RAW_TEXT_END[name].search(html, pos)
            pos = len(html) if closed is None else closed.end()
        elif name not in _VOID:
            stack.start(name)
            if len(stack.names) >= depth:
                dropped[name] += 1
                cuts.append(m.span())
            else:
                stack.push(name)
    if not cuts:
        return html
    kept, last = [], 0
    for start, end in cuts:
        kept.append(html[last:start])
        last = end
    kept.append(html[last:])
    return "".join(kept)


def flatten(tree: LexborHTMLParser, depth: int = TREE_DEPTH) -> int:
    """Unwrap every element more than ``depth`` levels below the root; returns how many."""
    deep = tree.css(" > ".join(["*"] * (depth + 1)))
    for node in deep:  # document order: each one's children move up to its parent
        node.unwrap()
    return len(deep)
