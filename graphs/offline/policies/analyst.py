"""Analyst policy: the five stages of the procurement-analysis skill, on the real tools.

1. ``ls /skills/procurement/`` and read the skill;
2. data: the ERP catalogue (``part_query`` pages) → the category the request names
   (matched against the ERP's own category names, Chinese or English) → part details
   with offers and inventory → quote URLs from ``url_mapping.yaml`` (``grep`` +
   ``read_file``) → ``fetch_url`` per quote page → 12 months of orders per part;
3. the skill's analysis script, written to the sandbox with the collected data and
   run with ``execute`` → ``/data/analysis_result.json``;
4. 2-4 charts through ``generate_visualization``;
5. ``/analysis/report_YYYYMMDD.md`` with numbered sources, copied to
   ``/reports/{user_id}/``, and a structured summary as the final answer.
"""

from __future__ import annotations

import json
import math
import re
from datetime import date, timedelta
from typing import Any

from graphs.messages import parse_json
from graphs.names import match_names
from graphs.offline.history import ToolResult, View, strip_line_numbers
from graphs.offline.policies.base import Decision, blocked, request_body, say
from graphs.offline.text import is_chinese

__all__ = ["MAX_PARTS", "decide"]

SKILLS = "/skills/procurement/"
SKILL_MD = "/skills/procurement/procurement-analysis/SKILL.md"
SCRIPT = "/skills/procurement/procurement-analysis/scripts/analyze.py"
URL_MAP_DIR = "/skills/procurement/supplier-price-urls/data/"
URL_MAP = URL_MAP_DIR + "url_mapping.yaml"
INPUT = "/data/analysis_input.json"
RESULT = "/data/analysis_result.json"
SANDBOX_SCRIPT = "/data/analyze.py"
PAGE = 100
MAX_PARTS = 3  # parts analysed per request: the ones most suppliers offer
MAX_DETAILS = 40  # part details fetched to choose them
FX_TO_CNY = {"CNY": 1.0, "USD": 7.2}
_NEEDED = {"part_query", "supplier_query", "order_search_details", "grep"}
_URL = re.compile(r"https?://[^\s)\"'<>\]]+")
_SITES = re.compile(r"供应商网站当前地址：(\S+?)。")
_USER = re.compile(r"user_id=([^;,\s]+)")


class _Run:
    """What this analysis has established so far, re-read from the conversation each step."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.body = request_body(view.request)
        self.zh = is_chinese(self.body)
        self.today = date.today()
        m = _USER.search(view.system)
        self.user_id = m.group(1) if m else "anonymous"

    def say(self, chinese: str, english: str) -> str:
        return say(self.zh, chinese, english)

    def results(self, tool: str, **args: Any) -> list[ToolResult]:
        return [
            r for r in self.view.called(tool) if all(r.args.get(k) == v for k, v in args.items())
        ]


def _catalogue(run: _Run) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """All ERP parts (paged ``part_query`` with no filter), or the page calls still needed."""
    pages: dict[int, dict[str, Any]] = {}
    for r in run.view.called("part_query"):
        if set(r.args) - {"page", "size"} or not r.ok:
            continue
        data = r.data()
        if isinstance(data, dict) and isinstance(data.get("items"), list):
            pages[int(r.args.get("page", 1))] = data
    if not pages:
        return [], [{"page": 1, "size": PAGE}]
    first = pages.get(1) or next(iter(pages.values()))
    total = int(first.get("total") or 0)
    count = max(1, math.ceil(total / PAGE))
    missing = [{"page": p, "size": PAGE} for p in range(1, count + 1) if p not in pages]
    if missing:
        return [], missing
    return [i for p in sorted(pages) for i in pages[p]["items"] if isinstance(i, dict)], None


def _categories(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for p in parts:
        code = str(p.get("category_code") or "")
        if code and code not in seen:
            seen[code] = {
                "code": code,
                "name_zh": p.get("category_zh"),
                "name_en": p.get("category_en"),
            }
    return list(seen.values())


def _focus_candidates(run: _Run, in_category: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Narrow a category to the models, SKUs or brands the request names, if any."""
    named = match_names(run.body, in_category, ("sku", "model"))
    if named:
        return [m.record for m in named]
    brands = match_names(run.body, in_category, ("brand", "brand_zh"))
    if brands:
        best = brands[0].strength
        return [m.record for m in brands if m.strength == best]
    return in_category


def _details(run: _Run) -> dict[int, dict[str, Any]]:
    out: dict[int, dict[str, Any]] = {}
    for r in run.view.called("part_query"):
        if "part_id" in r.args and r.ok:
            data = r.data()
            if isinstance(data, dict) and "offers" in data:
                out[int(r.args["part_id"])] = data
    return out


def _quote_urls(run: _Run, sku: str) -> dict[str, str] | None:
    """``{supplier code: url}`` for a SKU from the url_mapping read, or None if not read yet."""
    for r in run.view.called("read_file"):
        if r.args.get("file_path") != URL_MAP or not r.ok:
            continue
        text = strip_line_numbers(r.content)
        block = re.search(
            r"^  " + re.escape(sku) + r":\n(.*?)(?=^  \S|\Z)", text + "\n", re.M | re.S
        )
        if block is None:
            continue
        quotes = re.search(r"^    quotes:\n((?:^      .*\n?)*)", block.group(1), re.M)
        urls: dict[str, str] = {}
        if quotes:
            for line in quotes.group(1).splitlines():
                m = re.match(r"^\s+([A-Z0-9_&-]+):\s*(\S+)", line)
                if m:
                    urls[m.group(1)] = m.group(2)
        return urls
    return None


def _mapping_base(run: _Run) -> str | None:
    """The ``base_url`` url_mapping.yaml's URLs were generated with, once its head was read."""
    for r in run.results("read_file", file_path=URL_MAP, offset=0):
        m = re.search(r"^base_url:\s*(\S+)", strip_line_numbers(r.content), re.M)
        return m.group(1).rstrip("/") if m else ""
    return None


def _rebase(run: _Run, url: str) -> str:
    """A quote URL moved to where the shops run now (the system prompt says where)."""
    base = _mapping_base(run)
    sites = _SITES.search(run.view.system)
    if base and sites and url.startswith(base + "/"):
        return sites.group(1).rstrip("/") + url[len(base) :]
    return url


def _grep_line(run: _Run, sku: str) -> int | bool | None:
    """Line of ``sku``'s url_mapping.yaml entry; False if grep found none; None if not asked."""
    for r in run.results("grep", pattern=f"  {sku}:"):
        m = re.search(r"(\d+):\s+" + re.escape(sku) + r":", r.content)
        return int(m.group(1)) if m else False
    return None


def _orders(
    run: _Run, part_id: int, since: str
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    pages: dict[int, dict[str, Any]] = {}
    for r in run.results("order_search_details", part_id=part_id, date_from=since):
        data = r.data()
        if r.ok and isinstance(data, dict):
            pages[int(r.args.get("page", 1))] = data
    if not pages:
        return [], {"part_id": part_id, "date_from": since, "page": 1, "size": PAGE}
    last = pages[max(pages)]
    if last.get("has_more"):
        return [], {"part_id": part_id, "date_from": since, "page": max(pages) + 1, "size": PAGE}
    return [o for p in sorted(pages) for o in pages[p].get("items") or []], None


def _fetched(run: _Run, url: str) -> ToolResult | None:
    found = run.results("fetch_url", url=url)
    return found[-1] if found else None


def _stage_data(run: _Run) -> Decision | dict[str, Any]:
    """Stage 2: returns the next data call, or the collected input for the analysis."""
    parts, pages = _catalogue(run)
    if pages is not None:
        return Decision(
            run.say(
                "阶段 2：读取 ERP 零件目录，识别要分析的类别。",
                "Stage 2: reading the ERP catalogue to find the category.",
            ),
            [("part_query", args) for args in pages],
            note="catalogue",
        )
    categories = _categories(parts)
    hits = match_names(run.body, categories, ("name_zh", "name_en"))
    if not hits:
        names = "、".join(f"{c['name_zh']}（{c['name_en']}）" for c in categories)
        return Decision(
            run.say(
                f"没能从请求中识别出 ERP 的零件类别。ERP 中的类别有：{names}。请指明类别后再试。",
                f"I could not tell which ERP part category to analyse. The ERP has: {names}. "
                "Name one and ask again.",
            ),
            note="no-category",
        )
    category = hits[0].record
    in_category = [p for p in parts if p.get("category_code") == category["code"]]
    candidates = _focus_candidates(run, in_category)[:MAX_DETAILS]
    details = _details(run)
    missing = [p for p in candidates if int(p["id"]) not in details]
    if missing:
        return Decision(
            run.say(
                f"类别：{category['name_zh']}（{len(in_category)} 个零件）。读取报价与库存。",
                f"Category: {category['name_en']} ({len(in_category)} parts). Reading offers "
                "and stock.",
            ),
            [("part_query", {"part_id": int(p["id"])}) for p in missing],
            note="details",
        )
    focus = sorted(
        (details[int(p["id"])] for p in candidates),
        key=lambda d: (-len(d.get("offers") or []), int(d["id"])),
    )[:MAX_PARTS]
    # Quote URLs: find each SKU in url_mapping.yaml, then read its entry.
    ask_grep = [d for d in focus if _grep_line(run, d["sku"]) is None]
    if ask_grep:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("grep", {"pattern": f"  {d['sku']}:", "path": URL_MAP_DIR, "output_mode": "content"})
            for d in ask_grep
        ]
        if _mapping_base(run) is None:  # the head says which base_url the URLs were made with
            calls.append(("read_file", {"file_path": URL_MAP, "offset": 0, "limit": 5}))
        return Decision(
            run.say(
                "查找供应商报价网址（supplier-price-urls）。",
                "Looking up the suppliers' quote URLs (supplier-price-urls).",
            ),
            calls,
            note="grep-urls",
        )
    reads = []
    for d in focus:
        line = _grep_line(run, d["sku"])
        if isinstance(line, int) and line and _quote_urls(run, d["sku"]) is None:
            reads.append(
                ("read_file", {"file_path": URL_MAP, "offset": max(0, line - 1), "limit": 20})
            )
    if reads:
        return Decision(
            run.say("读取报价网址。", "Reading the quote URLs."), reads, note="read-urls"
        )
    suppliers, supplier_page = _suppliers(run)
    if supplier_page is not None:
        return Decision(
            run.say("读取供应商状态。", "Reading the suppliers' status."),
            [("supplier_query", supplier_page)],
            note="suppliers",
        )
    since = (run.today - timedelta(days=365)).isoformat()
    fetches: list[tuple[str, dict[str, Any]]] = []
    order_calls: list[tuple[str, dict[str, Any]]] = []
    collected: list[dict[str, Any]] = []
    for d in focus:
        codes = {str(o.get("supplier_code")) for o in d.get("offers") or []}
        urls = _quote_urls(run, d["sku"]) or {}
        quotes = []
        for code, mapped in sorted(urls.items()):
            if code not in codes:
                continue
            url = _rebase(run, mapped)
            result = _fetched(run, url)
            if result is None:
                fetches.append(("fetch_url", {"url": url}))
            elif result.ok:
                quotes.append({"supplier_code": code, "url": url, "text": result.content})
        orders, next_page = _orders(run, int(d["id"]), since)
        if next_page is not None:
            order_calls.append(("order_search_details", next_page))
        collected.append(
            {
                "id": d["id"],
                "sku": d["sku"],
                "model": d.get("model"),
                "name_zh": d.get("name_zh"),
                "name_en": d.get("name_en"),
                "unit": d.get("unit"),
                "offers": d.get("offers") or [],
                "inventory": d.get("inventory") or {},
                "quotes": quotes,
                "orders": orders,
            }
        )
    if fetches or order_calls:
        return Decision(
            run.say(
                f"抓取 {len(fetches)} 个供应商报价页，读取近 12 个月订单。",
                f"Fetching {len(fetches)} quote pages and 12 months of orders.",
            ),
            [*fetches, *order_calls],
            note="fetch",
        )
    return {
        "request": run.body.strip(),
        "today": run.today.isoformat(),
        "category": category,
        "suppliers": {
            str(s.get("code")): {"status": s.get("status"), "rating": s.get("rating")}
            for s in suppliers
        },
        "parts": collected,
    }


def _suppliers(run: _Run) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Every ERP supplier (for status and rating), or the next page to ask for."""
    pages: dict[int, dict[str, Any]] = {}
    for r in run.results("supplier_query", name=""):
        data = r.data()
        if r.ok and isinstance(data, dict):
            pages[int(r.args.get("page", 1))] = data
    if not pages:
        return [], {"name": "", "page": 1, "size": PAGE}
    if pages[max(pages)].get("has_more"):
        return [], {"name": "", "page": max(pages) + 1, "size": PAGE}
    return [s for p in sorted(pages) for s in pages[p].get("items") or []], None


def _charts(run: _Run, result: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    parts = result.get("parts") or []
    if not parts:
        return []
    main = parts[0]
    name = main.get("name_zh") if run.zh else main.get("name_en")
    rows = main.get("suppliers") or []
    compare: list[dict[str, Any]] = []
    for row in rows:
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
    charts: list[tuple[str, dict[str, Any]]] = [
        (
            "column",
            {
                "title": run.say(f"{name} 供应商报价对比（元）", f"{name}: prices (CNY)"),
                "axisYTitle": run.say("元", "CNY"),
                "group": True,
                "data": compare,
            },
        ),
    ]
    trend = [
        {"time": m["month"], "value": m["avg_price"], "group": row["supplier_code"]}
        for row in rows
        for m in (row.get("history") or {}).get("months") or []
    ]
    if trend:
        charts.append(
            (
                "line",
                {
                    "title": run.say(
                        f"{name} 近 12 个月成交均价", f"{name}: paid price, last 12 months"
                    ),
                    "axisYTitle": run.say("元", "CNY"),
                    "data": trend,
                },
            )
        )
    charts.append(
        (
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
    )
    if len(parts) > 1:
        charts.append(
            (
                "column",
                {
                    "title": run.say(
                        "各型号最优供应商总成本评分", "Best total-cost score per model"
                    ),
                    "data": [
                        {"category": p["sku"], "value": p["suppliers"][0]["total_cost_score"]}
                        for p in parts
                        if p.get("suppliers")
                    ],
                },
            )
        )
    return charts[:4]


def _chart_urls(run: _Run) -> list[tuple[str, str]]:
    out = []
    for r in run.view.called("generate_visualization"):
        m = _URL.search(r.content) if r.ok else None
        if m:
            out.append((str((r.args.get("chart_config") or {}).get("title", "chart")), m.group(0)))
    return out


def _money(value: Any) -> str:
    return "—" if value is None else f"{value:,.2f}"


def _report(run: _Run, result: dict[str, Any], charts: list[tuple[str, str]]) -> str:
    zh = run.zh
    cat = result.get("category") or {}
    cat_name = cat.get("name_zh") if zh else cat.get("name_en")
    lines = [
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
    sources = {s["n"]: s for s in result.get("sources") or []}
    erp_n = len(sources) + 1
    for part in result.get("parts") or []:
        rows = [r for r in part.get("suppliers") or [] if r.get("rank")]
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
    lines += [
        "",
        say(zh, "## 方法", "## Method"),
        "",
        say(
            zh,
            f"总成本评分 = {result['method']['score']}。汇率假设："
            f"{json.dumps(result['method']['fx_to_cny'])}。成交均价取近 "
            f"{result['method']['history_window_days']} 天的 ERP 订单（数量加权）。",
            f"Total-cost score = {result['method']['score']}. FX assumption: "
            f"{json.dumps(result['method']['fx_to_cny'])}. Paid price: quantity-weighted, "
            f"ERP orders of the last {result['method']['history_window_days']} days.",
        ),
        "",
    ]
    for part in result.get("parts") or []:
        name = part.get("name_zh") if zh else part.get("name_en")
        inv = part.get("inventory") or {}
        lines += [
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
        for row in part.get("suppliers") or []:
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
                "—"
                if hist.get("trend_pct") is None
                else f"{hist.get('trend')} ({hist['trend_pct']:+.1f}%)"
            )
            supplier = row.get("supplier_name_zh") if zh else row.get("supplier_name_en")
            active = row.get("supplier_status", "active") == "active"
            status = "" if active else f", {row.get('supplier_status')}"
            lines.append(
                f"| {row['rank'] or '—'} | {supplier} ({row['supplier_code']}{status}) | "
                f"{_money(row['contract_price'])} {row['currency']} [{erp_n}] | {row['moq']} | "
                f"{row['lead_time_days']} | {web_cell} | {stock} | "
                f"{_money(hist.get('avg_paid_price'))} [{erp_n + 1}] | {trend} | "
                f"{row['total_cost_score']:.2f} |"
            )
        lines.append("")
    if charts:
        lines += [say(zh, "## 图表", "## Charts"), ""]
        lines += [f"![{title}]({url})" for title, url in charts]
        lines.append("")
    lines += [say(zh, "## 结论", "## Conclusions"), ""]
    recs: list[str] = []
    for part in result.get("parts") or []:
        rows = [r for r in part.get("suppliers") or [] if r.get("rank")]
        if not rows:
            continue
        best, name = rows[0], (part.get("name_zh") if zh else part.get("name_en"))
        cheaper_web = [
            r
            for r in rows
            if (r.get("web") or {}).get("price_at_ref_qty") is not None
            and r["web"]["price_at_ref_qty"] * FX_TO_CNY.get(str(r["web"].get("currency")), 1.0)
            < r["contract_price_cny"]
        ]
        rising = [r for r in rows if (r.get("history") or {}).get("trend") == "rising"]
        lines.append(
            say(
                zh,
                f"- {name}：{best['supplier_code']} 综合成本最低"
                f"（评分 {best['total_cost_score']:.2f}）；"
                f"{len(cheaper_web)} 家供应商官网价低于合同价；"
                f"{len(rising)} 家近 12 个月成交价上涨。",
                f"- {name}: {best['supplier_code']} has the lowest total cost (score "
                f"{best['total_cost_score']:.2f}); {len(cheaper_web)} suppliers quote below "
                f"contract on the web; {len(rising)} show rising paid prices over 12 months.",
            )
        )
        recs.append(
            say(
                zh,
                f"- {name}：优先向 {best['supplier_code']} 采购；"
                + (
                    f"与 {', '.join(r['supplier_code'] for r in cheaper_web)} 依据官网价重新议价；"
                    if cheaper_web
                    else ""
                )
                + (
                    f"关注 {', '.join(r['supplier_code'] for r in rising)} 的涨价趋势。"
                    if rising
                    else "价格趋势平稳。"
                ),
                f"- {name}: buy from {best['supplier_code']} first"
                + (
                    "; renegotiate with "
                    + ", ".join(r["supplier_code"] for r in cheaper_web)
                    + " using their web prices"
                    if cheaper_web
                    else ""
                )
                + (
                    f"; watch rising prices at {', '.join(r['supplier_code'] for r in rising)}."
                    if rising
                    else "; prices are stable."
                ),
            )
        )
    lines += ["", say(zh, "## 建议", "## Recommendations"), "", *recs, ""]
    lines += [say(zh, "## 来源", "## Sources"), ""]
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
    return "\n".join(lines) + "\n"


def decide(view: View) -> Decision:
    """Next step of the analyst."""
    run = _Run(view)
    # Quote pages and charts may fail one by one (the report says so); anything else
    # the plan needs failing ends the run with the error rather than a retry loop.
    needed = [
        r
        for r in view.last_turn()
        if r.name in _NEEDED
        or (r.name == "read_file" and r.args.get("file_path") != SKILL_MD)
        or (r.name == "write_file" and str(r.args.get("file_path", "")).startswith("/data/"))
    ]
    stop = blocked(needed, run.zh)
    if stop is not None:
        return stop
    if not view.called("ls"):
        return Decision(
            run.say("阶段 1：查看可用技能。", "Stage 1: checking the skills."),
            [("ls", {"path": SKILLS}), ("read_file", {"file_path": SKILL_MD, "limit": 400})],
            note="skills",
        )
    stamp = run.today.strftime("%Y%m%d")
    report_path = f"/analysis/report_{stamp}.md"
    store_path = f"/reports/{run.user_id}/report_{stamp}.md"
    if not run.results("execute"):
        step = _stage_data(run)
        if isinstance(step, Decision):
            return step
        script = run.results("read_file", file_path=SCRIPT)
        if not script:
            return Decision(
                run.say("阶段 3：读取分析脚本。", "Stage 3: reading the analysis script."),
                [("read_file", {"file_path": SCRIPT, "limit": 5000})],
                note="script",
            )
        if not run.results("write_file", file_path=INPUT):
            return Decision(
                run.say(
                    "阶段 3：把数据和脚本写入沙箱。",
                    "Stage 3: writing data and script to the sandbox.",
                ),
                [
                    (
                        "write_file",
                        {"file_path": INPUT, "content": json.dumps(step, ensure_ascii=False)},
                    ),
                    (
                        "write_file",
                        {
                            "file_path": SANDBOX_SCRIPT,
                            "content": strip_line_numbers(script[-1].content) + "\n",
                        },
                    ),
                ],
                note="write-input",
            )
        return Decision(
            run.say(
                "阶段 3：在沙箱中运行分析脚本。", "Stage 3: running the analysis in the sandbox."
            ),
            [("execute", {"command": f"cd /data && python3 {SANDBOX_SCRIPT} {INPUT} {RESULT}"})],
            note="execute",
        )
    executed = run.results("execute")[-1]
    if "wrote" not in executed.content:
        return Decision(
            run.say(
                f"分析脚本运行失败：\n{executed.content[:2000]}",
                f"The analysis script failed:\n{executed.content[:2000]}",
            ),
            note="script-failed",
        )
    read = run.results("read_file", file_path=RESULT)
    if not read:
        return Decision(
            run.say("阶段 4：读取分析结果。", "Stage 4: reading the analysis result."),
            [("read_file", {"file_path": RESULT, "limit": 100000})],
            note="read-result",
        )
    result = parse_json(strip_line_numbers(read[-1].content))
    if not isinstance(result, dict):
        return Decision(
            run.say("无法读取分析结果。", "Could not read the analysis result."), note="bad-result"
        )
    if not run.view.called("generate_visualization"):
        charts = _charts(run, result)
        return Decision(
            run.say(
                f"阶段 4：生成 {len(charts)} 张图表。", f"Stage 4: drawing {len(charts)} charts."
            ),
            [("generate_visualization", {"chart_type": t, "chart_config": c}) for t, c in charts],
            note="charts",
        )
    charts_made = _chart_urls(run)
    if not run.results("write_file", file_path=report_path):
        report = _report(run, result, charts_made)
        return Decision(
            run.say("阶段 5：写报告并存档。", "Stage 5: writing and filing the report."),
            [
                ("write_file", {"file_path": report_path, "content": report}),
                ("write_file", {"file_path": store_path, "content": report}),
            ],
            note="report",
        )
    failed = [r for r in run.view.called("write_file") if not r.ok]
    return Decision(
        _summary(run, result, charts_made, report_path, store_path, failed), note="done"
    )


def _summary(
    run: _Run,
    result: dict[str, Any],
    charts: list[tuple[str, str]],
    report_path: str,
    store_path: str,
    failed: list[ToolResult],
) -> str:
    lines = [
        run.say("分析完成。", "Analysis complete."),
        run.say(
            f"报告：{report_path}（沙箱）；存档：{store_path}",
            f"Report: {report_path} (sandbox); filed at {store_path}",
        ),
    ]
    for part in result.get("parts") or []:
        rows = [r for r in part.get("suppliers") or [] if r.get("rank")]
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
