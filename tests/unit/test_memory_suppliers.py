"""The memory layer's ERP supplier list: paged through the ERP MCP tools, cached, fail-soft."""

from __future__ import annotations

import json
from typing import Any

from graphs.memory.suppliers import McpSupplierDirectory


class FakeRegistry:
    """Stands in for McpRegistry: supplier_query pages as the ERP MCP server returns them."""

    def __init__(self, rows: list[dict[str, Any]], *, down: bool = False) -> None:
        self.rows = rows
        self.down = down
        self.calls: list[dict[str, Any]] = []

    def server_for(self, agent: str, tool: str) -> str | None:
        return "erp" if agent == "procurement-order" and tool == "supplier_query" else None

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, call_timeout_s: float = 60
    ) -> str:
        self.calls.append(arguments)
        if self.down:
            return "The MCP server 'erp' is unreachable: connection refused."
        page, size = arguments["page"], arguments["size"]
        items = self.rows[(page - 1) * size : page * size]
        return json.dumps({"items": items, "total": len(self.rows), "page": page, "size": size})


async def test_mcp_directory_pages_through_supplier_query() -> None:
    rows = [
        {"id": i, "code": f"S{i}", "name_zh": f"供应商{i}", "name_en": None} for i in range(130)
    ]
    reg = FakeRegistry(rows)
    directory = McpSupplierDirectory(reg)
    found = await directory()
    assert len(found) == 130 and found[5] == {"code": "S5", "name_zh": "供应商5", "name_en": None}
    assert [c["page"] for c in reg.calls] == [1, 2]
    await directory()
    assert len(reg.calls) == 2


async def test_mcp_directory_down_is_an_empty_list() -> None:
    assert await McpSupplierDirectory(FakeRegistry([], down=True))() == []


async def test_no_server_granting_supplier_query_is_an_empty_list() -> None:
    class NoGrant(FakeRegistry):
        def server_for(self, agent: str, tool: str) -> str | None:
            return None

    registry = NoGrant([{"id": 1, "code": "S1", "name_zh": "甲", "name_en": "A"}])
    assert await McpSupplierDirectory(registry)() == []
    assert registry.calls == []
