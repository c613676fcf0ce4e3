"""Stage 5, the report: the Markdown report from the analysis result (numbered sources,
one table per part, charts, conclusions, recommendations) and the run's final answer."""

from __future__ import annotations

import json
from typing import Any

from graphs.offline.history import ToolResult
from graphs.offline.policies.analyst.run import FX_TO_CNY, Run
from graphs.offline.policies.base import say

__all__ = ["render_report", "summary"]


def _money(value: Any) -> str:
    return "—" if value is None else f"{value:,.2f}"


def _ranked(part: dict[str, Any]) -> list[dict[str, Any]]:
    """The part's suppliers that can be ordered from, best first."""
    return [r for r in part.get("suppliers") or [] if r.get("rank")]


def _head(zh: bool, result: dict[str, Any]) -> list[str]:
    cat = result.get("category") or {}
    cat_name = cat.get("name_zh") if zh else cat.get("name_en")
    return [
        say(
            zh,
            f"# {cat_name}供应商比价分析报告（{result.get('generated_at')}）",
            f"# {cat_name}: supplier price comparison ({result.get('generated_at')})",
        ),
        "",
        say(zh, f"> 请求：{result.get('request')}", f"> Request: {result.get('request')}"),
        say(
            zh,
            "> 由离线规划器生成（未使用大模型），数字来自 ERP 与供应商官网。",
            "> Produced by the offline planner (no LLM); figures from the ERP and the shops.",
        ),
        "",
        say(zh, "## 摘要", "## Summary"),
        "",
    ]


def _summary_lines(zh: bool, result: dict[str, Any]) -> list[str]:
    lines = []
    for part in result.get("parts") or []:
        rows = _ranked(part)
        if not rows:
            continue
        best = rows[0]
        name = part.get("name_zh") if zh else part.get("name_en")
        best_name = best.get("supplier_name_zh") if zh else best.get("supplier_name_en")
        lines.append(
            say(
                zh,
                f"- **{name}**（{part['sku']}）：综合成本最优为 **{best_name}**"
                f"（{best['supplier_code']}），"
                f"合同价 {_money(best['contract_price'])} {best['currency']}，交期 "
                f"{best['lead_time_days']} 天，起订量 {best['moq']}。",
                f"- **{name}** ({part['sku']}): lowest total cost is **{best_name}** "
                f"({best['supplier_code']}), contract price {_money(best['contract_price'])} "
                f"{best['currency']}, lead time {best['lead_time_days']} days, MOQ {best['moq']}.",
            )
        )
    return lines


def _method(zh: bool, result: dict[str, Any]) -> list[str]:
    method = result["method"]
    return [
        "",
        say(zh, "## 方法", "## Method"),
        "",
        say(
            zh,
            f"总成本评分 = {method['score']}。汇率假设："
            f"{json.dumps(method['fx_to_cny'])}。成交均价取近 "
            f"{method['history_window_days']} 天的 ERP 订单（数量加权）。",
            f"Total-cost score = {method['score']}. FX assumption: "
            f"{json.dumps(method['fx_to_cny'])}. Paid price: quantity-weighted, "
            f"ERP orders of the last {method['history_window_days']} days.",
        ),
        "",
    ]


def _supplier_row(zh: bool, row: dict[str, Any], erp_n: int) -> str:
    """One supplier's line of a part's table; ``erp_n`` numbers the ERP sources."""
    web = row.get("web")
    if web:
        tiers = "; ".join(f"≥{t['min_qty']}: {t['unit_price']:.2f}" for t in web["tiers"])
        web_cell = (
            f"{web.get('currency')} {tiers} [{web['source']}]"
            if tiers
            else f"{web.get('status')} [{web['source']}]"
        )
        stock = f"{web.get('stock')} ({web.get('status')})"
    else:
        web_cell, stock = say(zh, "无官网报价", "no web quote"), "—"
    hist = row.get("history") or {}
    trend = (
        "—" if hist.get("trend_pct") is None else f"{hist.get('trend')} ({hist['trend_pct']:+.1f}%)"
    )
    supplier = row.get("supplier_name_zh") if zh else row.get("supplier_name_en")
    active = row.get("supplier_status", "active") == "active"
    status = "" if active else f", {row.get('supplier_status')}"
    return (
        f"| {row['rank'] or '—'} | {supplier} ({row['supplier_code']}{status}) | "
        f"{_money(row['contract_price'])} {row['currency']} [{erp_n}] | {row['moq']} | "
        f"{row['lead_time_days']} | {web_cell} | {stock} | "
        f"{_money(hist.get('avg_paid_price'))} [{erp_n + 1}] | {trend} | "
        f"{row['total_cost_score']:.2f} |"
    )


def _part_section(zh: bool, part: dict[str, Any], erp_n: int) -> list[str]:
    name = part.get("name_zh") if zh else part.get("name_en")
    inv = part.get("inventory") or {}
    lines = [
        f"## {name}（{part['sku']}）" if zh else f"## {name} ({part['sku']})",
        "",
        say(
            zh,
            f"库存：在手 {inv.get('on_hand')}，预留 {inv.get('reserved')}，在途 "
            f"{inv.get('on_order')}，安全库存 {inv.get('safety_stock')}；参考采购量 "
            f"{part['reference_qty']}。",
            f"Stock: on hand {inv.get('on_hand')}, reserved {inv.get('reserved')}, on order "
            f"{inv.get('on_order')}, safety stock {inv.get('safety_stock')}; reference "
            f"quantity {part['reference_qty']}.",
        ),
        "",
        say(
            zh,
            "| 排名 | 供应商 | ERP 合同价 | MOQ | 交期(天) | 官网阶梯价 | 官网库存 "
            "| 近12月均价 | 趋势 | 总成本评分 |",
            "| Rank | Supplier | ERP contract | MOQ | Lead (days) | Web tiers | Web stock | "
            "12-month avg paid | Trend | Total-cost score |",
        ),
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    lines += [_supplier_row(zh, row, erp_n) for row in part.get("suppliers") or []]
    lines.append("")
    return lines


def _findings(zh: bool, part: dict[str, Any]) -> tuple[str, str] | None:
    """(conclusion, recommendation) for one part; None when no supplier is ranked."""
    rows = _ranked(part)
    if not rows:
        return None
    best, name = rows[0], (part.get("name_zh") if zh else part.get("name_en"))
    cheaper_web = [
        r
        for r in rows
        if (r.get("web") or {}).get("price_at_ref_qty") is not None
        and r["web"]["price_at_ref_qty"] * FX_TO_CNY.get(str(r["web"].get("currency")), 1.0)
        < r["contract_price_cny"]
    ]
    rising = [r for r in rows if (r.get("history") or {}).get("trend") == "rising"]
    conclusion = say(
        zh,
        f"- {name}：{best['supplier_code']} 综合成本最低"
        f"（评分 {best['total_cost_score']:.2f}）；"
        f"{len(cheaper_web)} 家供应商官网价低于合同价；"
        f"{len(rising)} 家近 12 个月成交价上涨。",
        f"- {name}: {best['supplier_code']} has the lowest total cost (score "
        f"{best['total_cost_score']:.2f}); {len(cheaper_web)} suppliers quote below "
        f"contract on the web; {len(rising)} show rising paid prices over 12 months.",
    )
    cheaper_codes = ", ".join(r["supplier_code"] for r in cheaper_web)
    rising_codes = ", ".join(r["supplier_code"] for r in rising)
    recommendation = say(
        zh,
        f"- {name}：优先向 {best['supplier_code']} 采购；"
        + (f"与 {cheaper_codes} 依据官网价重新议价；" if cheaper_web else "")
        + (f"关注 {rising_codes} 的涨价趋势。" if rising else "价格趋势平稳。"),
        f"- {name}: buy from {best['supplier_code']} first"
        + (f"; renegotiate with {cheaper_codes} using their web prices" if cheaper_web else "")
        + (f"; watch rising prices at {rising_codes}." if rising else "; prices are stable."),
    )
    return conclusion, recommendation


def _sources(zh: bool, result: dict[str, Any], sources: dict[int, Any], erp_n: int) -> list[str]:
    lines = [say(zh, "## 来源", "## Sources"), ""]
    for n in sorted(sources):
        s = sources[n]
        lines.append(f"{n}. {s['url']} — {s['supplier_code']} {s['sku']}")
    lines.append(
        say(
            zh,
            f"{erp_n}. ERP 价目表（part_query，{result.get('generated_at')}）",
            f"{erp_n}. ERP price list (part_query, {result.get('generated_at')})",
        )
    )
    lines.append(
        say(
            zh,
            f"{erp_n + 1}. ERP 采购订单（order_search_details，近 12 个月）",
            f"{erp_n + 1}. ERP purchase orders (order_search_details, last 12 months)",
        )
    )
    return lines


def render_report(run: Run, result: dict[str, Any], charts: list[tuple[str, str]]) -> str:
    """The report in the request's language; web sources first, then the ERP's two."""
    zh = run.zh
    sources = {s["n"]: s for s in result.get("sources") or []}
    erp_n = len(sources) + 1
    parts = result.get("parts") or []
    lines = [*_head(zh, result), *_summary_lines(zh, result), *_method(zh, result)]
    for part in parts:
        lines += _part_section(zh, part, erp_n)
    if charts:
        lines += [say(zh, "## 图表", "## Charts"), ""]
        lines += [f"![{title}]({url})" for title, url in charts]
        lines.append("")
    findings = [f for f in (_findings(zh, part) for part in parts) if f is not None]
    lines += [say(zh, "## 结论", "## Conclusions"), ""]
    lines += [conclusion for conclusion, _ in findings]
    lines += ["", say(zh, "## 建议", "## Recommendations"), ""]
    lines += [recommendation for _, recommendation in findings]
    lines.append("")
    lines += _sources(zh, result, sources, erp_n)
    return "\n".join(lines) + "\n"


def summary(
    run: Run,
    result: dict[str, Any],
    charts: list[tuple[str, str]],
    paths: tuple[str, str],
    failed: list[ToolResult],
) -> str:
    """The run's final answer: where the report is, the recommendation per part, sources."""
    report_path, store_path = paths
    lines = [
        run.say("分析完成。", "Analysis complete."),
        run.say(
            f"报告：{report_path}（沙箱）；存档：{store_path}",
            f"Report: {report_path} (sandbox); filed at {store_path}",
        ),
    ]
    for part in result.get("parts") or []:
        rows = _ranked(part)
        if rows:
            best = rows[0]
            lines.append(
                run.say(
                    f"- {part['sku']}：推荐 {best['supplier_code']}（合同价 "
                    f"{_money(best['contract_price'])} {best['currency']}，"
                    f"评分 {best['total_cost_score']:.2f}）",
                    f"- {part['sku']}: recommend {best['supplier_code']} (contract "
                    f"{_money(best['contract_price'])} {best['currency']}, score "
                    f"{best['total_cost_score']:.2f})",
                )
            )
    if charts:
        lines.append(run.say("图表：", "Charts:"))
        lines += [f"- {title}: {url}" for title, url in charts]
    else:
        lines.append(
            run.say("图表没有生成（图表服务不可用）。", "No charts (chart server unavailable).")
        )
    sources = result.get("sources") or []
    lines.append(
        run.say(
            f"来源：{len(sources)} 个供应商报价页 + ERP。",
            f"Sources: {len(sources)} supplier quote pages + the ERP.",
        )
    )
    if failed:
        lines.append(
            run.say("注意：部分文件写入失败：", "Note: some files failed to write: ")
            + "; ".join(r.content[:200] for r in failed)
        )
    return "\n".join(lines)
