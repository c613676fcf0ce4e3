"""FastMCP server exposing the ERP's purchasing tools, a proxy in front of its REST API."""

from mcp_erp.server import TOOL_NAMES, create_server

__all__ = ["TOOL_NAMES", "create_server"]
