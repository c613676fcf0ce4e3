"""Retention: old threads and idle sandbox workspaces are removed, so memory and disk level off.

Runs inside the Agent Server (started by :mod:`server.http_app`'s lifespan), every
``RETENTION_SWEEP_S`` seconds:

- **threads** not updated for ``RETENTION_THREAD_HOURS`` and not running are deleted through
  the Agent Server's own API (in-process SDK client), checkpoints and all, and their
  workspaces with them. ``langgraph dev``'s in-memory runtime does not honour the
  ``checkpointer.ttl`` of ``langgraph.json`` (its sweep is not implemented), so without this
  its memory grows with every thread ever run; a Postgres-backed deployment honours that TTL
  itself, and this sweep then finds little to do. With auth on, the sweep's API calls carry
  no user and are refused: it says so once and leaves threads to the platform's TTL.
- **workspaces** (local sandbox folders) unused for ``RETENTION_WORKSPACE_HOURS`` are
  removed, whether or not their thread still exists (a thread deleted through the API
  leaves its workspace until then).
- **Store files**: under ``langgraph dev`` the Store routes' large and binary files keep
  their bytes on disk (``graphs.store_files``); bytes whose Store record was deleted through
  the Store API are removed.

``0`` switches either off. Every failure is logged and the sweep tries again next time.

After each sweep the C heap's free memory is handed back to the system (glibc's
``malloc_trim``): the deleted threads' checkpoints were freed, but glibc keeps freed
pages, so without it the resident size only ever grows (and a restart that reloads the
saved state keeps the loading's peak). The first sweep runs a few seconds after start.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import ctypes.util
import logging
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Protocol

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["RetentionSettings", "SweepReport", "release_memory", "sweep_once", "with_retention"]

logger = logging.getLogger(__name__)

_PAGE = 100
_FIRST_SWEEP_S = 5.0


class RetentionSettings(BaseSettings):
    """How long threads and workspaces are kept (env prefix ``RETENTION_``)."""

    model_config = SettingsConfigDict(env_prefix="RETENTION_", env_file=".env", extra="ignore")

    thread_hours: float = Field(
        default=720.0,
        ge=0,
        description="Delete threads not updated for this long (0: keep them all).",
    )
    workspace_hours: float = Field(
        default=168.0,
        ge=0,
        description="Remove sandbox workspaces unused for this long (0: keep them all).",
    )
    sweep_s: float = Field(default=600.0, gt=0, description="Seconds between two sweeps.")


class Workspaces(Protocol):
    """What the sweep needs of ``graphs.sandbox.ThreadSandboxBackend``."""

    def remove(self, thread_id: str) -> bool:
        """Remove one thread's workspace."""

    def sweep(self, max_idle_s: float, *, now: float | None = None) -> list[str]:
        """Remove the workspaces idle for longer than ``max_idle_s``."""


@dataclass
class SweepReport:
    """What one sweep removed."""

    threads: list[str] = field(default_factory=list)
    workspaces: list[str] = field(default_factory=list)
    store_files: int = 0


def _updated(thread: dict[str, Any]) -> datetime | None:
    raw = thread.get("updated_at")
    if isinstance(raw, datetime):
        return raw if raw.tzinfo else raw.replace(tzinfo=UTC)
    if isinstance(raw, str):
        with contextlib.suppress(ValueError):
            parsed = datetime.fromisoformat(raw.replace("Z", "+00:00"))
            return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


async def _old_threads(client: Any, cutoff: datetime) -> list[str]:
    """Ids of the threads last updated before ``cutoff`` and not running, oldest first."""
    found: list[str] = []
    offset = 0
    while True:
        page = await client.threads.search(
            limit=_PAGE, offset=offset, sort_by="updated_at", sort_order="asc"
        )
        for thread in page:
            updated = _updated(thread)
            if updated is None or updated >= cutoff:
                return found
            if thread.get("status") != "busy":
                found.append(str(thread["thread_id"]))
        if len(page) < _PAGE:
            return found
        offset += _PAGE


async def _waiting_parents(client: Any) -> set[str]:
    """Threads a running background task will wake: the ``parent_thread_id`` of every busy
    thread (an analysis on its own thread). Idle while they wait, they must not go."""
    parents: set[str] = set()
    offset = 0
    while True:
        page = await client.threads.search(status="busy", limit=_PAGE, offset=offset)
        for thread in page:
            parent = (thread.get("metadata") or {}).get("parent_thread_id")
            if parent:
                parents.add(str(parent))
        if len(page) < _PAGE:
            return parents
        offset += _PAGE


async def sweep_once(
    client: Any,
    workspaces: Workspaces,
    settings: RetentionSettings,
    *,
    now: datetime | None = None,
) -> SweepReport:
    """One sweep: old threads deleted (with their workspaces), then idle workspaces removed."""
    now = now or datetime.now(UTC)
    report = SweepReport()
    if settings.thread_hours > 0:
        cutoff = now - timedelta(hours=settings.thread_hours)
        waiting = await _waiting_parents(client)
        for thread_id in await _old_threads(client, cutoff):
            if thread_id in waiting:
                continue  # its analysis still runs and will wake it
            try:
                await client.threads.delete(thread_id)
            except Exception as exc:  # gone meanwhile, or refused: the next sweep sees it
                logger.info("retention: thread %s not deleted (%s)", thread_id, exc)
                continue
            report.threads.append(thread_id)
            await asyncio.to_thread(workspaces.remove, thread_id)
    if settings.workspace_hours > 0:
        idle_s = settings.workspace_hours * 3600
        report.workspaces = await asyncio.to_thread(workspaces.sweep, idle_s, now=now.timestamp())
    from graphs.storage import STORE_ROUTES
    from graphs.store_files import offload_folder, sweep_unreferenced

    folder = offload_folder()
    if folder is not None:  # bytes whose Store record was deleted through the Store API
        names = [route.strip("/") for route in STORE_ROUTES]
        report.store_files = await sweep_unreferenced(client, folder, names)
    if report.threads or report.workspaces or report.store_files:
        logger.info(
            "retention: %d threads deleted, %d idle workspaces removed, %d unreferenced "
            "store files removed",
            len(report.threads),
            len(report.workspaces),
            report.store_files,
        )
    return report


def release_memory() -> bool:
    """Return the C heap's free pages to the system (glibc ``malloc_trim``); whether it could."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):  # not glibc (musl, macOS): nothing to do
        return False
    trim.argtypes = [ctypes.c_size_t]
    return bool(trim(0))


async def _sweep_forever(
    settings: RetentionSettings, client_factory: Callable[[], Any], sandbox: Callable[[], Any]
) -> None:
    refused_once = False
    wait = _FIRST_SWEEP_S
    while True:
        await asyncio.sleep(wait)
        wait = settings.sweep_s
        try:
            workspaces = await asyncio.to_thread(sandbox)
            await sweep_once(client_factory(), workspaces, settings)
            await asyncio.to_thread(release_memory)
        except Exception as exc:
            status = getattr(getattr(exc, "response", None), "status_code", None)
            if status in (401, 403):
                if not refused_once:
                    logger.warning(
                        "retention: the Agent Server refuses the sweep's API calls (auth is "
                        "on); threads are left to the deployment's checkpointer TTL"
                    )
                refused_once = True
                settings = settings.model_copy(update={"thread_hours": 0.0})
                continue
            logger.warning("retention: sweep failed (%s); trying again later", exc)


def _default_client() -> Any:
    from langgraph_sdk import get_client

    return get_client()  # no url: the Agent Server it runs in, in-process


def _default_sandbox() -> Any:
    from graphs.storage import shared_sandbox

    return shared_sandbox()


def with_retention(
    lifespan: Callable[[Any], contextlib.AbstractAsyncContextManager[Any]],
    *,
    settings: RetentionSettings | None = None,
    client_factory: Callable[[], Any] = _default_client,
    sandbox: Callable[[], Any] = _default_sandbox,
) -> Callable[[Any], contextlib.AbstractAsyncContextManager[Any]]:
    """``lifespan`` (a Starlette app's) with the retention sweep running beside it."""

    @contextlib.asynccontextmanager
    async def combined(app: Any) -> AsyncIterator[Any]:
        conf = settings or RetentionSettings()
        async with lifespan(app) as state:
            task = None
            if conf.thread_hours > 0 or conf.workspace_hours > 0:
                task = asyncio.create_task(_sweep_forever(conf, client_factory, sandbox))
            try:
                yield state
            finally:
                if task is not None:
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task

    return combined
