"""The CLI's pieces that need no socket: defaults, --help, reading answers at the prompt."""

from __future__ import annotations

import pytest

from rpc_adapter.cli import apply_edit, default_url, parse_pairs, parser


def test_the_default_url_is_the_adapter_in_the_agent_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("RPC_URL", raising=False)
    monkeypatch.delenv("LANGGRAPH_PORT", raising=False)
    assert default_url() == "ws://127.0.0.1:2024/v1/ws"
    monkeypatch.setenv("LANGGRAPH_PORT", "2124")
    assert default_url() == "ws://127.0.0.1:2124/v1/ws"


def test_help_describes_every_option() -> None:
    p = parser()
    for action in p._actions:
        assert action.help, f"{action.option_strings} has no help"
    text = p.format_help()
    assert "ws://127.0.0.1:$LANGGRAPH_PORT/v1/ws" in text and "--wait-background" in text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("quantity=300", {"quantity": 300}),
        (
            "quantity=300，expected_date=2026-12-11",
            {"quantity": 300, "expected_date": "2026-12-11"},
        ),
        ('{"quantity": 250}', {"quantity": 250}),
        ("两百个", None),
        ("", None),
    ],
)
def test_answers_read_at_the_prompt(text: str, expected: object) -> None:
    assert parse_pairs(text) == expected


def test_an_edit_changes_the_one_order_line() -> None:
    args = {"supplier_id": 3, "lines": [{"part_id": 7, "quantity": 200}], "note": "n"}
    edited = apply_edit(args, {"quantity": 300})
    assert edited["lines"] == [{"part_id": 7, "quantity": 300}]
    assert args["lines"][0]["quantity"] == 200  # the card's args are left as shown
    assert apply_edit(args, {"note": "urgent"})["note"] == "urgent"
    with pytest.raises(KeyError):
        apply_edit(args, {"colour": "red"})
