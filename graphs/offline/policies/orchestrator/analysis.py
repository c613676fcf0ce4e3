"""An analysis request: ground it in the ERP, then start one background analysis per category
with its scope (brands, window, parts, suppliers left out, domestic or imported), or ask
which category when none is known.

Never on nothing: a request that names no category the ERP knows gets a question (with
the candidates when its words fit several), and one that is not about purchasing at all
("分析一下这段代码") gets the one-sentence scope answer, not a background run.
"""

from __future__ import annotations

import re
from typing import Any

from graphs.names import CJK, name_variants
from graphs.offline import lexicon
from graphs.offline.entities import (
    Grounding,
    by_head_noun,
    category_terms,
    find_suppliers,
    ruled_out,
    token_spans,
)
from graphs.offline.history import View
from graphs.offline.intent import Reading
from graphs.offline.policies.base import Decision, say
from graphs.offline.policies.orchestrator import replies
from graphs.offline.policies.orchestrator.erp import ErpData, read_erp
from graphs.offline.scope import Scope
from graphs.offline.text import find_window_months
from graphs.orders.language import buyer_language
from graphs.prompts import DELEGATION_TEMPLATE

__all__ = ["analysis", "delegation"]

ANALYST = "analyst"
Record = dict[str, Any]


def delegation(view: View, *, analysis: bool, scope: str, body: str | None = None) -> str:
    """The delegation message (DESIGN section 4's sections) for the analyst or order agent."""
    zh = buyer_language(view.messages) == "zh"
    goal = (
        say(zh, "按 5 个阶段完成供应商比价 / 采购分析并写报告",
            "Run the 5-stage procurement analysis and write the report")
        if analysis
        else say(zh, "执行用户的订单操作（提交前需人工审批）",
                 "Carry out the user's order operation (human approval before committing)")
    )  # fmt: skip
    output = (
        say(zh, "/analysis/report_YYYYMMDD_<任务号末 8 位>.md（摘要、表格、2-4 张图、结论、建议、"
            "带 URL 的编号来源），返回结构化摘要",
            "/analysis/report_YYYYMMDD_<last 8 of the task id>.md (summary, tables, 2-4 charts, "
            "conclusions, recommendations, numbered sources with URLs); return a structured "
            "summary")
        if analysis
        else say(zh, "订单号、状态、明细与金额的确认",
                 "Confirmation with order number, status, lines and total")
    )  # fmt: skip
    return DELEGATION_TEMPLATE.format(
        goal=goal, preferences=say(zh, "无", "none"), body=(body or view.request).strip(),
        scope=scope, output=output,
    )  # fmt: skip


def _overlap(word: str, term: str) -> bool:
    """Whether an unknown word shares a name with a category term (滤清器 / "filter")."""
    if CJK.search(word):
        return any(word[i : i + 2] in term for i in range(len(word) - 1))
    stem = word.lower().rstrip("s")
    return len(stem) >= 4 and stem in re.split(r"[\s\-]+", term.lower())


def candidates(found: Grounding, categories: list[Record]) -> list[Record]:
    """Categories sharing a word with what the buyer named (several: ask which)."""
    return [
        c
        for c in categories
        if any(_overlap(w, t) for w in found.unknown for t in category_terms(c))
    ]


def _brands(found: Grounding) -> tuple[list[str], list[str]]:
    makers = [m.record for m in found.suppliers if m.record.get("kind") != "distributor"]
    codes = [str(s.get("code")) for s in makers]
    names: list[str] = []
    for s in makers:
        for n in [s.get("code"), *name_variants(s.get("name_zh"), s.get("name_en"))]:
            if n and str(n) not in names:
                names.append(str(n))
    return codes, names


def categories_named(found: Grounding, erp: ErpData) -> list[Record]:
    """The categories a request names: by name, through its parts, or by a head noun that
    only one category has ("grips" → Handlebar Grip)."""
    cats = [m.record for m in found.categories]
    if not cats:
        codes = {str(m.record.get("category_code")) for m in found.parts}
        cats = [c for code in sorted(codes) if (c := erp.category(code)) is not None]
    if not cats:
        heads = by_head_noun(found.unknown, erp.categories)
        cats = heads if len(heads) == 1 else []
    return cats


def _origin(text: str) -> str | None:
    """ "domestic" ("只看国产的"), "imported" ("only imported brands"), or None."""
    masked = lexicon.mask(text, ("domestic", "imported"))
    if lexicon.has(masked, "domestic") and not lexicon.has(masked, "imported"):
        return "domestic"
    if lexicon.has(masked, "imported") and not lexicon.has(masked, "domestic"):
        return "imported"
    return None


def _ruled_out(erp: ErpData, text: str) -> tuple[list[str], list[str]]:
    """The suppliers the request leaves out ("除了博世", "exclude GZMT"): their codes, and the
    names the ruled-out makers' parts carry."""
    named = find_suppliers(text, erp.suppliers, skip=token_spans(text))
    out = Grounding(suppliers=ruled_out(text, named))
    codes = list(dict.fromkeys(str(m.record.get("code")) for m in out.suppliers))
    return codes, _brands(out)[1]


def _start(
    view: View, zh: bool, cats: list[Record], found: Grounding, text: str, erp: ErpData
) -> Decision:
    brands, brand_names = _brands(found)
    window = find_window_months(text)
    part = found.parts[0].code if len(found.parts) == 1 else None
    excluded, excluded_names = _ruled_out(erp, text)
    origin = _origin(text)
    calls = []
    for c in cats:
        in_cat = part if part and found.parts[0].record.get("category_code") == c["code"] else None
        here = [m.code for m in found.parts if m.record.get("category_code") == c["code"]]
        several = list(dict.fromkeys(here))
        scope = Scope(
            categories=[str(c["code"])], brands=brands, brand_names=brand_names,
            window_months=window, part=in_cat, parts=several if len(several) > 1 else [],
            excluded=excluded, excluded_names=excluded_names, origin=origin,
        )  # fmt: skip
        description = delegation(view, analysis=True, scope=scope.to_text(), body=text)
        calls.append(("start_async_task", {"description": description, "subagent_type": ANALYST}))
    names = ("、" if zh else ", ").join(str(c.get("name_zh" if zh else "name_en")) for c in cats)
    return Decision(
        say(zh, f"交给后台分析师：{names}。", f"Handing it to the background analyst: {names}."),
        calls,
        note="route-analyst",
    )


def analysis(view: View, reading: Reading, zh: bool, text: str | None = None) -> Decision:
    """The next step for an analysis request (``text``: the request with earlier answers)."""
    text = text or view.request
    erp = read_erp(view, text, zh)
    if isinstance(erp, Decision):
        return erp
    found = erp.ground(text)
    cats = categories_named(found, erp)
    if cats:
        if not view.has_tool("start_async_task"):
            return Decision(replies.out_of_scope(zh), note="no-analyst")
        return _start(view, zh, cats, found, text, erp)
    options = candidates(found, erp.categories)
    if not (reading.domain or found.anything or options):
        return Decision(replies.out_of_scope(zh), note="out-of-scope")
    return Decision(
        replies.ask_category(zh, found.unknown, options, erp.categories),
        note="ask:category",
    )
