"""``GET /artifacts/{thread_id}/{path}``: a thread's reports and charts, for its owner only.

A custom route of the Agent Server (langgraph.json ``http``). With
``"enable_custom_route_auth": true`` the server's auth handler runs first and puts the
authenticated user in ``request.user``; this route then looks the thread up (LangGraph
SDK, in-process, with the caller's credentials, so the server's read filters apply)
and serves the file only when the thread's ``metadata.owner`` (or ``metadata.user_id``)
is that user, or the request carries a valid signed link (``?exp=&sig=``, made by
``download_artifact`` for that very file). Unauthenticated requests get 401; another user's
thread, or a thread that does not exist, 404 (the two are not told apart); paths
outside the workspace's artifact folders, 400.

The file is read through the sandbox backend (``graphs.storage.shared_sandbox``), so any
replica serves any thread: with local workspaces (bubblewrap) it is opened race-free on
this host's disk (no symlink followed, streamed from the descriptor opened); with a remote
sandbox (OpenSandbox) it is downloaded from the thread's sandbox. Neither creates a
workspace for a thread that has none.

Use :func:`artifact_routes` to add the route to another Starlette app (the JSON-RPC
adapter's), or :data:`app` on its own.
"""

from __future__ import annotations

import asyncio
import logging
import mimetypes
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from graphs.sandbox import ThreadSandboxBackend, open_workspace_file, workspace_path
from graphs.tools.artifacts import check_artifact_path, signed_link_valid

__all__ = ["ArtifactSettings", "ThreadLookup", "app", "artifact_routes", "thread_metadata"]

logger = logging.getLogger(__name__)

ThreadLookup = Callable[[str, dict[str, str]], Awaitable[dict[str, Any] | None]]
"""``(thread_id, caller's auth headers) → metadata`` (``None``: no such thread for them)."""

_AUTH_HEADERS = ("authorization", "x-api-key", "cookie")
MAX_PARENT_DEPTH = 3
"""How many ``parent_thread_id`` links the owner lookup follows (subagents of subagents)."""


class ArtifactSettings(BaseSettings):
    """Settings of the artifacts route (env prefix ``ARTIFACTS_``)."""

    model_config = SettingsConfigDict(
        env_prefix="ARTIFACTS_", env_file=".env", extra="ignore", populate_by_name=True
    )

    allow_loopback_without_auth: bool = Field(
        default=False,
        validation_alias=AliasChoices(
            "ARTIFACTS_ALLOW_LOOPBACK_WITHOUT_AUTH", "allow_loopback_without_auth"
        ),
        description=(
            "Development only: with no auth configured, serve loopback clients any thread's "
            "files. Never set it on a shared server."
        ),
    )


async def thread_metadata(thread_id: str, headers: dict[str, str]) -> dict[str, Any] | None:
    """The thread's metadata through the LangGraph SDK (in-process inside the Agent Server).

    The caller's credentials go along, so the server's own auth handler (and its
    read filters) decide whether this caller may see the thread at all.
    """
    from langgraph_sdk import get_client
    from langgraph_sdk.errors import NotFoundError, PermissionDeniedError

    client = get_client()
    try:
        thread = await client.threads.get(thread_id, headers=headers or None)
    except (NotFoundError, PermissionDeniedError):
        return None
    return dict(thread.get("metadata") or {})


def _identity(request: Request) -> str | None:
    user = request.scope.get("user")
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    identity = getattr(user, "identity", None) or getattr(user, "display_name", None)
    return str(identity) if identity else None


def _loopback(request: Request) -> bool:
    host = request.client.host if request.client else ""
    return host in ("127.0.0.1", "::1", "localhost", "testclient")


async def thread_owner(
    metadata: dict[str, Any] | None,
    headers: dict[str, str],
    lookup: ThreadLookup,
    *,
    max_depth: int = MAX_PARENT_DEPTH,
) -> str | None:
    """Who owns a thread: its ``owner`` (or ``user_id``) metadata, else its parent's.

    An async subagent's thread (the analyst's) is created by the server's in-process SDK.
    langgraph-api 0.16 runs that call under the calling run's user, so the auth handler
    still sets the owner; should a thread come without one (no user carried along), its
    ``parent_thread_id`` decides: it belongs to whoever owns the thread that started it.
    Any thread created through the API has an owner set by the auth handler, so a parent
    it names never overrides that.
    """
    for _ in range(max_depth + 1):
        if metadata is None:
            return None
        owner = metadata.get("owner") or metadata.get("user_id")
        if owner:
            return str(owner)
        parent = metadata.get("parent_thread_id")
        if not parent:
            return None
        metadata = await lookup(str(parent), headers)
    return None


def _attachment(name: str) -> str:
    quoted = quote(name)
    if quoted == name:
        return f'attachment; filename="{name}"'
    return f"attachment; filename*=utf-8''{quoted}"


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _media_type(name: str) -> str:
    if name.endswith(".md"):
        return "text/markdown; charset=utf-8"
    return mimetypes.guess_type(name)[0] or "application/octet-stream"


async def _from_backend(sandbox: ThreadSandboxBackend, thread_id: str, path: str) -> Response:
    """The file read through the thread's (remote) sandbox backend, or 404."""
    backend = await asyncio.to_thread(sandbox.for_thread, thread_id)
    found = (await backend.adownload_files([path]))[0]
    if found.error is not None or found.content is None:
        return _error(404, f"No file {path} in this thread's workspace.")
    name = path.rsplit("/", 1)[-1]
    headers = {"content-disposition": _attachment(name)}
    return Response(found.content, media_type=_media_type(name), headers=headers)


def _default_sandbox() -> ThreadSandboxBackend:
    from graphs.storage import shared_sandbox

    return shared_sandbox()


def artifact_routes(
    *,
    lookup: ThreadLookup = thread_metadata,
    sandboxes_dir: Path | None = None,
    settings: ArtifactSettings | None = None,
    sandbox: ThreadSandboxBackend | None = None,
) -> list[Route]:
    """The ``GET /artifacts/{thread_id}/{path}`` route, to add to a Starlette app.

    ``sandbox``: the sandbox router to read through (default: the process's shared one);
    ``sandboxes_dir``: read local workspaces under this folder instead (tests).
    """
    conf = settings or ArtifactSettings()

    async def serve(request: Request) -> Response:
        thread_id = str(request.path_params["thread_id"])
        path = "/" + str(request.path_params["path"])
        identity = _identity(request)
        # A link download_artifact signed for this file: the agent gave it to the thread's
        # owner, and a browser's <img> (a chart in a chat) sends no credentials with it.
        params = request.query_params
        signed = signed_link_valid(thread_id, path, params.get("exp"), params.get("sig"))
        open_to_all = signed or (conf.allow_loopback_without_auth and _loopback(request))
        if identity is None and not open_to_all:
            return _error(401, "Authentication required to download artifacts.")
        refusal = check_artifact_path(path)
        if refusal is not None:
            return _error(400, f"Path refused: {refusal}.")
        try:
            headers = {k: v for k in _AUTH_HEADERS if (v := request.headers.get(k))}
            metadata = await lookup(thread_id, headers)
        except Exception:
            logger.warning("artifacts: thread lookup failed for %s", thread_id, exc_info=True)
            return _error(503, "The thread could not be looked up; try again.")
        try:
            owner = await thread_owner(metadata, headers, lookup)
        except Exception:
            logger.warning("artifacts: parent lookup failed for %s", thread_id, exc_info=True)
            return _error(503, "The thread could not be looked up; try again.")
        if metadata is None or (identity is not None and not signed and owner != identity):
            return _error(404, "No such artifact (unknown thread, or not yours).")
        if sandboxes_dir is not None:
            root = workspace_path(sandboxes_dir, thread_id)
        else:
            router = sandbox if sandbox is not None else await asyncio.to_thread(_default_sandbox)
            found_root = router.workspace_root(thread_id)
            if found_root is None:  # a remote sandbox: read through its backend
                return await _from_backend(router, thread_id, path)
            root = found_root
        try:
            # Race-free: no symlink followed, and the file is streamed from the
            # descriptor opened here, never opened again by name.
            opened = await asyncio.to_thread(open_workspace_file, root, path)
        except OSError:
            return _error(404, f"No file {path} in this thread's workspace.")
        headers = {
            "content-length": str(opened.size),
            "content-disposition": _attachment(opened.name),
        }
        return StreamingResponse(
            opened.chunks(), media_type=_media_type(opened.name), headers=headers
        )

    return [Route("/artifacts/{thread_id}/{path:path}", serve, methods=["GET"])]


app = Starlette(routes=artifact_routes())
"""The route alone, for langgraph.json's ``http.app`` when nothing else is mounted."""
