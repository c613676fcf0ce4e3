"""Shaping ERP answers for the model: compact, but faithful to what the ERP said.

Answers are parsed by :func:`decode`, which drops ``None`` values (an absent key
reads as "not set"); nothing else the ERP returned is renamed or rounded. Two
things are added because a model needs them and cannot reliably derive them:
``has_more`` on paged lists, and the display string ``amount`` beside an order
line's ``amount_minor``.
"""

from __future__ import annotations

import json
from typing import Any

# ISO 4217 minor-unit exponents that differ from the usual 2.
_MINOR_DIGITS = {
    "BHD": 3,
    "CLP": 0,
    "ISK": 0,
    "JOD": 3,
    "JPY": 0,
    "KRW": 0,
    "KWD": 3,
    "OMR": 3,
    "TND": 3,
    "VND": 0,
}


def money(minor: int, currency: str) -> str:
    """``minor`` units of ``currency`` as the ERP displays money: ``5430, "CNY"`` → ``"54.30"``."""
    digits = _MINOR_DIGITS.get(currency.upper(), 2)
    if digits == 0:
        return str(minor)
    sign = "-" if minor < 0 else ""
    whole, frac = divmod(abs(minor), 10**digits)
    return f"{sign}{whole}.{frac:0{digits}d}"


def decode(raw: bytes | str) -> Any:
    """Parse an ERP answer, dropping every ``None``-valued key on the way (one pass)."""
    return json.loads(raw, object_hook=_without_none)


def _without_none(obj: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if v is not None}


def page(answer: Any) -> dict[str, Any]:
    """A paged ERP list with ``has_more`` telling whether a next page exists."""
    shaped = answer
    if not isinstance(shaped, dict):
        return {"items": shaped}
    items = shaped.get("items")
    total, number, size = shaped.get("total"), shaped.get("page"), shaped.get("size")
    if isinstance(total, int) and isinstance(number, int) and isinstance(size, int):
        shaped["has_more"] = number * size < total
    if isinstance(items, list) and items and isinstance(items[0], dict) and "lines" in items[0]:
        shaped["items"] = [_with_line_amounts(o) for o in items]
    return shaped


def order(answer: Any) -> dict[str, Any]:
    """One ERP order with display amounts on its lines."""
    shaped = answer
    if not isinstance(shaped, dict):
        return {"order": shaped}
    return _with_line_amounts(shaped)


def record(answer: Any) -> dict[str, Any]:
    """Any other single ERP object, as a JSON object."""
    return answer if isinstance(answer, dict) else {"result": answer}


def _with_line_amounts(order_: dict[str, Any]) -> dict[str, Any]:
    currency = order_.get("currency")
    lines = order_.get("lines")
    if not isinstance(currency, str) or not isinstance(lines, list):
        return order_
    for line in lines:
        if isinstance(line, dict) and isinstance(line.get("amount_minor"), int):
            line.setdefault("amount", money(line["amount_minor"], currency))
    return order_
