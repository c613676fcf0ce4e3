"""The Agent Server's custom HTTP app (langgraph.json ``http.app``): JSON-RPC adapter,
artifacts and the agents' tool catalog.

langgraph.json takes one ``http.app``. This is the JSON-RPC adapter's app
(``rpc_adapter.app.create_app``, in-process SDK client, its own lifespan) with the
``GET /artifacts/{thread_id}/{path}`` and ``GET /v1/agents/{agent_id}/tools`` routes
added, so the packages stay independent of each other and the Agent Server still runs
the adapter's lifespan (a Starlette ``Mount`` would not). That lifespan also runs the
retention sweep (:mod:`server.retention`: old threads and idle sandbox workspaces removed).

Its middleware wraps the whole Agent Server (the server applies an ``http.app``'s
middleware app-wide): :class:`server.thread_privacy.ForeignThreadsLookMissing` makes a
create or copy of another user's thread answer as a missing thread does, and
:class:`~server.run_streams.JoinableRuns` makes background runs (the analyst, the
orchestrator's wake-up) joinable in every stream mode. Importing it also keeps
``langgraph dev``'s checkpoints reaching the disk (:mod:`server.dev_persistence`), so a
killed server resumes its runs with their state.
"""

from __future__ import annotations

from starlette.applications import Starlette

from rpc_adapter.app import create_app
from server.artifacts_app import artifact_routes
from server.dev_persistence import keep_checkpoints_flushed
from server.retention import with_retention
from server.run_streams import JoinableRuns
from server.thread_privacy import ForeignThreadsLookMissing
from server.tool_catalog import tool_catalog_routes

__all__ = ["app", "create_http_app"]


def create_http_app() -> Starlette:
    """The adapter's app (mounted mode) with the artifacts and tool-catalog routes, the
    thread-privacy and joinable-runs middleware and the retention sweep."""
    combined = create_app()
    combined.router.routes.extend(artifact_routes())
    combined.router.routes.extend(tool_catalog_routes())
    # langgraph-api applies the custom app's middleware to every route of the server.
    combined.add_middleware(ForeignThreadsLookMissing)
    combined.add_middleware(JoinableRuns)
    combined.router.lifespan_context = with_retention(combined.router.lifespan_context)
    return combined


# The server imports this module once, at start-up, before it runs anything.
keep_checkpoints_flushed()
app = create_http_app()
