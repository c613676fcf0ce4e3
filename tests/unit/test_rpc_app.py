"""The adapter app through Starlette's TestClient with a fake SDK client (no sockets)."""

from __future__ import annotations

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
