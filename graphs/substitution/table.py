"""The replacement table in the buyer's language: the answer and the approval card (issue 19).

One Markdown table row per affected line: line, old part, new part, how well it matches,
the attributes that match (and those that differ), the price difference per unit and for the
line's quantity, the supplier and the availability (stock, lead time). People see names
(part names, supplier names), never database ids. Lines without an exact equivalent are
listed again under the table, each with the reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from graphs.substitution.plan import Plan, PlanRow

__all__ = ["Lang", "money", "outcome_text", "table_text"]

Lang = Literal["zh", "en"]

_STATUS = {
    "exact": ("完全等效", "exact"),
    "partial": ("部分等效", "partial"),
    "none": ("无等效件", "no equivalent"),
    "not_found": ("ERP 中没有此零件", "not in the ERP"),
    "ambiguous": ("型号不唯一", "ambiguous part number"),
    "error": ("查询失败", "lookup failed"),
}


def _pick(lang: Lang, zh: str, en: str) -> str:
    return zh if lang == "zh" else en


def money(minor: int | None, currency: str | None, *, signed: bool = False) -> str:
    """``1086000, "CNY"`` → ``"10,860.00 CNY"`` (``signed``: ``"+10,860.00 CNY"``)."""
    if minor is None:
        return "?"
    sign = "-" if minor < 0 else ("+" if signed and minor > 0 else "")
    whole, frac = divmod(abs(int(minor)), 100)
    return f"{sign}{whole:,}.{frac:02d} {currency or ''}".rstrip()


def _cell(text: Any) -> str:
    return str(text).replace("|", "/").replace("\n", " ")


def _name(part: Mapping[str, Any] | None, lang: Lang, fallback: str) -> str:
    if not part:
        return fallback
    return str(part.get(_pick(lang, "name_zh", "name_en")) or part.get("model") or fallback)


def _supplier(offer: Mapping[str, Any] | None, lang: Lang) -> str:
    if not offer:
        return _pick(lang, "无有效报价", "no current offer")
    return str(offer.get(_pick(lang, "supplier_name_zh", "supplier_name_en")) or "?")


def _price_diff(row: PlanRow, lang: Lang) -> str:
    new, old = row["new_offer"], row["old_offer"]
    if not new:
        return "—"
    currency = new.get("currency")
    if not old or old.get("currency") != currency:
        return _pick(lang, "新单价 ", "new unit price ") + money(new.get("price_minor"), currency)
    diff = int(new.get("price_minor") or 0) - int(old.get("price_minor") or 0)
    text = money(diff, currency, signed=True)
    if row["qty"]:
        total = round(diff * float(row["qty"]))
        text += _pick(lang, "（合计 ", " (total ") + money(total, currency, signed=True)
        text += _pick(lang, "）", ")")
    return text


def _availability(row: PlanRow, lang: Lang) -> str:
    parts = []
    if row["available"] is not None:
        parts.append(_pick(lang, f"库存 {row['available']}", f"{row['available']} in stock"))
    offer = row["new_offer"]
    if offer and offer.get("lead_time_days") is not None:
        days = offer["lead_time_days"]
        parts.append(_pick(lang, f"交期 {days} 天", f"lead time {days} d"))
    moq = int((offer or {}).get("min_order_qty") or 0)
    if row["qty"] is not None and moq > row["qty"]:
        parts.append(_pick(lang, f"起订 {moq}（高于用量）", f"MOQ {moq} (above the quantity)"))
    return _pick(lang, "，", ", ").join(parts) or "—"


def _different(row: PlanRow) -> str:
    out = []
    for key, values in row["different"].items():
        if isinstance(values, Mapping):
            out.append(f"{key} {values.get('part')}→{values.get('equivalent')}")
        else:
            out.append(f"{key} {values}")
    return ", ".join(out)


def _match(row: PlanRow, lang: Lang) -> str:
    words = _STATUS[row["status"]]
    text = words[0] if lang == "zh" else words[1]
    if row["status"] == "partial" and row["different"]:
        text += _pick(lang, "（不同：", " (differs: ") + _different(row) + _pick(lang, "）", ")")
    return text


def _row(row: PlanRow, lang: Lang) -> str:
    cells = [
        row["line"],
        _name(row["old"], lang, row["bom_part"]),
        _name(row["new"], lang, "—"),
        _match(row, lang),
        ", ".join(row["same"]) or "—",
        _price_diff(row, lang),
        _supplier(row["new_offer"], lang) if row["new"] else "—",
        _availability(row, lang) if row["new"] else "—",
    ]
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _flags(plan: Plan, lang: Lang) -> list[str]:
    out = []
    for row in plan["rows"]:
        if row["status"] == "exact":
            continue
        name = _name(row["old"], lang, row["bom_part"])
        reason = _match(row, lang)
        if row["status"] in ("not_found", "ambiguous", "error") and row["note"]:
            reason += _pick(lang, "：", ": ") + row["note"][:200]
        out.append(_pick(lang, f"- 第 {row['line']} 行 {name}：{reason}",
                         f"- line {row['line']} {name}: {reason}"))  # fmt: skip
    return out


def table_text(plan: Plan, lang: Lang | None = None) -> str:
    """The replacement table with its heading and the flagged lines, in ``lang`` (default:
    the plan's)."""
    lang = lang or plan["lang"]
    product = f" {plan['product']}" if plan["product"] else ""
    head = _pick(
        lang,
        f"**BOM{product} 替换方案**：{len(plan['rows'])} 行受影响，"
        f"其余 {plan['untouched']} 行不变。",
        f"**BOM{product} replacement plan**: {len(plan['rows'])} line(s) affected, the other "
        f"{plan['untouched']} unchanged.",
    )
    header = _pick(
        lang,
        "| 行 | 原零件 | 新零件 | 匹配 | 相同属性 | 单价差 | 供应商 | 供货 |",
        "| Line | Old part | New part | Match | Matching attributes | Price difference "
        "(unit) | Supplier | Availability |",
    )
    lines = [head, "", header, "|" + "---|" * 8, *(_row(r, lang) for r in plan["rows"])]
    flags = _flags(plan, lang)
    if flags:
        lines += ["", _pick(lang, "没有完全等效件的行：", "Lines without an exact equivalent:")]
        lines += flags
    others = plan.get("other_brands") or []
    if others:
        lines += ["", _pick(lang, f"这些行在其他品牌有等效件：{'、'.join(others)}。",
                            f"Other brands have equivalents for those lines: "
                            f"{', '.join(others)}.")]  # fmt: skip
    return "\n".join(lines)


def outcome_text(plan: Plan, applied: int, tool: str | None, lang: Lang | None = None) -> str:
    """One sentence on what was applied: through the client's ``tool``, or (None) as a
    batch-replace request the client runs."""
    lang = lang or plan["lang"]
    kept = plan["lines_total"] - applied
    if tool is None:
        return _pick(
            lang,
            f"已批准：{applied} 行的批量替换请求如下，由你的系统执行；其余 {kept} 行不变。",
            f"Approved: the batch-replace request for {applied} line(s) is below, for your "
            f"system to run; the other {kept} stay as they are.",
        )
    return _pick(
        lang,
        f"已通过你的工具 {tool} 替换 {applied} 行，其余 {kept} 行未改动。",
        f"Replaced {applied} line(s) through your tool {tool}; the other {kept} were not changed.",
    )
