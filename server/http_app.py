"""The Agent Server's custom HTTP app (langgraph.json ``http.app``): JSON-RPC adapter,
artifacts and the agents' tool catalog.

langgraph.json takes one ``http.app``. This is the JSON-RPC adapter's app
(``rpc_adapter.app.create_app``, in-process SDK client, its own lifespan) with the
``GET /artifacts/{thread_id}/{path}`` and ``GET /v1/agents/{agent_id}/tools`` routes
added, so the packages stay independent of each other and the Agent Server still runs
the adapter's lifespan (a Starlette ``Mount`` would not). One middleware,
:class:`~server.run_streams.JoinableRuns`, makes background runs (the analyst, the
orchestrator's wake-up) joinable in every stream mode.
"""

from __future__ import annotations

from starlette.applications import Starlette

from rpc_adapter.app import create_app
from server.artifacts_app import artifact_routes
from server.run_streams import JoinableRuns
from server.tool_catalog import tool_catalog_routes

__all__ = ["app", "create_http_app"]


def create_http_app() -> Starlette:
    """The adapter's app (mounted mode) with the artifacts and tool-catalog routes."""
    combined = create_app()
    combined.router.routes.extend(artifact_routes())
    combined.router.routes.extend(tool_catalog_routes())
    # langgraph-api applies the custom app's middleware to every route of the server.
    combined.add_middleware(JoinableRuns)
    return combined


app = create_http_app()
