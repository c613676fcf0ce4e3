"""Stage 5, the report: Markdown in the request's language from the analysis result.

Sections: summary (the recommendation per part and the largest price gaps, in %), scope
(which parts and why, the rest listed; the history window; what the request limited),
method (the score as a sentence, exchange rates as a table), one table per part (with its
reference quantity and where it comes from), the charts (each under the question it
answers, linked relatively: ``charts/<report>_<n>.png``), conclusions, recommendations and
numbered sources. Names stay as the ERP spells them; everything else is in one language.
"""

from __future__ import annotations

from typing import Any

from graphs.offline.policies.analyst.run import Run
from graphs.offline.policies.analyst.words import Words

__all__ = ["QUESTIONS", "render_report"]

# The question each chart answers, in chart order (charts.chart_calls draws them).
QUESTIONS = {
    "prices": ("哪家供应商的合同价和官网价更低？", "Who is cheaper, on contract and on the web?"),
    "paid": ("我们实际付了多少？", "What have we actually paid?"),
    "scores": ("综合成本哪家最低？", "Which supplier costs least overall?"),
    "gaps": ("哪些官网价与合同价差距最大？", "Where do web prices differ most from contracts?"),
}
_TOP_GAPS = 3


def _ranked(part: dict[str, Any]) -> list[dict[str, Any]]:
    """The part's suppliers that can be ordered from, best first."""
    return [r for r in part.get("suppliers") or [] if r.get("rank")]


def _row_of(result: dict[str, Any], sku: str, code: str) -> dict[str, Any]:
    part = next(p for p in result["parts"] if p["sku"] == sku)
    return next(r for r in part["suppliers"] if r["supplier_code"] == code)


def _gap_phrase(w: Words, result: dict[str, Any], gap: dict[str, Any], *, part: bool = True) -> str:
    """``电装 官网价比合同价低 21%（火花塞 …）`` / ``Denso's web price is 21% below …``."""
    row = _row_of(result, gap["sku"], gap["supplier_code"])
    of = (f"（{w.name(gap)}）" if w.zh else f" ({w.name(gap)})") if part else ""
    if w.zh:
        return f"{w.short(row)} 官网价比合同价{w.pct(gap['pct'])}{of}"
    return f"{w.short(row)}'s web price is {w.pct(gap['pct'])} its contract price{of}"


def _summary(w: Words, result: dict[str, Any]) -> list[str]:
    lines = [w.say("## 摘要", "## Summary"), ""]
    for part in result.get("parts") or []:
        rows = _ranked(part)
        if not rows:
            lines.append(
                w.say(
                    f"- **{w.name(part)}**：没有可下单的供应商（都已暂停或停用）。",
                    f"- **{w.name(part)}**: no supplier can take orders (all on hold or blocked).",
                )
            )
            continue
        best = rows[0]
        price = w.money(best["contract_price"], best["currency"])
        lines.append(
            w.say(
                f"- **{w.name(part)}**：综合成本最低的是 **{w.name(best, 'supplier_')}**，合同价 "
                f"{price}，交期 {best['lead_time_days']} 天，起订量 {best['moq']}。",
                f"- **{w.name(part)}**: lowest total cost is **{w.name(best, 'supplier_')}**, "
                f"contract price {price}, lead time {best['lead_time_days']} days, minimum "
                f"order {best['moq']}.",
            )
        )
    gaps = (result.get("deviations") or [])[:_TOP_GAPS]
    if gaps:
        joined = ("；" if w.zh else "; ").join(_gap_phrase(w, result, g) for g in gaps)
        lines.append(w.say(f"- 价差最大：{joined}。", f"- Largest price gaps: {joined}."))
    return [*lines, ""]


def _rule(w: Words, selection: dict[str, Any], scope: dict[str, Any], analysed: int) -> str:
    """Why these parts: the rule in words, and the cap when it applied."""
    rule = selection.get("rule", "category")
    cap = selection.get("cap", analysed)
    capped = w.say(
        f"其中供应商最多的 {analysed} 个（每次最多分析 {cap} 个："
        "每个零件的报价页和订单都随分析一起处理）",
        f"of them, the {analysed} the most suppliers offer (at most {cap} per analysis: every "
        "part's quote pages and orders travel with it)",
    )
    named = {
        "part": w.say(f"请求指定的零件（{scope.get('part')}）", "the part the request named"),
        "brands": w.say("请求指定品牌的零件", "the parts of the brands the request named"),
        "named": w.say("请求中提到的型号", "the models the request named"),
    }
    if rule in named:
        if selection.get("capped"):
            return named[rule] + w.say(
                f"，{capped}；其余零件见下表。", f"; {capped}; the others are listed below."
            )
        return named[rule] + w.say("。", ".")
    if rule == "most_offered":
        return w.say(
            f"类别中供应商最多的 {analysed} 个零件（每次最多分析 {cap} 个：每个零件的报价页和订单"
            "都随分析一起处理；要看别的零件，请点名型号或品牌）；其余零件见下表。",
            f"the {analysed} parts of the category the most suppliers offer (at most {cap} per "
            "analysis: every part's quote pages and orders travel with it; name models or brands "
            "to see others); the other parts are listed below.",
        )
    return w.say("类别中的全部零件。", "every part of the category.")


def _scope(w: Words, result: dict[str, Any]) -> list[str]:
    cat = result.get("category") or {}
    selection = result.get("selection") or {}
    scope = result.get("scope") or {}
    window = result.get("window") or {}
    parts = result.get("parts") or []
    total = selection.get("in_category", len(parts))
    months = window.get("months", 12)
    limits = []
    if scope.get("brand_names") or scope.get("brands"):
        names = [str(n) for n in scope.get("brand_names") or scope.get("brands") or []]
        limits.append(w.say(f"品牌 {'、'.join(names)}", f"brands {', '.join(names)}"))
    if scope.get("window_months"):
        limits.append(w.say(f"近 {months} 个月", f"the last {months} months"))
    if scope.get("part"):
        limits.append(w.say(f"零件 {scope['part']}", f"part {scope['part']}"))
    if scope.get("parts"):
        named = [str(n) for n in scope["parts"]]
        limits.append(w.say(f"零件 {'、'.join(named)}", f"parts {', '.join(named)}"))
    if scope.get("excluded"):
        out = [str(n) for n in scope["excluded"]]
        limits.append(w.say(f"不含 {'、'.join(out)}", f"leaving out {', '.join(out)}"))
    if scope.get("origin") == "domestic":
        limits.append(w.say("只看国内供应商", "domestic suppliers only"))
    elif scope.get("origin") == "imported":
        limits.append(w.say("只看国外供应商", "suppliers abroad only"))
    limited = ("；" if w.zh else "; ").join(limits) or w.say(
        "无（整个类别）", "none (whole category)"
    )
    lines = [
        w.say("## 范围", "## Scope"),
        "",
        w.say(f"- 类别：{w.name(cat)}（{cat.get('code')}），ERP 中共 {total} 个零件。",
              f"- Category: {w.name(cat)} ({cat.get('code')}), {total} parts in the ERP."),
        w.say(f"- 分析了 {len(parts)} 个零件：{_rule(w, selection, scope, len(parts))}",
              f"- Parts analysed: {len(parts)}, {_rule(w, selection, scope, len(parts))}"),
        w.say(f"- 历史窗口：{w.day(window.get('since'))} 至 {w.day(window.get('until'))}"
              f"（近 {months} 个月的 ERP 订单）。",
              f"- History window: {w.day(window.get('since'))} to {w.day(window.get('until'))} "
              f"(ERP orders of the last {months} months)."),
        w.say("- 参考采购量：每个零件比较官网阶梯价时用的数量，来源写在该零件的表格上方。",
              "- Reference quantity: the quantity each part's web price tiers are compared at; "
              "where it comes from is given above the part's table."),
        w.say(f"- 请求的限定：{limited}。", f"- Limits set by the request: {limited}."),
        "",
    ]  # fmt: skip
    rest = selection.get("not_analysed") or []
    if rest:
        lines += [
            w.say(f"未分析的零件（{len(rest)} 个）：", f"Parts not analysed ({len(rest)}):"),
            "",
            w.say("| 零件编号 | 名称 | 供应商数 |", "| SKU | Name | Suppliers |"),
            "|---|---|---|",
        ]
        lines += [f"| {r['sku']} | {w.name(r)} | {r.get('offers') or '—'} |" for r in rest]
        lines.append("")
    return lines


def _method(w: Words, result: dict[str, Any]) -> list[str]:
    method = result.get("method") or {}
    lead = float(method.get("lead_time_cost_per_day", 0.001)) * 100
    risk = float(method.get("stock_risk_surcharge", 0.03)) * 100
    lines = [
        w.say("## 方法", "## Method"),
        "",
        w.say(
            f"- 总成本评分 = 合同价（折合人民币）×（1 + 交期天数 × {lead:g}%）×（1 + {risk:g}%，"
            "仅当该供应商官网缺货或停产），分数越低越好。",
            f"- Total-cost score = contract price in CNY × (1 + {lead:g}% per day of lead time) "
            f"× (1 + {risk:g}% when the supplier's web shop is out of stock or discontinued); "
            "lower is better.",
        ),
        w.say(
            f"- 只有 ERP 中状态为“{w('active')}”的供应商参与排名；“{w('on_hold')}”和"
            f"“{w('blocked')}”的供应商列出但不排名。",
            "- Only suppliers active in the ERP are ranked; suppliers on hold or blocked are "
            "listed without a rank.",
        ),
        w.say(
            "- 成交均价：窗口内的 ERP 订单（不含草稿和已取消的订单），按数量加权；"
            "趋势比较窗口前半段与后半段的月均价，变化超过 1% 才算上涨或下降。",
            "- Paid price: ERP orders in the window (drafts and cancelled orders excluded), "
            "weighted by quantity; the trend compares the first and second half of the months, "
            "and moves of 1% or less count as flat.",
        ),
        w.say("- 官网价差：参考采购量下的官网单价相对合同价的差距。",
              "- Web price gap: the web unit price at the reference quantity against the "
              "contract price."),
        "",
        w.say("汇率假设：", "Exchange rates assumed:"),
        "",
        w.say("| 币种 | 折合人民币 |", "| Currency | In CNY |"),
        "|---|---|",
    ]  # fmt: skip
    fx = method.get("fx_to_cny") or {}
    lines += [f"| {code} | {float(rate):.2f} |" for code, rate in sorted(fx.items())]
    return [*lines, ""]


def _tiers(w: Words, web: dict[str, Any]) -> str:
    currency = str(web.get("currency") or "CNY")
    sep = "；" if w.zh else "; "
    tiers = sep.join(
        f"≥{t['min_qty']}{'：' if w.zh else ': '}{w.money(t['unit_price'], currency)}"
        for t in web.get("tiers") or []
    )
    return f"{tiers or '—'} [{web['source']}]"


def _history_cell(w: Words, hist: dict[str, Any]) -> str:
    trend = str(hist.get("trend") or "no_data")
    if hist.get("trend_pct") is None:
        return w(trend)
    return (
        f"{w(trend)}（{hist['trend_pct']:+.1f}%）"
        if w.zh
        else f"{w(trend)} ({hist['trend_pct']:+.1f}%)"
    )


def _supplier_row(w: Words, row: dict[str, Any], erp_n: int) -> str:
    """One supplier's line of a part's table; ``erp_n`` numbers the ERP sources."""
    web = row.get("web")
    no_web = w("no_web_quote")
    web_cell = _tiers(w, web) if web else no_web
    stock = f"{web.get('stock')}（{w(web.get('status'))}）" if web else "—"
    if web and not w.zh:
        stock = f"{web.get('stock')} ({w(web.get('status'))})"
    gap = row.get("web_vs_contract_pct")
    hist = row.get("history") or {}
    return (
        f"| {row['rank'] or '—'} | {w.name(row, 'supplier_')} | {w(row.get('supplier_status'))} | "
        f"{w.money(row['contract_price'], row['currency'])} [{erp_n}] | {row['moq']} | "
        f"{row['lead_time_days']} | {web_cell} | {stock} | "
        f"{'—' if gap is None else w.pct(gap)} | "
        f"{w.money(hist.get('avg_paid_price'))} [{erp_n + 1}] | {_history_cell(w, hist)} | "
        f"{row['total_cost_score']:.2f} |"
    )


def _part_section(w: Words, part: dict[str, Any], erp_n: int, months: int) -> list[str]:
    inv = part.get("inventory") or {}
    ref = part.get("reference") or {"qty": part["reference_qty"], "source": "largest_moq"}
    source = w(ref["source"], lines=ref.get("order_lines", 0), months=months)
    unit = w.unit(part.get("unit"))
    return [
        w.say(f"## {w.name(part)}（{part['sku']}）", f"## {w.name(part)} ({part['sku']})"),
        "",
        w.say(
            f"库存：在手 {inv.get('on_hand')}，预留 {inv.get('reserved')}，在途 "
            f"{inv.get('on_order')}，安全库存 {inv.get('safety_stock')}。",
            f"Stock: on hand {inv.get('on_hand')}, reserved {inv.get('reserved')}, on order "
            f"{inv.get('on_order')}, safety stock {inv.get('safety_stock')}.",
        ),
        "",
        w.say(
            f"参考采购量：{ref['qty']} {unit}（{source}）。",
            f"Reference quantity: {ref['qty']} {unit} ({source}).",
        ),
        "",
        w.say(
            f"| 排名 | 供应商 | ERP 状态 | 合同价 | 起订量 | 交期（天） | 官网阶梯价 | 官网库存 "
            f"| 官网价差 | 近 {months} 个月均价 | 趋势 | 总成本评分 |",
            f"| Rank | Supplier | ERP status | Contract price | Minimum order | Lead time (days) "
            f"| Web price tiers | Web stock | Web vs contract | Average paid, {months} months "
            "| Trend | Total-cost score |",
        ),
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        *(_supplier_row(w, row, erp_n) for row in part.get("suppliers") or []),
        "",
    ]


def _charts(w: Words, charts: list[tuple[str, str, str]]) -> list[str]:
    """Each chart under the question it answers: ``(kind, title, relative path)``."""
    if not charts:
        return [w.say("## 图表", "## Charts"), "", w.say("图表服务不可用，本报告没有图表。",
                "The chart server was unavailable: this report has no charts."), ""]  # fmt: skip
    lines = [w.say("## 图表", "## Charts"), ""]
    for kind, title, path in charts:
        chinese, english = QUESTIONS.get(kind, (title, title))
        lines += [f"### {w.say(chinese, english)}", "", f"![{title}]({path})", ""]
    return lines


def _findings(w: Words, result: dict[str, Any], part: dict[str, Any]) -> tuple[str, str] | None:
    """(conclusion, recommendation) for one part; None when no supplier is ranked."""
    rows = _ranked(part)
    if not rows:
        return None
    best, name = rows[0], w.name(part)
    gaps = [g for g in result.get("deviations") or [] if g["sku"] == part["sku"]]
    cheaper = [g for g in gaps if g["pct"] < -1 and g["supplier_status"] == "active"]
    rising = [r for r in rows if (r.get("history") or {}).get("trend") == "rising"]
    sep = "；" if w.zh else "; "
    gap_text = sep.join(_gap_phrase(w, result, g, part=False) for g in gaps[:2]) or w.say(
        "没有可比的官网价", "no web price to compare"
    )
    trend = (
        w.say(
            f"{len(rising)} 家供应商近期成交价上涨",
            f"{len(rising)} supplier{'s show' if len(rising) > 1 else ' shows'} rising paid prices",
        )
        if rising
        else w.say("没有供应商的成交价在上涨", "no supplier's paid price is rising")
    )
    conclusion = w.say(
        f"- {name}：{w.short(best)} 综合成本最低（评分 {best['total_cost_score']:.2f}）；"
        f"{gap_text}；{trend}。",
        f"- {name}: {w.short(best)} has the lowest total cost (score "
        f"{best['total_cost_score']:.2f}); {gap_text}; {trend}.",
    )
    comma = "、" if w.zh else ", "
    talk = comma.join(
        f"{w.short(_row_of(result, g['sku'], g['supplier_code']))}（{w.pct(g['pct'])}）"
        if w.zh
        else f"{w.short(_row_of(result, g['sku'], g['supplier_code']))} ({w.pct(g['pct'])})"
        for g in cheaper
    )
    watch = comma.join(
        f"{w.short(r)}（{r['history']['trend_pct']:+.1f}%）"
        if w.zh
        else f"{w.short(r)} ({r['history']['trend_pct']:+.1f}%)"
        for r in rising
    )
    recommendation = w.say(
        f"- {name}：优先向 {w.short(best)} 采购"
        + (f"；拿官网价与 {talk} 重新议价" if cheaper else "")
        + (f"；关注 {watch} 的涨价。" if rising else "；价格趋势平稳。"),
        f"- {name}: buy from {w.short(best)} first"
        + (f"; renegotiate with {talk} using their web prices" if cheaper else "")
        + (f"; watch rising prices at {watch}." if rising else "; prices are stable."),
    )
    return conclusion, recommendation


def _sources(w: Words, result: dict[str, Any], erp_n: int) -> list[str]:
    lines = [w.say("## 来源", "## Sources"), ""]
    names = {
        (p["sku"], r["supplier_code"]): w.name(r, "supplier_")
        for p in result.get("parts") or []
        for r in p.get("suppliers") or []
    }
    for s in result.get("sources") or []:
        who = names.get((s["sku"], s["supplier_code"]), s["supplier_code"])
        lines.append(f"{s['n']}. {s['url']} — {who}，{s['sku']}" if w.zh
                     else f"{s['n']}. {s['url']} — {who}, {s['sku']}")  # fmt: skip
    day = w.day(result.get("generated_at"))
    months = (result.get("window") or {}).get("months", 12)
    lines.append(w.say(f"{erp_n}. ERP 价目表（{day} 查询）",
                       f"{erp_n}. ERP price list (read on {day})"))  # fmt: skip
    lines.append(w.say(f"{erp_n + 1}. ERP 采购订单（近 {months} 个月）",
                       f"{erp_n + 1}. ERP purchase orders (last {months} months)"))  # fmt: skip
    return lines


def render_report(run: Run, result: dict[str, Any], charts: list[tuple[str, str, str]]) -> str:
    """The report in the request's language; ``charts``: ``(kind, title, relative path)``."""
    w = Words(run.zh)
    cat = result.get("category") or {}
    erp_n = len(result.get("sources") or []) + 1
    months = int((result.get("window") or {}).get("months") or 12)
    day = w.day(result.get("generated_at"))
    parts = result.get("parts") or []
    lines = [
        w.say(f"# {w.name(cat)}供应商比价分析报告", f"# {w.name(cat)}: supplier price comparison"),
        "",
        w.say(f"> 请求：{result.get('request')}", f"> Request: {result.get('request')}"),
        ">",  # one line each in HTML and PDF too
        w.say(f"> 日期：{day}；任务编号：{run.task_id}", f"> Date: {day}; task: {run.task_id}"),
        ">",
        w.say("> 由离线规划器生成（未使用大模型），数字来自 ERP 与供应商官网。",
              "> Produced by the offline planner (no language model); figures from the ERP and "
              "the suppliers' web shops."),
        "",
    ]  # fmt: skip
    lines += [*_summary(w, result), *_scope(w, result), *_method(w, result)]
    for part in parts:
        lines += _part_section(w, part, erp_n, months)
    lines += _charts(w, charts)
    findings = [f for f in (_findings(w, result, p) for p in parts) if f is not None]
    lines += [w.say("## 结论", "## Conclusions"), "", *(c for c, _ in findings), ""]
    lines += [w.say("## 建议", "## Recommendations"), "", *(r for _, r in findings), ""]
    lines += _sources(w, result, erp_n)
    return "\n".join(lines) + "\n"
