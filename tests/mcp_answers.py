"""Reading an ERP MCP tool's answer the way any MCP client does: its one JSON text block."""

from __future__ import annotations

import json
from typing import Any


def tool_json(result: Any) -> Any:
    """The JSON of a FastMCP ``CallToolResult`` from the ERP MCP server. The server sends
    the ERP's answer once, as text (no ``structuredContent`` copy of it)."""
    assert result.structured_content is None, "the ERP answer is sent once, as text"
    [block] = result.content
    return json.loads(block.text)
