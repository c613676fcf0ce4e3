"""The Agent Server's custom HTTP app (langgraph.json ``http.app``): JSON-RPC adapter + artifacts.

langgraph.json takes one ``http.app``. This is the JSON-RPC adapter's app
(``rpc_adapter.app.create_app``, in-process SDK client, its own lifespan) with the
``GET /artifacts/{thread_id}/{path}`` route added, so both packages stay
independent of each other and the Agent Server still runs the adapter's lifespan
(a Starlette ``Mount`` would not). That lifespan also runs the retention sweep
(:mod:`server.retention`: old threads and idle sandbox workspaces removed).
"""

from __future__ import annotations

from starlette.applications import Starlette

from rpc_adapter.app import create_app
from server.artifacts_app import artifact_routes
from server.retention import with_retention

__all__ = ["app", "create_http_app"]


def create_http_app() -> Starlette:
    """The adapter's app (mounted mode) with the artifacts route and the retention sweep."""
    combined = create_app()
    combined.router.routes.extend(artifact_routes())
    combined.router.lifespan_context = with_retention(combined.router.lifespan_context)
    return combined


app = create_http_app()
