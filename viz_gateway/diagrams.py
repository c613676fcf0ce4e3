"""Charts laid out in Python and drawn as a :class:`Scene`: funnel, radar, treemap, sankey,
venn, word cloud, liquid, fishbone, mind map, organization chart, flow diagram, network
graph and spreadsheet."""

from __future__ import annotations

import math
from collections import defaultdict, deque
from dataclasses import dataclass
from typing import Any

from viz_gateway.scene import Scene
from viz_gateway.themes import Look

Spec = dict[str, Any]


class LayoutError(ValueError):
    """The data cannot be drawn as asked (a cycle in a sankey, an edge to no node, ...)."""


def _fmt(v: float) -> str:
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    return f"{v:.4g}"


def _fit(text: str, size: float, width: float) -> float:
    """The largest font size ≤ ``size`` at which ``text`` fits ``width``."""
    w = Scene.measure(text, size)
    return max(8.0, size * min(1.0, width / w)) if w > 0 else size


# -- category / value ----------------------------------------------------------------
def funnel(args: dict[str, Any], look: Look) -> Spec:
    """Centred trapezoids, widths proportional to value, with conversion rates."""
    sc = Scene(look)
    top = sc.title_band()
    rows = args["data"]
    vmax = max(float(r["value"]) for r in rows) or 1.0
    n = len(rows)
    h = (look.height - top - 16) / n
    cx = look.width / 2
    wmax = look.width * 0.62
    widths = [max(2.0, float(r["value"]) / vmax * wmax) for r in rows]
    for i, r in enumerate(rows):
        y0, y1 = top + i * h, top + (i + 1) * h - 2
        w0 = widths[i]
        w1 = widths[i + 1] if i + 1 < n else w0 * 0.85
        sc.path(
            f"M{cx - w0 / 2},{y0}L{cx + w0 / 2},{y0}L{cx + w1 / 2},{y1}L{cx - w1 / 2},{y1}Z",
            fill=look.color(i),
        )
        label = f"{r['category']}  {_fmt(float(r['value']))}"
        size = _fit(label, 13, max(w0, look.width * 0.3))
        sc.text(
            cx,
            (y0 + y1) / 2,
            label,
            size,
            align="center",
            baseline="middle",
            fill="#ffffff" if w0 > Scene.measure(label, size) + 8 else look.theme.text,
        )
        if i > 0 and float(rows[i - 1]["value"]):
            rate = float(r["value"]) / float(rows[i - 1]["value"])
            sc.text(
                cx + wmax / 2 + 12,
                y0 + 2,
                f"转化 {rate:.1%}",
                11,
                align="left",
                baseline="middle",
                fill=look.theme.muted,
            )
    return sc.to_vega()


def radar(args: dict[str, Any], look: Look) -> Spec:
    """Polygons over one spoke per ``name``, one polygon per ``group``."""
    sc = Scene(look)
    top = sc.title_band()
    rows = args["data"]
    names = list(dict.fromkeys(str(r["name"]) for r in rows))
    groups = list(dict.fromkeys(str(r.get("group") or "") for r in rows))
    vmax = max(float(r["value"]) for r in rows) or 1.0
    legend_h = 24 if groups != [""] else 0
    cx, cy = look.width / 2, top + legend_h + (look.height - top - legend_h) / 2
    radius = max(10.0, min(look.width / 2 - 80, (look.height - top - legend_h) / 2 - 28))
    n = max(3, len(names))

    def pt(i: int, frac: float) -> tuple[float, float]:
        a = 2 * math.pi * i / n - math.pi / 2
        return cx + radius * frac * math.cos(a), cy + radius * frac * math.sin(a)

    for level in (0.2, 0.4, 0.6, 0.8, 1.0):
        pts = [pt(i, level) for i in range(n)]
        sc.path(
            "M" + "L".join(f"{x:.1f},{y:.1f}" for x, y in pts) + "Z",
            fill="none",
            stroke=look.theme.grid,
            strokeWidth=1,
        )
    for i, name in enumerate(names):
        x, y = pt(i, 1.0)
        sc.line(cx, cy, x, y, stroke=look.theme.grid, strokeWidth=1)
        lx, ly = pt(i, 1.12)
        align = "center" if abs(lx - cx) < 8 else ("left" if lx > cx else "right")
        sc.text(lx, ly, name, 12, align=align, baseline="middle", fill=look.theme.muted)
    lw = float((args.get("style") or {}).get("lineWidth") or 2)
    for gi, grp in enumerate(groups):
        vals = {str(r["name"]): float(r["value"]) for r in rows if str(r.get("group") or "") == grp}
        pts = [pt(i, max(0.0, vals.get(name, 0.0)) / vmax) for i, name in enumerate(names)]
        d = "M" + "L".join(f"{x:.1f},{y:.1f}" for x, y in pts) + "Z"
        sc.path(d, fill=look.color(gi), opacity=0.25)
        sc.path(d, fill="none", stroke=look.color(gi), strokeWidth=lw)
        for x, y in pts:
            sc.circle(x, y, 3, fill=look.color(gi))
    if legend_h:
        _legend(sc, groups, top)
    return sc.to_vega()


def _legend(sc: Scene, names: list[str], y: float) -> None:
    widths = [Scene.measure(n, 11) + 26 for n in names]
    x = (sc.look.width - sum(widths)) / 2
    for i, (name, w) in enumerate(zip(names, widths, strict=True)):
        sc.circle(x + 6, y + 6, 5, fill=sc.look.color(i))
        sc.text(x + 15, y + 6, name, 11, baseline="middle", fill=sc.look.theme.muted)
        x += w


def _squarify(
    values: list[float], x: float, y: float, w: float, h: float
) -> list[tuple[float, float, float, float]]:
    """Squarified treemap rectangles for ``values`` (sorted descending by the caller)."""
    total = sum(values)
    if total <= 0 or not values:
        return [(x, y, 0.0, 0.0) for _ in values]
    scale = w * h / total
    areas = [v * scale for v in values]
    out: list[tuple[float, float, float, float]] = []
    i = 0
    while i < len(areas):
        short = min(w, h)
        row = [areas[i]]
        j = i + 1

        def worst(r: list[float], short: float = short) -> float:
            s = sum(r)
            return (
                max(
                    max(short * short * a / (s * s), (s * s) / (short * short * a))
                    for a in r
                    if a > 0
                )
                if s > 0
                else math.inf
            )

        while j < len(areas) and worst([*row, areas[j]]) <= worst(row):
            row.append(areas[j])
            j += 1
        s = sum(row)
        if w >= h:
            cw = s / h if h else 0
            yy = y
            for a in row:
                rh = a / cw if cw else 0
                out.append((x, yy, cw, rh))
                yy += rh
            x, w = x + cw, w - cw
        else:
            rh = s / w if w else 0
            xx = x
            for a in row:
                cw = a / rh if rh else 0
                out.append((xx, y, cw, rh))
                xx += cw
            y, h = y + rh, h - rh
        i = j
    return out


def treemap(args: dict[str, Any], look: Look) -> Spec:
    """Squarified treemap, coloured by top-level node, children nested inside."""
    sc = Scene(look)
    top = sc.title_band()

    def value(node: dict[str, Any]) -> float:
        kids = node.get("children") or []
        own = float(node.get("value") or 0)
        return max(own, sum(value(k) for k in kids)) if kids else own

    def draw(
        nodes: list[dict[str, Any]],
        x: float,
        y: float,
        w: float,
        h: float,
        color: str | None,
        depth: int,
    ) -> None:
        nodes = sorted(nodes, key=value, reverse=True)
        rects = _squarify([max(0.0, value(n)) for n in nodes], x, y, w, h)
        for i, (node, (rx, ry, rw, rh)) in enumerate(zip(nodes, rects, strict=True)):
            fill = color or look.color(i)
            sc.rect(
                rx,
                ry,
                rw,
                rh,
                fill=fill,
                stroke=look.theme.background,
                strokeWidth=2 if depth == 0 else 1,
                opacity=1.0 if depth == 0 else 0.85,
            )
            kids = node.get("children") or []
            label = str(node["name"])
            if rw > 30 and rh > 16:
                size = _fit(label, 12 if depth == 0 else 11, rw - 8)
                sc.text(
                    rx + 4,
                    ry + 3,
                    label,
                    size,
                    baseline="top",
                    fill="#ffffff",
                    fontWeight="bold" if kids else "normal",
                    limit=rw - 6,
                )
                if not kids and rh > 32:
                    sc.text(
                        rx + 4,
                        ry + 5 + size,
                        _fmt(value(node)),
                        10,
                        baseline="top",
                        fill="#ffffff",
                        opacity=0.85,
                    )
            if kids and rw > 24 and rh > 36:
                draw(kids, rx + 3, ry + 20, rw - 6, rh - 23, fill, depth + 1)

    draw(list(args["data"]), 8, top, look.width - 16, look.height - top - 8, None, 0)
    return sc.to_vega()


# -- flows and sets ------------------------------------------------------------------
_SANKEY_NODE_W = 14.0
_SANKEY_LABEL_ROOM = 90.0
_SANKEY_PAD = 10.0


def sankey(args: dict[str, Any], look: Look) -> Spec:
    """Sankey: nodes in columns by depth, links as bands whose width is the flow value."""
    rows = [(str(r["source"]), str(r["target"]), float(r["value"])) for r in args["data"]]
    nodes = list(dict.fromkeys([n for s, t, _ in rows for n in (s, t)]))
    out_links, in_links = _sankey_link_ends(rows)
    align = args.get("nodeAlign") or "center"
    col = _sankey_columns(rows, nodes, out_links, in_links, align)
    value = {
        n: max(sum(rows[i][2] for i in in_links[n]), sum(rows[i][2] for i in out_links[n]))
        for n in nodes
    }
    sc = Scene(look)
    top = sc.title_band()
    pos, ky = _sankey_positions(nodes, col, value, look, top)
    color = {n: look.color(i) for i, n in enumerate(nodes)}
    _sankey_links(sc, rows, pos, ky, color)
    ncols = max(col.values()) + 1
    for n in nodes:
        x, y, h = pos[n]
        sc.rect(x, y, _SANKEY_NODE_W, h, fill=color[n])
        left = col[n] == ncols - 1 and ncols > 1
        sc.text(
            x - 6 if left else x + _SANKEY_NODE_W + 6,
            y + h / 2,
            f"{n} {_fmt(value[n])}",
            11,
            align="right" if left else "left",
            baseline="middle",
            limit=_SANKEY_LABEL_ROOM * 1.6,
        )
    return sc.to_vega()


def _sankey_link_ends(
    rows: list[tuple[str, str, float]],
) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
    """The links leaving and the links entering each node, by index into ``rows``."""
    out_links: dict[str, list[int]] = defaultdict(list)
    in_links: dict[str, list[int]] = defaultdict(list)
    for i, (s, t, _) in enumerate(rows):
        if s == t:
            raise LayoutError(f"sankey link {i} goes from {s!r} to itself")
        out_links[s].append(i)
        in_links[t].append(i)
    return out_links, in_links


def _sankey_columns(
    rows: list[tuple[str, str, float]],
    nodes: list[str],
    out_links: dict[str, list[int]],
    in_links: dict[str, list[int]],
    align: str,
) -> dict[str, int]:
    """The column of each node under ``align`` (left / right / justify / center)."""
    depth = _longest_path(nodes, [(s, t) for s, t, _ in rows], "sankey")
    height_rank = _longest_path(nodes[::-1], [(t, s) for s, t, _ in rows], "sankey")
    max_depth = max(depth.values())
    col: dict[str, int] = {}
    for n in nodes:
        if align == "right":
            col[n] = max_depth - height_rank[n]
        elif align == "justify":
            col[n] = max_depth if not out_links[n] else depth[n]
        elif align == "center" and not in_links[n] and out_links[n]:
            col[n] = min(
                col_of_target - 1 for col_of_target in (depth[rows[i][1]] for i in out_links[n])
            )
        else:
            col[n] = depth[n]
    return col


def _sankey_positions(
    nodes: list[str], col: dict[str, int], value: dict[str, float], look: Look, top: float
) -> tuple[dict[str, tuple[float, float, float]], float]:
    """Each node's (x, y, height), and the pixels per unit of flow."""
    columns: dict[int, list[str]] = defaultdict(list)
    for n in nodes:
        columns[col[n]].append(n)
    ncols = max(columns) + 1
    pad = _SANKEY_PAD
    avail_h = look.height - top - 10
    ky = min(
        (avail_h - pad * (len(c) - 1)) / (sum(value[n] for n in c) or 1) for c in columns.values()
    )
    ky = max(ky, 0.0)
    x_step = (look.width - 2 * _SANKEY_LABEL_ROOM - _SANKEY_NODE_W) / max(1, ncols - 1)
    pos: dict[str, tuple[float, float, float]] = {}
    for c, members in columns.items():
        total_h = sum(value[n] * ky for n in members) + pad * (len(members) - 1)
        y = top + (avail_h - total_h) / 2
        for n in members:
            h = max(1.0, value[n] * ky)
            pos[n] = (_SANKEY_LABEL_ROOM + c * x_step, y, h)
            y += h + pad
    return pos, ky


def _sankey_links(
    sc: Scene,
    rows: list[tuple[str, str, float]],
    pos: dict[str, tuple[float, float, float]],
    ky: float,
    color: dict[str, str],
) -> None:
    """Each link as a band from its source's right edge to its target's left edge."""
    out_off = dict.fromkeys(pos, 0.0)
    in_off = dict.fromkeys(pos, 0.0)
    for i in sorted(range(len(rows)), key=lambda i: (pos[rows[i][0]][1], pos[rows[i][1]][1])):
        s, t, v = rows[i]
        w = v * ky
        sx, sy, _ = pos[s]
        tx, ty, _ = pos[t]
        x0, x1 = sx + _SANKEY_NODE_W, tx
        y0, y1 = sy + out_off[s], ty + in_off[t]
        out_off[s] += w
        in_off[t] += w
        xm = (x0 + x1) / 2
        d = (
            f"M{x0:.1f},{y0:.1f}C{xm:.1f},{y0:.1f} {xm:.1f},{y1:.1f} {x1:.1f},{y1:.1f}"
            f"L{x1:.1f},{y1 + w:.1f}C{xm:.1f},{y1 + w:.1f} {xm:.1f},{y0 + w:.1f} "
            f"{x0:.1f},{y0 + w:.1f}Z"
        )
        sc.path(d, fill=color[s], opacity=0.35)


def _longest_path(nodes: list[str], edges: list[tuple[str, str]], what: str) -> dict[str, int]:
    """Depth of each node = longest path from a source; a cycle is a :class:`LayoutError`."""
    indeg = {n: 0 for n in nodes}
    succ: dict[str, list[str]] = defaultdict(list)
    for s, t in edges:
        succ[s].append(t)
        indeg[t] += 1
    depth = {n: 0 for n in nodes}
    queue = deque(n for n in nodes if indeg[n] == 0)
    seen = 0
    while queue:
        n = queue.popleft()
        seen += 1
        for t in succ[n]:
            depth[t] = max(depth[t], depth[n] + 1)
            indeg[t] -= 1
            if indeg[t] == 0:
                queue.append(t)
    if seen < len(nodes):
        raise LayoutError(f"{what} data contains a cycle; links must flow one way")
    return depth


def _overlap(r1: float, r2: float, d: float) -> float:
    """Area of the intersection of two circles with radii r1, r2 at distance d."""
    if d >= r1 + r2:
        return 0.0
    if d <= abs(r1 - r2):
        return math.pi * min(r1, r2) ** 2
    a1 = r1 * r1 * math.acos((d * d + r1 * r1 - r2 * r2) / (2 * d * r1))
    a2 = r2 * r2 * math.acos((d * d + r2 * r2 - r1 * r1) / (2 * d * r2))
    a3 = 0.5 * math.sqrt((-d + r1 + r2) * (d + r1 - r2) * (d - r1 + r2) * (d + r1 + r2))
    return a1 + a2 - a3


def venn(args: dict[str, Any], look: Look) -> Spec:
    """Circles sized by set size, placed so pairwise overlaps approximate the intersections."""
    rows = args["data"]
    sets = list(dict.fromkeys(s for r in rows for s in r["sets"]))
    if not sets:
        raise LayoutError("venn data names no sets: every item needs a non-empty `sets`")
    size, label, pair = _venn_sizes(rows, sets)
    sc = Scene(look)
    top = sc.title_band()
    centers = _venn_centers(sets, size, pair, look, top)
    n = len(sets)
    for i, s in enumerate(sets):
        x, y, r = centers[s]
        sc.circle(x, y, r, fill=look.color(i), opacity=0.35, stroke=look.color(i), strokeWidth=2)
    gx = sum(c[0] for c in centers.values()) / n
    gy = sum(c[1] for c in centers.values()) / n
    for s in sets:
        x, y, r = centers[s]
        dx, dy = x - gx, y - gy
        norm = math.hypot(dx, dy) or 1.0
        lx, ly = (x + dx / norm * r * 0.45, y + dy / norm * r * 0.45) if n > 1 else (x, y)
        sc.text(lx, ly - 8, label[s], 13, align="center", baseline="middle", fontWeight="bold")
        sc.text(
            lx, ly + 9, _fmt(size[s]), 11, align="center", baseline="middle", fill=look.theme.muted
        )
    for r in rows:
        ss = list(dict.fromkeys(r["sets"]))
        if len(ss) >= 2:
            _venn_overlap_label(sc, r, ss, sets, centers)
    return sc.to_vega()


def _venn_sizes(
    rows: list[dict[str, Any]], sets: list[str]
) -> tuple[dict[str, float], dict[str, str], dict[tuple[str, str], float]]:
    """Each set's size and label, and each pair's intersection (both ways round)."""
    size = dict.fromkeys(sets, 0.0)
    label = {s: s for s in sets}
    pair: dict[tuple[str, str], float] = {}
    for r in rows:
        ss = list(dict.fromkeys(r["sets"]))
        v = float(r["value"])
        if len(ss) == 1:
            size[ss[0]] = max(size[ss[0]], v)
            if r.get("label"):
                label[ss[0]] = str(r["label"])
        elif len(ss) == 2:
            pair[(ss[0], ss[1])] = pair[(ss[1], ss[0])] = v
    for (a, _b), v in pair.items():
        size[a] = max(size[a], v)
    return size, label, pair


def _venn_centers(
    sets: list[str],
    size: dict[str, float],
    pair: dict[tuple[str, str], float],
    look: Look,
    top: float,
) -> dict[str, tuple[float, float, float]]:
    """Each set's circle (x, y, radius) in pixels, fitted below the title band."""
    import numpy as np

    radius = {s: math.sqrt(max(size[s], 1e-9) / math.pi) for s in sets}
    n = len(sets)
    target = np.zeros((n, n))
    for i, a in enumerate(sets):
        for j, b in enumerate(sets):
            if i >= j:
                continue
            ra, rb = radius[a], radius[b]
            want = min(pair.get((a, b), 0.0), math.pi * min(ra, rb) ** 2 * 0.999)
            lo, hi = abs(ra - rb), ra + rb
            for _ in range(40):  # bisection: overlap shrinks as distance grows
                mid = (lo + hi) / 2
                if _overlap(ra, rb, mid) > want:
                    lo = mid
                else:
                    hi = mid
            target[i, j] = target[j, i] = (lo + hi) / 2
    angles = np.linspace(0, 2 * np.pi, n, endpoint=False)
    spread = float(target.max()) or 1.0
    p = np.stack([np.cos(angles), np.sin(angles)], axis=1) * spread / 2
    if n > 1:
        for _ in range(300):  # stress minimisation on pairwise distances
            diff = p[:, None, :] - p[None, :, :]
            dist = np.sqrt((diff**2).sum(-1)) + 1e-9
            g = ((dist - target) / dist)[:, :, None] * diff
            np.fill_diagonal(g[:, :, 0], 0)
            np.fill_diagonal(g[:, :, 1], 0)
            p -= 0.1 * g.sum(axis=1)
    r_arr = np.array([radius[s] for s in sets])
    minx, maxx = float((p[:, 0] - r_arr).min()), float((p[:, 0] + r_arr).max())
    miny, maxy = float((p[:, 1] - r_arr).min()), float((p[:, 1] + r_arr).max())
    avail_w, avail_h = look.width - 40, look.height - top - 20
    k = min(avail_w / ((maxx - minx) or 1), avail_h / ((maxy - miny) or 1))
    ox = 20 + (avail_w - (maxx - minx) * k) / 2 - minx * k
    oy = top + (avail_h - (maxy - miny) * k) / 2 - miny * k
    return {s: (ox + p[i, 0] * k, oy + p[i, 1] * k, r_arr[i] * k) for i, s in enumerate(sets)}


def _venn_overlap_label(
    sc: Scene,
    r: dict[str, Any],
    ss: list[str],
    sets: list[str],
    centers: dict[str, tuple[float, float, float]],
) -> None:
    """The label of the intersection ``ss``: the mean of its member centres, pushed away
    from the circles it is not in."""
    lx = sum(centers[s][0] for s in ss) / len(ss)
    ly = sum(centers[s][1] for s in ss) / len(ss)
    r_min = min(centers[s][2] for s in ss)
    for other in sets:
        if other in ss:
            continue
        ox_, oy_, _ = centers[other]
        d = math.hypot(lx - ox_, ly - oy_) or 1.0
        lx += (lx - ox_) / d * r_min * 0.3
        ly += (ly - oy_) / d * r_min * 0.3
    text = f"{r['label']} {_fmt(float(r['value']))}" if r.get("label") else _fmt(float(r["value"]))
    sc.text(lx, ly, text, 11, align="center", baseline="middle")


def word_cloud(args: dict[str, Any], look: Look) -> Spec:
    """Words sized by value, placed on an Archimedean spiral without overlaps."""
    sc = Scene(look)
    top = sc.title_band()
    rows = sorted(args["data"], key=lambda r: -float(r["value"]))[:300]
    vals = [float(r["value"]) for r in rows]
    vmin, vmax = min(vals), max(vals)
    cx, cy = look.width / 2, (top + look.height) / 2
    area_w, area_h = look.width - 16, look.height - top - 8
    fracs = [(v - vmin) / ((vmax - vmin) or 1.0) for v in vals]
    # Scale the largest size so the words together cover about 40% of the area.
    big = 48.0
    for _ in range(3):
        used = sum(
            Scene.measure(str(r["text"]), 1.0) * (11 + (big - 11) * math.sqrt(f)) ** 2 * 1.1
            for r, f in zip(rows, fracs, strict=True)
        )
        big = max(14.0, min(area_h / 3.5, big * math.sqrt(0.4 * area_w * area_h / (used or 1))))
    placed: list[tuple[float, float, float, float]] = []
    for i, (r, frac) in enumerate(zip(rows, fracs, strict=True)):
        size = 11 + (big - 11) * math.sqrt(frac)
        text = str(r["text"])
        w, h = Scene.measure(text, size) + 4, size * 1.1
        spot = None
        for step in range(1500):
            t = step * 0.35
            x = cx + 0.9 * t * math.cos(t) * (area_w / area_h) ** 0.5 - w / 2
            y = cy + 0.9 * t * math.sin(t) / (area_w / area_h) ** 0.5 - h / 2
            if x < 8 or y < top or x + w > look.width - 8 or y + h > look.height - 4:
                if t > max(area_w, area_h):
                    break
                continue
            if all(
                x + w <= px or px + pw <= x or y + h <= py or py + ph <= y
                for px, py, pw, ph in placed
            ):
                spot = (x, y)
                break
        if spot is None:
            continue
        placed.append((spot[0], spot[1], w, h))
        sc.text(
            spot[0] + 2,
            spot[1] + h / 2,
            text,
            size,
            baseline="middle",
            fill=look.color(i),
            fontWeight="bold" if frac > 0.6 else "normal",
        )
    return sc.to_vega()


def _liquid_shape(shape: str, cx: float, cy: float, r: float) -> str:
    if shape == "rect":
        return f"M{cx - r},{cy - r}H{cx + r}V{cy + r}H{cx - r}Z"
    if shape == "triangle":
        return f"M{cx},{cy - r}L{cx + r},{cy + r * 0.8}L{cx - r},{cy + r * 0.8}Z"
    if shape == "pin":
        return (
            f"M{cx},{cy + r}C{cx - r * 0.3},{cy + r * 0.55} {cx - r * 0.85},{cy + r * 0.1} "
            f"{cx - r * 0.85},{cy - r * 0.25}A{r * 0.85},{r * 0.85} 0 1 1 {cx + r * 0.85},"
            f"{cy - r * 0.25}C{cx + r * 0.85},{cy + r * 0.1} {cx + r * 0.3},{cy + r * 0.55} "
            f"{cx},{cy + r}Z"
        )
    return f"M{cx - r},{cy}A{r},{r} 0 1 0 {cx + r},{cy}A{r},{r} 0 1 0 {cx - r},{cy}Z"


def liquid(args: dict[str, Any], look: Look) -> Spec:
    """A shape filled to ``percent`` with a wave surface, the percentage in the middle."""
    sc = Scene(look)
    top = sc.title_band()
    pct = float(args["percent"])
    shape = str(args.get("shape") or "circle")
    color = (args.get("style") or {}).get("color") or look.color(0)
    cx, cy = look.width / 2, (top + look.height) / 2
    r = max(10.0, min(look.width, look.height - top) / 2 - 16)
    outline = _liquid_shape(shape, cx, cy, r)
    inner = _liquid_shape(shape, cx, cy, r * 0.92)
    sc.path(outline, fill="none", stroke=color, strokeWidth=4)
    # Vertical extent of the inner shape, so the surface sits at ``pct`` of its height.
    top_k, bottom_k = {"triangle": (-1.0, 0.8), "pin": (-1.1, 1.0)}.get(shape, (-1.0, 1.0))
    y_top, y_bottom = cy + top_k * r * 0.92, cy + bottom_k * r * 0.92
    level = y_bottom - (y_bottom - y_top) * pct

    def waves(s: Scene) -> None:
        for k, (amp, phase, op) in enumerate(((r * 0.05, 0.0, 0.45), (r * 0.06, 1.8, 0.85))):
            pts = []
            x0, x1 = cx - r, cx + r
            for i in range(61):
                x = x0 + (x1 - x0) * i / 60
                y = level + amp * math.sin((x - x0) / r * 2 * math.pi + phase + k)
                pts.append(f"{x:.1f},{y:.1f}")
            s.path("M" + "L".join(pts) + f"L{x1},{cy + r}L{x0},{cy + r}Z", fill=color, opacity=op)

    sc.clipped(inner, waves)
    sc.text(
        cx,
        cy,
        f"{pct:.2%}".replace(".00%", "%"),
        max(14.0, r * 0.32),
        align="center",
        baseline="middle",
        fontWeight="bold",
        fill=look.theme.text,
    )
    return sc.to_vega()


# -- trees ---------------------------------------------------------------------------
def _tree_positions(
    root: dict[str, Any],
) -> tuple[list[tuple[dict[str, Any], int, float, dict[str, Any] | None]], int]:
    """(node, depth, breadth position, parent) for every node; leaves at 0, 1, 2, ..."""
    out: list[tuple[dict[str, Any], int, float, dict[str, Any] | None]] = []
    counter = [0]

    def walk(node: dict[str, Any], depth: int, parent: dict[str, Any] | None) -> float:
        kids = node.get("children") or []
        if not kids:
            pos = float(counter[0])
            counter[0] += 1
        else:
            child_pos = [walk(k, depth + 1, node) for k in kids]
            pos = (child_pos[0] + child_pos[-1]) / 2
        out.append((node, depth, pos, parent))
        return pos

    walk(root, 0, None)
    return out, counter[0]


def _box(
    sc: Scene,
    x: float,
    y: float,
    w: float,
    h: float,
    lines: list[tuple[str, float]],
    fill: str,
    stroke: str,
    text_fill: str | None = None,
    radius: float = 6,
) -> None:
    sc.rect(x, y, w, h, fill=fill, stroke=stroke, strokeWidth=1.5, cornerRadius=radius)
    total = sum(s * 1.25 for _, s in lines)
    ty = y + (h - total) / 2
    for i, (text, size) in enumerate(lines):
        fs = _fit(text, size, w - 10)
        sc.text(
            x + w / 2,
            ty + size * 0.625,
            text,
            fs,
            align="center",
            baseline="middle",
            fill=text_fill or sc.look.theme.text,
            fontWeight="bold" if i == 0 else "normal",
        )
        ty += size * 1.25


def organization_chart(args: dict[str, Any], look: Look) -> Spec:
    """Boxes (name + description) in a tidy tree, top-down or left-right, elbow connectors."""
    sc = Scene(look)
    top = sc.title_band()
    nodes, leaves = _tree_positions(args["data"])
    depth_n = max(d for _, d, _, _ in nodes) + 1
    vertical = (args.get("orient") or "vertical") == "vertical"
    W, H = look.width - 20, look.height - top - 10
    if vertical:
        bw = min(160.0, W / max(1, leaves) - 12)
        bh = min(56.0, H / depth_n * 0.55)
        step_b, step_d = W / max(1, leaves), (H - bh) / max(1, depth_n - 1)
    else:
        bh = min(56.0, H / max(1, leaves) - 8)
        bw = min(170.0, W / depth_n * 0.7)
        step_b, step_d = H / max(1, leaves), (W - bw) / max(1, depth_n - 1)
    bw, bh = max(bw, 30.0), max(bh, 18.0)
    place: dict[int, tuple[float, float]] = {}
    for node, depth, pos, _ in nodes:
        if vertical:
            place[id(node)] = (10 + step_b * (pos + 0.5) - bw / 2, top + depth * step_d)
        else:
            place[id(node)] = (10 + depth * step_d, top + step_b * (pos + 0.5) - bh / 2)
    for node, _, _, parent in nodes:
        if parent is None:
            continue
        px, py = place[id(parent)]
        x, y = place[id(node)]
        if vertical:
            x0, y0, x1, y1 = px + bw / 2, py + bh, x + bw / 2, y
            ym = (y0 + y1) / 2
            sc.path(
                f"M{x0},{y0}V{ym}H{x1}V{y1}", fill="none", stroke=look.theme.link, strokeWidth=1.5
            )
        else:
            x0, y0, x1, y1 = px + bw, py + bh / 2, x, y + bh / 2
            xm = (x0 + x1) / 2
            sc.path(
                f"M{x0},{y0}H{xm}V{y1}H{x1}", fill="none", stroke=look.theme.link, strokeWidth=1.5
            )
    for node, depth, _, _ in nodes:
        x, y = place[id(node)]
        lines = [(str(node["name"]), 13.0)]
        if node.get("description") and bh >= 36:
            lines.append((str(node["description"]), 10.5))
        fill = look.color(0) if depth == 0 else look.theme.node_fill
        _box(
            sc,
            x,
            y,
            bw,
            bh,
            lines,
            fill,
            look.theme.node_stroke,
            text_fill="#ffffff" if depth == 0 else None,
        )
    return sc.to_vega()


def mind_map(args: dict[str, Any], look: Look) -> Spec:
    """Central topic with branches split left and right, curved links, one colour per branch."""
    sc = Scene(look)
    top = sc.title_band()
    root = args["data"]
    kids = list(root.get("children") or [])
    half = (len(kids) + 1) // 2
    sides = [(kids[:half], 1), (kids[half:], -1)]
    cx, cy = look.width / 2, (top + look.height) / 2
    root_w = min(look.width * 0.25, Scene.measure(str(root["name"]), 16) + 28)
    _box(
        sc,
        cx - root_w / 2,
        cy - 20,
        root_w,
        40,
        [(str(root["name"]), 16.0)],
        look.color(0),
        look.color(0),
        text_fill="#ffffff",
        radius=20,
    )
    for side_kids, direction in sides:
        if not side_kids:
            continue
        sub = {"name": "", "children": side_kids}
        nodes, leaves = _tree_positions(sub)
        depth_n = max(d for _, d, _, _ in nodes)
        span_h = look.height - top - 16
        step_b = span_h / max(1, leaves)
        step_d = (look.width / 2 - root_w / 2 - 20) / max(1, depth_n)
        pos_of: dict[int, tuple[float, float]] = {}
        branch_color: dict[int, str] = {}
        for node, depth, pos, parent in sorted(nodes, key=lambda t: t[1]):
            if depth == 0:
                pos_of[id(node)] = (cx + direction * root_w / 2, cy)
                continue
            x = cx + direction * (root_w / 2 + 20 + (depth - 1) * step_d)
            y = top + 8 + step_b * (pos + 0.5)
            pos_of[id(node)] = (x, y)
            if depth == 1:
                branch_color[id(node)] = look.color(1 + len(branch_color) + (direction < 0) * 5)
            else:
                assert parent is not None
                branch_color[id(node)] = branch_color[id(parent)]
            px, py = pos_of[id(parent)] if parent is not None else (cx, cy)
            if depth > 1 and parent is not None:
                px += direction * min(step_d - 16, Scene.measure(str(parent["name"]), 12) + 8)
            xm = (px + x) / 2
            sc.path(
                f"M{px:.1f},{py:.1f}C{xm:.1f},{py:.1f} {xm:.1f},{y:.1f} {x:.1f},{y:.1f}",
                fill="none",
                stroke=branch_color[id(node)],
                strokeWidth=max(1.0, 3.5 - depth),
            )
            size = 13.0 if depth == 1 else 11.5
            text = str(node["name"])
            size = _fit(text, size, step_d - 12)
            sc.text(
                x + direction * 4,
                y - 2,
                text,
                size,
                align="left" if direction > 0 else "right",
                baseline="bottom",
                fontWeight="bold" if depth == 1 else "normal",
            )
            tw = min(step_d - 16, Scene.measure(text, size) + 8)
            sc.line(
                x,
                y,
                x + direction * tw,
                y,
                stroke=branch_color[id(node)],
                strokeWidth=max(1.0, 3.5 - depth),
            )
    return sc.to_vega()


def fishbone(args: dict[str, Any], look: Look) -> Spec:
    """Problem at the head (right), causes on bones alternating above and below the spine."""
    sc = Scene(look)
    top = sc.title_band()
    root = args["data"]
    causes = list(root.get("children") or [])
    cy = (top + look.height) / 2
    head_w = min(look.width * 0.22, Scene.measure(str(root["name"]), 14) + 24)
    spine_x0, spine_x1 = 20.0, look.width - head_w - 16
    color = look.color(0)
    sc.line(spine_x0, cy, spine_x1, cy, stroke=color, strokeWidth=3)
    sc.path(
        f"M{spine_x1},{cy - 34}L{spine_x1 + head_w},{cy}L{spine_x1},{cy + 34}Z",
        fill=look.theme.node_fill,
        stroke=color,
        strokeWidth=2,
    )
    sc.text(
        spine_x1 + head_w * 0.42,
        cy,
        str(root["name"]),
        _fit(str(root["name"]), 14, head_w * 0.8),
        align="center",
        baseline="middle",
        fontWeight="bold",
    )
    pairs = max(1, (len(causes) + 1) // 2)
    slot = (spine_x1 - spine_x0 - 20) / pairs
    bone_h = (look.height - top) / 2 - 30
    for i, cause in enumerate(causes):
        up = i % 2 == 0
        sign = -1 if up else 1
        x_end = spine_x0 + 20 + slot * (i // 2 + 1) - 10
        x_start = x_end - bone_h * 0.55
        y_tip = cy + sign * bone_h
        c = look.color(1 + i)
        sc.line(x_start, y_tip, x_end, cy, stroke=c, strokeWidth=2)
        name = str(cause["name"])
        size = _fit(name, 13, slot - 8)
        bw = Scene.measure(name, size) + 12
        sc.rect(
            x_start - bw / 2, y_tip + (sign * 4 if not up else -24), bw, 20, fill=c, cornerRadius=4
        )
        sc.text(
            x_start,
            y_tip + (14 if not up else -14),
            name,
            size,
            align="center",
            baseline="middle",
            fill="#ffffff",
            fontWeight="bold",
        )
        subs = list(cause.get("children") or [])
        for j, sub in enumerate(subs):
            frac = (j + 1) / (len(subs) + 1)
            bx = x_start + (x_end - x_start) * frac
            by = y_tip + (cy - y_tip) * frac
            sc.line(bx - slot * 0.42, by, bx, by, stroke=c, strokeWidth=1.2)
            text = str(sub["name"])
            detail = [str(g["name"]) for g in sub.get("children") or []]
            sc.text(bx - slot * 0.42, by - 2, text, _fit(text, 11, slot * 0.42), baseline="bottom")
            if detail:
                sc.text(
                    bx - slot * 0.42,
                    by + 2,
                    "、".join(detail),
                    9.5,
                    baseline="top",
                    fill=look.theme.muted,
                    limit=slot * 0.45,
                )
    return sc.to_vega()


# -- graphs --------------------------------------------------------------------------
def _graph_input(args: dict[str, Any]) -> tuple[list[str], list[tuple[str, str, str]]]:
    data = args["data"]
    names = list(dict.fromkeys(str(n["name"]) for n in data["nodes"]))
    known = set(names)
    edges = []
    for i, e in enumerate(data.get("edges") or []):
        s, t = str(e["source"]), str(e["target"])
        missing = [x for x in (s, t) if x not in known]
        if missing:
            raise LayoutError(
                f"data.edges[{i}] refers to unknown node(s) "
                f"{', '.join(map(repr, missing))}; add them to data.nodes"
            )
        edges.append((s, t, str(e.get("name") or "")))
    return names, edges


def _arrow(sc: Scene, x0: float, y0: float, x1: float, y1: float, color: str) -> None:
    ang = math.atan2(y1 - y0, x1 - x0)
    a, b = ang + 2.7, ang - 2.7
    sc.path(
        f"M{x1:.1f},{y1:.1f}L{x1 + 9 * math.cos(a):.1f},{y1 + 9 * math.sin(a):.1f}"
        f"L{x1 + 9 * math.cos(b):.1f},{y1 + 9 * math.sin(b):.1f}Z",
        fill=color,
    )


@dataclass(frozen=True)
class _FlowBoxes:
    """Where the flow diagram's boxes stand: their size, direction and top-left corners."""

    width: float
    height: float
    horizontal: bool
    pos: dict[str, tuple[float, float]]


def flow_diagram(args: dict[str, Any], look: Look) -> Spec:
    """Steps in layers left to right (longest path, back edges drawn as return arrows)."""
    names, edges = _graph_input(args)
    sc = Scene(look)
    top = sc.title_band()
    rank, back, layers = _flow_layers(names, edges)
    boxes = _flow_boxes(layers, look, top)
    for s, t, label in edges:
        _flow_edge(sc, boxes, s, t, label, (s, t) in back, look)
    nl = max(layers) + 1
    for n in names:
        x, y = boxes.pos[n]
        first_or_last = rank[n] == 0 or rank[n] == nl - 1
        _box(
            sc,
            x,
            y,
            boxes.width,
            boxes.height,
            [(n, 12.0)],
            look.color(0) if first_or_last else look.theme.node_fill,
            look.theme.node_stroke,
            text_fill="#ffffff" if first_or_last else None,
            radius=boxes.height / 2 if first_or_last else 5,
        )
    return sc.to_vega()


def _flow_layers(
    names: list[str], edges: list[tuple[str, str, str]]
) -> tuple[dict[str, int], set[tuple[str, str]], dict[int, list[str]]]:
    """Each step's rank, the back edges left out of the ranking, and the steps per rank in
    drawing order."""
    # Break cycles: drop edges that close one (found by DFS), rank on the rest.
    order = {n: i for i, n in enumerate(names)}
    succ: dict[str, list[str]] = defaultdict(list)
    for s, t, _ in edges:
        succ[s].append(t)
    state: dict[str, int] = {}
    back: set[tuple[str, str]] = set()

    def dfs(n: str) -> None:
        state[n] = 1
        for t in succ[n]:
            if state.get(t) == 1:
                back.add((n, t))
            elif t not in state:
                dfs(t)
        state[n] = 2

    for n in names:
        if n not in state:
            dfs(n)
    forward = [(s, t) for s, t, _ in edges if (s, t) not in back and s != t]
    rank = _longest_path(names, forward, "flow")
    layers: dict[int, list[str]] = defaultdict(list)
    for n in sorted(names, key=lambda n: order[n]):
        layers[rank[n]].append(n)
    pred: dict[str, list[str]] = defaultdict(list)
    for s, t in forward:
        pred[t].append(s)
    for r in sorted(layers)[1:]:  # barycentre ordering, one sweep
        prev = {n: i for i, n in enumerate(layers[r - 1])} if r - 1 in layers else {}
        layers[r].sort(
            key=lambda n: sum(prev.get(p, 0) for p in pred[n]) / len(pred[n]) if pred[n] else 0
        )
    return rank, back, layers


def _flow_boxes(layers: dict[int, list[str]], look: Look, top: float) -> _FlowBoxes:
    """Layers left to right when the chart is wider than tall, else top to bottom."""
    nl = max(layers) + 1
    W, H = look.width - 20, look.height - top - 10
    horizontal = W >= H
    lanes = max(len(v) for v in layers.values())
    if horizontal:
        bw = min(150.0, W / nl * 0.7)
        bh = min(44.0, H / lanes * 0.6)
    else:
        bw = min(160.0, W / lanes * 0.8)
        bh = min(44.0, H / nl * 0.55)
    pos: dict[str, tuple[float, float]] = {}
    for r, members in layers.items():
        for i, n in enumerate(members):
            if horizontal:
                x = 10 + (W - bw) * (r / max(1, nl - 1)) if nl > 1 else 10 + (W - bw) / 2
                y = top + H * (i + 0.5) / len(members) - bh / 2
            else:
                y = top + (H - bh) * (r / max(1, nl - 1)) if nl > 1 else top + (H - bh) / 2
                x = 10 + W * (i + 0.5) / len(members) - bw / 2
            pos[n] = (x, y)
    return _FlowBoxes(bw, bh, horizontal, pos)


def _flow_edge(
    sc: Scene, boxes: _FlowBoxes, s: str, t: str, label: str, is_back: bool, look: Look
) -> None:
    """One edge: a curve with an arrow head, or a dashed return arrow for a back edge.

    Laid out left to right (``boxes.horizontal``) or top to bottom; the second is the
    first with x and y swapped, so it is drawn from swapped coordinates."""
    (sx, sy), (tx, ty) = boxes.pos[s], boxes.pos[t]
    bw, bh = boxes.width, boxes.height
    if not boxes.horizontal:  # draw in (across, along) = (y, x) and swap back
        sx, sy, tx, ty, bw, bh = sy, sx, ty, tx, bh, bw

    def xy(a: float, b: float) -> tuple[float, float]:
        return (a, b) if boxes.horizontal else (b, a)

    link = look.theme.link
    a0, b0, a1, b1 = sx + bw, sy + bh / 2, tx, ty + bh / 2
    if is_back or tx <= sx:
        a0, a1 = sx + bw / 2, tx + bw / 2
        b0, b1 = sy + bh, ty + bh
        bm = max(b0, b1) + 24
        points = (xy(a0, b0), xy(a0, bm), xy(a1, bm), xy(a1, b1 + 6))
        _flow_curve(sc, points, link, dashed=True)
        _arrow(sc, *xy(a1, b1 + 10), *xy(a1, b1), link)
        return
    am = (a0 + a1) / 2
    _flow_curve(sc, (xy(a0, b0), xy(am, b0), xy(am, b1), xy(a1 - 8, b1)), link, dashed=False)
    _arrow(sc, *xy(a1 - 12, b1), *xy(a1, b1), link)
    if label:
        (x0, y0), (x1, y1) = xy(a0, b0), xy(a1, b1)
        sc.text(
            (x0 + x1) / 2,
            (y0 + y1) / 2 - 4,
            label,
            10,
            align="center",
            baseline="bottom",
            fill=look.theme.muted,
        )


def _flow_curve(
    sc: Scene, points: tuple[tuple[float, float], ...], link: str, *, dashed: bool
) -> None:
    """A cubic Bézier from ``points[0]`` to ``points[3]`` with ``points[1:3]`` as controls."""
    (x0, y0), (c1x, c1y), (c2x, c2y), (x1, y1) = points
    extra: dict[str, Any] = {"strokeDash": [4, 3]} if dashed else {}
    sc.path(
        f"M{x0},{y0}C{c1x},{c1y} {c2x},{c2y} {x1},{y1}",
        fill="none",
        stroke=link,
        strokeWidth=1.5,
        **extra,
    )


def network_graph(args: dict[str, Any], look: Look) -> Spec:
    """Force-directed layout (Fruchterman-Reingold, fixed seed), nodes sized by degree."""
    import numpy as np

    names, edges = _graph_input(args)
    n = len(names)
    idx = {nm: i for i, nm in enumerate(names)}
    rng = np.random.default_rng(7)
    p = rng.uniform(-1, 1, size=(n, 2))
    e = np.array([(idx[s], idx[t]) for s, t, _ in edges if s != t], dtype=int).reshape(-1, 2)
    k = math.sqrt(4.0 / max(n, 1))
    temp = 0.2
    for _ in range(200 if n < 300 else 60):
        diff = p[:, None, :] - p[None, :, :]
        dist = np.sqrt((diff**2).sum(-1)) + 1e-6
        disp = (diff / dist[:, :, None] * (k * k / dist)[:, :, None]).sum(axis=1)
        if len(e):
            d = p[e[:, 0]] - p[e[:, 1]]
            dl = np.sqrt((d**2).sum(-1)) + 1e-6
            f = d / dl[:, None] * (dl * dl / k)[:, None]
            np.add.at(disp, e[:, 0], -f)
            np.add.at(disp, e[:, 1], f)
        disp -= p  # gravity: keeps separate components from drifting apart
        length = np.sqrt((disp**2).sum(-1)) + 1e-9
        p += disp / length[:, None] * np.minimum(length, temp)[:, None]
        temp *= 0.98
    sc = Scene(look)
    top = sc.title_band()
    deg = np.zeros(n)
    for a, b in e:
        deg[a] += 1
        deg[b] += 1
    margin = 60.0
    lo, hi = p.min(axis=0), p.max(axis=0)
    span = np.where(hi - lo > 1e-9, hi - lo, 1.0)
    xy = np.empty_like(p)
    xy[:, 0] = margin + (p[:, 0] - lo[0]) / span[0] * (look.width - 2 * margin)
    xy[:, 1] = top + 20 + (p[:, 1] - lo[1]) / span[1] * (look.height - top - 50)
    if n == 1:
        xy[0] = (look.width / 2, (top + look.height) / 2)
    for s, t, label in edges:
        a, b = idx[s], idx[t]
        sc.line(
            xy[a, 0],
            xy[a, 1],
            xy[b, 0],
            xy[b, 1],
            stroke=look.theme.link,
            strokeWidth=1.2,
            opacity=0.8,
        )
        if label and len(edges) <= 60:
            sc.text(
                (xy[a, 0] + xy[b, 0]) / 2,
                (xy[a, 1] + xy[b, 1]) / 2,
                label,
                9.5,
                align="center",
                baseline="middle",
                fill=look.theme.muted,
            )
    for i, nm in enumerate(names):
        r = 7 + 3 * math.sqrt(deg[i])
        sc.circle(
            float(xy[i, 0]),
            float(xy[i, 1]),
            r,
            fill=look.color(i),
            stroke=look.theme.background,
            strokeWidth=1.5,
        )
        sc.text(float(xy[i, 0]), float(xy[i, 1]) + r + 3, nm, 11, align="center", baseline="top")
    return sc.to_vega()


# -- table ---------------------------------------------------------------------------
def spreadsheet(args: dict[str, Any], look: Look) -> Spec:
    """A table (or a pivot summing ``values`` by ``rows`` × ``columns``) drawn as a grid."""
    header, body = _sheet_cells(args)
    sc = Scene(look)
    top = 10.0
    row_h = 26.0
    max_rows = int((look.height - top - 10) // row_h) - 1
    shown = body[: max(0, max_rows)]
    ncol = max(1, len(header))
    widths = [
        max(Scene.measure(str(h), 12), *(Scene.measure(r[i], 11.5) for r in shown)) + 16
        for i, h in enumerate(header)
    ] or [look.width - 20]
    scale = min(1.0, (look.width - 20) / sum(widths))
    widths = [w * scale for w in widths]
    x0 = 10.0
    sc.rect(x0, top, sum(widths), row_h, fill=look.color(0))
    for ri, row in enumerate([header, *shown]):
        y = top + ri * row_h
        if ri and ri % 2 == 0:
            sc.rect(x0, y, sum(widths), row_h, fill=look.theme.grid, opacity=0.5)
        x = x0
        for ci in range(ncol):
            cell = row[ci] if ci < len(row) else ""
            numeric = ri > 0 and cell.replace(",", "").replace(".", "").lstrip("-").isdigit()
            sc.text(
                x + (widths[ci] - 8 if numeric else 8),
                y + row_h / 2,
                cell,
                12 if ri == 0 else 11.5,
                baseline="middle",
                align="right" if numeric else "left",
                fill="#ffffff" if ri == 0 else look.theme.text,
                fontWeight="bold" if ri == 0 else "normal",
                limit=widths[ci] - 10,
            )
            x += widths[ci]
    if len(body) > len(shown):
        sc.text(
            x0,
            top + (len(shown) + 1) * row_h + 4,
            f"… {len(body) - len(shown)} more rows",
            10,
            baseline="top",
            fill=look.theme.muted,
        )
    return sc.to_vega()


def _sheet_cells(args: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The header and the body rows as text: the records as given, or their pivot."""
    data = args["data"]
    rows_f, cols_f, vals_f = (
        args.get("rows") or [],
        args.get("columns") or [],
        args.get("values") or [],
    )
    if rows_f or vals_f:
        return _pivot(data, rows_f, cols_f, vals_f)
    header = list(cols_f) or list(dict.fromkeys(k for rec in data for k in rec))
    body = [
        [
            ""
            if rec.get(h) is None
            else (_fmt(rec[h]) if isinstance(rec.get(h), int | float) else str(rec[h]))
            for h in header
        ]
        for rec in data
    ]
    return header, body


def _pivot(
    data: list[dict[str, Any]], rows_f: list[str], cols_f: list[str], vals_f: list[str]
) -> tuple[list[str], list[list[str]]]:
    """``vals_f`` summed per distinct ``rows_f`` (a row) × ``cols_f`` (a column group)."""
    agg: dict[tuple[Any, ...], dict[tuple[Any, ...], float]] = defaultdict(
        lambda: defaultdict(float)
    )
    col_keys: list[tuple[Any, ...]] = []
    for rec in data:
        rk = tuple(rec.get(f) for f in rows_f)
        ck = tuple(rec.get(f) for f in cols_f)
        if ck not in col_keys:
            col_keys.append(ck)
        for v in vals_f:
            x = rec.get(v)
            if isinstance(x, int | float):
                agg[rk][(*ck, v)] += float(x)
    header = [*rows_f] + [
        " / ".join(str(c) for c in (*ck, v) if c not in (None, ""))
        for ck in col_keys
        for v in vals_f
    ]
    body = [
        [*map(str, rk)] + [_fmt(agg[rk].get((*ck, v), 0.0)) for ck in col_keys for v in vals_f]
        for rk in agg
    ]
    return header, body


__all__ = [
    "LayoutError",
    "fishbone",
    "flow_diagram",
    "funnel",
    "liquid",
    "mind_map",
    "network_graph",
    "organization_chart",
    "radar",
    "sankey",
    "spreadsheet",
    "treemap",
    "venn",
    "word_cloud",
]
