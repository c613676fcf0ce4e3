"""Reading a buyer's words without a model: intent, negation, quantity, dates, windows, names."""

from __future__ import annotations

from datetime import date

import pytest

from graphs.names import match_names
from graphs.offline import lexicon
from graphs.offline.intent import read
from graphs.offline.text import (
    find_date,
    find_order_no,
    find_quantity,
    find_window_months,
    is_chinese,
    model_tokens,
    read_quantity,
)

TODAY = date(2026, 12, 2)  # a Wednesday


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("帮我对摩托车火花塞做供应商比价分析", "analysis"),
        ("筛选一下轮胎供应商", "analysis"),
        ("给 NGK 下单 200 个火花塞", "order_create"),
        ("给 NGK 下了一个单", "order_create"),  # a separable verb
        ("订单 PO20261200001 状态", "order_lookup"),
        ("Shortlist tyre suppliers", "analysis"),
        ("cancel PO20261200001", "order_cancel"),
        ("把 PO20261200001 改成 500 个", "order_change"),
        ("把上次给博世的订单取消", "order_cancel"),
        ("你是谁", "small_talk"),
        ("hello there", "small_talk"),
        ("翻译一下：hello", "out_of_scope"),  # a greeting inside another request
        ("今天天气", "out_of_scope"),
        ("不要下单，先比价", "analysis"),  # negation takes the order word back
        ("don't order yet, compare first", "analysis"),
        ("分析做完了吗", "analysis_status"),  # a status question outranks other words
        ("那个比价订单不用做了", "analysis_cancel"),
        ("哪些零件低于安全库存", "inventory"),
        ("do we need to reorder chains?", "inventory"),
    ],
)
def test_intent(text: str, intent: str) -> None:
    assert read(text).intent == intent


def test_negation_reaches_only_the_verb_after_it() -> None:
    masked = lexicon.mask("不要下单，先比价", ["order_verb", "analysis"])
    assert not lexicon.has(masked, "order_verb") and lexicon.has(masked, "analysis")
    # 不 in 不存在 negates nothing: the order verb stays.
    assert lexicon.has(lexicon.mask("给不存在公司下单", ["order_verb"]), "order_verb")


@pytest.mark.parametrize(
    ("text", "raw", "problem"),
    [("下 -50 个", "-50", "negative"), ("order 0 units", "0", "zero"),
     ("订 2.5 个", "2.5", "fraction"), ("两百条", "200", None), ("thirty shocks", "30", None)],
)  # fmt: skip
def test_bad_quantities_are_kept_bad(text: str, raw: str, problem: str | None) -> None:
    found = read_quantity(text)
    assert found is not None and found.raw == raw and found.problem == problem


def test_model_numbers_and_windows_and_language() -> None:
    assert model_tokens("给博世下 100 个 KN-189，2.75-18 4PR 也要") == ["KN-189", "2.75-18", "4PR"]
    assert find_window_months("近6个月刹车片价格") == 6
    assert find_window_months("how did tyre prices move last quarter?") == 3
    assert find_window_months("过去三个月链条") == 3 and find_window_months("链条价格") is None
    assert is_chinese("帮我 compare 一下 brake pads 的价格")
    assert not is_chinese("order 500 IU7 from 重庆摩配")
    # Codes, brands in capitals and model numbers are not English sentence words.
    assert is_chinese("NGK IU7 x 200，月底前到货")
    assert is_chinese("Bosch C8HSA 200个")
    assert is_chinese("KMC 520VX3-110L 链条 50 条")
    assert not is_chinese("NGK IU7 x 200, deliver to 重庆 warehouse by end of month")
    assert not is_chinese("Bosch 博世 C8HSA price please")


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
        ("两周内到货", date(2026, 12, 16)),
        ("月底前到", date(2026, 12, 31)),
        ("by the end of the month", date(2026, 12, 31)),
        ("by December 20", date(2026, 12, 20)),
        ("12月20号前", date(2026, 12, 20)),
        ("within two weeks", date(2026, 12, 16)),
        ("下个月底前到货", date(2027, 1, 31)),
        ("end of next month", date(2027, 1, 31)),
        ("两个月内到货", date(2027, 2, 2)),
        ("within 2 months", date(2027, 2, 2)),
        ("交期三个月以内", date(2027, 3, 2)),
        ("比较近6个月内的采购价", None),
        ("过去 3 个月内的订单", None),
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
