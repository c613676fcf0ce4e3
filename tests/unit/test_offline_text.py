"""Reading a buyer's words without a model: intent, quantity, dates, names."""

from __future__ import annotations

from datetime import date

import pytest

from graphs.names import match_names
from graphs.offline.text import classify, find_date, find_order_no, find_quantity

TODAY = date(2026, 12, 2)  # a Wednesday


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("帮我对摩托车火花塞做供应商比价分析", "analysis"),
        ("筛选一下轮胎供应商", "analysis"),
        ("给 NGK 下单 200 个火花塞", "order"),
        ("订单 PO20261200001 状态", "order"),
        ("Shortlist tyre suppliers", "analysis"),
        ("cancel PO20261200001", "order"),
        ("你是谁", "greeting"),
        ("hello there", "greeting"),
        ("今天天气", "other"),
        ("分析一下要不要下单", "analysis"),  # the earlier keyword wins
    ],
)
def test_classify(text: str, intent: str) -> None:
    assert classify(text) == intent


@pytest.mark.parametrize(
    ("text", "exclude", "qty"),
    [
        ("给 NGK 下单 200 个火花塞，下周五前到货", (), 200),
        ("下单火花塞 CR7HSA，12月20日到货", ("CR7HSA",), None),
        ("Order 1,500 pcs by 2026-12-20", (), 1500),
        ("数量：80", (), 80),
        ("把订单 PO20261200001 改成 500", (), 500),
        ("order 300 brake pads within 10 days", (), 300),
    ],
)
def test_find_quantity(text: str, exclude: tuple[str, ...], qty: int | None) -> None:
    assert find_quantity(text, exclude=exclude) == qty


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("下周五前到货", date(2026, 12, 11)),
        ("本周五", date(2026, 12, 4)),
        ("by next Friday", date(2026, 12, 11)),
        ("2026-12-20", date(2026, 12, 20)),
        ("1月5日", date(2027, 1, 5)),
        ("明天", date(2026, 12, 3)),
        ("10天内", date(2026, 12, 12)),
        ("no date here", None),
    ],
)
def test_find_date(text: str, expected: date | None) -> None:
    assert find_date(text, TODAY) == expected


def test_find_order_no() -> None:
    assert find_order_no("查询 po20261200012 的状态") == "PO20261200012"
    assert find_order_no("没有订单号") is None


def test_longest_name_wins_and_plurals_match() -> None:
    records = [
        {"code": "A", "zh": "火花塞", "en": "Spark Plug"},
        {"code": "B", "zh": "火花塞帽", "en": "Spark Plug Cap"},
        {"code": "C", "zh": "蓄电池", "en": "Battery"},
    ]
    assert [m.record["code"] for m in match_names("火花塞帽多少钱", records, ("zh", "en"))] == ["B"]
    found = match_names("compare spark plugs and batteries", records, ("zh", "en"))
    assert [m.record["code"] for m in found] == ["A", "C"]


def test_company_suffixes_are_optional() -> None:
    records = [{"zh": "重庆摩配供应链有限公司"}, {"zh": "天顶贸易有限公司"}]
    assert match_names("给重庆摩配下单", records, ("zh",))[0].record is records[0]
    assert match_names("天顶的报价", records, ("zh",))[0].record is records[1]
