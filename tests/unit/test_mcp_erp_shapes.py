"""Shaping ERP answers: money display, dropped nulls, has_more, line amounts."""

from __future__ import annotations

import pytest

from mcp_erp import shapes


@pytest.mark.parametrize(
    ("minor", "currency", "shown"),
    [
        (5430, "CNY", "54.30"),
        (5, "USD", "0.05"),
        (0, "EUR", "0.00"),
        (-1250, "cny", "-12.50"),
        (1200, "JPY", "1200"),
        (12345, "KWD", "12.345"),
    ],
)
def test_money(minor: int, currency: str, shown: str) -> None:
    assert shapes.money(minor, currency) == shown


def test_decode_drops_only_none() -> None:
    raw = '{"a": null, "b": 0, "c": "", "d": [{"e": null, "f": false}, null], "g": {"h": null}}'
    assert shapes.decode(raw) == {"b": 0, "c": "", "d": [{"f": False}, None], "g": {}}
    assert shapes.decode(b"[1, null]") == [1, None]


@pytest.mark.parametrize(
    ("total", "page", "size", "more"), [(41, 2, 20, True), (40, 2, 20, False), (0, 1, 20, False)]
)
def test_has_more(total: int, page: int, size: int, more: bool) -> None:
    shaped = shapes.page({"items": [], "total": total, "page": page, "size": size})
    assert shaped["has_more"] is more


def test_page_without_paging_fields_is_left_alone() -> None:
    assert shapes.page({"items": [1], "total": 1}) == {"items": [1], "total": 1}


def test_order_lines_get_display_amounts_and_keep_existing_ones() -> None:
    order = {
        "currency": "CNY",
        "lines": [{"amount_minor": 32580}, {"amount_minor": 100, "amount": "1.00 (ERP)"}],
    }
    shaped = shapes.order(order)
    assert [line["amount"] for line in shaped["lines"]] == ["325.80", "1.00 (ERP)"]
    listed = shapes.page({"items": [order], "total": 1, "page": 1, "size": 20})
    assert listed["items"][0]["lines"][0]["amount"] == "325.80"
