"""Reports rendered to PDF in a worker process, not in the Agent Server.

WeasyPrint lays a page out as tens of thousands of small Python objects (styles, boxes,
lines). Made in the long-running server process, they leave its heap fragmented: freed,
but in arenas other objects still hold, so the server's memory creeps up with every
report (issue 18's soak). Here one worker process renders (started with ``spawn``, so it
imports WeasyPrint and nothing of the server) and is replaced after
:data:`TASKS_PER_WORKER` reports, which hands all of that memory back to the system. The
import (about a second) is paid once per worker, not per report.

Call :func:`render_pdf` from a worker thread (it blocks until the PDF is made).
"""

from __future__ import annotations

import logging
import multiprocessing
import threading
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Final

__all__ = ["TASKS_PER_WORKER", "render_pdf", "shutdown"]

logger = logging.getLogger(__name__)

TASKS_PER_WORKER: Final = 8
"""Reports one worker renders before it is replaced by a fresh one."""
TIMEOUT_S: Final = 180.0

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_given = 0  # reports handed to the current pool

# The worker is replaced here, not by ``max_tasks_per_child``: with Python 3.11's pool, a
# worker that exits after its quota while more reports wait leaves them waiting for good
# (16 concurrent reports: 8 made, then every later one timed out, minutes each).


def _render(page: str) -> bytes:
    """In the worker: the HTML page as PDF bytes."""
    from weasyprint import HTML

    pdf: bytes = HTML(string=page).write_pdf()
    return pdf


def _new_pool() -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))


def _executor() -> ProcessPoolExecutor:
    """The current pool (started when there is none)."""
    global _pool, _given
    with _lock:
        if _pool is None:
            _pool, _given = _new_pool(), 0
        return _pool


def _submit(page: str) -> tuple[ProcessPoolExecutor, Future[bytes]]:
    """Hand ``page`` to the current worker; after :data:`TASKS_PER_WORKER` reports a new
    worker takes the next ones and the old one exits once its own are made."""
    global _pool, _given
    with _lock:
        if _pool is not None and _given >= TASKS_PER_WORKER:
            _pool.shutdown(wait=False)  # what it was given still runs, then it exits
            _pool = None
        if _pool is None:
            _pool, _given = _new_pool(), 0
        _given += 1
        return _pool, _pool.submit(_render, page)


def _stop(pool: ProcessPoolExecutor, *, kill: bool) -> None:
    # Taken before shutdown, which forgets them.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    if kill:  # a worker stuck on one page holds its process, and the server's exit, for ever
        for process in processes:
            process.kill()


def shutdown() -> None:
    """Stop the worker (the next report starts a new one)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        _stop(pool, kill=False)


def render_pdf(page: str) -> bytes:
    """The HTML ``page`` as a PDF, made in the worker process (blocking). OSError when
    WeasyPrint's system libraries are missing; RuntimeError when the worker died;
    TimeoutError after :data:`TIMEOUT_S` (the stuck worker is stopped, the next report
    gets a fresh one)."""
    pool: ProcessPoolExecutor | None = None
    try:
        pool, future = _submit(page)
        return future.result(timeout=TIMEOUT_S)
    except BrokenProcessPool as exc:  # killed (out of memory, a signal): start afresh
        logger.warning("PDF worker died; the next report starts a new one: %s", exc)
        shutdown()
        raise RuntimeError(f"the PDF worker stopped ({exc})") from exc
    except TimeoutError:
        global _pool
        with _lock:
            if _pool is pool:
                _pool = None
        logger.warning("PDF worker stuck for %.0f s: stopped", TIMEOUT_S)
        if pool is not None:
            _stop(pool, kill=True)
        raise
