"""A tiny scene of positioned shapes, turned into a Vega spec with identity encodings.

Diagrams whose layout Vega cannot compute (sankey, venn, word cloud, liquid, fishbone,
trees, flows, networks) are laid out in Python and drawn through this one path, so every
chart still goes through the same renderer (vl-convert) with the same fonts.
"""

from __future__ import annotations

import math
from typing import Any

from viz_gateway.fonts import text_width
from viz_gateway.themes import Look

_FIELDS: dict[str, tuple[str, ...]] = {
    "rect": (
        "x",
        "y",
        "width",
        "height",
        "fill",
        "stroke",
        "strokeWidth",
        "cornerRadius",
        "opacity",
    ),
    "path": ("path", "fill", "stroke", "strokeWidth", "opacity", "strokeDash"),
    "arc": (
        "x",
        "y",
        "innerRadius",
        "outerRadius",
        "startAngle",
        "endAngle",
        "fill",
        "stroke",
        "strokeWidth",
        "opacity",
    ),
    "text": (
        "x",
        "y",
        "text",
        "fontSize",
        "fill",
        "align",
        "baseline",
        "fontWeight",
        "angle",
        "limit",
        "opacity",
        "font",
    ),
    "rule": ("x", "y", "x2", "y2", "stroke", "strokeWidth", "opacity", "strokeDash"),
}


class Scene:
    """Shapes in pixel coordinates, drawn in the order they were added."""

    def __init__(self, look: Look) -> None:
        self.look = look
        self.items: list[tuple[str, dict[str, Any]]] = []
        self.clip_groups: list[tuple[str, list[tuple[str, dict[str, Any]]]]] = []

    # -- primitives ---------------------------------------------------------------
    def rect(self, x: float, y: float, w: float, h: float, **kw: Any) -> None:
        """A rectangle (``fill``, ``stroke``, ``cornerRadius`` ...)."""
        self.items.append(("rect", {"x": x, "y": y, "width": w, "height": h, **kw}))

    def path(self, d: str, **kw: Any) -> None:
        """An SVG path."""
        self.items.append(("path", {"path": d, **kw}))

    def circle(self, x: float, y: float, r: float, **kw: Any) -> None:
        """A circle centred at (x, y)."""
        self.items.append(
            (
                "arc",
                {
                    "x": x,
                    "y": y,
                    "innerRadius": 0,
                    "outerRadius": r,
                    "startAngle": 0,
                    "endAngle": 2 * math.pi,
                    **kw,
                },
            )
        )

    def wedge(
        self, x: float, y: float, r0: float, r1: float, a0: float, a1: float, **kw: Any
    ) -> None:
        """A ring sector; angles in radians, clockwise from 12 o'clock."""
        self.items.append(
            (
                "arc",
                {
                    "x": x,
                    "y": y,
                    "innerRadius": r0,
                    "outerRadius": r1,
                    "startAngle": a0,
                    "endAngle": a1,
                    **kw,
                },
            )
        )

    def line(self, x: float, y: float, x2: float, y2: float, **kw: Any) -> None:
        """A straight line segment."""
        self.items.append(("rule", {"x": x, "y": y, "x2": x2, "y2": y2, **kw}))

    def text(self, x: float, y: float, text: str, size: float = 12, **kw: Any) -> None:
        """Text anchored at (x, y); ``align`` / ``baseline`` as in Vega."""
        kw.setdefault("fill", self.look.theme.text)
        if kw.get("fontWeight") == "bold" and self.look.bold != self.look.font:
            kw.setdefault("font", self.look.bold)
        self.items.append(("text", {"x": x, "y": y, "text": text, "fontSize": size, **kw}))

    def clipped(self, clip_path: str, build: Any) -> None:
        """Shapes added by ``build(scene)`` clipped to ``clip_path``."""
        inner = Scene(self.look)
        build(inner)
        self.items.append(("clip", {"clip": clip_path, "items": inner.items}))

    # -- helpers ------------------------------------------------------------------
    def title_band(self) -> float:
        """Draw the title (if any) and return the y where the drawing area starts."""
        if not self.look.title:
            return 12.0
        self.text(
            self.look.width / 2,
            14,
            self.look.title,
            16,
            align="center",
            baseline="top",
            fontWeight="bold",
            limit=self.look.width - 20,
        )
        return 44.0

    @staticmethod
    def measure(text: str, size: float) -> float:
        """Width in pixels of ``text`` at ``size``."""
        return text_width(text, size)

    # -- output -------------------------------------------------------------------
    def to_vega(self) -> dict[str, Any]:
        """The Vega spec drawing this scene at exactly ``width`` × ``height`` pixels."""
        data: list[dict[str, Any]] = []
        marks = _marks(_layered(self.items), data, self.look)
        return {
            "$schema": "https://vega.github.io/schema/vega/v5.json",
            "width": self.look.width,
            "height": self.look.height,
            "padding": 0,
            "autosize": "none",
            "background": self.look.theme.background,
            "config": {"text": {"font": self.look.font}},
            "data": data,
            "marks": marks,
        }


# Pixel positions and sizes (not angles: a full circle must end exactly at 2π).
_PIXELS = frozenset({"x", "y", "x2", "y2", "width", "height", "innerRadius", "outerRadius"})


def _compact(kind: str, item: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """A rule as the equivalent two-point path (so lines and paths share one mark), and
    coordinates rounded to 1/100 px: far below what a raster shows, and a smaller spec."""
    if kind == "rule":
        x, y, x2, y2 = (item[k] for k in ("x", "y", "x2", "y2"))
        rest = {k: v for k, v in item.items() if k not in ("x", "y", "x2", "y2")}
        kind, item = "path", {"path": f"M{x:.2f},{y:.2f}L{x2:.2f},{y2:.2f}", **rest}
    return kind, {
        k: round(v, 2) if k in _PIXELS and isinstance(v, float) else v for k, v in item.items()
    }


def _layered(items: list[tuple[str, dict[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """Items in drawing order with every text lifted above the shapes beside it.

    Shapes keep their order; texts keep theirs and go last within each stretch between
    clipped groups (which stay where they are). A diagram then becomes a handful of marks,
    one per kind, instead of one mark per node: a spec several times smaller (it travels in
    every tool result) and a faster render. No diagram here hides a label under a shape.
    """
    out: list[tuple[str, dict[str, Any]]] = []
    shapes: list[tuple[str, dict[str, Any]]] = []
    texts: list[tuple[str, dict[str, Any]]] = []
    for kind, item in items:
        if kind == "clip":
            out += shapes + texts
            shapes, texts = [], []
            out.append((kind, {**item, "items": _layered(item["items"])}))
        elif kind == "text":
            texts.append(_compact(kind, item))
        else:
            shapes.append(_compact(kind, item))
    return out + shapes + texts


def _marks(
    items: list[tuple[str, dict[str, Any]]], data: list[dict[str, Any]], look: Look
) -> list[dict[str, Any]]:
    marks: list[dict[str, Any]] = []
    run: list[dict[str, Any]] = []
    run_kind = ""

    def flush() -> None:
        nonlocal run
        if not run:
            return
        name = f"d{len(data)}"
        data.append({"name": name, "values": run})
        present = {k for row in run for k in row}
        enter = {f: {"field": f} for f in _FIELDS[run_kind] if f in present}
        if run_kind == "text" and "font" not in enter:
            enter["font"] = {"value": look.font}
        marks.append({"type": run_kind, "from": {"data": name}, "encode": {"enter": enter}})
        run = []

    for kind, item in items:
        if kind == "clip":
            flush()
            inner = _marks(item["items"], data, look)
            marks.append({"type": "group", "clip": {"path": item["clip"]}, "marks": inner})
            run_kind = ""
            continue
        if kind != run_kind:
            flush()
            run_kind = kind
        run.append(item)
    flush()
    return marks


__all__ = ["Scene"]
