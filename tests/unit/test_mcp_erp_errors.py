"""Failures through the MCP client: ERP error codes, an unreachable or silent ERP,
retries for reads only, arguments refused before any request, and masked internals."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from tests.unit.test_mcp_erp_fake import FakeErp, pinned_settings

LINE = {"part_id": 1, "quantity": 10}
CREATE = {"idempotency_key": "errors-0000001", "supplier_id": 1, "lines": [LINE]}


@pytest.fixture
def erp() -> FakeErp:
    return FakeErp()


@pytest.fixture
async def client(erp: FakeErp) -> AsyncIterator[Client[Any]]:
    from mcp_erp.server import create_server

    async with erp.client() as http:
        server = create_server(pinned_settings(), http_client=http)
        async with Client(server) as c:
            yield c


async def refused(client: Client[Any], tool: str, args: dict[str, Any]) -> str:
    with pytest.raises(ToolError) as caught:
        await client.call_tool(tool, args)
    return str(caught.value)


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}"


# -- the ERP's own error codes ---------------------------------------------------


async def _draft(client: Client[Any], submit: bool = False) -> dict[str, Any]:
    result = await client.call_tool("order_create", {**CREATE, "submit": submit})
    assert isinstance(result.data, dict)
    return result.data


async def test_validation(client: Client[Any]) -> None:
    text = await refused(client, "order_create", {**CREATE, "lines": [{**LINE, "quantity": 5}]})
    assert text.startswith("VALIDATION: Line 1: 5 is below the minimum order quantity of 10.")
    assert '"min_order_qty":10' in text  # the ERP's details travel along, compactly


async def test_validation_inactive_supplier(client: Client[Any]) -> None:
    args = {**CREATE, "supplier_id": 3, "lines": [{"part_id": 3, "quantity": 1}]}
    assert await refused(client, "order_create", args) == "VALIDATION: Supplier BLK is blocked."


async def test_not_found(client: Client[Any]) -> None:
    assert await refused(client, "supplier_query", {"supplier_id": 99}) == (
        "NOT_FOUND: There is no supplier with id 99."
    )
    text = await refused(client, "order_update", {"order_id": "PO-9", "expected_version": 1})
    assert text == "NOT_FOUND: There is no order PO-9."


async def test_invalid_transition(client: Client[Any]) -> None:
    order = await _draft(client)
    args = {"order_id": order["id"], "expected_version": 1, "status": "received"}
    text = await refused(client, "order_update", args)
    assert text == "INVALID_TRANSITION: An order in draft cannot move to received."


async def test_idempotency_conflict(client: Client[Any], erp: FakeErp) -> None:
    await _draft(client)
    other = {**CREATE, "lines": [{**LINE, "quantity": 11}]}
    text = await refused(client, "order_create", other)
    assert text == (
        "IDEMPOTENCY_CONFLICT: This idempotency key was already used for a different order."
    )
    assert len(erp.orders) == 1


async def test_version_conflict(client: Client[Any]) -> None:
    order = await _draft(client)
    text = await refused(client, "order_update", {"order_id": order["id"], "expected_version": 5})
    no = order["order_no"]
    assert text.startswith(f"VERSION_CONFLICT: Order {no} was changed meanwhile; it is now at")
    assert '"current_version":1' in text


async def test_approval_required(client: Client[Any]) -> None:
    order = await _draft(client, submit=True)
    args = {"order_id": order["id"], "expected_version": 1, "status": "approved"}
    text = await refused(client, "order_update", args)
    assert text == "APPROVAL_REQUIRED: Approving an order needs approved_by."


# -- retries: reads only ---------------------------------------------------------


async def test_a_read_failing_once_with_503_is_retried(client: Client[Any], erp: FakeErp) -> None:
    erp.fail("GET", "/parts/search", 503, times=1)
    result = await client.call_tool("part_search", {"name": "chain"})
    assert result.data["total"] == 1
    assert erp.count("GET", "/parts/search") == 2


async def test_a_read_failing_every_time_gives_up_with_erp_error(
    client: Client[Any], erp: FakeErp
) -> None:
    erp.fail("GET", "/inventory/warnings", 502, times=10, body=b"<html>bad gateway</html>")
    text = await refused(client, "inventory_warning", {})
    assert text.startswith("ERP_ERROR: the ERP at http://erp.test answered HTTP 502")
    assert erp.count("GET", "/inventory/warnings") == 3  # read_attempts


async def test_a_5xx_with_an_error_body_keeps_its_code(client: Client[Any], erp: FakeErp) -> None:
    body = b'{"error": {"code": "DB_DOWN", "message": "The database is restarting."}}'
    erp.fail("GET", "/suppliers/search", 503, times=3, body=body)
    assert await refused(client, "supplier_query", {}) == "DB_DOWN: The database is restarting."


@pytest.mark.parametrize(
    ("tool", "args", "method", "path"),
    [
        ("order_create", CREATE, "POST", "/orders/create"),
        ("order_update", {"order_id": 1, "expected_version": 1}, "PUT", "/orders/update/1"),
    ],
)
async def test_writes_are_never_retried(
    client: Client[Any], erp: FakeErp, tool: str, args: dict[str, Any], method: str, path: str
) -> None:
    erp.fail(method, path, 503, times=1)
    text = await refused(client, tool, args)
    assert text.startswith("ERP_ERROR:") and "HTTP 503" in text
    assert erp.count(method, path) == 1
    assert erp.orders == []


async def test_success_without_json_is_an_erp_error(client: Client[Any], erp: FakeErp) -> None:
    erp.fail("GET", "/parts/supplier/1", 200, body=b"<html>login page</html>")
    text = await refused(client, "part_by_supplier", {"supplier_id": 1})
    assert text.startswith("ERP_ERROR:") and "without JSON" in text


# -- an ERP that is down or silent ------------------------------------------------


async def test_unreachable_erp_names_the_url_quickly() -> None:
    from mcp_erp.server import create_server

    url = closed_port_url()
    server = create_server(pinned_settings(erp_base_url=url, retry_wait=0.01))
    async with Client(server) as client:
        calls: list[tuple[str, dict[str, Any]]] = [
            ("part_search", {"name": "x"}),
            ("order_create", CREATE),
        ]
        for tool, args in calls:
            started = time.monotonic()
            text = await refused(client, tool, args)
            assert time.monotonic() - started < 3
            assert text.startswith(f"ERP_UNREACHABLE: the ERP at {url} cannot be reached")
            assert "ERP_BASE_URL" in text


async def test_silent_erp_times_out_with_advice_reads_retried_writes_not() -> None:
    from mcp_erp.server import create_server

    connections = 0
    release = asyncio.Event()
    writers: list[asyncio.StreamWriter] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connections
        connections += 1
        writers.append(writer)
        await release.wait()  # hold the request, never answer

    listener = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = listener.sockets[0].getsockname()[1]
    settings = pinned_settings(
        erp_base_url=f"http://127.0.0.1:{port}", read_timeout=0.2, retry_wait=0.01
    )
    try:
        async with Client(create_server(settings)) as client:
            text = await refused(client, "part_query", {})
            assert text.startswith(f"ERP_TIMEOUT: the ERP at http://127.0.0.1:{port}")
            assert connections == 3
            text = await refused(client, "order_create", CREATE)
            assert "same idempotency_key" in text
            assert connections == 4
            text = await refused(client, "order_update", {"order_id": 1, "expected_version": 1})
            assert "compare its version" in text
            assert connections == 5
    finally:
        release.set()
        for writer in writers:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        listener.close()
        await listener.wait_closed()


# -- bad arguments never reach the ERP ------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "args", "fragment"),
    [
        ("supplier_query", {"supplier_id": "abc"}, "valid integer"),
        ("supplier_query", {"status": "gone"}, "status"),
        ("part_query", {"page": 0}, "greater than or equal to 1"),
        ("part_query", {"size": 101}, "less than or equal to 100"),
        ("part_search", {}, "Missing required argument"),
        ("part_search", {"name": ""}, "at least 1 character"),
        ("part_search", {"name": "x" * 100_000}, "at most 200 characters"),
        ("part_by_supplier", {"supplier_id": -1}, "greater than or equal to 1"),
        ("order_create", {**CREATE, "lines": []}, "at least 1 item"),
        ("order_create", {**CREATE, "lines": [{"part_id": 1, "quantity": 0}]}, "greater than 0"),
        ("order_create", {**CREATE, "lines": [{"part_id": 1, "quantity": -3}]}, "greater than 0"),
        ("order_create", {**CREATE, "lines": [{"part_id": 1, "quantity": 1.5}]}, "fractional"),
        ("order_create", {**CREATE, "lines": [{"part_id": 1}]}, "quantity"),
        ("order_create", {**CREATE, "lines": [{**LINE, "price": 1}]}, "Extra inputs"),
        ("order_create", {k: v for k, v in CREATE.items() if k != "lines"}, "lines"),
        ("order_create", {**CREATE, "idempotency_key": "short"}, "at least 8 characters"),
        ("order_create", {**CREATE, "expected_date": "next friday"}, "valid date"),
        ("order_create", {**CREATE, "currency": "yuan"}, "pattern"),
        ("order_create", {**CREATE, "note": "n" * 2001}, "at most 2000 characters"),
        ("order_create", {**CREATE, "supplier_id": "1; DROP TABLE orders"}, "valid integer"),
        ("order_create", {**CREATE, "unknown": 1}, "Unexpected keyword argument"),
        ("order_update", {"order_id": 1}, "expected_version"),
        ("order_update", {"order_id": "", "expected_version": 1}, "at least 1 character"),
        ("order_update", {"order_id": 1, "expected_version": 1, "status": "shipped"}, "status"),
        ("order_search_details", {"date_to": "2026-13-45"}, "date"),
        ("inventory_warning", {"size": "many"}, "valid integer"),
    ],
)
async def test_bad_arguments_are_refused_before_any_request(
    client: Client[Any], erp: FakeErp, tool: str, args: dict[str, Any], fragment: str
) -> None:
    text = await refused(client, tool, args)
    assert fragment in text
    assert "validation error" in text
    assert erp.requests == []


# -- nothing internal leaks ---------------------------------------------------------


async def test_unexpected_failures_are_masked(
    client: Client[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp_erp import shapes

    def explode(answer: Any) -> Any:
        raise RuntimeError("secret internals /etc/passwd")

    monkeypatch.setattr(shapes, "page", explode)
    text = await refused(client, "inventory_warning", {})
    assert "secret" not in text and "Traceback" not in text
    assert "inventory_warning" in text


# -- the HTTP app: health and the Host/Origin guard -------------------------------------


async def test_health_reports_the_erp_and_answers_when_it_is_down(erp: FakeErp) -> None:
    from mcp_erp.server import create_http_app

    async with erp.client() as http:
        app = create_http_app(pinned_settings(), http_client=http)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as web:
            up = await web.get("/health")
    assert up.status_code == 200
    assert up.json() == {
        "status": "ok",
        "service": "erp-mcp",
        "erp": {"url": "http://erp.test", "reachable": True},
    }

    url = closed_port_url()
    app = create_http_app(pinned_settings(erp_base_url=url))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as web:
        down = await web.get("/health")
    assert down.status_code == 200
    assert down.json()["erp"]["url"] == url and down.json()["erp"]["reachable"] is False


async def test_foreign_host_or_origin_is_refused() -> None:
    from mcp_erp.server import create_http_app

    app = create_http_app(pinned_settings(erp_base_url=closed_port_url()))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as web:
        assert (await web.get("/health", headers={"host": "evil.example"})).status_code == 403
        hostile = await web.post("/mcp", headers={"origin": "http://evil.example"}, json={})
        assert hostile.status_code == 403
