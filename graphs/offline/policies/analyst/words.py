"""The report's words in the request's language: statuses, trends, dates, money, names.

The analysis script returns codes (``on_hold``, ``rising``, ``median_order_line``); a
reader sees words. One table per language keeps a Chinese report free of English and an
English one free of Chinese; names (suppliers, parts, brands) stay as the ERP spells them.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

__all__ = ["Words"]

_ZH: dict[str, str] = {
    "active": "正常",
    "on_hold": "暂停合作",
    "blocked": "已停用",
    "in_stock": "有货",
    "out_of_stock": "缺货",
    "discontinued": "已停产",
    "rising": "上涨",
    "falling": "下降",
    "flat": "平稳",
    "one_month": "仅一个月，无趋势",
    "no_data": "无成交",
    "no_web_quote": "无官网报价",
    "median_order_line": "近 {months} 个月该零件 {lines} 笔订单行数量的中位数",
    "largest_moq": "窗口内无订单，取各供应商起订量中的最大值",
}
_EN: dict[str, str] = {
    "active": "active",
    "on_hold": "on hold",
    "blocked": "blocked",
    "in_stock": "in stock",
    "out_of_stock": "out of stock",
    "discontinued": "discontinued",
    "rising": "rising",
    "falling": "falling",
    "flat": "flat",
    "one_month": "one month only, no trend",
    "no_data": "no orders",
    "no_web_quote": "no web quote",
    "median_order_line": "median quantity of the part's order lines ({lines}) in the last "
    "{months} months",
    "largest_moq": "no orders in the window: the largest minimum order quantity of its offers",
}
# Units as an English reader writes them (the ERP keeps Chinese units).
_UNITS_EN = {"个": "pcs", "件": "pcs", "片": "pcs", "条": "pcs", "支": "pcs", "只": "pcs",
             "套": "sets", "副": "sets", "组": "sets", "对": "pairs"}  # fmt: skip
_MONTHS_EN = (
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
)  # fmt: skip
# Company-form words a buyer drops when naming a supplier ("Chongqing Moto Parts Supply
# Chain" → "Chongqing Moto"; "重庆摩配供应链有限公司" → "重庆摩配").
_SUFFIX_ZH = re.compile(r"(有限公司|股份|公司|供应链|贸易|配件销售|销售|集团)+$")
_SUFFIX_EN = re.compile(
    r"(\s+(co\.?|corp\.?|corporation|ltd\.?|inc\.?|group|company|engineering|trading|sales"
    r"|supply chain|parts|spark plug|lighting|battery|chain|racing|brakes|tire|power"
    r"|chemical|catene|filter))+$",
    re.I,
)


class Words:
    """How one report says things: ``zh`` for Chinese, else English."""

    def __init__(self, zh: bool) -> None:
        self.zh = zh
        self._table = _ZH if zh else _EN

    def __call__(self, code: Any, **values: Any) -> str:
        """The word for a code (the code itself, de-underscored, when it has none)."""
        text = self._table.get(str(code))
        if text is None:
            return str(code).replace("_", " ")
        return text.format(**values) if values else text

    def say(self, chinese: str, english: str) -> str:
        """The sentence in this report's language."""
        return chinese if self.zh else english

    def day(self, value: Any) -> str:
        """A date as the reader writes it: 2026年12月3日 / 3 Dec 2026."""
        try:
            d = date.fromisoformat(str(value)[:10])
        except ValueError:
            return str(value)
        if self.zh:
            return f"{d.year}年{d.month}月{d.day}日"
        return f"{d.day} {_MONTHS_EN[d.month - 1]} {d.year}"

    def month(self, value: str) -> str:
        """``YYYY-MM`` as 2026年3月 / Mar 2026."""
        year, _, month = value.partition("-")
        if not month.isdigit():
            return value
        if self.zh:
            return f"{year}年{int(month)}月"
        return f"{_MONTHS_EN[int(month) - 1]} {year}"

    def money(self, value: Any, currency: str = "CNY") -> str:
        """An amount with its currency: 12.50 元 / CNY 12.50 (— when unknown)."""
        if value is None:
            return "—"
        amount = f"{float(value):,.2f}"
        if self.zh:
            return f"{amount} 元" if currency == "CNY" else f"{amount} {currency}"
        return f"{currency} {amount}"

    def unit(self, value: Any) -> str:
        """An ERP unit in this language (个 → pcs for an English reader)."""
        text = str(value or "")
        return text if self.zh else _UNITS_EN.get(text, text)

    def pct(self, value: float) -> str:
        """A gap as words: 低 21% / 21% below (高 / above for a positive gap)."""
        size = f"{abs(value):.0f}%"
        if self.zh:
            return f"低 {size}" if value < 0 else f"高 {size}"
        return f"{size} below" if value < 0 else f"{size} above"

    def name(self, record: dict[str, Any], prefix: str = "") -> str:
        """A record's name in this language (``prefix``: ``supplier_`` for supplier rows)."""
        zh, en = record.get(f"{prefix}name_zh"), record.get(f"{prefix}name_en")
        return str((zh if self.zh else en) or en or zh or record.get(f"{prefix}code") or "")

    def short(self, row: dict[str, Any], limit: int | None = None) -> str:
        """A supplier row's short name (company forms dropped), cut to ``limit`` characters
        for a chart label."""
        full = self.name(row, "supplier_")
        pattern = _SUFFIX_ZH if self.zh else _SUFFIX_EN
        short = pattern.sub("", full).strip() or full
        return short if limit is None or len(short) <= limit else short[: limit - 1] + "…"
