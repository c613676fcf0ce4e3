"""Reading a buyer's words without a model: intent classes, quantities, dates, order numbers.

Everything here is general; names (suppliers, parts, categories) are matched against the
ERP's own answers by :mod:`graphs.names`, never against a list of phrases.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import date, timedelta
from typing import Literal

from graphs.names import CJK

__all__ = [
    "Intent",
    "classify",
    "find_date",
    "find_order_no",
    "find_quantity",
    "is_chinese",
]

Intent = Literal["analysis", "order", "greeting", "other"]

# DESIGN section 4's routing classes, Chinese and English.
_ANALYSIS = (
    "分析", "对比", "比较", "报告", "建议", "评估", "行情", "比价", "筛选", "选型",
    r"\banaly[sz]", r"\bcompar", r"\breport", r"\brecommend", r"\bevaluat", r"\bassess",
    r"\bmarket", r"\bbenchmark", r"\bshortlist", r"\bscreen", r"\bprice comparison",
)  # fmt: skip
_ORDER = (
    "下单", "创建订单", "订单", "采购单", "订购", "修改", "更新", "取消", "订单状态",
    "改成", "改为",
    r"\bplace (an |the |a )?order", r"\border\b", r"\borders\b", r"\bpurchase order", r"\bbuy\b",
    r"\bcancel", r"\bupdate", r"\bmodify", r"\bchange\b", r"\bstatus\b", r"\bPO\d",
)  # fmt: skip
_GREETING = (
    "你好", "您好", "在吗", "你是谁", "谢谢", "早上好", "晚上好", "哈喽",
    r"^\s*(hi|hello|hey|thanks|thank you|good (morning|afternoon|evening))\b", r"\bwho are you",
)  # fmt: skip


def is_chinese(text: str) -> bool:
    """Whether to answer in Chinese: the text has any CJK ideograph."""
    return bool(CJK.search(text))


def _first_hit(text: str, patterns: Sequence[str]) -> int | None:
    best: int | None = None
    for p in patterns:
        m = re.search(p, text, re.I)
        if m and (best is None or m.start() < best):
            best = m.start()
    return best


def first_routing_word(text: str) -> int | None:
    """Where the earliest analysis or order keyword starts in ``text`` (None: neither)."""
    hits = [h for h in (_first_hit(text, _ANALYSIS), _first_hit(text, _ORDER)) if h is not None]
    return min(hits) if hits else None


def classify(text: str) -> Intent:
    """The request's class by DESIGN's keyword classes; when two match, the earlier word wins."""
    analysis, order = _first_hit(text, _ANALYSIS), _first_hit(text, _ORDER)
    if analysis is not None and (order is None or analysis <= order):
        return "analysis"
    if order is not None:
        return "order"
    if _first_hit(text, _GREETING) is not None:
        return "greeting"
    return "other"


_ORDER_NO = re.compile(r"\b(PO[-_]?\d{6,}[-\d]*)\b", re.I)


def find_order_no(text: str) -> str | None:
    """An order number such as ``PO20251100001`` in the text."""
    m = _ORDER_NO.search(text)
    return m.group(1).upper() if m else None


_UNITS = (
    r"个|件|只|套|条|片|副|支|盒|箱|根|台|对|pcs|pc|pieces|piece|units|unit|sets|set|pairs|pair"
)
_QTY_PATTERNS = (
    re.compile(r"(?:数量|qty|quantity)\s*(?:[:：=为是]|of|to)?\s*(\d[\d,]*)", re.I),
    re.compile(r"(?:改成|改为|调整为|变成|to)\s*(\d[\d,]*)\s*(?:" + _UNITS + r")?", re.I),
    re.compile(r"(\d[\d,]*)\s*(?:" + _UNITS + r")(?![a-z])", re.I),
)
_DATEISH = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}\s*月\s*\d{1,2}\s*[日号]?|\d+\s*天|\d+\s*days?|\d+\s*周",
    re.I,
)


def find_quantity(text: str, *, exclude: Iterable[str] = ()) -> int | None:
    """A whole quantity the buyer asked for, or ``None``.

    A number with a unit (``200 个``, ``200 pcs``), after 数量/qty, or after 改成/to;
    else a lone integer that is not part of a date, an order number or a part model.
    """
    cleaned = _ORDER_NO.sub(" ", text)
    for token in exclude:
        if token:
            cleaned = re.sub(re.escape(token), " ", cleaned, flags=re.I)
    cleaned = _DATEISH.sub(" ", cleaned)
    for pattern in _QTY_PATTERNS:
        m = pattern.search(cleaned)
        if m:
            value = int(m.group(1).replace(",", ""))
            if value > 0:
                return value
    lone = [
        int(m.group(0))
        for m in re.finditer(r"(?<![\w.\-/])\d{1,7}(?![\w.\-/])", cleaned)
        if int(m.group(0)) > 0
    ]
    return lone[0] if len(lone) == 1 else None


_WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_WEEKDAYS_EN = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3,
    "friday": 4, "saturday": 5, "sunday": 6,
}  # fmt: skip


def find_date(text: str, today: date) -> date | None:
    """A delivery date in the text (absolute or relative to ``today``), or ``None``."""
    m = re.search(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})", text)
    if m:
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return None
    m = re.search(r"(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]", text)
    if m:
        try:
            d = date(today.year, int(m.group(1)), int(m.group(2)))
        except ValueError:
            return None
        return d if d >= today else date(today.year + 1, d.month, d.day)
    monday = today - timedelta(days=today.weekday())
    m = re.search(r"(下下|下|本|这|)\s*(?:周|星期|礼拜)([一二三四五六日天])", text)
    if m:
        offset = {"下下": 14, "下": 7}.get(m.group(1), 0)
        d = monday + timedelta(days=offset + _WEEKDAYS_ZH[m.group(2)])
        return d if d > today else d + timedelta(days=7)
    m = re.search(r"\b(next|this|by|on)?\s*(" + "|".join(_WEEKDAYS_EN) + r")\b", text, re.I)
    if m:
        weekday = _WEEKDAYS_EN[m.group(2).lower()]
        offset = 7 if (m.group(1) or "").lower() == "next" else 0
        d = monday + timedelta(days=offset + weekday)
        return d if d > today else d + timedelta(days=7)
    if "后天" in text or "day after tomorrow" in text.lower():
        return today + timedelta(days=2)
    if "明天" in text or re.search(r"\btomorrow\b", text, re.I):
        return today + timedelta(days=1)
    m = re.search(r"(\d+)\s*天(?:内|后|之内|以内)", text) or re.search(
        r"\b(?:in|within)\s+(\d+)\s+days?\b", text, re.I
    )
    if m:
        return today + timedelta(days=int(m.group(1)))
    m = re.search(r"(\d+)\s*周(?:内|后|之内|以内)", text) or re.search(
        r"\b(?:in|within)\s+(\d+)\s+weeks?\b", text, re.I
    )
    if m:
        return today + timedelta(weeks=int(m.group(1)))
    return None
