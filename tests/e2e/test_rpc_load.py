"""Many sessions at once through the mounted adapter, each completing a chat that calls a
client tool, with the Python client library (rpc_adapter.client) as the client.

Two agents: the RPC fixture graph (the adapter's own load, a minimal graph behind it)
and the product graphs (root langgraph.json, ``orchestrator`` on the offline planner),
which must call a registered ``fetch_bom_tool`` when asked about a product's BOM.
``RPC_E2E_REAL=1`` runs only the product variant, ``RPC_E2E_REAL=0`` only the fixture's.
"""

from __future__ import annotations

import asyncio
import os
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from rpc_adapter.client import LocalTool, RpcClient
from runstack.agent_server import PRODUCT_CONFIG
from runstack.processes import ServiceHandle
from tests.e2e.rpc_fixtures.server import langgraph_dev

pytestmark = pytest.mark.e2e

SESSIONS = 100
_ONLY = os.environ.get("RPC_E2E_REAL")
AGENTS = [a for a in ("echo", "orchestrator") if _ONLY is None or (a != "echo") == (_ONLY == "1")]


def _message(agent: str, i: int) -> str:
    if agent == "orchestrator":
        return f"What is in the BOM of product P{i}? Use my CAD system."
    return f'fetch_bom_tool args={{"product": "P{i}"}}'


def _build_graph(svc: ServiceHandle, agent: str) -> None:
    """Have the server build ``agent``'s graph once, so the timed part measures the sessions
    (the cold start is measured by scripts/bench/bench_cold_start.py)."""
    found = httpx.post(
        f"{svc.url}/assistants/search", json={"graph_id": agent, "limit": 1}, timeout=30
    ).json()
    httpx.get(f"{svc.url}/assistants/{found[0]['assistant_id']}/graph", timeout=120)


def bom_client(server: ServiceHandle, bom: Callable[..., Any], **kwargs: Any) -> RpcClient:
    """A client of ``server``'s adapter lending the agent ``fetch_bom_tool`` (runs ``bom``)."""
    client = RpcClient(f"ws://127.0.0.1:{server.port}/v1/ws", **kwargs)
    client.add_tool(
        LocalTool(
            "fetch_bom_tool",
            "Bill of materials of a product",
            {"type": "object", "properties": {"product": {"type": "string"}}},
            bom,
        )
    )
    return client


@pytest.fixture(scope="module", params=AGENTS)
def served(request: pytest.FixtureRequest) -> Iterator[tuple[ServiceHandle, str]]:
    agent: str = request.param
    config = PRODUCT_CONFIG if agent == "orchestrator" else None
    # The product graphs' sandboxes and logs go to a folder of this test, not the checkout.
    with tempfile.TemporaryDirectory(prefix="rpc-load-data-", ignore_cleanup_errors=True) as data:
        env = {
            "RPC_TOOL_TIMEOUT": "60",
            "RPC_AGENT_TIMEOUT": "60",
            "MODEL": "offline",
            "DATA_DIR": data,
        }
        with langgraph_dev(env, config=config, timeout=120) as svc:
            _build_graph(svc, agent)
            yield svc, agent


async def _one(
    server: ServiceHandle, agent: str, i: int
) -> tuple[dict[str, object], list[str], int]:
    statuses: list[str] = []
    calls = [0]

    def bom(product: str = "") -> dict[str, object]:
        calls[0] += 1
        return {"product": product, "session": i, "rows": [["spark plug", i]]}

    client = bom_client(server, bom, on_status=lambda p: statuses.append(p["status"]))
    async with client:
        await client.register(agent, client_id=f"load-{i}")
        reply = await client.chat(_message(agent, i))
    return reply, statuses, calls[0]


async def test_many_concurrent_sessions_each_with_a_client_tool_call(
    served: tuple[ServiceHandle, str],
) -> None:
    server, agent = served
    results = await asyncio.gather(*(_one(server, agent, i) for i in range(SESSIONS)))
    for i, (reply, statuses, calls) in enumerate(results):
        assert reply["status"] == "completed" and reply["tool_calls"] == 1, reply
        assert calls == 1  # the tool ran in this session's client, once
        assert "executing" in statuses and "tools_synced" in statuses
        # each session got its own tool result back: no cross-talk between sessions
        assert f'"product": "P{i}", "session": {i}' in str(reply["content"])


async def test_a_failing_client_tool_is_reported_in_the_answer(
    served: tuple[ServiceHandle, str],
) -> None:
    server, agent = served

    def bom(product: str = "") -> dict[str, object]:
        msg = f"CAD system offline, cannot open {product}"
        raise RuntimeError(msg)

    client = bom_client(server, bom)
    async with client:
        await client.register(agent, client_id="load-failing")
        reply = await client.chat(_message(agent, 7))
    assert reply["status"] == "completed" and reply["tool_calls"] == 1, reply
    content = str(reply["content"])
    assert "CAD system offline, cannot open P7" in content
    if agent == "orchestrator":
        assert "failed" in content  # the planner says the tool failed, not just relays text
