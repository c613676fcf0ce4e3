"""The ERP's supplier names for the memory layer, learned through the ERP MCP tools.

The graphs reach the ERP only through MCP (DESIGN section 2): the list comes from the ERP
MCP server's ``supplier_query`` (the server of ``mcp_servers.yaml`` that grants it), paged,
cached for ``MEMORY_SUPPLIERS_TTL_S`` seconds. An ERP that cannot answer means an empty
list (and a warning), never a failed run: memory can wait, the user's answer cannot.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from graphs.memory.settings import MemorySettings
from graphs.messages import parse_json

__all__ = ["McpSupplierDirectory", "McpToolCaller", "SupplierSource"]

logger = logging.getLogger(__name__)

SupplierSource = Callable[[], Awaitable[list[dict[str, Any]]]]
"""Anything that lists the ERP's suppliers as ``{code, name_zh, name_en}`` records."""

_FIELDS = ("code", "name_zh", "name_en")
_PAGE = 100
_MAX_PAGES = 50


class McpToolCaller(Protocol):
    """What :class:`McpSupplierDirectory` needs of ``graphs.mcp_registry.McpRegistry``."""

    def server_for(self, agent: str, tool: str) -> str | None:
        """The server giving ``agent`` the tool."""

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, call_timeout_s: float = ...
    ) -> str:
        """The tool's result as text (an error string on failure)."""


def _page_items(body: Any) -> tuple[list[dict[str, Any]], int | None]:
    items = body.get("items", []) if isinstance(body, dict) else body
    total = body.get("total") if isinstance(body, dict) else None
    rows = [{k: i.get(k) for k in _FIELDS} for i in items or [] if isinstance(i, dict)]
    return rows, total if isinstance(total, int) else None


class McpSupplierDirectory:
    """The ERP's suppliers (``code``, ``name_zh``, ``name_en``) through ``supplier_query``.

    ``agent`` names whose allow-list grants ``supplier_query`` in the MCP config; the
    orchestrator itself is not given ERP tools, so the order agent's grant is used.
    Fetched on first use, then cached.
    """

    def __init__(
        self,
        registry: McpToolCaller,
        *,
        agent: str = "procurement-order",
        settings: MemorySettings | None = None,
    ) -> None:
        """Call ``supplier_query`` on the server that grants it to ``agent``."""
        settings = settings or MemorySettings()
        self._registry = registry
        self._server = registry.server_for(agent, "supplier_query")
        self._ttl_s = settings.suppliers_ttl_s
        self._timeout = settings.timeout_s
        self._cached: list[dict[str, Any]] | None = None
        self._at = 0.0
        self._lock = asyncio.Lock()

    async def _page(self, server: str, page: int) -> Any:
        args = {"name": "", "page": page, "size": _PAGE}
        text = await self._registry.call(
            server, "supplier_query", args, call_timeout_s=self._timeout
        )
        data = parse_json(text)
        if not isinstance(data, dict):  # the registry answers failures as text
            raise RuntimeError(text[:200])
        return data

    async def _fetch(self) -> list[dict[str, Any]]:
        server = self._server
        if server is None:
            msg = "no MCP server grants supplier_query"
            raise RuntimeError(msg)
        out: list[dict[str, Any]] = []
        for page in range(1, _MAX_PAGES + 1):
            rows, total = _page_items(await self._page(server, page))
            out.extend(rows)
            if not rows or total is None or len(out) >= total:
                break
        return out

    async def __call__(self) -> list[dict[str, Any]]:
        """The supplier list; the cached one while fresh; ``[]`` when the ERP cannot answer."""
        async with self._lock:
            fresh = time.monotonic() - self._at < self._ttl_s
            if self._cached is not None and fresh:
                return self._cached
            try:
                self._cached = await self._fetch()
                self._at = time.monotonic()
            except Exception as exc:  # an unreachable ERP must not cost the user their answer
                logger.warning(
                    "memory: ERP supplier list unavailable from MCP server %r (%s); "
                    "matching without it",
                    self._server,
                    exc,
                )
                return self._cached or []
            return self._cached
