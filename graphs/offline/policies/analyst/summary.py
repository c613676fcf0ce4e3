"""Stage 5's last steps: the user's archive index, and the run's final answer.

The index (``/reports/{user_id}/index.md``) lists every report of the user, newest first,
with its exports: it is what the orchestrator shows for "my reports". The final answer
names the exact report file, links the downloads and shows the charts as Markdown images
(each on its own paragraph, so it never runs into the bullets around it) with the URLs
``download_artifact`` gave: the artifacts route, or the configured public base URL.
"""

from __future__ import annotations

import re
from typing import Any

from graphs.offline.policies.analyst.run import Run
from graphs.offline.policies.analyst.words import Words

__all__ = ["INDEX_HEAD", "INDEX_RULE", "final_answer", "index_row", "links"]

INDEX_RULE = "|---|---|---|---|---|"
INDEX_HEAD = (
    "# 分析报告存档 · Analysis reports\n\n"
    "最新的在前。Newest first.\n\n"
    "| 日期 Date | 报告 Report | 类别 Category | 导出 Exports | 任务 Task |\n" + INDEX_RULE + "\n"
)
_LINK = re.compile(r"^(/\S+) \(\d+ bytes\): (\S+)$", re.M)


def index_row(run: Run, result: dict[str, Any]) -> str:
    """The report's line in the archive index (links relative to the index)."""
    stem = run.paths.stem
    cat = Words(run.zh).name(result.get("category") or {})
    return (
        f"| {run.today.isoformat()} | [{stem}.md]({stem}.md) | {cat} | "
        f"[HTML]({stem}.html) · [PDF]({stem}.pdf) | {run.task_id} |"
    )


def links(run: Run) -> dict[str, str]:
    """``{path: download URL}`` from ``download_artifact`` and ``export_report``, whose
    answers give ``<path> (<n> bytes): <url>`` lines."""
    out: dict[str, str] = {}
    for r in [*run.view.called("download_artifact"), *run.view.called("export_report")]:
        if r.ok:
            out.update((m.group(1), m.group(2)) for m in _LINK.finditer(r.content))
    return out


def _headline(w: Words, result: dict[str, Any]) -> str:
    cat = result.get("category") or {}
    selection = result.get("selection") or {}
    analysed = len(result.get("parts") or [])
    total = selection.get("in_category", analysed)
    return w.say(
        f"分析完成：{w.name(cat)}，分析了 ERP 中 {total} 个零件里的 {analysed} 个"
        f"（选择规则与其余零件见报告“范围”一节）。",
        f"Analysis complete: {w.name(cat)}, {analysed} of the ERP's {total} parts analysed "
        "(the rule and the other parts are in the report's Scope section).",
    )


def _points(w: Words, result: dict[str, Any]) -> list[str]:
    lines = []
    for part in result.get("parts") or []:
        rows = [r for r in part.get("suppliers") or [] if r.get("rank")]
        if rows:
            best = rows[0]
            price = w.money(best["contract_price"], best["currency"])
            lines.append(
                w.say(
                    f"- {w.name(part)}（{part['sku']}）：推荐 {w.name(best, 'supplier_')}"
                    f"（合同价 {price}，评分 {best['total_cost_score']:.2f}）",
                    f"- {w.name(part)} ({part['sku']}): recommend {w.name(best, 'supplier_')} "
                    f"(contract {price}, score {best['total_cost_score']:.2f})",
                )
            )
    for gap in (result.get("deviations") or [])[:3]:
        part = next(p for p in result["parts"] if p["sku"] == gap["sku"])
        row = next(r for r in part["suppliers"] if r["supplier_code"] == gap["supplier_code"])
        lines.append(
            w.say(
                f"- {w.short(row)} 官网价比合同价{w.pct(gap['pct'])}（{w.name(part)}）",
                f"- {w.short(row)}: web price {w.pct(gap['pct'])} contract ({w.name(part)})",
            )
        )
    return lines


def final_answer(
    run: Run, result: dict[str, Any], charts: list[tuple[str, str, str]], problems: list[str]
) -> str:
    """The structured summary the orchestrator relays; ``charts``: (kind, title, path)."""
    w = Words(run.zh)
    paths = run.paths
    urls = links(run)
    lines = [
        _headline(w, result),
        "",
        w.say(
            f"报告：{paths.report}（存档：{paths.archived}）",
            f"Report: {paths.report} (filed at {paths.archived})",
        ),
    ]
    downloads = [
        f"[{label}]({urls[path]})"
        for label, path in (
            ("Markdown", paths.report),
            ("HTML", paths.report[:-3] + ".html"),
            ("PDF", paths.report[:-3] + ".pdf"),
        )
        if path in urls
    ]
    if downloads:
        lines.append(w.say("下载：", "Download: ") + " · ".join(downloads))
    lines += ["", w.say("要点：", "Key points:"), "", *_points(w, result), ""]
    shown = [(title, urls[f"/analysis/{path}"]) for _, title, path in charts
             if f"/analysis/{path}" in urls]  # fmt: skip
    if shown:
        lines += [w.say("图表：", "Charts:"), ""]
        for title, url in shown:
            lines += [f"![{title}]({url})", ""]
    elif not charts:
        lines += [
            w.say("图表没有生成（图表服务不可用）。", "No charts (chart server unavailable)."),
            "",
        ]
    sources = len(result.get("sources") or [])
    lines.append(w.say(f"来源：{sources} 个供应商报价页 + ERP。",
                       f"Sources: {sources} supplier quote pages + the ERP."))  # fmt: skip
    if problems:
        lines += ["", w.say("注意：", "Note: ") + "; ".join(problems)]
    return "\n".join(lines)
