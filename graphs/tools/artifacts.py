"""``download_artifact``: a download link for a report or chart the agent made in its sandbox.

The file stays in the thread's workspace; the link points at the Agent Server's route
``GET /artifacts/{thread_id}/{path}`` (:mod:`server.artifacts_app`), which serves it to
the thread's owner. The link also carries a signature (``?exp=...&sig=...``: HMAC-SHA256
over thread, path and expiry), so it works where no credentials travel with it: a chart
shown as a Markdown image in Agent Chat UI or Studio is fetched by the browser's ``<img>``,
which sends no bearer token. The key is ``ARTIFACTS_SIGNING_KEY`` (set it when several
server processes serve one deployment), else one drawn per process; links last
``ARTIFACTS_LINK_TTL_S`` seconds (7 days).
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import os
import secrets
import time
from functools import cache
from typing import Annotated
from urllib.parse import quote

from deepagents.backends.protocol import BackendProtocol
from langchain.tools import ToolRuntime
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from graphs.storage import SandboxGetter, resolve_sandbox

__all__ = [
    "ARTIFACT_DIRS",
    "DOWNLOAD_ARTIFACT_DESCRIPTION",
    "DownloadArtifactInput",
    "artifact_url",
    "check_artifact_path",
    "link_signature",
    "make_download_artifact",
    "signed_link_valid",
]

ARTIFACT_DIRS: tuple[str, ...] = ("analysis", "data", "charts")
"""Workspace folders whose files may be downloaded."""

DOWNLOAD_ARTIFACT_DESCRIPTION = (
    "Get a download link for a file produced in the sandbox (a report in /analysis/, a chart "
    "or data file in /data/ or /charts/), to give to the user. For a background analysis, "
    "pass its task_id: the file is in that task's sandbox."
)


class DownloadArtifactInput(BaseModel):
    """Arguments of ``download_artifact``."""

    path: Annotated[
        str, Field(description="Absolute path in the sandbox, e.g. /analysis/report_20260101.md.")
    ]
    task_id: Annotated[
        str | None,
        Field(description="A background task's id, when the file is in that task's sandbox."),
    ] = None


def check_artifact_path(path: str) -> str | None:
    """The refusal for ``path``, or ``None`` when it may be served."""
    parts = [p for p in path.split("/") if p]
    if not path.startswith("/") or not parts:
        return "the path must be absolute, e.g. /analysis/report.md"
    if any(p in ("..", ".") or p.startswith(".") for p in parts) or "\\" in path or "\x00" in path:
        return "'..', hidden names and backslashes are not allowed"
    if parts[0] not in ARTIFACT_DIRS or len(parts) < 2:
        allowed = ", ".join(f"/{d}/" for d in ARTIFACT_DIRS)
        return f"only files under {allowed} can be downloaded"
    return None


_LINK_TTL_S = 7 * 24 * 3600


@cache
def _signing_key() -> bytes:
    # Read once: a key that changed mid-process would void every link handed out so far.
    configured = os.environ.get("ARTIFACTS_SIGNING_KEY")
    return configured.encode() if configured else secrets.token_bytes(32)


def link_signature(thread_id: str, path: str, expires: int) -> str:
    """The signature of a link to ``path`` in ``thread_id``'s workspace, valid until ``expires``."""
    message = f"{thread_id}\n{path}\n{expires}".encode()
    return hmac.new(_signing_key(), message, hashlib.sha256).hexdigest()[:32]


def signed_link_valid(thread_id: str, path: str, expires: str | None, sig: str | None) -> bool:
    """Whether ``?exp=&sig=`` sign this very file and have not expired."""
    if not expires or not sig or not expires.isdigit() or int(expires) < time.time():
        return False
    return hmac.compare_digest(link_signature(thread_id, path, int(expires)), sig)


def artifact_url(thread_id: str, path: str, *, base_url: str | None = None) -> str:
    """The download URL of ``path`` in ``thread_id``'s workspace: absolute under
    ``base_url`` or ``ARTIFACTS_PUBLIC_URL`` when one is set, else the route's path
    (``/artifacts/...``), which a client resolves against the Agent Server it talks to.

    Never the server's own loopback address: a client elsewhere could not reach it."""
    clean = "/" + path.lstrip("/")
    ttl = int(os.environ.get("ARTIFACTS_LINK_TTL_S") or _LINK_TTL_S)
    expires = int(time.time()) + ttl
    query = f"?exp={expires}&sig={link_signature(thread_id, clean, expires)}"
    route = f"/artifacts/{quote(thread_id, safe='')}/{quote(clean.lstrip('/'))}{query}"
    base = base_url or os.environ.get("ARTIFACTS_PUBLIC_URL")
    return f"{base.rstrip('/')}{route}" if base else route


def make_download_artifact(
    *, sandbox: BackendProtocol | SandboxGetter, base_url: str | None = None
) -> BaseTool:
    """The tool; ``base_url``: the Agent Server's public URL (``ARTIFACTS_PUBLIC_URL``)."""

    async def run(path: str, runtime: ToolRuntime, task_id: str | None = None) -> str:
        refusal = check_artifact_path(path)
        if refusal is not None:
            return f"Error: {path!r} refused: {refusal}."
        router = resolve_sandbox(sandbox)
        if task_id:
            # Another thread's sandbox (the analyst's): only the link's route checks the
            # owner, so this only says whether the file exists.
            for_thread = getattr(router, "for_thread", None)
            if for_thread is None:
                return "Error: this sandbox cannot reach other tasks' files."
            try:
                target: BackendProtocol = await asyncio.to_thread(for_thread, task_id)
            except Exception as exc:  # a malformed id is the model's mistake
                return f"Error: no sandbox for task {task_id!r}: {exc}"
            thread_id: str | None = task_id
        else:
            target = router
            thread_id = (runtime.config.get("configurable") or {}).get("thread_id")
        if not thread_id:
            return "Error: this run has no thread, so its files cannot be linked."
        found = (await target.adownload_files([path]))[0]
        if found.error is not None or found.content is None:
            return f"Error: {path} does not exist ({found.error}); check the path with ls."
        url = artifact_url(str(thread_id), path, base_url=base_url)
        return f"{path} ({len(found.content)} bytes): {url}"

    return StructuredTool.from_function(
        # Async only (the Agent Server runs graphs async); the injected runtime is found
        # from the coroutine's signature.
        coroutine=run,
        name="download_artifact",
        description=DOWNLOAD_ARTIFACT_DESCRIPTION,
        args_schema=DownloadArtifactInput,
    )
