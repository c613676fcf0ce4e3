"""ContextInjection: the user's identity and preferences path in every model request (never in
the thread's messages), three-level fallback, fails soft."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, SystemMessage

from graphs.context import Context, user_fields
from graphs.middleware import context_injection
from graphs.middleware.context_injection import ContextInjection
from tests.unit.test_mw_support import Boom, agent, make_env, recording, thread


def _stored_notes(result: dict[str, Any]) -> list[SystemMessage]:
    return [m for m in result["messages"] if isinstance(m, SystemMessage)]


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


async def test_every_model_call_gets_the_note_the_thread_stores_none(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    model = recording("hi", "again")
    graph = agent(env, model, [ContextInjection()])
    config = thread()
    ctx = Context(user_id="u1", username="Ann")
    await graph.ainvoke({"messages": [HumanMessage("你好")]}, config, context=ctx)
    second = await graph.ainvoke({"messages": [HumanMessage("在吗")]}, config, context=ctx)
    assert len(model.seen) == 2
    for system in model.seen:
        assert "user_id=u1" in system and "username=Ann" in system
        assert "/memories/u1/preferences.md" in system
    assert _stored_notes(second) == []
    assert [m.text for m in second["messages"]] == ["你好", "hi", "在吗", "again"]


async def test_a_changed_name_shows_at_once(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    model = recording("a", "b")
    graph = agent(env, model, [ContextInjection()])
    config = thread()
    await graph.ainvoke({"messages": [HumanMessage("x")]}, config, context=Context(user_id="u1"))
    await graph.ainvoke(
        {"messages": [HumanMessage("y")]}, config, context=Context(user_id="u1", username="Ann")
    )
    assert "username=u1" in model.seen[0] and "username=Ann" in model.seen[1]


@pytest.mark.parametrize("context", [None, {}, {"username": "Ann"}])
async def test_no_user_no_note(tmp_path: Path, context: object) -> None:
    # Without a context schema the context arrives as sent (the Context dataclass would
    # default user_id to "anonymous", which is a user).
    env = make_env(tmp_path)
    model = recording("hi")
    graph = agent(env, model, [ContextInjection()], context_schema=None)
    result = await graph.ainvoke({"messages": [HumanMessage("hi")]}, thread(), context=context)
    assert "user_id=" not in model.seen[0]
    assert result["messages"][-1].text == "hi"


async def test_fails_soft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(_context: object) -> None:
        raise Boom("context exploded")

    monkeypatch.setattr(context_injection, "user_fields", boom)
    env = make_env(tmp_path)
    model = recording("still here")
    graph = agent(env, model, [ContextInjection()])
    result = await graph.ainvoke(
        {"messages": [HumanMessage("hi")]}, thread(), context=Context(user_id="u1")
    )
    assert result["messages"][-1].text == "still here"
    assert "user_id=" not in model.seen[0]
