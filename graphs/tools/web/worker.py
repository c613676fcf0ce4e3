"""Conversion in worker processes, stopped when the caller's time is up.

Converting is CPU work in C (lexbor) and pure Python (markdownify). On a thread it
could not be cancelled and would hold the GIL the event loop needs; here it runs in
a small process pool (pebble) and the event loop only awaits. Cancelling the await
(``asyncio.timeout`` in the caller, or the tool call being cancelled) cancels the task,
and pebble kills the worker running it (a fresh one takes its place), so no page
keeps a CPU busy after its tool call has answered. Workers are started with ``spawn``
(the server has threads; forking it could copy a held lock), once, and then reused.
When the server dies, even by SIGKILL, the workers' task pipe closes and they exit.
(No ``PR_SET_PDEATHSIG``: it fires when the *thread* that started a worker ends, and
pebble starts replacements from its own threads.)
"""

from __future__ import annotations

import asyncio
import logging
import multiprocessing
import threading
from concurrent.futures import CancelledError
from concurrent.futures.process import BrokenProcessPool

from pebble import ProcessExpired, ProcessPool

from graphs.tools.web.convert import Converted, convert_safely

__all__ = ["WORKERS", "convert_in_worker", "shutdown", "start"]

log = logging.getLogger(__name__)

WORKERS = 2  # one page that runs out its budget does not hold up the others


def _warm() -> None:
    """Nothing: unpickling this task imported everything a conversion needs."""


_pool: ProcessPool | None = None
_lock = threading.Lock()


def _start() -> ProcessPool:
    global _pool
    with _lock:
        if _pool is None or not _pool.active:
            _pool = ProcessPool(
                max_workers=WORKERS,
                context=multiprocessing.get_context("spawn"),
            )
            # Start the workers now, so the first page does not wait for their imports.
            for _ in range(WORKERS):
                _pool.schedule(_warm)
        return _pool


async def start() -> ProcessPool:
    """The running pool, started (off the event loop: it writes to pipes) if it is not."""
    pool = _pool
    if pool is not None and pool.active:
        return pool
    return await asyncio.to_thread(_start)


async def convert_in_worker(
    body: bytes, content_type: str, url: str, max_json_chars: int
) -> Converted:
    """:func:`~graphs.tools.web.convert.convert` in a worker process.

    Cancelled (e.g. by ``asyncio.timeout``), it kills the worker doing the work. A
    worker that dies (out of memory, a crash in C) comes back as
    ``Converted(error=...)``, as does a page the converter fails on.
    """
    pool = await start()
    future = pool.schedule(convert_safely, args=(body, content_type, url, max_json_chars))
    try:
        return await asyncio.wrap_future(future)
    except (ProcessExpired, BrokenProcessPool, CancelledError) as exc:
        log.warning("conversion worker lost while converting %s: %r", url, exc)
        message = f"the converter stopped while reading {url} ({exc!r})."
        return Converted(error=message, error_code="conversion")
    finally:
        future.cancel()  # a no-op once done; while running, pebble stops the worker


def shutdown() -> None:
    """Stop the workers (a new pool starts with the next conversion)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.stop()
        pool.join()
