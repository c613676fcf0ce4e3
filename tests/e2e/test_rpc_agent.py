"""The adapter mounted in ``langgraph dev`` (``http.app``), driving a real agent graph.

The echo graph (runstack/echo_graph.py) runs a scripted model with the real
ClientTools middleware; every socket here is a real WebSocket to the Agent Server.
"""

from __future__ import annotations

import asyncio
import json
import sys
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client

from runstack.processes import ROOT, ServiceHandle
from tests.e2e.rpc_fixtures.server import langgraph_dev, standalone_adapter
from tests.e2e.rpc_fixtures.ws import RawRpc

pytestmark = pytest.mark.e2e

AGENT = "echo"
TOOL_TIMEOUT = 2
AGENT_TIMEOUT = 3

BOM = {
    "name": "fetch_bom_tool",
    "description": "Bill of materials of a product in the client's CAD system",
    "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
}
STOCK = {
    "name": "get_stock",
    "description": "Stock level in the client's warehouse",
    "parameters": {"type": "object", "properties": {"query": {"type": "string"}}},
}


@pytest.fixture(scope="module")
def server() -> Iterator[ServiceHandle]:
    env = {
        "RPC_TOOL_TIMEOUT": str(TOOL_TIMEOUT),
        "RPC_AGENT_TIMEOUT": str(AGENT_TIMEOUT),
        "RPC_SESSION_TTL": "30",
    }
    with langgraph_dev(env) as svc:
        yield svc


def ws_url(server: ServiceHandle, session_id: str | None = None) -> str:
    sid = session_id or uuid.uuid4().hex
    return f"ws://127.0.0.1:{server.port}/v1/ws?session_id={sid}"


@pytest.fixture
async def rpc(server: ServiceHandle) -> AsyncIterator[RawRpc]:
    client = await RawRpc.connect(ws_url(server))
    yield client
    await client.close()


async def start_chat(rpc: RawRpc, rid: Any, message: str) -> None:
    """Send agent.chat without waiting for its answer."""
    await rpc.send(
        {"jsonrpc": "2.0", "method": "agent.chat", "id": rid, "params": {"message": message}}
    )


async def register(rpc: RawRpc, tools: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    reply = await rpc.request(
        "agent.register", {"client_id": "pytest", "agent_id": AGENT, "tools": tools, **extra}
    )
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


async def test_register_and_plain_chat(server: ServiceHandle, rpc: RawRpc) -> None:
    result = await register(rpc, [BOM, STOCK])
    assert result["status"] == "registered" and result["agent_id"] == AGENT
    # the stand-in server has no tool catalog: the client's tools are all it lists
    assert result["tools_count"] == 2 and result["tools_synced"] == ["fetch_bom_tool", "get_stock"]
    assert result["protocol_version"] and result["capabilities"]["streaming"] is True
    synced = await rpc.notification("agent.status", status="tools_synced")
    assert synced["params"]["message"]

    reply = await rpc.request("agent.chat", {"message": "hello"}, wait=30)
    assert reply["result"]["status"] == "completed"
    assert reply["result"]["content"] == "echo: hello"
    response = await rpc.notification("agent.response")
    assert response["params"]["content"] == "echo: hello"
    thinking = await rpc.notification("agent.status", status="thinking")
    assert thinking["params"]["agent_id"] == AGENT

    # the thread carries the client and session ids
    async with get_client(url=server.url, api_key=None) as sdk:
        thread = await sdk.threads.get(reply["result"]["thread_id"])
    assert thread["metadata"]["client_id"] == "pytest"
    assert thread["metadata"]["session_id"] == result["session_id"]

    agents = (await rpc.request("system.listAgents"))["result"]["agents"]
    assert {"echo", "echo2"} <= {a["agent_id"] for a in agents}


async def test_unknown_agent_and_unregistered_agent(rpc: RawRpc) -> None:
    reply = await rpc.request("agent.register", {"client_id": "c", "agent_id": "nope"})
    assert reply["error"]["code"] == -32602 and "echo" in reply["error"]["data"]["known_agents"]
    await register(rpc, [])
    reply = await rpc.request("agent.chat", {"message": "hi", "agent_id": "echo2"})
    assert reply["error"]["code"] == -32004


async def _answer(
    rpc: RawRpc,
    call: dict[str, Any],
    *,
    success: bool = True,
    result: Any = None,
    error: str | None = None,
) -> dict[str, Any]:
    params = {
        "call_id": call["call_id"],
        "tool_name": call["tool_name"],
        "success": success,
        "result": result,
    }
    if error:
        params["error"] = error
    reply: dict[str, Any] = await rpc.request("agent.submitToolResult", params)
    return reply


async def test_client_tool_round_trip_and_concurrent_calls(rpc: RawRpc) -> None:
    await register(rpc, [BOM, STOCK])
    await start_chat(rpc, "chat-1", 'show the BOM: fetch_bom_tool args={"product": "X1"}')
    call = (await rpc.notification("agent.toolCall", wait=20))["params"]
    assert call["tool_name"] == "fetch_bom_tool" and call["arguments"] == {"product": "X1"}
    # the socket still answers other calls while the chat waits
    assert (await rpc.request("system.ping"))["result"]["pong"] is True
    ok = await _answer(rpc, call, result={"rows": [["spark plug", 4]]})
    assert ok["result"]["status"] == "accepted"
    reply = await rpc.wait_for(lambda m: m.get("id") == "chat-1", wait=20)
    content = reply["result"]["content"]
    assert content.startswith("results: fetch_bom_tool[success]=")
    assert json.loads(content.split("=", 1)[1]) == {"rows": [["spark plug", 4]]}
    assert reply["result"]["tool_calls"] == 1


async def test_parallel_calls_one_resume_and_failure_text(rpc: RawRpc) -> None:
    await register(rpc, [BOM, STOCK])
    await start_chat(rpc, 1, "use fetch_bom_tool and get_stock")
    first = (await rpc.notification("agent.toolCall", wait=20))["params"]
    second = (await rpc.notification("agent.toolCall", wait=5))["params"]
    by_name = {c["tool_name"]: c for c in (first, second)}
    assert set(by_name) == {"fetch_bom_tool", "get_stock"}
    await _answer(rpc, by_name["get_stock"], success=False, error="warehouse DB offline")
    await _answer(rpc, by_name["fetch_bom_tool"], result="BOM: 3 rows")
    reply = await rpc.wait_for(lambda m: m.get("id") == 1, wait=20)
    content = reply["result"]["content"]
    assert "fetch_bom_tool[success]=BOM: 3 rows" in content
    assert "get_stock[error]=Client tool get_stock failed: warehouse DB offline" in content


async def test_duplicate_result_is_refused_and_applied_once(rpc: RawRpc) -> None:
    await register(rpc, [BOM])
    await start_chat(rpc, 2, "fetch_bom_tool please")
    call = (await rpc.notification("agent.toolCall", wait=20))["params"]
    first, again = await asyncio.gather(
        _answer(rpc, call, result="first"), _answer(rpc, call, result="second")
    )
    assert first["result"]["status"] == "accepted"
    assert again["error"]["code"] == -32002 and again["error"]["data"]["reason"] == "answered"
    reply = await rpc.wait_for(lambda m: m.get("id") == 2, wait=20)
    assert reply["result"]["content"] == "results: fetch_bom_tool[success]=first"
    unknown = await rpc.request(
        "agent.submitToolResult", {"call_id": "no-such-call", "success": True}
    )
    assert unknown["error"]["code"] == -32002


async def test_tool_timeout_then_late_result_and_session_still_usable(rpc: RawRpc) -> None:
    await register(rpc, [BOM])
    await start_chat(rpc, 3, "fetch_bom_tool but I will not answer")
    call = (await rpc.notification("agent.toolCall", wait=20))["params"]
    reply = await rpc.wait_for(lambda m: m.get("id") == 3, wait=TOOL_TIMEOUT + 20)
    assert (
        "fetch_bom_tool[error]=Client tool fetch_bom_tool timed out" in reply["result"]["content"]
    )
    late = await _answer(rpc, call, result="too late")
    assert late["error"]["code"] == -32002 and late["error"]["data"]["reason"] == "timed out"
    again = await rpc.request("agent.chat", {"message": "still there?"}, wait=20)
    assert again["result"]["content"] == "echo: still there?"


async def test_agent_timeout(rpc: RawRpc) -> None:
    await register(rpc, [])
    reply = await rpc.request("agent.chat", {"message": "slow:8"}, wait=AGENT_TIMEOUT + 15)
    assert reply["error"]["code"] == -32003
    again = await rpc.request("agent.chat", {"message": "after timeout"}, wait=20)
    assert again["result"]["content"] == "echo: after timeout"


async def test_cancel_answers_pending_calls_as_cancelled(rpc: RawRpc) -> None:
    await register(rpc, [BOM])
    idle = await rpc.request("agent.cancel", {"agent_id": AGENT})
    assert idle["result"]["status"] == "idle"
    await start_chat(rpc, "c", "fetch_bom_tool for the cancel test")
    call = (await rpc.notification("agent.toolCall", wait=20))["params"]
    cancel = await rpc.request("agent.cancel", {"agent_id": AGENT}, wait=15)
    assert cancel["result"]["status"] == "cancelled"
    assert cancel["result"]["cancelled_calls"] == [call["call_id"]]
    chat = await rpc.wait_for(lambda m: m.get("id") == "c", wait=10)
    assert chat["result"]["status"] == "cancelled"
    late = await _answer(rpc, call, result="x")
    assert late["error"]["code"] == -32002 and late["error"]["data"]["reason"] == "cancelled"
    again = await rpc.request("agent.chat", {"message": "new question"}, wait=20)
    assert again["result"]["content"] == "echo: new question"


async def test_cancel_during_a_running_model_call(rpc: RawRpc) -> None:
    await register(rpc, [])
    await start_chat(rpc, "s", "slow:2.5")
    await rpc.notification("agent.status", status="thinking", wait=10)
    await asyncio.sleep(0.5)
    cancel = await rpc.request("agent.cancel", {}, wait=15)
    assert cancel["result"]["status"] == "cancelled"
    chat = await rpc.wait_for(lambda m: m.get("id") == "s", wait=10)
    assert chat["result"]["status"] == "cancelled"
    again = await rpc.request("agent.chat", {"message": "after cancel"}, wait=20)
    assert again["result"]["content"] == "echo: after cancel"


async def test_reconnect_resends_pending_tool_calls_and_delivers_the_answer(
    server: ServiceHandle,
) -> None:
    sid = uuid.uuid4().hex
    rpc = await RawRpc.connect(ws_url(server, sid))
    first = await register(rpc, [BOM])
    await start_chat(rpc, "before-drop", "fetch_bom_tool across a reconnect")
    call = (await rpc.notification("agent.toolCall", wait=20))["params"]
    await rpc.close()

    rpc = await RawRpc.connect(ws_url(server, sid))
    try:
        resent = (await rpc.notification("agent.toolCall", wait=10))["params"]
        assert resent["call_id"] == call["call_id"] and resent["resent"] is True
        await _answer(rpc, resent, result="after reconnect")
        reply = await rpc.wait_for(lambda m: m.get("id") == "before-drop", wait=20)
        assert reply["result"]["content"] == "results: fetch_bom_tool[success]=after reconnect"
        # same thread after re-registering on the new socket
        again = await register(rpc, [BOM])
        assert again["thread_id"] == reply["result"]["thread_id"]
        assert first["session_id"] == sid
    finally:
        await rpc.close()


async def test_clear_history_starts_a_new_thread(rpc: RawRpc) -> None:
    await register(rpc, [])
    one = await rpc.request("agent.chat", {"message": "one"}, wait=20)
    cleared = await rpc.request("agent.clearHistory", {"agent_id": AGENT})
    assert cleared["result"]["previous_thread_id"] == one["result"]["thread_id"]
    two = await rpc.request("agent.chat", {"message": "two"}, wait=20)
    assert two["result"]["thread_id"] == cleared["result"]["thread_id"]
    assert two["result"]["thread_id"] != one["result"]["thread_id"]


async def test_sessions_are_isolated(server: ServiceHandle) -> None:
    a = await RawRpc.connect(ws_url(server))
    b = await RawRpc.connect(ws_url(server))
    try:
        await register(a, [BOM])
        await register(b, [STOCK])
        await start_chat(a, "a", "fetch_bom_tool and get_stock")
        await start_chat(b, "b", "fetch_bom_tool and get_stock")
        call_a = (await a.notification("agent.toolCall", wait=20))["params"]
        call_b = (await b.notification("agent.toolCall", wait=20))["params"]
        assert call_a["tool_name"] == "fetch_bom_tool"  # only A's tool exists for A
        assert call_b["tool_name"] == "get_stock"
        # B cannot answer A's call
        stolen = await _answer(b, call_a, result="from b")
        assert stolen["error"]["code"] == -32002
        await _answer(a, call_a, result="a")
        await _answer(b, call_b, result="b")
        ra = await a.wait_for(lambda m: m.get("id") == "a", wait=20)
        rb = await b.wait_for(lambda m: m.get("id") == "b", wait=20)
        assert ra["result"]["content"] == "results: fetch_bom_tool[success]=a"
        assert rb["result"]["content"] == "results: get_stock[success]=b"
        assert ra["result"]["thread_id"] != rb["result"]["thread_id"]
    finally:
        await a.close()
        await b.close()


async def test_streaming_deltas_add_up_to_the_answer(rpc: RawRpc) -> None:
    result = await register(rpc, [], stream=True)
    assert result["stream"] is True
    reply = await rpc.request("agent.chat", {"message": "stream these five words please"}, wait=20)
    deltas = rpc.notifications("agent.delta")
    assert len(deltas) > 1
    assert "".join(d["params"]["content"] for d in deltas) == reply["result"]["content"]


async def test_batch_with_a_chat_and_a_ping(rpc: RawRpc) -> None:
    await register(rpc, [])
    await rpc.send(
        [
            {
                "jsonrpc": "2.0",
                "method": "agent.chat",
                "params": {"message": "in a batch"},
                "id": 10,
            },
            {"jsonrpc": "2.0", "method": "system.ping", "id": 11},
            {"jsonrpc": "2.0", "method": "system.ping"},
        ]
    )
    reply = await rpc.wait_for(lambda m: isinstance(m, list), wait=20)
    by_id = {r["id"]: r for r in reply}
    assert set(by_id) == {10, 11}
    assert by_id[10]["result"]["content"] == "echo: in a batch"


async def test_second_chat_while_busy_is_refused(rpc: RawRpc) -> None:
    await register(rpc, [BOM])
    await start_chat(rpc, "busy", "fetch_bom_tool keeps it busy")
    call = (await rpc.notification("agent.toolCall", wait=20))["params"]
    refused = await rpc.request("agent.chat", {"message": "me too"})
    assert refused["error"]["code"] == -32000
    await _answer(rpc, call, result="done")
    await rpc.wait_for(lambda m: m.get("id") == "busy", wait=20)


def test_rest_mounted(server: ServiceHandle) -> None:
    root = httpx.get(f"{server.url}/", timeout=5).json()
    assert {"echo", "echo2"} <= set(root["agents"])
    assert httpx.get(f"{server.url}/ready", timeout=10).json() == {"ready": True}
    r = httpx.post(
        f"{server.url}/api/batch-replace",
        json={"old": "NDM2", "new": "NXM", "tasks": ["NDM2-63", "NDM2-125/3300"]},
        timeout=10,
    )
    assert [x["replaced"] for x in r.json()["results"]] == ["NXM-63", "NXM-125/3300"]


async def test_standalone_adapter_by_url(server: ServiceHandle) -> None:
    with standalone_adapter({}, agent_server_url=server.url, health_path="/ready") as adapter:
        rpc = await RawRpc.connect(f"ws://127.0.0.1:{adapter.port}/v1/ws")
        try:
            await register(rpc, [BOM])
            await start_chat(rpc, "u", "fetch_bom_tool via url")
            call = (await rpc.notification("agent.toolCall", wait=20))["params"]
            await _answer(rpc, call, result="standalone")
            reply = await rpc.wait_for(lambda m: m.get("id") == "u", wait=20)
            assert reply["result"]["content"] == "results: fetch_bom_tool[success]=standalone"
        finally:
            await rpc.close()


async def test_other_interrupts_are_reported_and_resumed(rpc: RawRpc) -> None:
    reply = await rpc.request("agent.register", {"client_id": "c", "agent_id": "approval"})
    assert reply["result"]["capabilities"]["resume"] is True
    nothing = await rpc.request("agent.resume", {"resume": {"decisions": []}})
    assert nothing["error"]["code"] == -32602
    chat = await rpc.request(
        "agent.chat", {"message": 'add_numbers args={"a": 2, "b": 5}'}, wait=20
    )
    result = chat["result"]
    assert result["status"] == "interrupted"
    (intr,) = result["interrupts"]
    assert intr["value"]["action_requests"][0]["name"] == "add_numbers"
    # the raw form: a whole resume value keyed by interrupt id
    done = await rpc.request(
        "agent.resume", {"resume": {intr["id"]: {"decisions": [{"type": "approve"}]}}}, wait=20
    )
    assert done["result"]["status"] == "completed"
    assert done["result"]["content"] == "results: add_numbers[success]=7.0"


async def _approval_card(rpc: RawRpc, a: int, b: int) -> dict[str, Any]:
    """Ask the approval graph to add ``a`` and ``b``; the agent.interrupt it sends."""
    await rpc.request("agent.register", {"client_id": "c", "agent_id": "approval"})
    await start_chat(rpc, "add", f'add_numbers args={{"a": {a}, "b": {b}}}')
    card = (await rpc.notification("agent.interrupt", wait=20))["params"]
    chat = await rpc.wait_for(lambda m: m.get("id") == "add", wait=20)
    assert chat["result"]["status"] == "interrupted"
    assert chat["result"]["pending"] == [card]
    return card


async def test_approval_reaches_the_client_as_its_own_notification(rpc: RawRpc) -> None:
    card = await _approval_card(rpc, 2, 5)
    assert card["kind"] == "approval" and card["action"] == "add_numbers"
    assert card["args"] == {"a": 2, "b": 5}
    # interrupt_on=True: every decision langchain knows
    assert card["allowed"] == ["approve", "edit", "reject", "respond"]
    assert card["description"]  # the card text the middleware wrote
    assert rpc.notifications("agent.toolCall") == []  # not a client-tool call
    await rpc.notification("agent.status", status="waiting")
    done = await rpc.request(
        "agent.resume", {"interrupt_id": card["interrupt_id"], "decision": "approve"}, wait=20
    )
    assert done["result"]["content"] == "results: add_numbers[success]=7.0"
    again = await rpc.request(
        "agent.resume", {"interrupt_id": card["interrupt_id"], "decision": "approve"}
    )
    assert again["error"]["code"] == -32602  # answered once; nothing waits any more


async def test_edit_and_reject_over_agent_resume(server: ServiceHandle) -> None:
    rpc = await RawRpc.connect(ws_url(server))
    try:
        card = await _approval_card(rpc, 1, 1)
        edited = await rpc.request(
            "agent.resume",
            {"interrupt_id": card["interrupt_id"], "decision": "edit", "args": {"a": 40, "b": 2}},
            wait=20,
        )
        content = edited["result"]["content"]
        assert content.startswith("results: add_numbers[success]=")
        assert content.endswith("Tool response:\n42.0")  # the edited call ran
        card = await _approval_card(rpc, 3, 3)
        bad = await rpc.request("agent.resume", {"interrupt_id": "nope", "decision": "approve"})
        assert bad["error"]["code"] == -32602
        assert bad["error"]["data"]["interrupt_ids"] == [card["interrupt_id"]]
        rejected = await rpc.request(
            "agent.resume",
            {"interrupt_id": card["interrupt_id"], "decision": "reject", "message": "not now"},
            wait=20,
        )
        content = rejected["result"]["content"]
        assert content.startswith("results: add_numbers[error]=") and "not now" in content
    finally:
        await rpc.close()


async def test_a_pending_approval_is_sent_again_after_a_reconnect(server: ServiceHandle) -> None:
    sid = uuid.uuid4().hex
    rpc = await RawRpc.connect(ws_url(server, sid))
    card = await _approval_card(rpc, 4, 4)
    await rpc.close()
    rpc = await RawRpc.connect(ws_url(server, sid))
    try:
        again = (await rpc.notification("agent.interrupt", wait=10))["params"]
        assert again["interrupt_id"] == card["interrupt_id"] and again["resent"] is True
        done = await rpc.request(
            "agent.resume", {"interrupt_id": card["interrupt_id"], "decision": "approve"}, wait=20
        )
        assert done["result"]["content"] == "results: add_numbers[success]=8.0"
    finally:
        await rpc.close()


async def test_cli_runs_a_local_tool_and_prints_status_lines(
    server: ServiceHandle, tmp_path: Path
) -> None:
    (tmp_path / "bom.txt").write_text("CR7HSA x4\n", encoding="utf-8")
    message = 'read_text_file args={"path": "bom.txt"}'
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "rpc_adapter.cli",
        "--url", f"ws://127.0.0.1:{server.port}/v1/ws", "--agent", AGENT,
        "--root", str(tmp_path), "-m", message, "--lang", "en",
        cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode == 0, err.decode()
    assert "results: read_text_file[success]=CR7HSA x4" in out.decode()
    lines = err.decode()
    assert "[registered] agent=echo tools=2" in lines
    assert "[tool] read_text_file(path=bom.txt)" in lines and "[executing]" in lines
    assert "{" not in lines  # status lines, never raw JSON
