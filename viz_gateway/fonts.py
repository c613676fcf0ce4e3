"""Find a CJK font at run time, register it with vl-convert, and measure text with it."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

SEARCH_DIRS = (
    Path("/usr/share/fonts"),
    Path("/usr/local/share/fonts"),
    Path.home() / ".local/share/fonts",
    Path.home() / ".fonts",
)
# Preferred first: Sans faces read best in charts. WenQuanYi Micro Hei leads: a 5 MB
# screen font with Latin and Simplified-Chinese glyphs, with which vl-convert lays out and
# draws a chart 2.5-3x faster than with the 20 MB Noto Sans CJK collection (text measuring
# dominates a render: see the font line of scripts/bench/bench_viz.py).
_PATTERNS = (
    "wqy-microhei*",
    "NotoSansCJK*",
    "NotoSansSC*",
    "SourceHanSans*",
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
    """A font file (and face index in a collection) with its family name, and the family
    bold text uses: the same one when it has a bold weight, else a CJK family that does
    (WenQuanYi Micro Hei has none; Noto Sans CJK has), else the same one drawn regular."""

    path: Path
    index: int
    family: str
    bold_family: str = ""

    @property
    def bold(self) -> str:
        """The family to draw bold text with."""
        return self.bold_family or self.family


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


def _candidates(dirs: list[Path]) -> Iterator[tuple[Path, list[tuple[int, str]]]]:
    """Font files with Chinese glyphs and their usable faces, best first."""
    for pattern in _PATTERNS:
        for d in dirs:
            if not d.is_dir():
                continue
            for path in sorted(d.rglob(pattern), key=lambda p: ("Regular" not in p.name, p.name)):
                if path.suffix.lower() not in (".ttf", ".otf", ".ttc", ".otc"):
                    continue
                faces = _faces(path)
                if faces:
                    yield path, faces


def _best_face(path: Path, faces: list[tuple[int, str]]) -> CjkFont:
    # In a CJK collection, the Simplified-Chinese face first.
    ordered = sorted(faces, key=lambda f: (" SC" not in f[1] and "SC" not in f[1][-2:], f[0]))
    index, family = ordered[0]
    return CjkFont(path=path, index=index, family=family)


def find_cjk_font(font_dir: Path | None = None, family: str | None = None) -> CjkFont:
    """The best CJK font found, searching ``font_dir`` first, then the system font folders.

    With ``family`` (VIZ_FONT_FAMILY), the face of that family name wherever it is; when no
    font has it, the best one found, with a warning. Raises :class:`FontError` naming the
    folders searched when no font has Chinese glyphs.
    """
    dirs = ([font_dir] if font_dir else []) + [d for d in SEARCH_DIRS if d != font_dir]
    fallback: CjkFont | None = None
    for path, faces in _candidates(dirs):
        if not family:
            return _best_face(path, faces)
        for index, name in faces:
            if name == family:
                return CjkFont(path=path, index=index, family=name)
        fallback = fallback or _best_face(path, faces)
    if fallback is not None:
        log.warning(
            "no CJK font of family %r found; using %s (%s)", family, fallback.family, fallback.path
        )
        return fallback
    searched = ", ".join(str(d) for d in dirs)
    msg = (
        f"No CJK font found (searched {searched}). Install one (Debian/Ubuntu: "
        "`apt-get install fonts-wqy-microhei`, or fonts-noto-cjk) or set VIZ_FONT_DIR to a "
        "folder holding WenQuanYi / Noto Sans CJK fonts."
    )
    raise FontError(msg)


# Bold faces of Sans CJK families, best first (only headings and emphasised labels use them,
# so their slower text measuring costs a render a few milliseconds).
_BOLD_PATTERNS = ("NotoSansCJK-Bold*", "NotoSansSC-Bold*", "SourceHanSans*Bold*")


def find_bold_companion(font: CjkFont, font_dir: Path | None = None) -> tuple[str, Path | None]:
    """The family to draw ``font``'s bold text with, and the folder vl-convert must know for
    it (None: nothing more to register)."""
    dirs = ([font_dir] if font_dir else []) + [d for d in SEARCH_DIRS if d != font_dir]
    for pattern in _BOLD_PATTERNS:
        for d in dirs:
            if not d.is_dir():
                continue
            for path in sorted(d.rglob(pattern)):
                faces = _faces(path)
                if faces:
                    return _best_face(path, faces).family, path.parent
    return font.family, None


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
            bold, bold_dir = find_bold_companion(font, font_dir)
            if bold_dir is not None and bold_dir != font.path.parent:
                vl_convert.register_font_directory(str(bold_dir))
            font = replace(font, bold_family=bold)
            log.info(
                "chart font: %s (%s, face %d), bold text: %s",
                font.family,
                font.path,
                font.index,
                font.bold,
            )
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
