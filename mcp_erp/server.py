"""The ERP MCP server: typed tools proxying the ERP REST API, plus ``GET /health``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastmcp import FastMCP
from mcp.types import ToolAnnotations
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp

from core.http_guard import HostOriginGuard
from core.json_limits import JsonDepthGuard
from mcp_erp import catalog_tools, order_tools, prompts
from mcp_erp.erp_client import LIFESPAN_KEY, ErpClient
from mcp_erp.settings import ErpMcpSettings

__all__ = ["TOOL_NAMES", "create_http_app", "create_server"]

SERVER_NAME = "erp"

_READ = ToolAnnotations(readOnlyHint=True, openWorldHint=False)
_LOOKUP = ToolAnnotations(readOnlyHint=True, idempotentHint=True, openWorldHint=False)
# Create is safe to repeat: the ERP answers a replayed key + payload with the same order.
_CREATE = ToolAnnotations(
    readOnlyHint=False, destructiveHint=False, idempotentHint=True, openWorldHint=False
)
# Update can cancel an order or replace its lines; a replay with the old version is refused.
_UPDATE = ToolAnnotations(
    readOnlyHint=False, destructiveHint=True, idempotentHint=False, openWorldHint=False
)

_TOOLS: tuple[tuple[Callable[..., Any], str, ToolAnnotations], ...] = (
    (catalog_tools.supplier_query, prompts.SUPPLIER_QUERY, _READ),
    (catalog_tools.part_query, prompts.PART_QUERY, _READ),
    (catalog_tools.part_search, prompts.PART_SEARCH, _READ),
    (catalog_tools.part_by_supplier, prompts.PART_BY_SUPPLIER, _READ),
    (order_tools.order_create, prompts.ORDER_CREATE, _CREATE),
    (order_tools.order_update, prompts.ORDER_UPDATE, _UPDATE),
    (order_tools.order_validate, prompts.ORDER_VALIDATE, _READ),
    (order_tools.order_search_details, prompts.ORDER_SEARCH_DETAILS, _READ),
    (order_tools.order_summary, prompts.ORDER_SUMMARY, _READ),
    (catalog_tools.inventory_warning, prompts.INVENTORY_WARNING, _READ),
    (catalog_tools.category_list, prompts.CATEGORY_LIST, _READ),
    # Read-only and idempotent: it only looks the cross-reference up.
    (catalog_tools.part_equivalents, prompts.PART_EQUIVALENTS, _LOOKUP),
)
TOOL_NAMES: tuple[str, ...] = tuple(fn.__name__ for fn, _, _ in _TOOLS)


def create_server(
    settings: ErpMcpSettings | None = None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
) -> FastMCP[dict[str, Any]]:
    """A FastMCP server for the ERP at ``settings.erp_base_url``.

    Nothing connects here: the HTTP connection pool opens in the server's
    lifespan. ``transport`` (tests) carries the ERP's requests instead of the
    network, for example an ``httpx.ASGITransport`` in front of an ERP app run
    in-process. Only ``ToolError`` text reaches clients (``mask_error_details``);
    arguments are validated before any request, loosely enough that ``"5"``
    still counts as ``5``.
    """
    settings = settings or ErpMcpSettings()
    erp = ErpClient(
        settings.erp_base_url,
        connect_timeout=settings.connect_timeout,
        read_timeout=settings.read_timeout,
        read_attempts=settings.read_attempts,
        retry_wait=settings.retry_wait,
        transport=transport,
    )

    @asynccontextmanager
    async def lifespan(server: FastMCP[dict[str, Any]]) -> AsyncIterator[dict[str, Any]]:
        async with erp:
            yield {LIFESPAN_KEY: erp}

    mcp: FastMCP[dict[str, Any]] = FastMCP(
        SERVER_NAME,
        instructions=prompts.SERVER_INSTRUCTIONS,
        lifespan=lifespan,
        mask_error_details=True,
        strict_input_validation=False,
    )
    # No output schema: ours would only say "an object", yet the MCP SDK re-checks the
    # schema itself with jsonschema on every call on both sides (about 5 ms each);
    # results still arrive as structuredContent.
    for fn, description, hints in _TOOLS:
        mcp.tool(fn, description=description, annotations=hints, output_schema=None)

    @mcp.custom_route("/health", methods=["GET"])
    async def health(request: Request) -> Response:
        """200 while this server runs; the body says whether the ERP answers too."""
        return JSONResponse({"status": "ok", "service": "erp-mcp", "erp": await erp.health()})

    return mcp


def create_http_app(
    settings: ErpMcpSettings | None = None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
) -> ASGIApp:
    """The server as an ASGI app: streamable HTTP at ``settings.path`` and ``GET /health``,
    behind the Host/Origin allow-list the MCP transport spec asks for against DNS rebinding
    and a nesting limit on request bodies (a deep one gets a JSON-RPC parse error, not a 500)."""
    settings = settings or ErpMcpSettings()
    # Plain JSON answers instead of a one-event SSE stream per call: the tools send no
    # progress notifications, and this halves the per-call overhead
    # (scripts/bench/bench_mcp_vs_rest.py).
    app = create_server(settings, transport=transport).http_app(
        path=settings.path, json_response=True
    )
    return HostOriginGuard(
        JsonDepthGuard(app),
        allowed_hosts=settings.allowed_hosts,
        allowed_origins=settings.http_allowed_origins,
    )
