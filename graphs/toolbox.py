"""The local (non-MCP) tools, by name, and the process-wide MCP registry.

Tool modules owned by other packages are imported here, when a graph is built,
never at import of this module.
"""

from __future__ import annotations

from functools import lru_cache

from langchain_core.tools import BaseTool

from graphs.mcp_registry import McpRegistry, load_registry
from graphs.order_keys import fill_order_key
from graphs.settings import get_settings

__all__ = ["local_tools", "registry"]


@lru_cache(maxsize=1)
def registry() -> McpRegistry:
    """The MCP servers of ``MCP_SERVERS_FILE`` (read once; nothing connects)."""
    # order_create's idempotency key is hidden from the model and filled in per call.
    return load_registry(get_settings().mcp_servers_file, fillers={"order_create": fill_order_key})


def local_tools() -> dict[str, BaseTool]:
    """Every local tool an agent may be given, by name."""
    from graphs.tools.basic import calculator, get_current_time
    from graphs.tools.order_info import make_request_order_info
    from graphs.tools.visualization import make_generate_visualization
    from graphs.tools.web.tool import fetch_url
    from graphs.tools.web_search import web_search

    tools: list[BaseTool] = [
        calculator,
        get_current_time,
        make_request_order_info(),
        fetch_url,
        web_search,
        # The chart tool shares the registry's open session to the chart server.
        make_generate_visualization(registry().url("viz"), sessions=registry().sessions),
    ]
    return {t.name: t for t in tools}
