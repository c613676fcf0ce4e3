"""Many sessions at once through the mounted adapter, each completing a chat that calls a
client tool, with the Python client library (rpc_adapter.client) as the client."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from rpc_adapter.client import LocalTool, RpcClient
from tests.e2e.rpc_fixtures.server import langgraph_dev
from tests.integration.procs import ServiceHandle

pytestmark = pytest.mark.e2e

SESSIONS = 100


@pytest.fixture(scope="module")
def server() -> Iterator[ServiceHandle]:
    with langgraph_dev({"RPC_TOOL_TIMEOUT": "60", "RPC_AGENT_TIMEOUT": "60"}) as svc:
        yield svc


async def _one(server: ServiceHandle, i: int) -> tuple[str, list[str]]:
    statuses: list[str] = []

    def bom(product: str) -> dict[str, object]:
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
        await client.register("echo", client_id=f"load-{i}")
        reply = await client.chat(f'fetch_bom_tool args={{"product": "P{i}"}}')
    return reply["content"], statuses


async def test_many_concurrent_sessions_each_with_a_client_tool_call(
    server: ServiceHandle,
) -> None:
    started = time.perf_counter()
    results = await asyncio.gather(*(_one(server, i) for i in range(SESSIONS)))
    elapsed = time.perf_counter() - started
    for i, (content, statuses) in enumerate(results):
        # each session got its own tool result back: no cross-talk between sessions
        assert f'"product": "P{i}", "session": {i}' in content, content
        assert "executing" in statuses and "tools_synced" in statuses
    assert elapsed < 60, f"{SESSIONS} sessions took {elapsed:.1f} s"
