"""The adapter app through Starlette's TestClient with a fake SDK client (no sockets)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from rpc_adapter.app import create_app
from rpc_adapter.settings import RpcSettings


class _Assistants:
    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.rows = rows

    async def search(self, **_: Any) -> list[dict[str, Any]]:
        return self.rows


class FakeClient:
    """Just enough of LangGraphClient for registration and listing."""

    def __init__(self, rows: list[dict[str, Any]]) -> None:
        self.assistants = _Assistants(rows)

    async def aclose(self) -> None:
        return None


def _client(rows: list[dict[str, Any]], **settings: Any) -> TestClient:
    app = create_app(RpcSettings(**settings), client_factory=lambda: FakeClient(rows))  # type: ignore[arg-type, return-value]
    return TestClient(app)


def test_unexpected_failure_is_internal_error_without_details() -> None:
    # an Agent Server answer of an unexpected shape must not leak a stack trace
    with _client([{"unexpected": True}]) as client, client.websocket_connect("/v1/ws") as ws:
        ws.send_json({"jsonrpc": "2.0", "method": "system.listAgents", "id": 1})
        reply = ws.receive_json()
        assert reply == {
            "jsonrpc": "2.0",
            "error": {"code": -32603, "message": "Internal error"},
            "id": 1,
        }
        ws.send_json({"jsonrpc": "2.0", "method": "system.ping", "id": 2})
        assert ws.receive_json()["result"]["pong"] is True


def test_register_lists_capabilities() -> None:
    rows = [{"graph_id": "orchestrator", "assistant_id": "a1", "name": "orchestrator"}]
    with _client(rows) as client, client.websocket_connect("/v1/ws?session_id=s") as ws:
        ws.send_json(
            {
                "jsonrpc": "2.0",
                "method": "agent.register",
                "params": {"client_id": "c", "agent_id": "orchestrator", "tools": []},
                "id": "r",
            }
        )
        status = ws.receive_json()
        assert status["method"] == "agent.status"
        assert status["params"]["status"] == "tools_synced"
        result = ws.receive_json()["result"]
        assert result["session_id"] == "s" and result["tools_count"] == 0
        assert result["capabilities"]["cancel"] is True


def test_token_refused_before_accept() -> None:
    with _client([], token="t") as client:
        with pytest.raises(WebSocketDisconnect) as err, client.websocket_connect("/v1/ws"):
            pass
        assert err.value.code == 1008
        with client.websocket_connect("/v1/ws", headers={"Authorization": "Bearer t"}) as ws:
            ws.send_json({"jsonrpc": "2.0", "method": "system.ping", "id": 1})
            assert ws.receive_json()["id"] == 1


class _User:
    """What the Agent Server's auth middleware puts in ``scope["user"]``."""

    def __init__(self, identity: str, authenticated: bool = True) -> None:
        self.identity, self.is_authenticated = identity, authenticated


def _as_user(app: Any) -> Any:
    """``app`` behind a stand-in for the server's auth: ``X-Test-User`` becomes the user."""

    async def wrapped(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] in ("http", "websocket"):
            name = dict(scope["headers"]).get(b"x-test-user", b"").decode()
            scope["user"] = _User(name, authenticated=bool(name))
        await app(scope, receive, send)

    return wrapped


def test_a_session_is_resumed_only_by_the_user_who_opened_it() -> None:
    app = create_app(RpcSettings(), client_factory=lambda: FakeClient([]))  # type: ignore[arg-type, return-value]
    url = "/v1/ws?session_id=mine"
    with TestClient(_as_user(app)) as client:
        with client.websocket_connect(url, headers={"X-Test-User": "alice"}) as ws:
            ws.send_json({"jsonrpc": "2.0", "method": "system.ping", "id": 1})
            assert ws.receive_json()["id"] == 1
        for other in ({"X-Test-User": "bob"}, {}):
            with client.websocket_connect(url, headers=other) as ws:
                refused = ws.receive_json()  # a JSON-RPC error, naming no one
                assert refused["id"] is None and refused["error"]["code"] == -32000
                assert refused["error"]["data"] == {"reason": "foreign_session"}
                assert "alice" not in json.dumps(refused)
                with pytest.raises(WebSocketDisconnect) as err:
                    ws.receive_json()
            assert err.value.code == 1008
            assert "another user" in (err.value.reason or "")
        with client.websocket_connect(url, headers={"X-Test-User": "alice"}) as ws:
            ws.send_json({"jsonrpc": "2.0", "method": "system.ping", "id": 2})
            assert ws.receive_json()["id"] == 2


def test_a_malformed_session_id_is_a_json_rpc_error() -> None:
    with _client([]) as client:
        for bad in ("a.b", "x" * 129, "%20"):
            with client.websocket_connect(f"/v1/ws?session_id={bad}") as ws:
                refused = ws.receive_json()
                assert refused["error"]["code"] == -32602 and refused["id"] is None
                assert refused["error"]["data"] == {"reason": "bad_session_id"}
                with pytest.raises(WebSocketDisconnect) as err:
                    ws.receive_json()
                assert err.value.code == 1008


def test_the_authenticated_user_is_read_from_the_scope() -> None:
    from starlette.requests import Request

    from rpc_adapter.app import authenticated_user_id

    def conn(user: object) -> Request:
        scope: dict[str, Any] = {"type": "http", "headers": []}
        if user is not None:
            scope["user"] = user
        return Request(scope)

    assert authenticated_user_id(conn(None)) is None
    assert authenticated_user_id(conn(_User("alice"))) == "alice"
    assert authenticated_user_id(conn(_User("alice", authenticated=False))) is None
    assert authenticated_user_id(conn(_User("  "))) is None
    assert authenticated_user_id(conn(object())) is None


def test_a_standalone_adapter_sends_its_service_token(monkeypatch: pytest.MonkeyPatch) -> None:
    import rpc_adapter.app as app_module

    seen: list[dict[str, Any]] = []
    factories: list[Any] = []
    monkeypatch.setattr(
        app_module,
        "agent_client",
        lambda url, **kw: seen.append({"url": url, **kw}) or FakeClient([]),
    )
    real_service = app_module.AgentService

    def capture(factory: Any, **kw: Any) -> Any:
        factories.append(factory)
        return real_service(factory, **kw)

    monkeypatch.setattr(app_module, "AgentService", capture)
    token = "service-token-0123456789"
    settings = RpcSettings(langgraph_token=token)
    create_app(settings, langgraph_url="http://agents.internal:2024")
    create_app(settings)  # mounted: in-process, the server's auth is not in the way
    create_app(RpcSettings(), langgraph_url="http://agents.internal:2024")
    for factory in factories:
        factory()
    assert [kw["headers"] for kw in seen] == [{"Authorization": f"Bearer {token}"}, None, None]
    assert seen[0]["url"] == "http://agents.internal:2024" and seen[1]["url"] is None
    assert token not in repr(settings)


ALICE = {"X-Test-User": "alice", "Authorization": "Bearer user-tok"}
"""Signed in to the Agent Server: Authorization is the user's, not the adapter's token."""


@pytest.mark.parametrize(
    ("path", "headers", "subprotocols"),
    [
        ("/v1/ws", {"X-RPC-Token": "t"}, None),
        ("/v1/ws?token=t", {}, None),
        ("/v1/ws", {}, ["jsonrpc-2.0", "rpc-token.t"]),
        ("/v1/ws", {"Authorization": "Bearer t"}, None),
        # the Agent Server's auth owns Authorization (the user's token); the adapter's own
        # token still gets through in its header, its subprotocol or the query
        ("/v1/ws", {**ALICE, "X-RPC-Token": "t"}, None),
        ("/v1/ws?token=t", ALICE, None),
        ("/v1/ws", ALICE, ["jsonrpc-2.0", "rpc-token.t"]),
    ],
)
def test_the_adapter_token_travels_outside_authorization(
    path: str, headers: dict[str, str], subprotocols: list[str] | None
) -> None:
    app = create_app(RpcSettings(token="t"), client_factory=lambda: FakeClient([]))  # type: ignore[arg-type, return-value]
    with (
        TestClient(_as_user(app)) as client,
        client.websocket_connect(path, headers=dict(headers), subprotocols=subprotocols) as ws,
    ):
        if subprotocols:
            assert ws.accepted_subprotocol == "jsonrpc-2.0"
        ws.send_json({"jsonrpc": "2.0", "method": "system.ping", "id": 1})
        assert ws.receive_json()["result"]["pong"] is True


@pytest.mark.parametrize(
    ("path", "headers", "subprotocols"),
    [
        ("/v1/ws", ALICE, None),
        ("/v1/ws", {"X-RPC-Token": "wrong"}, None),
        ("/v1/ws", {}, ["jsonrpc-2.0", "rpc-token.wrong"]),
    ],
)
def test_a_missing_or_wrong_adapter_token_is_refused(
    path: str, headers: dict[str, str], subprotocols: list[str] | None
) -> None:
    app = create_app(RpcSettings(token="t"), client_factory=lambda: FakeClient([]))  # type: ignore[arg-type, return-value]
    with TestClient(_as_user(app)) as client:
        with (
            pytest.raises(WebSocketDisconnect) as err,
            client.websocket_connect(path, headers=dict(headers), subprotocols=subprotocols),
        ):
            pass
        assert err.value.code == 1008


def test_deep_nesting_and_huge_batches_are_answered_not_dropped() -> None:
    with _client([], max_batch=10) as client, client.websocket_connect("/v1/ws") as ws:
        ws.send_text("[" * 100_000 + "]" * 100_000)
        reply = ws.receive_json()
        assert reply["error"]["code"] == -32700 and reply["id"] is None
        ping = {"jsonrpc": "2.0", "method": "system.ping"}
        ws.send_json([{**ping, "id": i} for i in range(11)])
        reply = ws.receive_json()
        assert reply["error"]["code"] == -32600 and reply["error"]["data"] == {"max_batch": 10}
        ws.send_json([{**ping, "id": i} for i in range(10)])
        assert sorted(r["id"] for r in ws.receive_json()) == list(range(10))
