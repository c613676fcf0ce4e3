"""``GET /v1/agents/{agent_id}/tools``: the tools an agent has of its own.

The JSON-RPC adapter is a client of the Agent Server, not of its code, so it learns an
agent's built-in tools here to answer ``agent.register`` with every tool the agent now
has (``tools_synced``, the reference protocol's list: the client's tools plus these).
The names are read from the built graph (its tool node: local tools, deepagents' file,
todo, subagent and compaction tools) plus the MCP tools granted to the agent by exact
name in ``mcp_servers.yaml`` (listed lazily at the first model call, so not in the node).
Names only: nothing about the tools' arguments or the server's configuration.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

__all__ = ["agent_tool_names", "tool_catalog_routes"]

logger = logging.getLogger(__name__)

GraphFactory = Callable[[], Awaitable[Any]]


def _factories() -> dict[str, GraphFactory]:
    from graphs import analyst, orchestrator

    return {"orchestrator": orchestrator.compiled, "analyst": analyst.compiled}


def _node_tools(graph: Any) -> list[str]:
    node = getattr(graph, "nodes", {}).get("tools")
    bound = getattr(node, "bound", None)
    by_name = getattr(bound, "tools_by_name", None) or {}
    return sorted(str(name) for name in by_name)


async def agent_tool_names(agent_id: str) -> list[str] | None:
    """The tool names of ``agent_id``'s graph, or None for an agent this server lacks."""
    factory = _factories().get(agent_id)
    if factory is None:
        return None
    from graphs.toolbox import registry

    names = _node_tools(await factory())
    names += [n for n in sorted(registry().declared_tools(agent_id)) if n not in names]
    return names


async def _tools(request: Request) -> JSONResponse:
    agent_id = request.path_params["agent_id"]
    try:
        names = await agent_tool_names(agent_id)
    except Exception:
        logger.exception("tool catalog of %s failed", agent_id)
        return JSONResponse({"error": {"code": "UNAVAILABLE", "message": "graph not built"}}, 503)
    if names is None:
        return JSONResponse({"error": {"code": "NOT_FOUND", "message": "no such agent"}}, 404)
    return JSONResponse({"agent_id": agent_id, "tools": names})


def tool_catalog_routes() -> list[Route]:
    """The route, to add to the Agent Server's custom app."""
    return [Route("/v1/agents/{agent_id}/tools", _tools, methods=["GET"])]
