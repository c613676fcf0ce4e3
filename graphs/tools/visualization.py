"""``generate_visualization(chart_type, chart_config)``: the one chart tool the agents see.

It fronts the visualization gateway (``viz_gateway``, or any AntV-compatible chart MCP
server) over streamable HTTP. What it promises:

- **Lazy.** Nothing connects when the tool is built; the server's tool list is fetched on
  first use and cached, and fetched again after the server was found down.
- **One session.** Calls share one open MCP session to the server
  (:class:`graphs.mcp_sessions.McpSessions`): the process-wide registry's when the graphs
  build the tool (``sessions=``), else one of the tool's own.
- **One entry, short names.** ``chart_type`` is ``bar``, ``line``, ``dual_axes``,
  ``mind_map``, ... (the server's ``generate_<type>[_chart]`` tools); an unknown one gets
  an error listing the valid ones.
- **Validated before the call.** ``chart_config`` is checked against the target tool's JSON
  schema from the server's ``tools/list``; the model gets every field error at once.
- **Fails soft.** Bad configs, server errors and an unreachable server come back as an
  error message (a ``ToolMessage`` with ``status="error"`` inside a graph), never as an
  exception that breaks the run.
- **Non-blocking.** The async path never blocks the event loop; the sync path runs the
  async one on a worker thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import re
import threading
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel, Field, field_validator

from core.schema_errors import nonfinite_errors, schema_errors, too_many_items
from graphs.mcp_sessions import McpSessions
from graphs.tools.prompts import (
    GENERATE_VISUALIZATION_DESCRIPTION,
    VIZ_INVALID_CONFIG,
    VIZ_SERVER_DOWN,
    VIZ_UNKNOWN_TYPE,
)

__all__ = [
    "DEFAULT_VIZ_MCP_URL",
    "GenerateVisualizationInput",
    "make_generate_visualization",
]

DEFAULT_VIZ_MCP_URL = "http://127.0.0.1:1122/mcp"
_ROOT = "chart_config"
_MAX_ITEMS = 20_000
# Names models reach for, mapped to the server's short names.
_ALIASES = {
    "fishbone": "fishbone_diagram",
    "flow": "flow_diagram",
    "flowchart": "flow_diagram",
    "network": "network_graph",
    "graph": "network_graph",
    "org": "organization_chart",
    "org_chart": "organization_chart",
    "organization": "organization_chart",
    "wordcloud": "word_cloud",
    "dual_axis": "dual_axes",
    "dualaxes": "dual_axes",
    "box": "boxplot",
    "box_plot": "boxplot",
    "donut": "pie",
    "mindmap": "mind_map",
    "table": "spreadsheet",
}


class GenerateVisualizationInput(BaseModel):
    """Arguments of ``generate_visualization``."""

    chart_type: str = Field(
        description="Chart type from the table, e.g. 'column', 'line', 'pie', 'dual_axes'."
    )
    chart_config: dict[str, Any] = Field(
        description="That chart's fields as listed in the table: data, title, axis titles, ..."
    )

    @field_validator("chart_config", mode="before")
    @classmethod
    def _json_text(cls, value: Any) -> Any:
        # Models sometimes send the object as a JSON string.
        if isinstance(value, str):
            try:
                return json.loads(value)
            except ValueError:
                return value
        return value


def short_name(tool: str) -> str:
    """``generate_bar_chart`` → ``bar``, ``generate_mind_map`` → ``mind_map``."""
    name = tool.removeprefix("generate_")
    return name if name == "organization_chart" else name.removesuffix("_chart")


def _normalise(chart_type: str) -> str:
    key = re.sub(r"[\s\-]+", "_", chart_type.strip().lower()).removeprefix("generate_")
    return _ALIASES.get(key, key)


def _too_many(config: dict[str, Any]) -> str | None:
    for key, value in config.items():
        if isinstance(value, list) and len(value) > _MAX_ITEMS:
            return too_many_items(key, len(value), _MAX_ITEMS)
    return None


def validate_config(schema: dict[str, Any], config: dict[str, Any]) -> list[str]:
    """Every problem with ``config`` against the tool's JSON ``schema``, one line each."""
    from jsonschema import Draft7Validator

    big = _too_many(config)
    if big:
        return [big]
    errors = nonfinite_errors(config, root=_ROOT)
    return errors + schema_errors(Draft7Validator(schema).iter_errors(config), root=_ROOT)


class _VizServer:
    """The chart MCP server: cached tool schemas, calls over one shared session."""

    def __init__(
        self,
        url: str | None,
        timeout: float,
        *,
        sessions: McpSessions | None = None,
        server: str = "viz",
    ) -> None:
        self._url = url
        self.timeout = timeout
        self._tools: dict[str, dict[str, Any]] | None = None  # name -> input schema
        self._lock = threading.Lock()
        self.server = server
        self.sessions = sessions or McpSessions(lambda _server: self._client())

    @property
    def url(self) -> str:
        """The server's URL (from ``VIZ_MCP_URL`` at first use when not given)."""
        return self._url or os.environ.get("VIZ_MCP_URL") or DEFAULT_VIZ_MCP_URL

    def _client(self) -> Any:
        from fastmcp import Client
        from fastmcp.client.transports import StreamableHttpTransport

        return Client(
            StreamableHttpTransport(self.url), timeout=self.timeout, init_timeout=self.timeout
        )

    def forget(self) -> None:
        """Drop the cached tool list (the server went away; it may come back changed)."""
        with self._lock:
            self._tools = None

    async def tools(self) -> dict[str, dict[str, Any]]:
        """The server's chart tools and their input schemas (listed once, then cached)."""
        with self._lock:
            if self._tools is not None:
                return self._tools
        listed = await self.sessions.run(
            self.server, lambda client: client.list_tools(), repeatable=True
        )
        tools = {t.name: dict(t.inputSchema) for t in listed if t.name.startswith("generate_")}
        with self._lock:
            self._tools = tools
        return tools

    async def call(self, tool: str, args: dict[str, Any]) -> Any:
        """The raw MCP result of calling ``tool`` (errors come back as ``is_error``)."""
        # The gateway's chart tools only draw (read-only, idempotent): safe to send again
        # when a connection breaks under one.
        return await self.sessions.run(
            self.server,
            lambda client: client.call_tool(tool, args, timeout=self.timeout, raise_on_error=False),
            repeatable=True,
        )


def _down(server: _VizServer, exc: BaseException) -> ToolException:
    server.forget()
    reason = f"{type(exc).__name__}: {exc}".strip().rstrip(":")
    return ToolException(VIZ_SERVER_DOWN.format(url=server.url, reason=reason[:300]))


async def _generate(
    server: _VizServer, chart_type: str, chart_config: Any
) -> tuple[str, dict[str, Any]]:
    if not isinstance(chart_config, dict):
        raise ToolException(
            f"Error: chart_config must be a JSON object, got {type(chart_config).__name__}."
        )
    try:
        tools = await server.tools()
    except Exception as exc:
        raise _down(server, exc) from exc
    by_short = {short_name(t): t for t in tools}
    key = _normalise(chart_type)
    tool = by_short.get(key) or by_short.get(short_name(f"generate_{key}"))
    if tool is None:
        valid = ", ".join(sorted(by_short))
        raise ToolException(VIZ_UNKNOWN_TYPE.format(chart_type=chart_type, valid=valid))
    if any(isinstance(v, list) and len(v) > 500 for v in chart_config.values()):
        # Validating thousands of points takes a while: keep the event loop free.
        errors = await asyncio.to_thread(validate_config, tools[tool], chart_config)
    else:
        errors = validate_config(tools[tool], chart_config)
    if errors:
        raise ToolException(
            VIZ_INVALID_CONFIG.format(
                chart_type=short_name(tool),
                tool=tool,
                errors="\n".join(f"- {e}" for e in errors),
            )
        )
    try:
        result = await server.call(tool, chart_config)
    except Exception as exc:
        raise _down(server, exc) from exc
    texts = [getattr(block, "text", "") for block in result.content]
    text = "\n".join(t for t in texts if t).strip()
    if result.is_error:
        raise ToolException(f"Error from the chart server ({tool}): {text or 'unknown error'}")
    artifact: dict[str, Any] = {"tool": tool, "chart_type": short_name(tool)}
    if result.structured_content:
        artifact.update(result.structured_content)
    chart_meta = (result.meta or {}).get("chart") if isinstance(result.meta, dict) else None
    if isinstance(chart_meta, dict):
        artifact["spec_format"] = chart_meta.get("specFormat")
        artifact["spec"] = chart_meta.get("spec")
    title = chart_config.get("title") or short_name(tool)
    url = artifact.get("url") or (texts[0] if texts else "")
    notes = "\n".join(t for t in texts[1:] if t)
    content = f"Chart ready: {url}\nMarkdown: ![{title}]({url})"
    if notes:
        content += f"\n{notes}"
    return content, artifact


def make_generate_visualization(
    mcp_url: str | None = None,
    *,
    timeout: float = 60.0,
    sessions: McpSessions | None = None,
    server_name: str = "viz",
) -> BaseTool:
    """The ``generate_visualization`` tool, talking to the chart MCP server at ``mcp_url``.

    ``mcp_url`` defaults to ``VIZ_MCP_URL`` (read at first use), then the local gateway.
    ``sessions``: the open sessions to share (the MCP registry's, whose server
    ``server_name`` is the chart server); without it the tool keeps a session of its own.
    Nothing connects until the tool is first called.
    """
    server = _VizServer(mcp_url, timeout, sessions=sessions, server=server_name)

    async def agenerate(chart_type: str, chart_config: dict[str, Any]) -> tuple[str, Any]:
        return await _generate(server, chart_type, chart_config)

    async def once(chart_type: str, chart_config: dict[str, Any]) -> tuple[str, Any]:
        # The session this private loop opens dies with the loop: close it first.
        try:
            return await agenerate(chart_type, chart_config)
        finally:
            await server.sessions.aclose()

    def generate(chart_type: str, chart_config: dict[str, Any]) -> tuple[str, Any]:
        # A fresh event loop on a worker thread: safe whether or not a loop is running here.
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, once(chart_type, chart_config)).result()

    return StructuredTool.from_function(
        func=generate,
        coroutine=agenerate,
        name="generate_visualization",
        description=GENERATE_VISUALIZATION_DESCRIPTION,
        args_schema=GenerateVisualizationInput,
        response_format="content_and_artifact",
        handle_tool_error=True,
    )
