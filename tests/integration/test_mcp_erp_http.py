"""The ERP MCP server as clients meet it: real ``python -m sim.erp`` and ``python -m mcp_erp``
processes on free loopback ports, called over streamable HTTP (and once over stdio)."""

from __future__ import annotations

import contextlib
import re
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from fastmcp.exceptions import ToolError

from mcp_erp import TOOL_NAMES
from runstack.processes import ROOT, ServiceHandle, free_port, start_service
from sim.catalog import generate

pytestmark = pytest.mark.integration

# The unit tests hold the snapshot of the names; here: the process serves exactly them.
TOOLS = set(TOOL_NAMES)


@pytest.fixture(scope="module")
def services(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[dict[str, ServiceHandle]]:
    """sim.erp, mcp_erp in front of it, and an mcp_erp whose ERP is down, started side by
    side (the slow part is each interpreter's imports, not the health checks)."""
    data = tmp_path_factory.mktemp("mcp-erp-it")
    erp_port, mcp_port, orphan_port = free_port(), free_port(), free_port()
    erp_url, dead_url = f"http://127.0.0.1:{erp_port}", f"http://127.0.0.1:{free_port()}"
    with contextlib.ExitStack() as stack:

        def start(module: str, port: int, **env: str) -> ServiceHandle:
            service = start_service(
                module, {"DATA_DIR": str(data), **env}, port, log_dir=data, wait=False
            )
            return stack.enter_context(service)

        procs = {
            "erp": start("sim.erp", erp_port, SIM_ERP_PORT=str(erp_port)),
            "mcp": start("mcp_erp", mcp_port, ERP_MCP_PORT=str(mcp_port), ERP_BASE_URL=erp_url),
            "orphan": start(
                "mcp_erp", orphan_port, ERP_MCP_PORT=str(orphan_port), ERP_BASE_URL=dead_url
            ),
        }
        for handle in procs.values():
            handle.wait_healthy(timeout=40)
        yield procs


@pytest.fixture(scope="module")
def erp(services: dict[str, ServiceHandle]) -> ServiceHandle:
    return services["erp"]


@pytest.fixture(scope="module")
def mcp(services: dict[str, ServiceHandle]) -> ServiceHandle:
    return services["mcp"]


async def call(client: Client[Any], tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert isinstance(result.data, dict), result
    return result.data


def test_health_reports_the_erp(mcp: ServiceHandle, erp: ServiceHandle) -> None:
    body = httpx.get(f"{mcp.url}/health", timeout=5).json()
    assert body["status"] == "ok"
    assert body["erp"] == {"url": erp.url, "reachable": True}


async def test_nine_tools_over_streamable_http(mcp: ServiceHandle) -> None:
    async with Client(f"{mcp.url}/mcp") as client:
        tools = {t.name: t for t in await client.list_tools()}
        assert set(tools) == TOOLS

        ngk = (await call(client, "supplier_query", name="NGK"))["items"][0]
        assert ngk["status"] == "active"
        assert (await call(client, "supplier_query", supplier_id=ngk["id"]))["code"] == ngk["code"]
        bosch = await call(client, "supplier_query", name="博世")
        assert bosch["total"] >= 1 and "Bosch" in bosch["items"][0]["name_en"]

        plugs_zh = await call(client, "part_search", name="火花塞", limit=5)
        plugs_en = await call(client, "part_search", name="spark plug", limit=5)
        assert plugs_zh["items"] and plugs_en["items"]
        assert {p["category_code"] for p in plugs_zh["items"][:3]} == {
            plugs_en["items"][0]["category_code"]
        }

        listed = await call(client, "part_query", category="火花塞", size=3)
        assert len(listed["items"]) == 3 and listed["has_more"] is True
        part = await call(client, "part_query", part_id=listed["items"][0]["id"])
        assert part["offers"] and "safety_stock" in part["inventory"]
        ids = [p["id"] for p in reversed(listed["items"])]
        batch = await call(client, "part_query", part_ids=ids)
        assert [p["id"] for p in batch["items"]] == ids and batch["missing"] == []
        assert batch["items"][-1] == part
        offer = part["offers"][0]
        assert isinstance(offer["price_minor"], int) and isinstance(offer["price"], str)

        sold = await call(client, "part_by_supplier", supplier_id=ngk["id"], size=5)
        assert sold["supplier"]["id"] == ngk["id"] and sold["items"]
        first = sold["items"][0]
        assert first["offer"]["supplier_id"] == ngk["id"]

        warn = await call(client, "inventory_warning", size=5)
        shortages = [w["shortage"] for w in warn["items"]]
        assert shortages and shortages == sorted(shortages, reverse=True)

        key = f"it-{uuid.uuid4().hex}"
        order_args = {
            "idempotency_key": key,
            "supplier_id": ngk["id"],
            "lines": [{"part_id": first["id"], "quantity": first["offer"]["min_order_qty"]}],
            "note": "integration test",
            "requested_by": "it-buyer",
        }
        order = await call(client, "order_create", **order_args)
        assert order["status"] == "draft" and order["supplier_id"] == ngk["id"]
        assert order["lines"][0]["amount_minor"] == order["total_minor"]
        assert "amount" in order["lines"][0]

        found = await call(client, "order_search_details", order_no=order["order_no"])
        assert [o["id"] for o in found["items"]] == [order["id"]]

        again = await call(client, "order_create", **order_args)
        assert again["id"] == order["id"]
        same_key = await call(client, "order_search_details", supplier_id=ngk["id"], size=100)
        assert sum(o.get("idempotency_key") == key for o in same_key["items"]) == 1

        with pytest.raises(ToolError, match=r"^IDEMPOTENCY_CONFLICT: "):
            await client.call_tool(
                "order_create",
                {**order_args, "lines": [{**order_args["lines"][0], "quantity": 10**6}]},
            )

        submitted = await call(
            client,
            "order_update",
            order_id=order["order_no"],
            expected_version=order["version"],
            status="pending_approval",
            actor="it-buyer",
        )
        assert submitted["status"] == "pending_approval"
        assert submitted["version"] == order["version"] + 1
        with pytest.raises(ToolError, match=r"^VERSION_CONFLICT: "):
            await client.call_tool(
                "order_update",
                {"order_id": order["id"], "expected_version": order["version"], "note": "x"},
            )
        with pytest.raises(ToolError, match=r"^APPROVAL_REQUIRED: "):
            await client.call_tool(
                "order_update",
                {
                    "order_id": order["id"],
                    "expected_version": submitted["version"],
                    "status": "approved",
                },
            )
        cancelled = await call(
            client,
            "order_update",
            order_id=order["id"],
            expected_version=submitted["version"],
            status="cancelled",
            actor="it-buyer",
        )
        assert cancelled["status"] == "cancelled"
        now = await call(client, "order_search_details", order_no=order["order_no"])
        assert now["items"][0]["status"] == "cancelled"
        assert now["items"][0]["version"] == cancelled["version"]

        with pytest.raises(ToolError, match=r"^NOT_FOUND: "):
            await client.call_tool("part_by_supplier", {"supplier_id": 999_999})
        with pytest.raises(ToolError, match="greater than 0"):
            await client.call_tool(
                "order_create",
                {**order_args, "lines": [{"part_id": first["id"], "quantity": 0}]},
            )


async def test_part_equivalents_by_model_sku_and_id(mcp: ServiceHandle, erp: ServiceHandle) -> None:
    # The ERP process serves the default seed: the catalogue says what to expect.
    catalog = generate()
    makers: dict[str, list[Any]] = {}
    for p in catalog.parts:
        makers.setdefault(p.model, []).append(p)
    linked = {e.part_id for e in catalog.equivalences}
    part = next(ps[0] for ps in makers.values() if len(ps) == 1 and ps[0].id in linked)
    shared = next(ps for ps in makers.values() if len(ps) > 1)
    expected = {(e.equivalent_id, e.match) for e in catalog.equivalences if e.part_id == part.id}
    async with Client(f"{mcp.url}/mcp") as client:
        by_model = await call(client, "part_equivalents", part=part.model.lower())
        assert by_model == await call(client, "part_equivalents", part=part.sku)
        assert by_model == await call(client, "part_equivalents", part=str(part.id))
        assert by_model["part"]["sku"] == part.sku
        assert {(e["part"]["id"], e["match"]) for e in by_model["equivalents"]} == expected
        async with httpx.AsyncClient(base_url=erp.url) as web:
            rest = (await web.get(f"/parts/{part.id}/equivalents")).json()
        assert [e["offers"] for e in by_model["equivalents"]] == [
            e["offers"] for e in rest["equivalents"]
        ]
        with pytest.raises(ToolError, match=r"^AMBIGUOUS: ") as caught:
            await client.call_tool("part_equivalents", {"part": shared[0].model})
        assert all(p.sku in str(caught.value) for p in shared)
        with pytest.raises(ToolError, match=r"^NOT_FOUND: "):
            await client.call_tool("part_equivalents", {"part": "NO-SUCH-PART-77"})


async def test_stdio_transport(erp: ServiceHandle, tmp_path: Path) -> None:
    transport = StdioTransport(
        sys.executable,
        ["-m", "mcp_erp", "--stdio"],
        env={"ERP_BASE_URL": erp.url, "DATA_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)},
        cwd=str(ROOT),
        keep_alive=False,
    )
    async with Client(transport) as client:
        assert {t.name for t in await client.list_tools()} == TOOLS
        hits = await call(client, "part_search", name="刹车片", limit=2)
        assert len(hits["items"]) == 2


async def test_unreachable_erp_over_http(services: dict[str, ServiceHandle]) -> None:
    orphan = services["orphan"]
    async with httpx.AsyncClient(base_url=orphan.url) as web:
        health = (await web.get("/health")).json()
    dead = health["erp"]["url"]
    assert health["status"] == "ok" and health["erp"]["reachable"] is False
    async with Client(f"{orphan.url}/mcp") as client:
        with pytest.raises(ToolError, match=rf"^ERP_UNREACHABLE: the ERP at {re.escape(dead)} "):
            await client.call_tool("inventory_warning", {})


async def test_the_graphs_keep_one_session_and_survive_a_restart(
    erp: ServiceHandle, tmp_path: Path
) -> None:
    """The graphs' registry: one session for many calls; after the server restarts, the
    next call opens one new session and answers; while it is down, an error names it."""
    from graphs.mcp_registry import McpRegistry

    port = free_port()
    env = {"DATA_DIR": str(tmp_path), "ERP_MCP_PORT": str(port), "ERP_BASE_URL": erp.url}
    spec: Any = {
        "name": "erp",
        "transport": "streamable_http",
        "url": f"http://127.0.0.1:{port}/mcp",
        "agents": {"analyst": {"tools": ["part_search"]}},
    }
    registry = McpRegistry([spec])
    args = {"name": "火花塞", "limit": 1}
    try:
        with start_service("mcp_erp", env, port, log_dir=tmp_path, timeout=40) as first:
            for _ in range(30):
                assert '"items"' in await registry.call("erp", "part_search", args)
            assert registry.sessions.opened["erp"] == 1
            first.stop()
            logs = [first.log_tail(400)]
            down = await registry.call("erp", "part_search", args)
            assert "MCP server 'erp'" in down and "unreachable" in down
        with start_service("mcp_erp", env, port, log_dir=tmp_path, timeout=40) as second:
            assert '"items"' in await registry.call("erp", "part_search", args)
            assert registry.sessions.opened["erp"] == 2
            await registry.aclose()  # the session ends: no traceback for it in the log
            second.stop()
            logs.append(second.log_tail(400))
        for log in logs:
            assert "Traceback" not in log and "ClosedResourceError" not in log, log
    finally:
        await registry.aclose()
