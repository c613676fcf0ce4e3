"""Issue 16: every client as its users expect it, against the product's graphs in
``langgraph dev`` on the offline planner with the real services.

- Studio: both graphs publish input, output, state and context schemas over HTTP.
- Streams (the conventions Agent Chat UI relies on, checked at the API level): a
  ``messages-tuple`` stream of a procurement exchange carries no memory-extraction chunk;
  the thread stores no context notes; the analyst is followed stage by stage with
  ``custom`` events (and ``updates`` / ``messages`` in the same run stream); the wake-up
  message is stored under a ``do-not-render-`` id.
- JSON-RPC over a real socket: an order's approval arrives as ``agent.interrupt`` carrying
  the card; ``agent.resume`` approve gives exactly one ERP row, reject none; a question is
  answered the same way; a card sent by the mounted adapter is approved through a
  standalone one after a reconnect (the session from the Store: one ERP row); a
  background analysis's result arrives unasked, also after a reconnect; the reference's
  ``agent.register`` frames get ``tools_synced`` as a list.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from typing import Any

import httpx
import pexpect
import pytest
from langgraph_sdk.client import LangGraphClient

from runstack.processes import ROOT
from runstack.threads import (
    FLAGSHIP_REQUEST,
    REPORT,
    follow_run,
    interrupts,
    start_analysis,
    thread_messages,
)
from tests.e2e.agents_stack import Stack, orders_from
from tests.e2e.memory import wait_for_memory
from tests.e2e.rpc_fixtures.server import standalone_adapter
from tests.e2e.rpc_fixtures.store import session_record
from tests.e2e.rpc_fixtures.ws import RawRpc

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

USER = {"user_id": "buyer-16", "username": "王芳"}


def ws_url(stack: Stack, session_id: str | None = None) -> str:
    sid = session_id or uuid.uuid4().hex
    return f"ws://127.0.0.1:{stack.agent.port if stack.agent else 0}/v1/ws?session_id={sid}"


async def test_studio_reads_every_schema_over_http(served: Stack) -> None:
    async with httpx.AsyncClient(base_url=served.url, timeout=60) as http:
        for graph in ("orchestrator", "analyst"):
            [assistant] = (await http.post("/assistants/search", json={"graph_id": graph})).json()
            schemas = (await http.get(f"/assistants/{assistant['assistant_id']}/schemas")).json()
            for kind in ("input_schema", "output_schema", "state_schema", "context_schema"):
                assert schemas[kind] is not None, (graph, kind)
            assert "messages" in schemas["input_schema"]["properties"]  # Studio's form field
            assert "user_id" in schemas["context_schema"]["properties"]


async def test_messages_stream_carries_no_internal_call(
    served: Stack, client: LangGraphClient
) -> None:
    supplier = served.erp_get("/suppliers/search", name="", size=5, status="active")["items"][0]
    user = f"u-{uuid.uuid4().hex[:8]}"
    thread_id = (await client.threads.create())["thread_id"]
    request = f"查一下{supplier['name_zh']}最近的订单状态"
    chunks: list[tuple[dict[str, Any], dict[str, Any]]] = []
    async for part in client.runs.stream(
        thread_id,
        "orchestrator",
        input={"messages": [{"role": "user", "content": request}]},
        context={"user_id": user},
        stream_mode="messages-tuple",
    ):
        if part.event == "messages":
            message, metadata = part.data
            chunks.append((message, metadata))
    # the memory extraction did run (the preferences file has the supplier) ...
    await wait_for_memory(client, user, supplier["name_zh"])
    # ... but no chunk of it reached the stream, which carried the answer
    assert chunks, "the stream carried no message"
    for message, _ in chunks:
        text = json.dumps(message.get("content"), ensure_ascii=False)
        assert '\\"suppliers\\"' not in text and '"suppliers"' not in text, text
        assert (message.get("response_metadata") or {}).get("policy") != "memory"
    state: Any = await client.threads.get_state(thread_id)
    stored = state["values"]["messages"]
    assert not [m for m in stored if m["type"] == "system"]  # notes go to the model only
    final = stored[-1]
    assert any(m.get("id") == final["id"] for m, _ in chunks)  # the answer was streamed


async def test_the_analyst_followed_stage_by_stage(served: Stack, client: LangGraphClient) -> None:
    started = await start_analysis(client, FLAGSHIP_REQUEST, USER)
    [run] = await client.runs.list(started.task_id, limit=1)
    events: dict[str, list[Any]] = {}
    async for part in follow_run(client, started.task_id, run["run_id"]):
        events.setdefault(part.event.split("|")[0], []).append(part.data)
    progress = [e for e in events.get("custom", []) if e.get("type") == "analyst_progress"]
    stages = [e["stage"] for e in progress if e["event"] == "stage"]
    assert stages == [1, 2, 3, 4, 5], progress[:5]
    tools = {e["tool"] for e in progress if e["event"] == "tool" and e["status"] == "done"}
    assert {"fetch_url", "generate_visualization", "execute"} <= tools
    assert progress[-1]["event"] == "finished"
    assert events.get("updates") and events.get("messages")  # the same run, other modes

    # the analyst's end woke the orchestrator: a run we did not start, on its thread
    woken: list[dict[str, Any]] = []
    for later in await client.runs.list(started.thread_id, limit=10):
        if later["run_id"] != started.run_id:
            async for _ in follow_run(client, started.thread_id, later["run_id"]):
                pass
            woken.append(dict(later))
    assert woken, "no wake-up run on the orchestrator's thread"
    messages = await thread_messages(client, started.thread_id)
    notices = [m for m in messages if "deepagents_notification" in m["additional_kwargs"]]
    assert notices and all(m["id"].startswith("do-not-render-") for m in notices)
    assert not any(m["id"].startswith("do-not-render-") for m in messages if m not in notices)
    assert messages[-1]["type"] == "ai" and REPORT.search(str(messages[-1]["content"]))


async def _register(rpc: RawRpc, agent: str = "orchestrator", **extra: Any) -> dict[str, Any]:
    reply = await rpc.request(
        "agent.register", {"client_id": "cad-16", "agent_id": agent, **extra}, wait=60
    )
    assert "result" in reply, reply
    result: dict[str, Any] = reply["result"]
    return result


async def _approval_card(rpc: RawRpc, request: str) -> dict[str, Any]:
    chat = await rpc.request("agent.chat", {"message": request}, wait=120)
    assert chat["result"]["status"] == "interrupted", chat
    card = (await rpc.notification("agent.interrupt", wait=10))["params"]
    assert chat["result"]["pending"] == [card]
    return card


async def test_approve_over_json_rpc_makes_exactly_one_row(
    served: Stack, client: LangGraphClient
) -> None:
    rpc = await RawRpc.connect(ws_url(served))
    try:
        await _register(rpc)
        card = await _approval_card(rpc, "Order 140 NGK spark plugs IU7 from NGK")
        assert card["kind"] == "approval" and card["action"] == "order_create"
        assert card["allowed"] == ["approve", "edit", "reject"]
        assert orders_from(served, card["args"]) == []  # nothing before the approval
        # the card is the approval the thread waits on, with its text
        thread: Any = await client.threads.get(card["thread_id"])
        [waiting] = interrupts(thread)
        assert waiting["id"] == card["interrupt_id"]
        assert card["description"] == waiting["value"]["action_requests"][0].get("description", "")
        done = await rpc.request(
            "agent.resume", {"interrupt_id": card["interrupt_id"], "decision": "approve"}, wait=120
        )
        assert done["result"]["status"] == "completed", done
        [order] = orders_from(served, card["args"])
        assert [ln["quantity"] for ln in order["lines"]] == [140]
        assert order["order_no"] in done["result"]["content"]
        response = await rpc.notification("agent.response", wait=10)
        assert response["params"]["content"] == done["result"]["content"]
    finally:
        await rpc.close()


async def test_reject_over_json_rpc_makes_none(served: Stack) -> None:
    rpc = await RawRpc.connect(ws_url(served))
    try:
        await _register(rpc)
        card = await _approval_card(rpc, "Order 150 NGK spark plugs IU7 from NGK")
        done = await rpc.request(
            "agent.resume",
            {"interrupt_id": card["interrupt_id"], "decision": "reject", "message": "太贵了"},
            wait=120,
        )
        assert done["result"]["status"] == "completed"
        assert orders_from(served, card["args"]) == []
    finally:
        await rpc.close()


async def test_a_question_then_the_approval_over_json_rpc(served: Stack) -> None:
    rpc = await RawRpc.connect(ws_url(served))
    try:
        await _register(rpc)
        chat = await rpc.request(
            "agent.chat", {"message": "给 NGK 下单火花塞 IU7，8周内到货"}, wait=120
        )
        [question] = chat["result"]["pending"]
        assert question["kind"] == "question" and question["fields"] == ["quantity"]
        assert question["description"]  # the question, in the buyer's language
        answered = await rpc.request(
            "agent.resume",
            {"interrupt_id": question["interrupt_id"], "answer": {"quantity": 160}},
            wait=120,
        )
        [card] = answered["result"]["pending"]
        assert card["kind"] == "approval"
        assert card["args"]["lines"][0]["quantity"] == 160
        done = await rpc.request(
            "agent.resume", {"interrupt_id": card["interrupt_id"], "decision": "approve"}, wait=120
        )
        [order] = orders_from(served, card["args"])
        assert order["order_no"] in done["result"]["content"]
    finally:
        await rpc.close()


async def test_an_approval_is_approved_on_another_adapter_and_makes_one_row(
    served: Stack, client: LangGraphClient
) -> None:
    # The card comes from the adapter mounted in the Agent Server; the buyer's app loses
    # its socket and reconnects to a standalone adapter (another process, as another
    # replica would be), which has the session from the Store.
    sid = uuid.uuid4().hex
    rpc = await RawRpc.connect(ws_url(served, sid))
    try:
        await _register(rpc)
        card = await _approval_card(rpc, "Order 120 NGK spark plugs IU7 from NGK")
    finally:
        await rpc.close()
    stored = await session_record(client, sid)
    assert stored is not None
    [agent] = stored["agents"]
    assert [i["interrupt_id"] for i in agent["interrupts"]] == [card["interrupt_id"]]
    with standalone_adapter({}, agent_server_url=served.url, health_path="/ready") as other:
        rpc = await RawRpc.connect(f"ws://127.0.0.1:{other.port}/v1/ws?session_id={sid}")
        try:
            again = (await rpc.notification("agent.interrupt", wait=30))["params"]
            assert again["resent"] is True and again["interrupt_id"] == card["interrupt_id"]
            assert again["description"] == card["description"]
            assert orders_from(served, card["args"]) == []  # nothing before the approval
            done = await rpc.request(
                "agent.resume",
                {"interrupt_id": card["interrupt_id"], "decision": "approve"},
                wait=120,
            )
            assert done["result"]["status"] == "completed", done
            [order] = orders_from(served, card["args"])
            assert [ln["quantity"] for ln in order["lines"]] == [120]
            assert order["order_no"] in done["result"]["content"]
            assert done["result"]["thread_id"] == card["thread_id"]
        finally:
            await rpc.close()
    after = await session_record(client, sid)
    assert after is not None and after["agents"][0]["interrupts"] == []


async def test_background_result_arrives_unasked_after_a_reconnect(served: Stack) -> None:
    sid = uuid.uuid4().hex
    rpc = await RawRpc.connect(ws_url(served, sid))
    await _register(rpc)
    chat = await rpc.request("agent.chat", {"message": FLAGSHIP_REQUEST}, wait=120)
    assert chat["result"]["status"] == "completed"
    assert chat["result"]["background_tasks"]  # the analyst runs in the background
    await rpc.close()  # the buyer goes away while it works

    rpc = await RawRpc.connect(ws_url(served, sid))
    try:
        pushed = await rpc.notification("agent.response", wait=300, background=True)
        params = pushed["params"]
        assert params["thread_id"] == chat["result"]["thread_id"]
        assert REPORT.search(params["content"]), params["content"][:300]
    finally:
        await rpc.close()


async def test_background_result_reaches_another_adapter_after_a_reconnect(
    served: Stack, client: LangGraphClient
) -> None:
    # The buyer starts the analysis through the mounted adapter and comes back through a
    # standalone one (another replica): that one follows the thread from the Store's record.
    sid = uuid.uuid4().hex
    rpc = await RawRpc.connect(ws_url(served, sid))
    try:
        await _register(rpc)
        chat = await rpc.request("agent.chat", {"message": FLAGSHIP_REQUEST}, wait=120)
        assert chat["result"]["background_tasks"]
    finally:
        await rpc.close()
    stored = await session_record(client, sid)
    # What a replica needs is in the Store (whether the thread is still marked as followed
    # at this instant races with the analysis, which can end in seconds): the proof is below,
    # the result delivered by the other adapter, once.
    assert stored is not None, "no session record in the Store"
    assert stored["agents"][0]["thread_id"] == chat["result"]["thread_id"]
    with standalone_adapter({}, agent_server_url=served.url, health_path="/ready") as other:
        rpc = await RawRpc.connect(f"ws://127.0.0.1:{other.port}/v1/ws?session_id={sid}")
        try:
            pushed = await rpc.notification("agent.response", wait=300, background=True)
            assert pushed["params"]["thread_id"] == chat["result"]["thread_id"]
            assert REPORT.search(pushed["params"]["content"]), pushed["params"]["content"][:300]
            await asyncio.sleep(3)  # once, not again from the adapter the buyer left
            assert rpc.notifications("agent.response") == []
        finally:
            await rpc.close()


async def test_background_result_arrives_on_the_open_socket(served: Stack) -> None:
    rpc = await RawRpc.connect(ws_url(served))
    try:
        await _register(rpc)
        await rpc.request("agent.chat", {"message": FLAGSHIP_REQUEST}, wait=120)
        pushed = await rpc.notification("agent.response", wait=300, background=True)
        assert REPORT.search(pushed["params"]["content"])
    finally:
        await rpc.close()


async def test_the_reference_register_frames_get_the_tool_list(served: Stack) -> None:
    rpc = await RawRpc.connect(ws_url(served))
    try:
        # the reference protocol's example: a CAD client lending one tool (input_schema)
        await rpc.send(
            {
                "jsonrpc": "2.0",
                "method": "agent.register",
                "params": {
                    "client_id": "cad-client-001",
                    "agent_id": "orchestrator",
                    "tools": [
                        {
                            "name": "fetch_bom_tool",
                            "description": "Fetch the bill of materials of a product",
                            "input_schema": {
                                "type": "object",
                                "properties": {"product_id": {"type": "string"}},
                                "required": ["product_id"],
                            },
                        }
                    ],
                },
                "id": 1,
            }
        )
        reply = await rpc.wait_for(lambda m: m.get("id") == 1, wait=60)
        result = reply["result"]
        assert result["status"] == "registered" and result["agent_id"] == "orchestrator"
        assert result["tools_count"] == 1
        synced = result["tools_synced"]
        assert isinstance(synced, list) and synced[0] == "fetch_bom_tool"
        assert {"task", "start_async_task", "web_search", "read_file"} <= set(synced)
        assert len(synced) == len(set(synced))
    finally:
        await rpc.close()


def test_the_cli_in_a_terminal_approves_an_order(served: Stack) -> None:
    url = f"ws://127.0.0.1:{served.agent.port if served.agent else 0}/v1/ws"
    env = {**os.environ, "LANG": "zh_CN.UTF-8", "PYTHONUNBUFFERED": "1"}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "rpc_adapter.cli", "--url", url],
        cwd=str(ROOT),
        env=env,
        encoding="utf-8",
        timeout=180,
    )
    try:
        child.expect("已连接")  # the status line is in the user's language (the locale's)
        child.expect("你> ")
        child.sendline("给 NGK 下单 170 个火花塞 IU7，8周内到货")
        child.expect("需要你的批准：order_create")
        child.expect("批准 / 修改 / 拒绝")
        card = child.before  # the card's text, as the agent wrote it
        assert "{" not in card.split("━━")[-1][:40]  # a card, not raw JSON
        child.sendline("批准")
        child.expect(r"PO\d{11}")
        order_no = child.after
        child.expect("你> ")
        child.sendcontrol("c")  # a clean goodbye, no traceback
        child.expect(pexpect.EOF)
        transcript = str(child.before)
    finally:
        child.close(force=True)
    assert "Traceback" not in transcript and "再见" in transcript
    assert child.exitstatus == 130
    found = served.erp_get("/orders/search-details", order_no=order_no)
    assert found["total"] == 1
    assert [ln["quantity"] for ln in found["items"][0]["lines"]] == [170]
