"""Themes (default / academy / dark) and the per-call look derived from a tool's arguments."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Theme:
    """Colours of one theme."""

    background: str
    text: str
    muted: str
    grid: str
    axis: str
    palette: tuple[str, ...]
    node_fill: str
    node_stroke: str
    link: str


# AntV G2's default categorical palette, so local charts look like upstream's.
G2_PALETTE = (
    "#1783FF",
    "#00C9C9",
    "#F0884D",
    "#D580FF",
    "#7863FF",
    "#60C42D",
    "#BD8F24",
    "#FF80CA",
    "#2491B3",
    "#17C76F",
)

THEMES: dict[str, Theme] = {
    "default": Theme(
        background="#ffffff",
        text="#1d2129",
        muted="#595959",
        grid="#e8e8e8",
        axis="#bfbfbf",
        palette=G2_PALETTE,
        node_fill="#EEF5FF",
        node_stroke="#1783FF",
        link="#8c8c8c",
    ),
    "academy": Theme(
        background="#ffffff",
        text="#222222",
        muted="#555555",
        grid="#e5e5e5",
        axis="#888888",
        palette=(
            "#4e79a7",
            "#f28e2b",
            "#e15759",
            "#76b7b2",
            "#59a14f",
            "#edc948",
            "#b07aa1",
            "#ff9da7",
            "#9c755f",
            "#bab0ac",
        ),
        node_fill="#f3f3f3",
        node_stroke="#4e79a7",
        link="#888888",
    ),
    "dark": Theme(
        background="#141414",
        text="#e8e8e8",
        muted="#a6a6a6",
        grid="#303030",
        axis="#595959",
        palette=G2_PALETTE,
        node_fill="#1f2a3a",
        node_stroke="#3c8cff",
        link="#8c8c8c",
    ),
}


@dataclass(frozen=True)
class Look:
    """Everything a spec builder needs besides the data: size, title, colours, font."""

    width: int
    height: int
    title: str
    theme: Theme
    font: str
    bold_font: str = ""

    @property
    def bold(self) -> str:
        """The font family for bold text (headings, emphasised labels)."""
        return self.bold_font or self.font

    @property
    def palette(self) -> tuple[str, ...]:
        """Categorical colours, in order."""
        return self.theme.palette

    def color(self, i: int) -> str:
        """The ``i``-th categorical colour, cycling."""
        return self.palette[i % len(self.palette)]


def look_from_args(args: dict[str, Any], font: str, bold_font: str = "") -> Look:
    """The look a tool call asks for: theme, then ``style.palette`` / ``style.backgroundColor``."""
    theme = THEMES.get(str(args.get("theme") or "default"), THEMES["default"])
    style = args.get("style") or {}
    palette = style.get("palette")
    if isinstance(palette, list) and palette and all(isinstance(c, str) for c in palette):
        theme = replace(theme, palette=tuple(palette), node_stroke=palette[0])
    if isinstance(style.get("backgroundColor"), str) and style["backgroundColor"]:
        theme = replace(theme, background=style["backgroundColor"])
    return Look(
        width=int(args.get("width") or 600),
        height=int(args.get("height") or 400),
        title=str(args.get("title") or ""),
        theme=theme,
        font=font,
        bold_font=bold_font,
    )


__all__ = ["G2_PALETTE", "THEMES", "Look", "Theme", "look_from_args"]
