"""Storage isolation: a user's agent cannot read or write another user's memories or reports."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from deepagents.backends import StoreBackend
from langchain_core.messages import HumanMessage, ToolMessage
from langgraph.store.memory import InMemoryStore

from graphs.context import Context, valid_user_id
from graphs.user_scope import UserScopedBackend, user_scoped
from tests.unit.test_mw_support import agent, call, make_env, scripted, thread


def _tool_texts(result: dict[str, Any]) -> list[str]:
    return [m.text for m in result["messages"] if isinstance(m, ToolMessage)]


async def _run(env: Any, user: str, *calls: dict[str, Any]) -> list[str]:
    # One call per turn: deepagents refuses parallel writes to one path.
    turns = [[dict(c, id=f"call_{i}")] for i, c in enumerate(calls)]
    graph = agent(env, scripted(*turns, "ok"), [], backend=env.scoped())
    result = await graph.ainvoke(
        {"messages": [HumanMessage("go")]}, thread(), context=Context(user_id=user)
    )
    return _tool_texts(result)


async def test_two_users_own_files_only(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    secret = "u1 prefers NGK"
    await _run(
        env,
        "u1",
        call("write_file", {"file_path": "/memories/u1/preferences.md", "content": secret}),
        call("write_file", {"file_path": "/reports/u1/r.md", "content": "u1 report"}),
    )
    texts = await _run(
        env,
        "u2",
        call("read_file", {"file_path": "/memories/u1/preferences.md"}),
        call("read_file", {"file_path": "/reports/u1/r.md"}),
        call("write_file", {"file_path": "/memories/u1/preferences.md", "content": "hijack"}),
        call(
            "edit_file",
            {"file_path": "/memories/u1/preferences.md", "old_string": "NGK", "new_string": "X"},
        ),
        call("write_file", {"file_path": "/memories/u2/preferences.md", "content": "u2 own"}),
        call("read_file", {"file_path": "/memories/u2/preferences.md"}),
    )
    for text in texts[:4]:
        assert "Access denied" in text and "belongs to another user" in text, text
        assert secret not in text
    assert "u2 own" in texts[5]
    # u1's file is untouched.
    stored = {i.key: i.value["content"] for i in env.store.search(("files", "memories"))}
    assert stored["/u1/preferences.md"] == secret
    assert stored["/u2/preferences.md"] == "u2 own"


async def test_listing_and_search_show_only_own_folder(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    await _run(env, "u1", call("write_file", {"file_path": "/memories/u1/a.md", "content": "zeta"}))
    await _run(env, "u2", call("write_file", {"file_path": "/memories/u2/b.md", "content": "zeta"}))
    texts = await _run(
        env,
        "u2",
        call("ls", {"path": "/memories/"}),
        call("glob", {"pattern": "**/*.md", "path": "/memories/"}),
        call("grep", {"pattern": "zeta", "path": "/memories/"}),
        call("ls", {"path": "/memories/u1/"}),
        call("read_file", {"file_path": "/memories/u1/../u1/a.md"}),
    )
    assert "u2" in texts[0] and "u1" not in texts[0]
    assert "b.md" in texts[1] and "a.md" not in texts[1]
    assert "b.md" in texts[2] and "a.md" not in texts[2]
    assert "Access denied" in texts[3]
    # deepagents refuses '..' itself, before the scope check sees it.
    assert "Access denied" in texts[4] or "traversal not allowed" in texts[4]
    assert "zeta" not in texts[4]


async def test_no_user_means_no_per_user_storage() -> None:
    store = InMemoryStore()
    inner = StoreBackend(namespace=lambda _rt: ("files", "memories"), store=store)
    scoped = UserScopedBackend(inner, route="/memories/", user_id=lambda: None)
    result = await scoped.aread("/u1/preferences.md")
    assert result.error is not None and "no valid user_id" in result.error
    uploads = await scoped.aupload_files([("/u1/x.md", b"x")])
    assert uploads[0].error is not None
    downloads = await scoped.adownload_files(["/u1/x.md"])
    assert downloads[0].error == "permission_denied"


def test_scoped_upload_mixes_allowed_and_refused() -> None:
    store = InMemoryStore()
    inner = StoreBackend(namespace=lambda _rt: ("files", "reports"), store=store)
    scoped = UserScopedBackend(inner, route="/reports/", user_id=lambda: "u1")
    out = scoped.upload_files([("/u1/a.md", b"a"), ("/u2/b.md", b"b")])
    assert out[0].error is None and out[1].error is not None
    assert [i.key for i in store.search(("files", "reports"))] == ["/u1/a.md"]


def test_user_scoped_wraps_only_per_user_routes(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    scoped = user_scoped(env.backend)
    assert scoped.default is env.backend.default
    assert all(isinstance(b, UserScopedBackend) for b in scoped.routes.values())
    assert user_scoped(scoped).routes["/memories/"] is scoped.routes["/memories/"]


@pytest.mark.parametrize("bad", ["", "..", "a/b", "../x", ".hidden", "a b", None, 3])
def test_invalid_user_ids(bad: object) -> None:
    assert valid_user_id(bad) is None
