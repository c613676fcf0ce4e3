"""Parts nobody ordered over a period ("Which parts haven't been ordered in 6 months?",
"哪些零件半年没订过", "火花塞里哪些型号超过3个月没采购了"): the catalogue (of the category named,
else all of it) less the parts on the period's orders, which the ERP adds up by part
(``order_summary(group_by="part")``, cancelled orders left out). The last 6 months when no
period is named. Read-only.

From the nineteenth red-team round, where the question listed the period's orders instead.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from graphs.offline import lexicon
from graphs.offline.entities import Grounding
from graphs.offline.policies.base import Decision, local_name
from graphs.offline.policies.order.facts import Facts, paged
from graphs.offline.policies.order.history import named_period, period
from graphs.offline.text import find_window_months

__all__ = ["unordered_parts"]

Record = dict[str, Any]
_DEFAULT_MONTHS = 6
_PER_CATEGORY = 12  # models named per category; the rest counted
_OVER = re.compile(r"(?:超过|多于|已经|有)\s*(\d+|[一二两三四五六七八九十]+)\s*个?月")


def _span(facts: Facts) -> tuple[date, date]:
    """The period asked about: named ("this year", "半年"), a window ("for 4 months", "超过3个
    月"), or the last six months."""
    named = named_period(facts.body, facts.today)
    if named is not None:
        return named
    over = _OVER.search(facts.body)
    months = find_window_months(facts.body) or (
        int(over.group(1)) if over and over.group(1).isdigit() else None
    )
    return period("", facts.today, months=months or _DEFAULT_MONTHS)


def unordered_parts(facts: Facts, found: Grounding) -> Decision | None:
    """The parts with no order over the period (None: not such a question). Read one
    category at a time, so that no answer grows past what the graph keeps in the thread."""
    if not lexicon.has(facts.body, "not_ordered") or found.parts or found.suppliers:
        return None
    named = {m.record.get("code"): m.record for m in found.categories}
    if len(named) > 1:
        return None
    categories = list(named.values()) or facts.categories() or []
    if not categories:
        return None
    start, end = _span(facts)
    calls: list[tuple[str, dict[str, Any]]] = []
    ordered: set[str] = set()
    parts: list[Record] = []
    for category in categories:
        query = {"date_from": start.isoformat(), "date_to": end.isoformat(), "group_by": "part",
                 "category": category.get("code")}  # fmt: skip
        summary = facts.read("order_summary", query)
        if summary is None:
            calls.append(("order_summary", query))
        else:
            ordered |= {str(g.get("sku")) for g in summary.get("groups") or []}
        items, more = paged(facts.view, "part_query", category=category.get("code"))
        parts += items
        if more is not None:
            calls.append(("part_query", more))
    if calls:
        return Decision(facts.say("查询这段时间的订单和零件目录。",
                                  "Reading the period's orders and the catalogue."),
                        calls, note="dormant-read")  # fmt: skip
    idle = [p for p in parts if str(p.get("sku")) not in ordered]
    only = next(iter(named.values()), None)
    return Decision(_listed(facts, idle, len(parts), (start, end), only), note="dormant")


def _listed(
    facts: Facts, idle: list[Record], total: int, span: tuple[date, date], category: Record | None
) -> str:
    start, end = span
    what = local_name(category, facts.zh) if category else facts.say("零件", "parts")
    if not idle:
        return facts.say(
            f"{start} 至 {end}，{what}的 {total} 个零件都有订单。",
            f"From {start} to {end} each of the {total} {what} was ordered.",
        )
    groups: dict[str, list[str]] = {}
    for p in idle:
        key = str(p.get("category_zh" if facts.zh else "category_en") or p.get("category_code"))
        groups.setdefault(key, []).append(str(p.get("sku")))
    lines = []
    for name, skus in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        shown = ("、" if facts.zh else ", ").join(skus[:_PER_CATEGORY])
        rest = len(skus) - _PER_CATEGORY
        tail = facts.say(f" 等 {len(skus)} 个", f" and {rest} more") if rest > 0 else ""
        lines.append(f"- {name}（{len(skus)}）：{shown}{tail}" if facts.zh
                     else f"- {name} ({len(skus)}): {shown}{tail}")  # fmt: skip
    head = facts.say(
        f"{start} 至 {end} 没有订单的{what}：{len(idle)} 个（共 {total} 个；已取消的订单不算）：",
        f"{what.capitalize() if not category else what} with no order from {start} to {end}: "
        f"{len(idle)} of {total} (cancelled orders left out):",
    )
    more = facts.say("\n要看某个零件的库存或报价，告诉我型号。",
                     "\nName one for its stock or prices.")  # fmt: skip
    return head + "\n" + "\n".join(lines) + more
