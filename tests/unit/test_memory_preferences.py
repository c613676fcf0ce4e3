"""The preferences file's format: merge rules, caps, the user's own text kept byte for byte."""

from __future__ import annotations

from graphs.memory.preferences import (
    BLOCK_BEGIN,
    BLOCK_END,
    MAX_QUERIES,
    MAX_SUPPLIERS,
    Extraction,
    merge_preferences,
    merge_recent,
    parse_block,
)


def test_merge_recent_newest_first_no_duplicates_capped() -> None:
    assert merge_recent(["A", "B"], ["C", "a"], 10) == ["C", "a", "B"]
    many = [f"S{i}" for i in range(15)]
    assert merge_recent([], many, MAX_SUPPLIERS) == many[:10]
    assert merge_recent(["x"] * 3, [], 5) == ["x"]
    assert merge_recent(["old"], ["  "], 5) == ["old"]


def test_new_file_then_merge_keeps_user_text_byte_for_byte() -> None:
    first = merge_preferences(None, Extraction(["博世"], "比价火花塞"))
    recent, span = parse_block(first)
    assert recent.suppliers == ["博世"] and recent.queries == ["比价火花塞"] and span

    user_text = "# 我的偏好\n\n- 预算优先，交期其次\n- 不要用 X 公司\n"
    mine = user_text + "\n" + first[span[0] : span[1]] + "\n\n尾注：手写的。\n"
    merged = merge_preferences(mine, Extraction(["电装", "博世"], "下单刹车片"))
    recent2, span2 = parse_block(merged)
    assert recent2.suppliers == ["电装", "博世"]
    assert recent2.queries == ["下单刹车片", "比价火花塞"]
    assert span2 is not None
    assert merged[: span2[0]] == user_text + "\n"
    assert merged[span2[1] :] == "\n\n尾注：手写的。\n"


def test_user_file_without_block_gets_one_appended() -> None:
    text = "只用人民币报价。"
    merged = merge_preferences(text, Extraction(["Bosch"], None))
    assert merged.startswith("只用人民币报价。\n\n" + BLOCK_BEGIN)
    assert merged.rstrip().endswith(BLOCK_END)
    assert parse_block(merged)[0].queries == []


def test_caps_over_many_updates() -> None:
    text: str | None = None
    for i in range(12):
        text = merge_preferences(text, Extraction([f"S{i}"], f"q{i}"))
    assert text is not None
    recent, _ = parse_block(text)
    assert recent.suppliers == [f"S{i}" for i in range(11, 1, -1)]
    assert recent.queries == [f"q{i}" for i in range(11, 11 - MAX_QUERIES, -1)]
