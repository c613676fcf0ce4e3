"""Vega-Lite specs for the statistical charts (area, bar, column, line, pie, ...)."""

from __future__ import annotations

import math
from typing import Any

from viz_gateway.themes import Look

Spec = dict[str, Any]


def _base(look: Look, args: dict[str, Any]) -> Spec:
    t = look.theme
    spec: Spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "width": look.width,
        "height": look.height,
        "autosize": {"type": "fit", "contains": "padding"},
        "padding": 12,
        "background": t.background,
        "config": {
            "font": look.font,
            "view": {"stroke": None},
            "title": {
                "font": look.bold,
                "fontWeight": "bold",
                "fontSize": 16,
                "color": t.text,
                "anchor": "middle",
                "offset": 12,
            },
            "axis": {
                "labelColor": t.muted,
                "titleColor": t.text,
                "gridColor": t.grid,
                "domainColor": t.axis,
                "tickColor": t.axis,
                "labelFontSize": 11,
                "titleFontSize": 12,
                "labelLimit": 160,
            },
            "legend": {
                "labelColor": t.muted,
                "titleColor": t.text,
                "orient": "top",
                "labelFontSize": 11,
                "labelLimit": 200,
            },
            "range": {"category": list(look.palette)},
        },
    }
    if look.title:
        spec["title"] = look.title
    return spec


def _axis_title(args: dict[str, Any], key: str) -> str | None:
    value = args.get(key)
    return str(value) if value else None


def _has_group(rows: list[dict[str, Any]]) -> bool:
    return any(r.get("group") not in (None, "") for r in rows)


def _category_x(args: dict[str, Any], cats: list[Any]) -> dict[str, Any]:
    """An x encoding of ``category`` in the order ``cats``, labels upright."""
    return {
        "field": "category",
        "type": "nominal",
        "sort": cats,
        "title": _axis_title(args, "axisXTitle"),
        "axis": {"labelAngle": 0},
    }


def _rows(args: dict[str, Any], *fields: str) -> list[dict[str, Any]]:
    return [{f: r.get(f) for f in fields if f in r} for r in args["data"]]


def area_or_line(args: dict[str, Any], look: Look, kind: str) -> Spec:
    """Area (optionally stacked) or line chart over an ordered ``time`` field."""
    rows = _rows(args, "time", "value", "group")
    spec = _base(look, args)
    grouped = _has_group(rows)
    style = args.get("style") or {}
    mark: dict[str, Any] = {"type": kind}
    if kind == "line":
        mark |= {"point": True, "strokeWidth": style.get("lineWidth") or 2}
    else:
        mark |= {"line": {"strokeWidth": style.get("lineWidth") or 2}, "opacity": 0.55}
    order = list(dict.fromkeys(str(r["time"]) for r in rows))
    y: dict[str, Any] = {
        "field": "value",
        "type": "quantitative",
        "title": _axis_title(args, "axisYTitle"),
    }
    if kind == "area":
        y["stack"] = "zero" if args.get("stack") and grouped else None
    if kind == "line":
        y["scale"] = {"zero": bool(style.get("startAtZero"))}
    enc: dict[str, Any] = {
        "x": {
            "field": "time",
            "type": "ordinal",
            "sort": order,
            "title": _axis_title(args, "axisXTitle"),
            "axis": {"labelAngle": 0},
        },
        "y": y,
    }
    if grouped:
        enc["color"] = {"field": "group", "type": "nominal", "title": None}
    spec |= {"data": {"values": rows}, "mark": mark, "encoding": enc}
    return spec


def bar_or_column(args: dict[str, Any], look: Look, horizontal: bool) -> Spec:
    """Bar (horizontal) or column chart; grouped side by side or stacked when ``group`` is set."""
    rows = _rows(args, "category", "value", "group")
    spec = _base(look, args)
    cats = list(dict.fromkeys(str(r["category"]) for r in rows))
    cat_axis, val_axis, offset = ("y", "x", "yOffset") if horizontal else ("x", "y", "xOffset")
    enc: dict[str, Any] = {
        cat_axis: {
            "field": "category",
            "type": "nominal",
            "sort": cats,
            "title": _axis_title(args, "axisXTitle"),
            "axis": {"labelAngle": 0} if not horizontal else {},
        },
        val_axis: {
            "field": "value",
            "type": "quantitative",
            "title": _axis_title(args, "axisYTitle"),
        },
    }
    if _has_group(rows):
        enc["color"] = {"field": "group", "type": "nominal", "title": None}
        side_by_side = bool(args.get("group")) and not args.get("stack")
        if side_by_side:
            enc[offset] = {"field": "group"}
            enc[val_axis]["stack"] = None
    mark: dict[str, Any] = {"type": "bar", "cornerRadiusEnd": 2}
    if "color" not in enc:
        mark["color"] = look.color(0)
    layers: list[Spec] = [{"mark": mark, "encoding": enc}]
    if len(rows) <= 40 and not _has_group(rows):
        label_enc = dict(enc)
        label_enc["text"] = {"field": "value", "type": "quantitative", "format": ",~r"}
        layers.append(
            {
                "mark": {
                    "type": "text",
                    "color": look.theme.muted,
                    "fontSize": 10,
                    **(
                        {"align": "left", "dx": 3}
                        if horizontal
                        else {"baseline": "bottom", "dy": -2}
                    ),
                },
                "encoding": label_enc,
            }
        )
    spec |= {"data": {"values": rows}, "layer": layers}
    return spec


def pie(args: dict[str, Any], look: Look) -> Spec:
    """Pie, or donut when ``innerRadius`` > 0 (a fraction of the radius)."""
    rows = _rows(args, "category", "value")
    spec = _base(look, args)
    title_h = 40 if look.title else 0
    radius = max(20.0, min(look.width * 0.6, look.height - title_h - 40) / 2 - 20)
    inner = float(args.get("innerRadius") or 0)
    inner = min(max(inner, 0.0), 0.95) * radius
    total = sum(abs(float(r["value"])) for r in rows) or 1.0
    for r in rows:
        r["pct"] = f"{abs(float(r['value'])) / total:.1%}"
    cats = [str(r["category"]) for r in rows]
    base_enc = {
        "theta": {"field": "value", "type": "quantitative", "stack": True},
        "color": {
            "field": "category",
            "type": "nominal",
            "sort": cats,
            "title": None,
            "legend": {"orient": "right"},
        },
        "order": {"field": "_i", "type": "quantitative"},
    }
    for i, r in enumerate(rows):
        r["_i"] = i
    spec |= {
        "data": {"values": rows},
        "layer": [
            {
                "mark": {
                    "type": "arc",
                    "outerRadius": radius,
                    "innerRadius": inner,
                    "stroke": look.theme.background,
                    "strokeWidth": 1,
                },
                "encoding": base_enc,
            },
            {
                "mark": {
                    "type": "text",
                    "radius": radius + 16,
                    "fontSize": 11,
                    "color": look.theme.muted,
                },
                "encoding": {**base_enc, "text": {"field": "pct"}},
            },
        ],
    }
    return spec


def histogram(args: dict[str, Any], look: Look) -> Spec:
    """Histogram of a list of numbers; ``binNumber`` caps the bin count."""
    rows = [{"v": v} for v in args["data"]]
    spec = _base(look, args)
    bins = int(args.get("binNumber") or 0)
    maxbins = bins if bins > 0 else 10
    spec |= {
        "data": {"values": rows},
        "mark": {"type": "bar", "color": look.color(0), "binSpacing": 1},
        "encoding": {
            "x": {
                "field": "v",
                "bin": {"maxbins": maxbins},
                "type": "quantitative",
                "title": _axis_title(args, "axisXTitle"),
            },
            "y": {
                "aggregate": "count",
                "type": "quantitative",
                "title": _axis_title(args, "axisYTitle") or "count",
            },
        },
    }
    return spec


def scatter(args: dict[str, Any], look: Look) -> Spec:
    """Scatter plot of x/y, coloured by ``group`` when present."""
    rows = _rows(args, "x", "y", "group")
    spec = _base(look, args)
    enc: dict[str, Any] = {
        "x": {
            "field": "x",
            "type": "quantitative",
            "scale": {"zero": False},
            "title": _axis_title(args, "axisXTitle"),
        },
        "y": {
            "field": "y",
            "type": "quantitative",
            "scale": {"zero": False},
            "title": _axis_title(args, "axisYTitle"),
        },
    }
    if _has_group(rows):
        enc["color"] = {"field": "group", "type": "nominal", "title": None}
    spec |= {
        "data": {"values": rows},
        "mark": {"type": "point", "filled": True, "size": 60, "opacity": 0.8},
        "encoding": enc,
    }
    return spec


def boxplot(args: dict[str, Any], look: Look) -> Spec:
    """Box plot (min-max whiskers) per category, split by ``group`` when present."""
    rows = _rows(args, "category", "value", "group")
    spec = _base(look, args)
    cats = list(dict.fromkeys(str(r["category"]) for r in rows))
    style = args.get("style") or {}
    enc: dict[str, Any] = {
        "x": {
            "field": "category",
            "type": "nominal",
            "sort": cats,
            "title": _axis_title(args, "axisXTitle"),
            "axis": {"labelAngle": 0},
        },
        "y": {
            "field": "value",
            "type": "quantitative",
            "title": _axis_title(args, "axisYTitle"),
            "scale": {"zero": bool(style.get("startAtZero"))},
        },
    }
    if _has_group(rows):
        enc["color"] = {"field": "group", "type": "nominal", "title": None}
        enc["xOffset"] = {"field": "group"}
    else:
        enc["color"] = {"field": "category", "type": "nominal", "legend": None, "sort": cats}
    spec |= {
        "data": {"values": rows},
        "mark": {
            "type": "boxplot",
            "extent": "min-max",
            "size": 28,
            "median": {"color": look.theme.background},
        },
        "encoding": enc,
    }
    return spec


def violin(args: dict[str, Any], look: Look) -> Spec:
    """Violins from a Gaussian KDE per category (and group), computed here with numpy."""
    rows = _rows(args, "category", "value", "group")
    cats = list(dict.fromkeys(str(r["category"]) for r in rows))
    groups = list(dict.fromkeys(str(r.get("group") or "") for r in rows))
    shapes, medians = _violin_data(rows, cats, groups)
    spec = _base(look, args)
    style = args.get("style") or {}
    label_expr = "[" + ",".join(_js_str(c) for c in cats) + "][datum.value] || ''"
    x = {
        "type": "quantitative",
        "scale": {"domain": [-0.5, len(cats) - 0.5], "nice": False},
        "axis": {
            "values": list(range(len(cats))),
            "labelExpr": label_expr,
            "grid": False,
            "title": _axis_title(args, "axisXTitle"),
        },
    }
    y = {
        "field": "y",
        "type": "quantitative",
        "title": _axis_title(args, "axisYTitle"),
        "scale": {"zero": bool(style.get("startAtZero"))},
    }
    color: dict[str, Any] = {
        "field": "group",
        "type": "nominal",
        "title": None,
        "legend": None if groups == [""] else {},
    }
    spec |= {
        "layer": [
            {
                "data": {"values": shapes},
                "mark": {"type": "area", "orient": "horizontal", "opacity": 0.6},
                "encoding": {
                    "x": {**x, "field": "x0"},
                    "x2": {"field": "x1"},
                    "y": y,
                    "color": color,
                    "detail": {"field": "series"},
                },
            },
            {
                "data": {"values": medians},
                "mark": {"type": "rule", "strokeWidth": 3, "color": look.theme.text},
                "encoding": {
                    "x": {**x, "field": "x"},
                    "y": {**y, "field": "q1"},
                    "y2": {"field": "q3"},
                },
            },
            {
                "data": {"values": medians},
                "mark": {
                    "type": "point",
                    "filled": True,
                    "color": look.theme.background,
                    "size": 24,
                },
                "encoding": {"x": {**x, "field": "x"}, "y": {**y, "field": "y"}},
            },
        ]
    }
    return spec


def _violin_data(
    rows: list[dict[str, Any]], cats: list[str], groups: list[str]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The outline points of every violin and its median / quartile marks.

    Category ``ci`` sits at x = ``ci``; its groups share the 0.8 wide slot around it.
    """
    import numpy as np

    values = np.array([float(r["value"]) for r in rows])
    lo, hi = float(values.min()), float(values.max())
    span = (hi - lo) or max(abs(hi), 1.0)
    grid = np.linspace(lo - 0.1 * span, hi + 0.1 * span, 60)
    slot = 0.8 / len(groups)
    shapes: list[dict[str, Any]] = []
    medians: list[dict[str, Any]] = []
    for ci, cat in enumerate(cats):
        for gi, grp in enumerate(groups):
            vals = np.array(
                [
                    float(r["value"])
                    for r in rows
                    if str(r["category"]) == cat and str(r.get("group") or "") == grp
                ]
            )
            if vals.size == 0:
                continue
            center = ci - 0.4 + slot * (gi + 0.5)
            bw = 1.06 * (vals.std() or span * 0.05) * vals.size**-0.2
            dens = np.exp(-0.5 * ((grid[:, None] - vals[None, :]) / bw) ** 2).sum(axis=1)
            dens = dens / (dens.max() or 1.0) * slot * 0.45
            keep = dens > dens.max() * 0.01
            for y, d in zip(grid[keep], dens[keep], strict=True):
                shapes.append(
                    {
                        "series": f"{cat}|{grp}",
                        "group": grp or cat,
                        "y": float(y),
                        "x0": center - float(d),
                        "x1": center + float(d),
                    }
                )
            medians.append(
                {
                    "x": center,
                    "y": float(np.median(vals)),
                    "group": grp or cat,
                    "q1": float(np.percentile(vals, 25)),
                    "q3": float(np.percentile(vals, 75)),
                }
            )
    return shapes, medians


def _js_str(s: str) -> str:
    import json

    return json.dumps(s, ensure_ascii=False)


def dual_axes(args: dict[str, Any], look: Look) -> Spec:
    """Columns on the left axis, lines on the right, over shared categories."""
    cats = [str(c) for c in args["categories"]]
    series = args["series"]
    col_rows: list[dict[str, Any]] = []
    line_rows: list[dict[str, Any]] = []
    col_titles: list[str] = []
    line_titles: list[str] = []
    for i, s in enumerate(series):
        name = str(s.get("axisYTitle") or f"{s['type']} {i + 1}")
        target, titles = (
            (col_rows, col_titles) if s["type"] == "column" else (line_rows, line_titles)
        )
        titles.append(name)
        for c, v in zip(cats, s["data"], strict=False):
            target.append({"category": c, "value": v, "series": name})
    spec = _base(look, args)
    style = args.get("style") or {}
    zero = bool(style.get("startAtZero"))
    x = _category_x(args, cats)
    names = col_titles + line_titles
    color = {
        "field": "series",
        "type": "nominal",
        "title": None,
        "scale": {"domain": names, "range": [look.color(i) for i in range(len(names))]},
    }
    layers: list[Spec] = []
    if col_rows:
        enc: dict[str, Any] = {
            "x": x,
            "y": {
                "field": "value",
                "type": "quantitative",
                "title": " / ".join(col_titles),
                "scale": {"zero": True},
            },
            "color": color,
        }
        if len(col_titles) > 1:
            enc["xOffset"] = {"field": "series"}
        layers.append({"data": {"values": col_rows}, "mark": {"type": "bar"}, "encoding": enc})
    if line_rows:
        layers.append(
            {
                "data": {"values": line_rows},
                "mark": {"type": "line", "point": True, "strokeWidth": 2},
                "encoding": {
                    "x": x,
                    "y": {
                        "field": "value",
                        "type": "quantitative",
                        "title": " / ".join(line_titles),
                        "scale": {"zero": zero},
                        "axis": {"orient": "right" if col_rows else "left", "grid": not col_rows},
                    },
                    "color": color,
                },
            }
        )
    spec |= {"layer": layers, "resolve": {"scale": {"y": "independent"}}}
    return spec


def waterfall(args: dict[str, Any], look: Look) -> Spec:
    """Waterfall: running total, with subtotal (``isIntermediateTotal``) and total bars."""
    style = args.get("style") or {}
    pal: dict[str, Any] = style["palette"] if isinstance(style.get("palette"), dict) else {}
    pos = pal.get("positiveColor") or "#FF4D4F"
    neg = pal.get("negativeColor") or "#2EBB59"
    tot = pal.get("totalColor") or "#1783FF"
    running = 0.0
    rows: list[dict[str, Any]] = []
    for r in args["data"]:
        cat = str(r["category"])
        if r.get("isTotal") or r.get("isIntermediateTotal"):
            rows.append(
                {
                    "category": cat,
                    "start": 0.0,
                    "end": running,
                    "label": running,
                    "kind": "total",
                    "color": tot,
                }
            )
            continue
        v = float(r.get("value") or 0.0)
        rows.append(
            {
                "category": cat,
                "start": running,
                "end": running + v,
                "label": v,
                "kind": "up" if v >= 0 else "down",
                "color": pos if v >= 0 else neg,
            }
        )
        running += v
    spec = _base(look, args)
    cats = [r["category"] for r in rows]
    x = _category_x(args, cats)
    for r in rows:
        r["top"] = max(r["start"], r["end"])
    spec |= {
        "data": {"values": rows},
        "layer": [
            {
                "mark": {"type": "bar", "cornerRadius": 1},
                "encoding": {
                    "x": x,
                    "y": {
                        "field": "start",
                        "type": "quantitative",
                        "title": _axis_title(args, "axisYTitle"),
                    },
                    "y2": {"field": "end"},
                    "color": {"field": "color", "type": "nominal", "scale": None},
                },
            },
            {
                "mark": {
                    "type": "text",
                    "baseline": "bottom",
                    "dy": -3,
                    "fontSize": 10,
                    "color": look.theme.muted,
                },
                "encoding": {
                    "x": x,
                    "y": {"field": "top", "type": "quantitative"},
                    "text": {"field": "label", "type": "quantitative", "format": ",~r"},
                },
            },
        ],
    }
    return spec


def finite(values: list[float]) -> bool:
    """Whether every value is a finite number."""
    return all(math.isfinite(v) for v in values)


__all__ = [
    "area_or_line",
    "bar_or_column",
    "boxplot",
    "dual_axes",
    "histogram",
    "pie",
    "scatter",
    "violin",
    "waterfall",
]
