"""Stage 4, charts: two to four ``generate_visualization`` calls, each answering one question
the report asks, and the chart URLs the chart server answered with.

1. Which supplier is cheaper, on contract and on the web? (the main part: contract price
   against the web price at the reference quantity, per supplier, as grouped bars);
2. What have we paid? (a monthly line only for suppliers with at least
   :data:`MIN_TREND_POINTS` months of orders; otherwise each supplier's average paid price);
3. Which supplier costs least overall? (the main part's total-cost scores: one part only,
   scores of different parts are never compared);
4. Where do web prices differ most from contract prices? (the largest gaps, in %, across
   the analysed parts: a percentage compares across parts where a price does not).

Labels are the names a buyer reads (supplier short names, part models); a supplier with no
web quote, or on hold / blocked in the ERP, says so in its label.
"""

from __future__ import annotations

import re
from typing import Any

from graphs.offline.policies.analyst.run import Run
from graphs.offline.policies.analyst.words import Words

__all__ = ["MIN_TREND_POINTS", "Chart", "chart_calls", "chart_urls"]

MIN_TREND_POINTS = 3  # months of orders a supplier's series needs to be drawn as a line
_MAX_GAPS = 8
_LABEL = 22  # characters of a supplier's name in a chart label
_URL = re.compile(r"https?://[^\s)\"'<>\]]+")
Chart = tuple[str, dict[str, Any]]  # (chart type, config)


def _label(w: Words, row: dict[str, Any], *, web: bool = False) -> str:
    """The supplier's short name, with what a reader must know about it."""
    notes = []
    if row.get("supplier_status", "active") != "active":
        notes.append(w(row["supplier_status"]))
    elif web and not row.get("web"):  # one note fits a label: a blocked supplier's matters more
        notes.append(w("no_web_quote"))
    if not notes:
        return w.short(row, _LABEL)
    joined = ("，" if w.zh else ", ").join(notes)
    return f"{w.short(row, _LABEL)}（{joined}）" if w.zh else f"{w.short(row, _LABEL)} ({joined})"


def _prices(w: Words, part: dict[str, Any], name: str) -> Chart:
    """Q1: contract price against the web price at the reference quantity, per supplier."""
    data: list[dict[str, Any]] = []
    ref = part["reference_qty"]
    for row in part.get("suppliers") or []:
        label = _label(w, row, web=True)
        contract = {"category": label, "value": row["contract_price_cny"]}
        data.append({**contract, "group": w.say("ERP 合同价", "ERP contract price")})
        web = (row.get("web") or {}).get("price_at_ref_qty_cny")
        if web is not None:
            group = w.say(f"官网价（{ref} 件档）", f"Web price (at {ref})")
            data.append({"category": label, "value": web, "group": group})
    return (
        "bar",  # horizontal: a supplier's label with its notes needs the room
        {
            "title": w.say(f"{name}：合同价与官网价（元）", f"{name}: contract vs web price (CNY)"),
            "axisYTitle": w.say("元", "CNY"),  # the value axis, in either direction
            "group": True,
            "stack": False,  # the gateway's bar stacks unless told not to
            "data": data,
        },
    )


def _paid(w: Words, part: dict[str, Any], name: str, months: int) -> Chart | None:
    """Q2: monthly paid prices where a series is long enough, else the averages."""
    rows = [r for r in part.get("suppliers") or [] if (r.get("history") or {}).get("orders")]
    if not rows:
        return None
    long = [r for r in rows if len(r["history"]["months"]) >= MIN_TREND_POINTS]
    if long:
        data = [
            {"time": m["month"], "value": m["avg_price"], "group": w.short(r, _LABEL)}
            for r in long
            for m in r["history"]["months"]
        ]
        title = w.say(f"{name}：近 {months} 个月每月成交均价", f"{name}: monthly paid price")
        return ("line", {"title": title, "axisYTitle": w.say("元", "CNY"), "data": data})
    data = [{"category": _label(w, r), "value": r["history"]["avg_paid_price"]} for r in rows]
    title = w.say(
        f"{name}：近 {months} 个月平均成交价（元）", f"{name}: average paid, {months} months (CNY)"
    )
    return ("column", {"title": title, "axisYTitle": w.say("元", "CNY"), "data": data})


def _scores(w: Words, part: dict[str, Any], name: str) -> Chart:
    """Q3: the main part's total-cost score per supplier (lower is better)."""
    data = [
        {"category": _label(w, r), "value": r["total_cost_score"]}
        for r in part.get("suppliers") or []
    ]
    title = w.say(f"{name}：总成本评分（越低越好）", f"{name}: total-cost score (lower is better)")
    return ("bar", {"title": title, "data": data})


def _gaps(w: Words, result: dict[str, Any]) -> Chart | None:
    """Q4: the largest web/contract gaps, in % of the contract price, across parts."""
    gaps = (result.get("deviations") or [])[:_MAX_GAPS]
    if not gaps:
        return None
    models = {p["sku"]: p.get("model") or p["sku"] for p in result.get("parts") or []}
    rows = {
        (p["sku"], r["supplier_code"]): r
        for p in result.get("parts") or []
        for r in p.get("suppliers") or []
    }
    several = len({g["sku"] for g in gaps}) > 1
    data = []
    for g in gaps:
        label = _label(w, rows[(g["sku"], g["supplier_code"])])
        data.append({"category": f"{models[g['sku']]} · {label}" if several else label,
                     "value": g["pct"]})  # fmt: skip
    title = w.say("官网价相对合同价的差距（%，负数为更便宜）",
                  "Web price vs contract price (%, negative = cheaper on the web)")  # fmt: skip
    return ("bar", {"title": title, "data": data})


def chart_calls(run: Run, result: dict[str, Any]) -> list[tuple[str, Chart]]:
    """``(question, (chart type, config))`` of the charts to draw: two to four, in the
    report's order; the question is ``prices``, ``paid``, ``scores`` or ``gaps``."""
    parts = result.get("parts") or []
    if not parts or not parts[0].get("suppliers"):
        return []
    w = Words(run.zh)
    main = parts[0]
    name = w.name(main)
    months = int((result.get("window") or {}).get("months") or 12)
    found = {
        "prices": _prices(w, main, name),
        "paid": _paid(w, main, name, months),
        "scores": _scores(w, main, name),
        "gaps": _gaps(w, result),
    }
    return [(kind, chart) for kind, chart in found.items() if chart is not None]


def chart_urls(run: Run) -> list[tuple[str, str]]:
    """``(title, image URL)`` of every chart the chart server drew, in call order."""
    out = []
    for r in run.view.called("generate_visualization"):
        m = _URL.search(r.content) if r.ok else None
        if m:
            out.append((str((r.args.get("chart_config") or {}).get("title", "chart")), m.group(0)))
    return out
