"""Stage 4, charts: 2-4 ``generate_visualization`` calls from the analysis result, and
the chart URLs the chart server answered with."""

from __future__ import annotations

import re
from typing import Any

from graphs.offline.policies.analyst.run import FX_TO_CNY, Run

__all__ = ["chart_calls", "chart_urls"]

_URL = re.compile(r"https?://[^\s)\"'<>\]]+")
Chart = tuple[str, dict[str, Any]]


def _price_comparison(run: Run, main: dict[str, Any], name: str) -> Chart:
    """ERP contract price against the web quote at the reference quantity, per supplier."""
    compare: list[dict[str, Any]] = []
    for row in main.get("suppliers") or []:
        compare.append(
            {
                "category": row["supplier_code"],
                "value": row["contract_price_cny"],
                "group": run.say("ERP 合同价", "ERP contract"),
            }
        )
        web = row.get("web") or {}
        if web.get("price_at_ref_qty") is not None:
            fx = FX_TO_CNY.get(str(web.get("currency") or "CNY"), 1.0)
            compare.append(
                {
                    "category": row["supplier_code"],
                    "value": round(web["price_at_ref_qty"] * fx, 2),
                    "group": run.say(
                        f"官网报价（{main['reference_qty']} 件档）",
                        f"Web quote (qty {main['reference_qty']})",
                    ),
                }
            )
    return (
        "column",
        {
            "title": run.say(f"{name} 供应商报价对比（元）", f"{name}: prices (CNY)"),
            "axisYTitle": run.say("元", "CNY"),
            "group": True,
            "data": compare,
        },
    )


def _paid_trend(run: Run, rows: list[dict[str, Any]], name: str) -> Chart | None:
    """Monthly average paid price per supplier, when there is order history."""
    trend = [
        {"time": m["month"], "value": m["avg_price"], "group": row["supplier_code"]}
        for row in rows
        for m in (row.get("history") or {}).get("months") or []
    ]
    if not trend:
        return None
    return (
        "line",
        {
            "title": run.say(f"{name} 近 12 个月成交均价", f"{name}: paid price, last 12 months"),
            "axisYTitle": run.say("元", "CNY"),
            "data": trend,
        },
    )


def _scores(run: Run, rows: list[dict[str, Any]], name: str) -> Chart:
    return (
        "bar",
        {
            "title": run.say(
                f"{name} 总成本评分（越低越好）", f"{name}: total-cost score (lower is better)"
            ),
            "data": [
                {"category": r["supplier_code"], "value": r["total_cost_score"]} for r in rows
            ],
        },
    )


def _best_per_model(run: Run, parts: list[dict[str, Any]]) -> Chart:
    return (
        "column",
        {
            "title": run.say("各型号最优供应商总成本评分", "Best total-cost score per model"),
            "data": [
                {"category": p["sku"], "value": p["suppliers"][0]["total_cost_score"]}
                for p in parts
                if p.get("suppliers")
            ],
        },
    )


def chart_calls(run: Run, result: dict[str, Any]) -> list[Chart]:
    """``(chart type, config)`` of the charts to draw (at most four), about the main part."""
    parts = result.get("parts") or []
    if not parts:
        return []
    main = parts[0]
    name = main.get("name_zh") if run.zh else main.get("name_en")
    rows = main.get("suppliers") or []
    charts = [_price_comparison(run, main, name)]
    trend = _paid_trend(run, rows, name)
    if trend is not None:
        charts.append(trend)
    charts.append(_scores(run, rows, name))
    if len(parts) > 1:
        charts.append(_best_per_model(run, parts))
    return charts[:4]


def chart_urls(run: Run) -> list[tuple[str, str]]:
    """``(title, image URL)`` of every chart the chart server drew."""
    out = []
    for r in run.view.called("generate_visualization"):
        m = _URL.search(r.content) if r.ok else None
        if m:
            out.append((str((r.args.get("chart_config") or {}).get("title", "chart")), m.group(0)))
    return out
