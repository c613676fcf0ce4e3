"""Many sessions at once through the mounted adapter, each completing a chat that calls a
client tool, with the Python client library (rpc_adapter.client) as the client.

By default the agent is the RPC fixture graph. ``RPC_E2E_REAL=1`` runs the same test on
the product graphs (root langgraph.json, ``orchestrator`` on the offline planner), which
must call a registered ``fetch_bom_tool`` when asked about a product's BOM.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Iterator

import pytest

from rpc_adapter.client import LocalTool, RpcClient
from tests.e2e.rpc_fixtures.server import FIXTURE_CONFIG, langgraph_dev
from tests.integration.procs import ROOT, ServiceHandle

pytestmark = pytest.mark.e2e

SESSIONS = 100
REAL = os.environ.get("RPC_E2E_REAL") == "1"
AGENT = "orchestrator" if REAL else "echo"


def _message(i: int) -> str:
    if REAL:
        return f"What is in the BOM of product P{i}? Use my CAD system."
    return f'fetch_bom_tool args={{"product": "P{i}"}}'


@pytest.fixture(scope="module")
def server() -> Iterator[ServiceHandle]:
    config = ROOT / "langgraph.json" if REAL else FIXTURE_CONFIG
    env = {"RPC_TOOL_TIMEOUT": "60", "RPC_AGENT_TIMEOUT": "60"}
    with langgraph_dev(env, config=config, timeout=120) as svc:
        yield svc


async def _one(server: ServiceHandle, i: int) -> tuple[dict[str, object], list[str], int]:
    statuses: list[str] = []
    calls = [0]

    def bom(product: str = "") -> dict[str, object]:
        calls[0] += 1
        return {"product": product, "session": i, "rows": [["spark plug", i]]}

    client = RpcClient(
        f"ws://127.0.0.1:{server.port}/v1/ws", on_status=lambda p: statuses.append(p["status"])
    )
    client.add_tool(
        LocalTool(
            "fetch_bom_tool",
            "Bill of materials of a product",
            {"type": "object", "properties": {"product": {"type": "string"}}},
            bom,
        )
    )
    async with client:
        await client.register(AGENT, client_id=f"load-{i}")
        reply = await client.chat(_message(i))
    return reply, statuses, calls[0]


async def test_many_concurrent_sessions_each_with_a_client_tool_call(
    server: ServiceHandle,
) -> None:
    started = time.perf_counter()
    results = await asyncio.gather(*(_one(server, i) for i in range(SESSIONS)))
    elapsed = time.perf_counter() - started
    for i, (reply, statuses, calls) in enumerate(results):
        assert reply["status"] == "completed" and reply["tool_calls"] == 1, reply
        assert calls == 1  # the tool ran in this session's client, once
        assert "executing" in statuses and "tools_synced" in statuses
        if not REAL:
            # each session got its own tool result back: no cross-talk between sessions
            assert f'"product": "P{i}", "session": {i}' in str(reply["content"])
    assert elapsed < 60, f"{SESSIONS} sessions took {elapsed:.1f} s"
