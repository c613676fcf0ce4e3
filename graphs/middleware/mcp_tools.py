"""Offer an agent its MCP tools, listed on the first model call rather than at graph build.

The tool list is fetched through :class:`graphs.mcp_registry.McpRegistry` (cached per
server, listed again after an outage) and added to each model request; calls to those
tools are routed to the registry's wrappers. Nothing connects while the graph is built.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware.types import ContextT, ModelRequest, ModelResponse, ResponseT
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

from graphs.mcp_registry import McpRegistry
from graphs.middleware.fail_soft import FailSoft

__all__ = ["McpToolsMiddleware"]

logger = logging.getLogger(__name__)


class McpToolsMiddleware(FailSoft):
    """Add ``agent``'s MCP tools to every model request and run their calls."""

    def __init__(self, registry: McpRegistry, *, agent: str, timeout: float = 60.0) -> None:
        super().__init__()
        self._registry = registry
        self._agent = agent
        self._timeout = timeout
        self._by_name: dict[str, BaseTool] = {}

    @property
    def name(self) -> str:
        """One instance per agent may sit in a stack; the name keeps them apart."""
        return f"McpToolsMiddleware[{self._agent}]"

    async def _tools(self) -> list[BaseTool]:
        # Fail soft: the agent keeps its other tools (and the MCP ones listed before).
        tools = await self.asoft(
            lambda: self._registry.tools_for(self._agent, call_timeout_s=self._timeout), None
        )
        if tools is None:
            return list(self._by_name.values())
        self._by_name = {t.name: t for t in tools}
        return tools

    async def awrap_model_call(
        self,
        request: ModelRequest[ContextT],
        handler: Callable[[ModelRequest[ContextT]], Awaitable[ModelResponse[ResponseT]]],
    ) -> ModelResponse[ResponseT]:
        """Append the MCP tools (listed now if not cached) to the request's tools."""
        mcp_tools = await self._tools()
        present = {getattr(t, "name", None) for t in request.tools}
        extra = [t for t in mcp_tools if t.name not in present]
        return await handler(request.override(tools=[*request.tools, *extra]))

    def wrap_model_call(
        self,
        request: ModelRequest[ContextT],
        handler: Callable[[ModelRequest[ContextT]], ModelResponse[ResponseT]],
    ) -> ModelResponse[ResponseT]:
        """Sync runs get no MCP tools: listing them needs the event loop the server uses."""
        logger.warning(
            "MCP tools need async invocation (ainvoke/astream); %s runs without them", self._agent
        )
        return handler(request)

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Run a call to one of this agent's MCP tools through its registry wrapper."""
        name = request.tool_call["name"]
        if request.tool is None and self._registry.server_for(self._agent, name) is not None:
            tool = self._by_name.get(name)
            if tool is None:
                await self._tools()
                tool = self._by_name.get(name)
            if tool is not None:
                return await handler(request.override(tool=tool))
        return await handler(request)
