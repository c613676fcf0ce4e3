"""Failures through the MCP client: ERP error codes, an unreachable or silent ERP,
retries for reads only, arguments refused before any request, and masked internals.

The ERP is the real ``sim.erp`` app in-process (tests/unit/erp_inprocess.py): its
refusals are its own, and a refusal must leave its database as it was. Only 5xx
answers, timeouts and refused connections are injected by the transport.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import time
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from tests.unit.erp_inprocess import BASE_URL, InProcessErp, pinned_settings

# NGK (supplier 1) sells part 1 with a minimum order quantity of 50 (the seed's).
LINE = {"part_id": 1, "quantity": 100}
CREATE = {
    "idempotency_key": "errors-0000001",
    "supplier_id": 1,
    "lines": [LINE],
    "requested_by": "tester",
}


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


async def refused_by_the_erp(
    client: Client[Any], erp: InProcessErp, tool: str, args: dict[str, Any]
) -> str:
    """The tool's error text, after checking it is the ERP's own refusal, word for word,
    and that the refusal changed nothing in the ERP's database."""
    before = erp.fingerprint()
    text = await refused(client, tool, args)
    assert erp.fingerprint() == before
    answer = await erp.resend(erp.transport.sent[-1])
    assert 400 <= answer.status_code < 500, answer.text
    error = answer.json()["error"]
    assert text.startswith(f"{error['code']}: {error['message']}")
    return text


async def _draft(client: Client[Any], submit: bool = False) -> dict[str, Any]:
    result = await client.call_tool("order_create", {**CREATE, "submit": submit})
    assert isinstance(result.data, dict)
    return result.data


async def test_validation(erp_mcp: Client[Any], real_erp: InProcessErp) -> None:
    args = {**CREATE, "lines": [{**LINE, "quantity": 5}]}
    text = await refused_by_the_erp(erp_mcp, real_erp, "order_create", args)
    assert text.startswith("VALIDATION: ")
    assert "5 is below that minimum order quantity" in text
    assert '"min_order_qty":50' in text  # the ERP's details travel along, compactly


async def test_validation_inactive_supplier(erp_mcp: Client[Any], real_erp: InProcessErp) -> None:
    blocked = (await real_erp.get("/suppliers/search", status="blocked"))["items"][0]
    args = {**CREATE, "supplier_id": blocked["id"]}
    text = await refused_by_the_erp(erp_mcp, real_erp, "order_create", args)
    assert text.startswith(f"VALIDATION: Supplier {blocked['name_en']} ({blocked['code']}) is")
    assert "blocked" in text


async def test_not_found(erp_mcp: Client[Any], real_erp: InProcessErp) -> None:
    text = await refused_by_the_erp(erp_mcp, real_erp, "supplier_query", {"supplier_id": 99})
    assert text.startswith("NOT_FOUND: There is no supplier with id 99.")
    args = {"order_id": "PO-9", "expected_version": 1, "note": "x"}
    text = await refused_by_the_erp(erp_mcp, real_erp, "order_update", args)
    assert text.startswith("NOT_FOUND: There is no order 'PO-9'.")


async def test_invalid_transition(erp_mcp: Client[Any], real_erp: InProcessErp) -> None:
    order = await _draft(erp_mcp)
    args = {"order_id": order["id"], "expected_version": 1, "status": "received"}
    text = await refused_by_the_erp(erp_mcp, real_erp, "order_update", args)
    assert text.startswith("INVALID_TRANSITION: ")
    assert '"from":"draft","to":"received"' in text


async def test_idempotency_conflict(erp_mcp: Client[Any], real_erp: InProcessErp) -> None:
    order = await _draft(erp_mcp)
    other = {**CREATE, "lines": [{**LINE, "quantity": 101}]}
    text = await refused_by_the_erp(erp_mcp, real_erp, "order_create", other)
    assert text.startswith(
        f"IDEMPOTENCY_CONFLICT: The idempotency key was already used for order "
        f"{order['order_no']} with different contents"
    )
    held = await real_erp.get("/orders/search-details", supplier_id=1, size=100)
    assert [o["idempotency_key"] for o in held["items"]].count(CREATE["idempotency_key"]) == 1


async def test_version_conflict(erp_mcp: Client[Any], real_erp: InProcessErp) -> None:
    order = await _draft(erp_mcp)
    args = {"order_id": order["id"], "expected_version": 5, "note": "x"}
    text = await refused_by_the_erp(erp_mcp, real_erp, "order_update", args)
    no = order["order_no"]
    assert text.startswith(f"VERSION_CONFLICT: Order {no} has changed since you read it")
    assert '"current_version":1' in text


async def test_approval_required(erp_mcp: Client[Any], real_erp: InProcessErp) -> None:
    order = await _draft(erp_mcp, submit=True)
    args = {"order_id": order["id"], "expected_version": 1, "status": "approved"}
    text = await refused_by_the_erp(erp_mcp, real_erp, "order_update", args)
    assert text.startswith(f"APPROVAL_REQUIRED: Approving order {order['order_no']} needs")


# -- retries: reads only ---------------------------------------------------------


async def test_a_read_failing_once_with_503_is_retried(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    real_erp.transport.fail("GET", "/parts/search", 503, times=1)
    result = await erp_mcp.call_tool("part_search", {"name": "chain"})
    truth = await real_erp.get("/parts/search", name="chain")
    assert result.data["total"] == truth["total"] > 0
    assert real_erp.transport.count("GET", "/parts/search") == 2


@pytest.mark.parametrize("error", [httpx.ConnectError, httpx.ReadTimeout])
async def test_a_read_hitting_a_transient_failure_is_retried(
    erp_mcp: Client[Any], real_erp: InProcessErp, error: type[httpx.TransportError]
) -> None:
    real_erp.transport.raise_on("GET", "/suppliers/1", error, times=2)
    result = await erp_mcp.call_tool("supplier_query", {"supplier_id": 1})
    assert result.data["code"] == (await real_erp.get("/suppliers/1"))["code"]
    assert real_erp.transport.count("GET", "/suppliers/1") == 3


async def test_a_read_failing_every_time_gives_up_with_erp_error(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    real_erp.transport.fail(
        "GET", "/inventory/warnings", 502, times=10, body=b"<html>bad gateway</html>"
    )
    text = await refused(erp_mcp, "inventory_warning", {})
    assert text.startswith(f"ERP_ERROR: the ERP at {BASE_URL} answered HTTP 502")
    assert real_erp.transport.count("GET", "/inventory/warnings") == 3  # read_attempts


async def test_a_5xx_with_an_error_body_keeps_its_code(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    body = b'{"error": {"code": "DB_DOWN", "message": "The database is restarting."}}'
    real_erp.transport.fail("GET", "/suppliers/search", 503, times=3, body=body)
    assert await refused(erp_mcp, "supplier_query", {}) == "DB_DOWN: The database is restarting."


@pytest.mark.parametrize(
    ("tool", "args", "method", "path"),
    [
        ("order_create", CREATE, "POST", "/orders/create"),
        (
            "order_update",
            {"order_id": 1, "expected_version": 1, "note": "x"},
            "PUT",
            "/orders/update/1",
        ),
    ],
)
async def test_writes_are_never_retried(
    erp_mcp: Client[Any],
    real_erp: InProcessErp,
    tool: str,
    args: dict[str, Any],
    method: str,
    path: str,
) -> None:
    before = real_erp.fingerprint()
    real_erp.transport.fail(method, path, 503, times=1)
    text = await refused(erp_mcp, tool, args)
    assert text.startswith("ERP_ERROR:") and "HTTP 503" in text
    assert real_erp.transport.count(method, path) == 1
    assert real_erp.fingerprint() == before


async def test_a_write_whose_connection_was_refused_is_sent_again_and_runs_once(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    # An ERP coming back up refuses connections for a moment: the request never left.
    real_erp.transport.raise_on("POST", "/orders/create", httpx.ConnectError, times=1)
    created = await erp_mcp.call_tool("order_create", CREATE)
    assert real_erp.transport.count("POST", "/orders/create") == 2
    found = await real_erp.get("/orders/search-details", order_no=created.data["order_no"])
    assert found["total"] == 1


async def test_a_write_that_times_out_is_not_retried_and_says_how_to_recover(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    before = real_erp.fingerprint()
    real_erp.transport.raise_on("POST", "/orders/create", httpx.ReadTimeout)
    text = await refused(erp_mcp, "order_create", CREATE)
    assert text.startswith(f"ERP_TIMEOUT: the ERP at {BASE_URL} did not answer in time")
    assert "same idempotency_key" in text
    assert real_erp.transport.count("POST", "/orders/create") == 1
    assert real_erp.fingerprint() == before


async def test_success_without_json_is_an_erp_error(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    real_erp.transport.fail("GET", "/parts/supplier/1", 200, body=b"<html>login page</html>")
    text = await refused(erp_mcp, "part_by_supplier", {"supplier_id": 1})
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
        ("part_query", {"part_ids": list(range(1, 52))}, "at most 50 items"),
        ("part_query", {"part_ids": []}, "at least 1 item"),
        ("part_query", {"part_ids": [1, 0]}, "greater than or equal to 1"),
        ("part_query", {"part_ids": ["1,2"]}, "valid integer"),
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
    erp_mcp: Client[Any], real_erp: InProcessErp, tool: str, args: dict[str, Any], fragment: str
) -> None:
    text = await refused(erp_mcp, tool, args)
    assert fragment in text
    assert "validation error" in text
    assert real_erp.transport.sent == []


async def test_part_id_and_part_ids_together_are_refused_before_any_request(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    text = await refused(erp_mcp, "part_query", {"part_id": 1, "part_ids": [2, 3]})
    assert "part_id" in text and "part_ids" in text and "not both" in text
    assert real_erp.transport.sent == []


# -- nothing internal leaks ---------------------------------------------------------


async def test_unexpected_failures_are_masked(
    erp_mcp: Client[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from mcp_erp import shapes

    def explode(answer: Any) -> Any:
        raise RuntimeError("secret internals /etc/passwd")

    monkeypatch.setattr(shapes, "page", explode)
    text = await refused(erp_mcp, "inventory_warning", {})
    assert "secret" not in text and "Traceback" not in text
    assert "inventory_warning" in text


# -- the HTTP app: health and the Host/Origin guard -------------------------------------


async def test_health_reports_the_erp_and_answers_when_it_is_down(
    real_erp: InProcessErp,
) -> None:
    from mcp_erp.server import create_http_app

    async def health() -> httpx.Response:
        app = create_http_app(pinned_settings(), transport=real_erp.transport)
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as web:
            return await web.get("/health")

    up = await health()
    assert up.status_code == 200
    assert up.json() == {
        "status": "ok",
        "service": "erp-mcp",
        "erp": {"url": BASE_URL, "reachable": True},
    }
    assert real_erp.transport.count("GET", "/health") == 1

    real_erp.transport.raise_on("GET", "/health", httpx.ConnectError)
    down = await health()
    assert down.status_code == 200
    assert down.json()["erp"] == {
        "url": BASE_URL,
        "reachable": False,
        "detail": "ConnectError: injected fault",
    }


async def test_foreign_host_or_origin_is_refused() -> None:
    from mcp_erp.server import create_http_app

    app = create_http_app(pinned_settings(erp_base_url=closed_port_url()))
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as web:
        assert (await web.get("/health", headers={"host": "evil.example"})).status_code == 403
        hostile = await web.post("/mcp", headers={"origin": "http://evil.example"}, json={})
        assert hostile.status_code == 403
