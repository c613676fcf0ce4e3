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
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Final

__all__ = ["TASKS_PER_WORKER", "render_pdf", "shutdown"]

logger = logging.getLogger(__name__)

TASKS_PER_WORKER: Final = 8
"""Reports one worker renders before it is replaced by a fresh one."""
TIMEOUT_S: Final = 180.0

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None


def _render(page: str) -> bytes:
    """In the worker: the HTML page as PDF bytes."""
    from weasyprint import HTML

    pdf: bytes = HTML(string=page).write_pdf()
    return pdf


def _executor() -> ProcessPoolExecutor:
    global _pool
    with _lock:
        if _pool is None:
            _pool = ProcessPoolExecutor(
                max_workers=1,
                mp_context=multiprocessing.get_context("spawn"),
                max_tasks_per_child=TASKS_PER_WORKER,
            )
        return _pool


def shutdown() -> None:
    """Stop the worker (the next report starts a new one)."""
    global _pool
    with _lock:
        pool, _pool = _pool, None
    if pool is not None:
        pool.shutdown(wait=False, cancel_futures=True)


def render_pdf(page: str) -> bytes:
    """The HTML ``page`` as a PDF, made in the worker process (blocking). OSError when
    WeasyPrint's system libraries are missing; RuntimeError when the worker died."""
    try:
        return _executor().submit(_render, page).result(timeout=TIMEOUT_S)
    except BrokenProcessPool as exc:  # killed (out of memory, a signal): start afresh
        logger.warning("PDF worker died; the next report starts a new one: %s", exc)
        shutdown()
        raise RuntimeError(f"the PDF worker stopped ({exc})") from exc
