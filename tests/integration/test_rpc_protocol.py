"""The standalone adapter speaks JSON-RPC 2.0 exactly (real sockets, real uvicorn process).

No Agent Server runs behind it here (LANGGRAPH_URL points at a closed port), which is
also how -32000 and /ready=503 are reached. The examples of the specification's
section 7 are replayed with our methods in place of ``subtract``/``sum``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
import websockets

from runstack.processes import ServiceHandle
from tests.e2e.rpc_fixtures.server import standalone_adapter
from tests.e2e.rpc_fixtures.ws import RawRpc

pytestmark = pytest.mark.integration

MAX = 4096


@pytest.fixture(scope="module")
def adapter() -> Iterator[ServiceHandle]:
    with standalone_adapter({"MAX_MESSAGE_SIZE": str(MAX)}) as svc:
        yield svc


@pytest.fixture
async def rpc(adapter: ServiceHandle) -> AsyncIterator[RawRpc]:
    client = await RawRpc.connect(f"ws://127.0.0.1:{adapter.port}/v1/ws?session_id=proto")
    yield client
    await client.close()


async def test_request_with_named_params_and_id_types_kept(rpc: RawRpc) -> None:
    for rid in (1, "abc", 1.5, None, 0):
        reply = await rpc.request("system.ping", {}, rid=rid)
        assert reply["jsonrpc"] == "2.0"
        assert reply["id"] == rid and type(reply["id"]) is type(rid)
        assert reply["result"]["pong"] is True
    # positional (empty) params are accepted by a method without parameters
    assert (await rpc.request("system.ping", []))["result"]["pong"] is True


async def test_notification_is_never_answered(rpc: RawRpc) -> None:
    await rpc.send({"jsonrpc": "2.0", "method": "system.ping"})
    await rpc.send({"jsonrpc": "2.0", "method": "no.such.method"})  # error, still silent
    await rpc.send({"jsonrpc": "2.0", "method": "system.ping", "id": "after"})
    assert (await rpc.recv())["id"] == "after"


async def test_method_not_found(rpc: RawRpc) -> None:
    reply = await rpc.request("foobar", rid="1")
    assert reply == {
        "jsonrpc": "2.0",
        "error": {"code": -32601, "message": "Method not found: foobar"},
        "id": "1",
    }


async def test_invalid_json_is_parse_error_with_null_id(rpc: RawRpc) -> None:
    await rpc.send('{"jsonrpc": "2.0", "method": "foobar, "params": "bar", "baz]')
    reply = await rpc.recv()
    assert reply["error"]["code"] == -32700 and reply["id"] is None


async def test_invalid_request_object(rpc: RawRpc) -> None:
    await rpc.send({"jsonrpc": "2.0", "method": 1, "params": "bar"})
    reply = await rpc.recv()
    assert reply["error"]["code"] == -32600 and reply["id"] is None
    await rpc.send({"jsonrpc": "1.0", "method": "system.ping", "id": 7})
    reply = await rpc.recv()
    assert reply["error"]["code"] == -32600 and reply["id"] == 7
    await rpc.send({"jsonrpc": "2.0", "method": "system.ping", "id": {"bad": 1}})
    assert (await rpc.recv())["error"]["code"] == -32600


async def test_batch_invalid_json(rpc: RawRpc) -> None:
    await rpc.send(
        '[{"jsonrpc": "2.0", "method": "system.ping", "id": "1"}, {"jsonrpc": "2.0", "method"]'
    )
    reply = await rpc.recv()
    assert isinstance(reply, dict) and reply["error"]["code"] == -32700 and reply["id"] is None


async def test_empty_batch_is_one_invalid_request(rpc: RawRpc) -> None:
    await rpc.send("[]")
    reply = await rpc.recv()
    assert isinstance(reply, dict)
    assert reply["error"]["code"] == -32600 and reply["id"] is None


async def test_invalid_batch_elements_each_answered(rpc: RawRpc) -> None:
    await rpc.send("[1]")
    reply = await rpc.recv()
    assert isinstance(reply, list) and len(reply) == 1 and reply[0]["error"]["code"] == -32600
    await rpc.send("[1,2,3]")
    reply = await rpc.recv()
    assert [r["error"]["code"] for r in reply] == [-32600] * 3
    assert all(r["id"] is None for r in reply)


async def test_mixed_batch(rpc: RawRpc) -> None:
    await rpc.send(
        [
            {"jsonrpc": "2.0", "method": "system.ping", "params": {}, "id": "1"},
            {"jsonrpc": "2.0", "method": "system.ping", "params": {}},
            {"jsonrpc": "2.0", "method": "agent.chat", "params": [42, 23], "id": "2"},
            {"foo": "boo"},
            {"jsonrpc": "2.0", "method": "foo.get", "params": {"name": "myself"}, "id": "5"},
            {"jsonrpc": "2.0", "method": "agent.chat", "params": {"message": "hi"}, "id": "9"},
        ]
    )
    reply = await rpc.recv()
    assert isinstance(reply, list)
    by_id = {r["id"]: r for r in reply if r["id"] is not None}
    assert by_id["1"]["result"]["pong"] is True
    assert by_id["2"]["error"]["code"] == -32602
    assert by_id["5"]["error"]["code"] == -32601
    assert by_id["9"]["error"]["code"] == -32004  # chat before agent.register
    invalid = [r for r in reply if r["id"] is None]
    assert len(invalid) == 1 and invalid[0]["error"]["code"] == -32600
    assert len(reply) == 5


async def test_batch_of_notifications_gets_no_reply(rpc: RawRpc) -> None:
    await rpc.send(
        [
            {"jsonrpc": "2.0", "method": "system.ping", "params": {}},
            {"jsonrpc": "2.0", "method": "agent.clearHistory", "params": {}},
        ]
    )
    with pytest.raises(TimeoutError):
        await rpc.recv(wait=0.5)


async def test_invalid_params(rpc: RawRpc) -> None:
    reply = await rpc.request("agent.register", {"agent_id": "x"})
    assert reply["error"]["code"] == -32602
    assert any(d["field"] == "client_id" for d in reply["error"]["data"])
    reply = await rpc.request(
        "agent.register",
        {"client_id": "c", "agent_id": "x", "tools": [{"name": "bad name!"}]},
    )
    assert reply["error"]["code"] == -32602
    reply = await rpc.request("agent.submitToolResult", {"call_id": "c1"})
    assert reply["error"]["code"] == -32602  # success is required


async def test_not_registered(rpc: RawRpc) -> None:
    for method, params in [
        ("agent.chat", {"message": "hi"}),
        ("agent.submitToolResult", {"call_id": "x", "success": True}),
        ("agent.clearHistory", {"agent_id": "orchestrator"}),
        ("agent.cancel", {}),
    ]:
        reply = await rpc.request(method, params)
        assert reply["error"]["code"] == -32004, (method, reply)


async def test_agent_server_down_is_server_error(rpc: RawRpc) -> None:
    reply = await rpc.request("agent.register", {"client_id": "c", "agent_id": "orchestrator"})
    assert reply["error"]["code"] == -32000
    assert "Agent Server unreachable" in reply["error"]["message"]
    assert (await rpc.request("system.listAgents"))["error"]["code"] == -32000


async def test_size_cap_answers_and_keeps_the_connection(rpc: RawRpc) -> None:
    big = json.dumps(
        {"jsonrpc": "2.0", "method": "system.ping", "params": {"pad": "x" * MAX}, "id": 1}
    )
    await rpc.send(big)
    reply = await rpc.recv()
    assert reply["error"]["code"] == -32600 and reply["id"] is None
    assert reply["error"]["data"]["max_message_size"] == MAX
    assert (await rpc.request("system.ping"))["result"]["pong"] is True


async def test_legacy_path_and_pipelined_requests(adapter: ServiceHandle) -> None:
    rpc = await RawRpc.connect(f"ws://127.0.0.1:{adapter.port}/ws")
    try:
        for i in range(50):
            await rpc.send({"jsonrpc": "2.0", "method": "system.ping", "id": i})
        ids = sorted([(await rpc.recv())["id"] for _ in range(50)])
        assert ids == list(range(50))
    finally:
        await rpc.close()


def test_rest_endpoints(adapter: ServiceHandle) -> None:
    root = httpx.get(f"{adapter.url}/", timeout=5).json()
    assert root["name"] == "procurement-rpc-adapter"
    assert root["protocol_version"] and "version" in root and root["agents"] == []
    assert httpx.get(f"{adapter.url}/health", timeout=5).json()["status"] == "ok"
    ready = httpx.get(f"{adapter.url}/ready", timeout=10)
    assert ready.status_code == 503 and ready.json()["ready"] is False


def test_host_header_refused(adapter: ServiceHandle) -> None:
    r = httpx.post(
        f"{adapter.url}/api/batch-replace",
        json={"old": "a", "new": "b", "tasks": []},
        headers={"Host": "evil.example"},
        timeout=5,
    )
    assert r.status_code == 403


async def test_many_sockets_at_once(adapter: ServiceHandle) -> None:
    clients = await asyncio.gather(
        *(RawRpc.connect(f"ws://127.0.0.1:{adapter.port}/v1/ws?session_id=m{i}") for i in range(50))
    )
    try:
        replies = await asyncio.gather(
            *(c.request("system.ping", rid=i) for i, c in enumerate(clients))
        )
        assert [r["id"] for r in replies] == list(range(50))
    finally:
        await asyncio.gather(*(c.close() for c in clients))


async def test_unknown_path_is_refused(adapter: ServiceHandle) -> None:
    with pytest.raises(websockets.InvalidStatus):
        await websockets.connect(f"ws://127.0.0.1:{adapter.port}/nope")


async def test_same_session_on_a_new_socket_takes_over(adapter: ServiceHandle) -> None:
    url = f"ws://127.0.0.1:{adapter.port}/v1/ws?session_id=takeover"
    old = await RawRpc.connect(url)
    new = await RawRpc.connect(url)
    try:
        with pytest.raises(websockets.ConnectionClosed) as closed:
            await old.recv(wait=5)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4000
        assert (await new.request("system.ping"))["result"]["pong"] is True
    finally:
        await new.close()
