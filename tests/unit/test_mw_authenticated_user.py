"""With auth on, the authenticated caller is the run's user, whatever the context claims.

The server (langgraph-api) puts the caller in the run's config as ``langgraph_auth_user``,
``langgraph_auth_user_id`` and ``langgraph_auth_permissions``; these tests pass the same
keys to a real deep agent and check the effects: whose Store folder a write lands in,
which folder is refused, what the model is told, and the context the run hands on.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage

from graphs.context import ACT_AS_PERMISSION, Context, authenticated_user, claimed_user, user_of
from graphs.middleware.authenticated_user import AuthenticatedUser, pin_user
from graphs.middleware.context_injection import ContextInjection
from tests.unit.test_mw_support import agent, call, make_env, recording, scripted, thread


def authed(
    identity: str, *, permissions: tuple[str, ...] = (), authenticated: bool = True
) -> dict[str, Any]:
    """A run config as the Agent Server builds it for a caller its auth handler accepted."""
    config = thread()
    config["configurable"].update(
        langgraph_auth_user={
            "identity": identity,
            "display_name": identity.title(),
            "is_authenticated": authenticated,
            "permissions": list(permissions),
        },
        langgraph_auth_user_id=identity,
        langgraph_auth_permissions=list(permissions),
    )
    return config


def _ns(env: Any, user: str) -> list[str]:
    """The files stored under ``/memories/<user>/``, as the Store holds them."""
    keys = [item.key for item in env.store.search(("files", "memories"))]
    return sorted(k.removeprefix(f"/{user}") for k in keys if k.startswith(f"/{user}/"))


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ({}, None),
        ({"configurable": {}}, None),
        # langgraph dev without auth: an UnauthenticatedUser stored as None, id "".
        ({"configurable": {"langgraph_auth_user": None, "langgraph_auth_user_id": ""}}, None),
        (authed("alice", authenticated=False), None),
        (authed("svc", permissions=(ACT_AS_PERMISSION,)), None),
        (authed("alice"), ("alice", "Alice")),
        # A developer through Studio / LangSmith's own auth may test as any user.
        (
            {
                "configurable": {
                    "langgraph_auth_user": {
                        "kind": "StudioUser",
                        "identity": "dev-1",
                        "is_authenticated": True,
                    },
                    "langgraph_auth_user_id": "dev-1",
                }
            },
            None,
        ),
        (authed("bob", permissions=("threads:read",)), ("bob", "Bob")),
    ],
)
def test_who_counts_as_authenticated(
    config: dict[str, Any], expected: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("LANGSMITH_LANGGRAPH_API_VARIANT", raising=False)  # as when hosted
    assert authenticated_user(config) == expected


def test_an_unverified_studio_user_under_langgraph_dev_is_held_to_its_identity(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("LANGSMITH_LANGGRAPH_API_VARIANT", "local_dev")
    user = {"kind": "StudioUser", "identity": "langgraph-studio-user", "is_authenticated": True}
    config = {"configurable": {"langgraph_auth_user": user,
                               "langgraph_auth_user_id": "langgraph-studio-user"}}  # fmt: skip
    assert authenticated_user(config) == ("langgraph-studio-user", "langgraph-studio-user")


def test_outside_a_run_there_is_no_authenticated_user() -> None:
    assert authenticated_user() is None
    assert claimed_user({"user_id": "u1"}) == ("u1", None)
    assert user_of(None) == ("anonymous", "anonymous")


async def test_a_claimed_user_id_is_replaced_by_the_callers(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    turns = [
        [call("write_file", {"file_path": "/memories/alice/notes.md", "content": "mine"})],
        [call("write_file", {"file_path": "/memories/bob/notes.md", "content": "hijack"}, 1)],
        "done",
    ]
    model = recording(*turns)
    graph = agent(env, model, [AuthenticatedUser(), ContextInjection()], backend=env.scoped())
    context = Context(user_id="bob", username="Bob")
    result = await graph.ainvoke(
        {"messages": [HumanMessage("记下来")]}, authed("alice"), context=context
    )

    texts = [m.text for m in result["messages"] if isinstance(m, ToolMessage)]
    assert "Updated file /memories/alice/notes.md" in texts[0], texts
    assert "Access denied" in texts[1] and "/memories/alice/" in texts[1], texts
    assert _ns(env, "alice") == ["/notes.md"]
    assert _ns(env, "bob") == []
    # every model call was told the run is alice's, never bob's
    assert all("user_id=alice" in seen and "bob" not in seen for seen in model.seen)
    # The context object itself now names alice: that is what an async subagent inherits.
    assert (context.user_id, context.username) == ("alice", "Alice")


async def test_without_auth_the_context_is_trusted(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    turns = [[call("write_file", {"file_path": "/memories/bob/n.md", "content": "x"})], "ok"]
    graph = agent(env, scripted(*turns), [AuthenticatedUser()], backend=env.scoped())
    context = Context(user_id="bob")
    await graph.ainvoke({"messages": [HumanMessage("go")]}, thread(), context=context)
    assert _ns(env, "bob") == ["/n.md"]
    assert context.user_id == "bob"


async def test_a_service_allowed_to_act_as_users_names_them(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    turns = [[call("write_file", {"file_path": "/memories/carol/n.md", "content": "x"})], "ok"]
    graph = agent(env, scripted(*turns), [AuthenticatedUser()], backend=env.scoped())
    config = authed("rpc-adapter", permissions=(ACT_AS_PERMISSION,))
    carol = Context(user_id="carol")
    await graph.ainvoke({"messages": [HumanMessage("go")]}, config, context=carol)
    assert _ns(env, "carol") == ["/n.md"]
    assert _ns(env, "rpc-adapter") == []


def test_pinning_a_dict_context_and_refusing_one_that_cannot_be_pinned() -> None:
    from langchain_core.runnables.config import var_child_runnable_config

    token = var_child_runnable_config.set(authed("alice"))  # what get_config() reads
    try:
        as_dict: dict[str, Any] = {"user_id": "bob", "client_tools": []}
        assert pin_user(as_dict) is True
        assert as_dict == {"user_id": "alice", "username": "Alice", "client_tools": []}
        assert pin_user(as_dict) is False  # already pinned

        @dataclass(frozen=True)
        class Frozen:
            user_id: str = "bob"

        with pytest.raises(TypeError, match="cannot pin"):
            pin_user(Frozen())
    finally:
        var_child_runnable_config.reset(token)
