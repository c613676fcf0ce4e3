"""Issue 18 item 5: JSON-RPC sessions kept in the Store, resumed by any adapter instance.

One Agent Server (``langgraph dev`` serving the echo graphs, its mounted adapter standing
in for one replica) and standalone adapters (``python -m rpc_adapter``, other processes
pointed at it, standing in for other replicas). A session opened on one instance and
resumed on another gets its pending ``agent.toolCall`` / ``agent.interrupt`` again
(``resent: true``); answering it there completes the run. Also: the adapter killed and
started again resumes; the Store item is there while the session waits and gone after it
expires; a session opened with another token, or a malformed id, is a JSON-RPC error.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from runstack.processes import ServiceHandle, free_port, start_service
from tests.e2e.rpc_fixtures.server import langgraph_dev, standalone_adapter
from tests.e2e.rpc_fixtures.store import session_record
from tests.e2e.rpc_fixtures.ws import RawRpc

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

MOUNTED_TOOL_TIMEOUT = 3
"""The mounted adapter gives up on a client tool fast: after a move it must stand down."""

BOM = {
    "name": "fetch_bom_tool",
    "description": "Bill of materials of a product in the client's CAD system",
    "parameters": {"type": "object", "properties": {"product": {"type": "string"}}},
}


@pytest.fixture(scope="module")
def server() -> Iterator[ServiceHandle]:
    env = {"RPC_TOOL_TIMEOUT": str(MOUNTED_TOOL_TIMEOUT), "RPC_SESSION_TTL": "60"}
    with langgraph_dev(env) as svc:
        yield svc


@pytest.fixture(scope="module")
def replica(server: ServiceHandle) -> Iterator[ServiceHandle]:
    """A standalone adapter: another process, the same Agent Server."""
    env = {"RPC_TOOL_TIMEOUT": "60", "RPC_SESSION_TTL": "60"}
    with standalone_adapter(env, agent_server_url=server.url, health_path="/ready") as svc:
        yield svc


@pytest.fixture
async def sdk(server: ServiceHandle) -> AsyncIterator[LangGraphClient]:
    client = get_client(url=server.url, api_key=None)
    try:
        yield client
    finally:
        await client.aclose()


def ws(handle: ServiceHandle, session_id: str, query: str = "") -> str:
    return f"ws://127.0.0.1:{handle.port}/v1/ws?session_id={session_id}{query}"


async def record(sdk: LangGraphClient, session_id: str) -> dict[str, Any] | None:
    """The session's record in the Store, or None."""
    return await session_record(sdk, session_id)


async def until(check: Any, within: float, what: str) -> Any:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        found = await check()
        if found:
            return found
        await asyncio.sleep(0.2)
    raise AssertionError(f"not within {within} s: {what}")


async def register(rpc: RawRpc, agent: str, tools: list[dict[str, Any]]) -> dict[str, Any]:
    reply = await rpc.request(
        "agent.register", {"client_id": "replicas", "agent_id": agent, "tools": tools}, wait=30
    )
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


async def pending_tool_call(handle: ServiceHandle, sid: str, rid: str) -> dict[str, Any]:
    """Open ``sid`` on ``handle``, have the echo agent call the client's tool, and leave
    with the call unanswered; the ``agent.toolCall`` params."""
    rpc = await RawRpc.connect(ws(handle, sid))
    try:
        await register(rpc, "echo", [BOM])
        await rpc.send(
            {
                "jsonrpc": "2.0",
                "method": "agent.chat",
                "id": rid,
                "params": {"message": 'fetch_bom_tool args={"product": "X9"}'},
            }
        )
        call: dict[str, Any] = (await rpc.notification("agent.toolCall", wait=30))["params"]
    finally:
        await rpc.close()
    return call


async def test_a_pending_tool_call_is_answered_on_another_replica(
    server: ServiceHandle, replica: ServiceHandle, sdk: LangGraphClient
) -> None:
    sid = uuid.uuid4().hex
    call = await pending_tool_call(server, sid, "chat-on-a")
    stored = await record(sdk, sid)
    assert stored is not None and stored["principal"] is None
    assert [c["call_id"] for c in stored["calls"]] == [call["call_id"]]
    assert stored["calls"][0]["request_id"] == "chat-on-a"
    [agent] = stored["agents"]
    assert agent["agent_id"] == "echo" and agent["thread_id"]

    rpc = await RawRpc.connect(ws(replica, sid))
    try:
        resent = (await rpc.notification("agent.toolCall", wait=15))["params"]
        assert resent["call_id"] == call["call_id"] and resent["resent"] is True
        assert resent["arguments"] == {"product": "X9"}
        moved = await record(sdk, sid)
        assert moved is not None and moved["epoch"] == stored["epoch"] + 1
        assert moved["owner"] != stored["owner"]
        # Past the first adapter's tool timeout: it must stand down, not answer "timed out".
        await asyncio.sleep(MOUNTED_TOOL_TIMEOUT + 2)
        ok = await rpc.request(
            "agent.submitToolResult",
            {"call_id": resent["call_id"], "tool_name": "fetch_bom_tool", "success": True,
             "result": "BOM from the other replica"},
        )  # fmt: skip
        assert ok["result"]["status"] == "accepted"
        # The request made on the first adapter gets its answer here, under its id.
        reply = await rpc.wait_for(lambda m: m.get("id") == "chat-on-a", wait=30)
        content = reply["result"]["content"]
        assert content == "results: fetch_bom_tool[success]=BOM from the other replica"
        assert reply["result"]["thread_id"] == agent["thread_id"]
        after = await until(
            lambda: _without_calls(sdk, sid), 10, "the answered call left the record"
        )
        assert after["agents"][0]["thread_id"] == agent["thread_id"]
        again = await rpc.request(
            "agent.submitToolResult",
            {"call_id": resent["call_id"], "tool_name": "fetch_bom_tool", "success": True},
        )
        assert again["error"]["code"] == -32002  # applied once
        # the thread got one tool result, not a timeout from the first adapter as well
        state: Any = await sdk.threads.get_state(agent["thread_id"])
        tools = [m for m in state["values"]["messages"] if m["type"] == "tool"]
        assert [t["tool_call_id"] for t in tools] == [call["call_id"]]
    finally:
        await rpc.close()


async def _without_calls(sdk: LangGraphClient, sid: str) -> dict[str, Any] | None:
    found = await record(sdk, sid)
    return found if found is not None and not found["calls"] else None


async def test_a_pending_approval_is_approved_on_another_replica(
    server: ServiceHandle, replica: ServiceHandle, sdk: LangGraphClient
) -> None:
    sid = uuid.uuid4().hex
    rpc = await RawRpc.connect(ws(replica, sid))
    try:
        await register(rpc, "approval", [])
        chat = await rpc.request(
            "agent.chat", {"message": 'add_numbers args={"a": 20, "b": 22}'}, wait=30
        )
        [card] = chat["result"]["pending"]
    finally:
        await rpc.close()
    stored = await record(sdk, sid)
    assert stored is not None
    assert [i["interrupt_id"] for i in stored["agents"][0]["interrupts"]] == [card["interrupt_id"]]

    rpc = await RawRpc.connect(ws(server, sid))  # the mounted adapter, this time
    try:
        again = (await rpc.notification("agent.interrupt", wait=15))["params"]
        assert again["interrupt_id"] == card["interrupt_id"] and again["resent"] is True
        assert again["args"] == {"a": 20, "b": 22} and again["kind"] == "approval"
        done = await rpc.request(
            "agent.resume", {"interrupt_id": card["interrupt_id"], "decision": "approve"}, wait=30
        )
        assert done["result"]["content"] == "results: add_numbers[success]=42.0"
        after = await until(
            lambda: _without_interrupts(sdk, sid), 10, "the approval left the record"
        )
        assert after["agents"][0]["thread_id"] == card["thread_id"]
    finally:
        await rpc.close()


async def _without_interrupts(sdk: LangGraphClient, sid: str) -> dict[str, Any] | None:
    found = await record(sdk, sid)
    if found is None or any(a["interrupts"] for a in found["agents"]):
        return None
    return found


async def test_a_run_in_progress_when_the_session_moves_is_followed_there(
    server: ServiceHandle, replica: ServiceHandle
) -> None:
    sid = uuid.uuid4().hex
    rpc = await RawRpc.connect(ws(server, sid))
    try:
        await register(rpc, "echo", [])
        await rpc.send(
            {"jsonrpc": "2.0", "method": "agent.chat", "id": "slow",
             "params": {"message": "slow:4"}}
        )  # fmt: skip
        await rpc.notification("agent.status", status="thinking", wait=15)
    finally:
        await rpc.close()  # gone while the run streams on the mounted adapter
    rpc = await RawRpc.connect(ws(replica, sid))
    try:
        answer = await rpc.notification("agent.response", wait=30)
        assert answer["params"]["content"] == "slow done after 4s"
        # the session is free for the next message, on the same thread
        more = await rpc.request("agent.register", {"client_id": "r", "agent_id": "echo"})
        assert more["result"]["thread_id"] == answer["params"]["thread_id"]
        nxt = await rpc.request("agent.chat", {"message": "next"}, wait=30)
        assert nxt["result"]["content"] == "echo: next"
        # nothing arrives twice: the first adapter stood down
        await asyncio.sleep(1)
        late = rpc.notifications("agent.response")
        assert [n["params"]["content"] for n in late] == ["echo: next"]
    finally:
        await rpc.close()


async def test_an_adapter_killed_and_started_again_resumes(
    server: ServiceHandle, sdk: LangGraphClient
) -> None:
    port = free_port()
    env = {"RPC_PORT": str(port), "LANGGRAPH_URL": server.url, "RPC_TOOL_TIMEOUT": "60"}
    sid = uuid.uuid4().hex
    with start_service("rpc_adapter", env, port, health_path="/ready") as first:
        call = await pending_tool_call(first, sid, 7)
        first.send_signal(signal.SIGKILL)
        first.process.wait(timeout=10)
    assert (await record(sdk, sid)) is not None
    with start_service("rpc_adapter", env, port, health_path="/ready") as second:
        rpc = await RawRpc.connect(ws(second, sid))
        try:
            resent = (await rpc.notification("agent.toolCall", wait=15))["params"]
            assert resent["call_id"] == call["call_id"] and resent["resent"] is True
            await rpc.request(
                "agent.submitToolResult",
                {"call_id": resent["call_id"], "success": True, "result": "after the restart"},
            )
            reply = await rpc.wait_for(lambda m: m.get("id") == 7, wait=30)
            assert (
                reply["result"]["content"] == "results: fetch_bom_tool[success]=after the restart"
            )
            # the session goes on: the same thread for the next message
            more = await rpc.request("agent.chat", {"message": "still here"}, wait=30)
            assert more["result"]["content"] == "echo: still here"
            assert more["result"]["thread_id"] == reply["result"]["thread_id"]
        finally:
            await rpc.close()


async def test_foreign_and_malformed_session_ids_are_refused(
    server: ServiceHandle, sdk: LangGraphClient
) -> None:
    sid = uuid.uuid4().hex
    token = {"RPC_TOKEN": "alpha-token"}
    with (
        standalone_adapter({**token}, agent_server_url=server.url, health_path="/ready") as alpha,
        standalone_adapter(
            {"RPC_TOKEN": "beta-token"}, agent_server_url=server.url, health_path="/ready"
        ) as beta,
    ):
        call = await pending_tool_call_with(alpha, sid, "alpha-token")
        stored = await record(sdk, sid)
        assert stored is not None and stored["principal"].startswith("token:")
        assert "alpha-token" not in str(stored)  # a digest, never the token

        rpc = await RawRpc.connect(ws(beta, sid, "&token=beta-token"))
        try:
            refused = await rpc.recv(wait=10)
            assert refused["id"] is None and refused["error"]["code"] == -32000
            assert refused["error"]["data"] == {"reason": "foreign_session"}
            text = str(refused)
            assert call["call_id"] not in text and stored["agents"][0]["thread_id"] not in text
            with contextlib.suppress(Exception):
                await rpc.recv(wait=5)  # the close, and nothing else
            assert rpc.ws.close_code == 1008
        finally:
            await rpc.close()
        unchanged = await record(sdk, sid)
        assert unchanged is not None and unchanged["owner"] == stored["owner"]

        bad = await RawRpc.connect(ws(beta, "not.a.session", "&token=beta-token"))
        try:
            refused = await bad.recv(wait=10)
            assert refused["error"]["code"] == -32602
            assert refused["error"]["data"] == {"reason": "bad_session_id"}
        finally:
            await bad.close()


async def pending_tool_call_with(handle: ServiceHandle, sid: str, token: str) -> dict[str, Any]:
    rpc = await RawRpc.connect(ws(handle, sid, f"&token={token}"))
    try:
        await register(rpc, "echo", [BOM])
        await rpc.send(
            {"jsonrpc": "2.0", "method": "agent.chat", "id": 1,
             "params": {"message": "fetch_bom_tool please"}}
        )  # fmt: skip
        params: dict[str, Any] = (await rpc.notification("agent.toolCall", wait=30))["params"]
        return params
    finally:
        await rpc.close()


async def test_a_session_leaves_the_store_when_it_expires(
    server: ServiceHandle, sdk: LangGraphClient
) -> None:
    env = {"RPC_SESSION_TTL": "2"}
    with standalone_adapter(env, agent_server_url=server.url, health_path="/ready") as short:
        kept, dropped = uuid.uuid4().hex, uuid.uuid4().hex
        attached = await RawRpc.connect(ws(short, kept))
        try:
            await register(attached, "echo", [])
            rpc = await RawRpc.connect(ws(short, dropped))
            await register(rpc, "echo", [])
            first = await rpc.request("agent.chat", {"message": "hello"}, wait=30)
            assert first["result"]["thread_id"]
            await rpc.close()
            assert await record(sdk, dropped) is not None
            await until(lambda: _gone(sdk, dropped), 20, "the expired session left the Store")
            # an attached session's record is kept alive past the TTL
            assert await record(sdk, kept) is not None
            assert (await attached.request("system.ping"))["result"]["pong"] is True
        finally:
            await attached.close()
        # a session opened again under an expired id starts afresh (no old thread)
        rpc = await RawRpc.connect(ws(short, dropped))
        try:
            fresh = await register(rpc, "echo", [])
            assert fresh["thread_id"] is None
        finally:
            await rpc.close()


async def _gone(sdk: LangGraphClient, sid: str) -> bool:
    return await record(sdk, sid) is None
