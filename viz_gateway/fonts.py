"""Find a CJK font at run time, register it with vl-convert, and measure text with it."""

from __future__ import annotations

import functools
import logging
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SEARCH_DIRS = (
    Path("/usr/share/fonts"),
    Path("/usr/local/share/fonts"),
    Path.home() / ".local/share/fonts",
    Path.home() / ".fonts",
)
# Preferred first: Simplified-Chinese Sans faces read best in charts.
_PATTERNS = (
    "NotoSansCJK*",
    "NotoSansSC*",
    "SourceHanSans*",
    "wqy-microhei*",
    "wqy-zenhei*",
    "NotoSerifCJK*",
    "SourceHanSerif*",
    "DroidSansFallback*",
)
_PROBE = "中文采购火花塞"


class FontError(RuntimeError):
    """No usable CJK font: the message says where we looked and what to install."""


@dataclass(frozen=True)
class CjkFont:
    """A font file (and face index in a collection) with its family name."""

    path: Path
    index: int
    family: str


def _covers(font: Any, text: str) -> bool:
    """True when every character of ``text`` has a real glyph (not the .notdef box)."""
    tofu = bytes(font.getmask("\U000f0000"))  # private-use plane: never has a glyph
    return all(ch.isspace() or bytes(font.getmask(ch)) != tofu for ch in text)


def has_glyphs(font: CjkFont, text: str, size: int = 24) -> bool:
    """Whether ``font`` has glyphs for every character of ``text``."""
    from PIL import ImageFont

    return _covers(ImageFont.truetype(str(font.path), size, index=font.index), text)


def _faces(path: Path) -> list[tuple[int, str]]:
    from PIL import ImageFont

    faces: list[tuple[int, str]] = []
    for index in range(16):
        try:
            f = ImageFont.truetype(str(path), 20, index=index)
        except OSError:
            break
        family = f.getname()[0] or ""
        if family and _covers(f, _PROBE):
            faces.append((index, family))
        if path.suffix.lower() not in (".ttc", ".otc"):
            break
    return faces


def find_cjk_font(font_dir: Path | None = None, family: str | None = None) -> CjkFont:
    """The best CJK font found, searching ``font_dir`` first, then the system font folders.

    Raises :class:`FontError` naming the folders searched when none has Chinese glyphs.
    """
    dirs = ([font_dir] if font_dir else []) + [d for d in SEARCH_DIRS if d != font_dir]
    for pattern in _PATTERNS:
        for d in dirs:
            if not d.is_dir():
                continue
            for path in sorted(d.rglob(pattern), key=lambda p: ("Regular" not in p.name, p.name)):
                if path.suffix.lower() not in (".ttf", ".otf", ".ttc", ".otc"):
                    continue
                faces = _faces(path)
                if not faces:
                    continue
                if family:
                    faces = [f for f in faces if f[1] == family] or faces
                # In a CJK collection, the Simplified-Chinese face first.
                faces.sort(key=lambda f: (" SC" not in f[1] and "SC" not in f[1][-2:], f[0]))
                index, fam = faces[0]
                return CjkFont(path=path, index=index, family=family or fam)
    searched = ", ".join(str(d) for d in dirs)
    msg = (
        f"No CJK font found (searched {searched}). Install one (Debian/Ubuntu: "
        "`apt-get install fonts-noto-cjk`, or fonts-wqy-microhei) or set VIZ_FONT_DIR to a "
        "folder holding Noto Sans CJK / WenQuanYi fonts."
    )
    raise FontError(msg)


_lock = threading.Lock()
_active: CjkFont | None = None


def activate(font_dir: Path | None = None, family: str | None = None) -> CjkFont:
    """Find the CJK font once and register its folder with vl-convert; later calls reuse it."""
    global _active
    with _lock:
        if _active is None:
            import vl_convert

            font = find_cjk_font(font_dir, family)
            vl_convert.register_font_directory(str(font.path.parent))
            log.info("chart font: %s (%s, face %d)", font.family, font.path, font.index)
            _active = font
        return _active


@functools.lru_cache(maxsize=64)
def _pil_font(path: str, index: int, size: int) -> Any:
    from PIL import ImageFont

    return ImageFont.truetype(path, size, index=index)


def text_width(text: str, size: float) -> float:
    """Rendered width in pixels of ``text`` at ``size`` px in the active font (estimate if none)."""
    if _active is None:
        return sum(size if ord(c) > 0x2E80 else size * 0.6 for c in text)
    font = _pil_font(str(_active.path), _active.index, max(1, round(size)))
    return float(font.getlength(text)) * size / max(1, round(size))


__all__ = ["CjkFont", "FontError", "activate", "find_cjk_font", "has_glyphs", "text_width"]
