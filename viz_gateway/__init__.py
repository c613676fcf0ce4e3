"""Visualization gateway: AntV-compatible chart tools over MCP, rendered locally or upstream.

The package imports nothing heavy: renderers, fonts and MCP clients load on first use.
"""

__all__: list[str] = []
