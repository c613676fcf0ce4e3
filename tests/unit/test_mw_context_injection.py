"""ContextInjection: the user's identity and preferences path, three-level fallback, fails soft."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from graphs.context import Context, user_fields
from graphs.middleware import context_injection
from graphs.middleware.context_injection import CONTEXT_MESSAGE_ID, ContextInjection
from tests.unit.test_mw_support import Boom, agent, make_env, scripted, thread


def _context_messages(result: dict[str, Any]) -> list[SystemMessage]:
    return [
        m for m in result["messages"] if isinstance(m, SystemMessage) and m.id == CONTEXT_MESSAGE_ID
    ]


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        (None, None),
        ({}, None),
        ({"username": "Ann"}, None),
        ({"user_id": ""}, None),
        ({"user_id": "../etc"}, None),
        ({"user_id": "u1"}, ("u1", "u1")),
        ({"user_id": "u1", "username": "  "}, ("u1", "u1")),
        ({"user_id": "u1", "username": "Ann"}, ("u1", "Ann")),
        (Context(user_id="u2", username="Bo"), ("u2", "Bo")),
        (Context(user_id="u2"), ("u2", "u2")),
    ],
)
def test_three_level_fallback(context: object, expected: tuple[str, str] | None) -> None:
    assert user_fields(context) == expected


async def test_injects_once_per_thread_with_the_preferences_path(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    graph = agent(env, scripted("hi", "again"), [ContextInjection()])
    config = thread()
    ctx = Context(user_id="u1", username="Ann")
    first = await graph.ainvoke({"messages": [HumanMessage("你好")]}, config, context=ctx)
    [note] = _context_messages(first)
    assert "user_id=u1" in note.text and "username=Ann" in note.text
    assert "/memories/u1/preferences.md" in note.text
    second = await graph.ainvoke({"messages": [HumanMessage("在吗")]}, config, context=ctx)
    assert len(_context_messages(second)) == 1


async def test_a_changed_name_replaces_the_note_in_place(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    graph = agent(env, scripted("a", "b"), [ContextInjection()])
    config = thread()
    await graph.ainvoke({"messages": [HumanMessage("x")]}, config, context=Context(user_id="u1"))
    result = await graph.ainvoke(
        {"messages": [HumanMessage("y")]}, config, context=Context(user_id="u1", username="Ann")
    )
    [note] = _context_messages(result)
    assert "username=Ann" in note.text


@pytest.mark.parametrize("context", [None, {}, {"username": "Ann"}])
async def test_no_user_no_message(tmp_path: Path, context: object) -> None:
    # Without a context schema the context arrives as sent (the Context dataclass would
    # default user_id to "anonymous", which is a user).
    env = make_env(tmp_path)
    graph = agent(env, scripted("hi"), [ContextInjection()], context_schema=None)
    result = await graph.ainvoke({"messages": [HumanMessage("hi")]}, thread(), context=context)
    assert _context_messages(result) == []
    assert result["messages"][-1].text == "hi"


async def test_fails_soft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(_context: object) -> None:
        raise Boom("context exploded")

    monkeypatch.setattr(context_injection, "user_fields", boom)
    env = make_env(tmp_path)
    graph = agent(env, scripted("still here"), [ContextInjection()])
    result = await graph.ainvoke(
        {"messages": [HumanMessage("hi")]}, thread(), context=Context(user_id="u1")
    )
    assert result["messages"][-1].text == "still here"
    assert _context_messages(result) == []
