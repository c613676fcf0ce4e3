"""Reports rendered to HTML and PDF in a worker process, not in the Agent Server.

WeasyPrint lays a page out as tens of thousands of small Python objects (styles, boxes,
lines). Made in the long-running server process, they leave its heap fragmented: freed,
but in arenas other objects still hold, so the server's memory creeps up with every
report (issue 18's soak). Here worker processes render (started with ``spawn``, so they
import WeasyPrint and nothing of the server) and are replaced after
:data:`TASKS_PER_WORKER` reports, which hands all of that memory back to the system. The
import (about a second) is paid once per worker, not per report.

Await :func:`arender_exports` on the event loop (the agents' reports), or call
:func:`render_pdf` from a worker thread (it blocks until its PDF is made). Awaited, not
blocking: a thread of the event loop's small default pool (cores + 4) held for the whole
wait in the worker's queue starved every other ``to_thread`` call of the server (file reads
and writes of every other run) while a burst of reports was rendered one after another
(issue 18's ramp).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Final, TypeVar

from graphs.tools.report_page import render_html

__all__ = ["TASKS_PER_WORKER", "arender_exports", "render_pdf", "shutdown"]

logger = logging.getLogger(__name__)

T = TypeVar("T")

TASKS_PER_WORKER: Final = 32
"""Reports one worker renders before it is replaced by a fresh one. A worker's memory levels
off at about 170 MB after its first reports (measured over 40 flagship reports); a new one
costs about half a second of CPU (interpreter, imports, fonts), close to a report's own, so
8 made one report in eight cost double, and a burst of 16 two replacements."""
TIMEOUT_S: Final = 180.0
DEFAULT_WORKERS: Final = 2 if (os.cpu_count() or 1) > 1 else 1
"""Worker processes (``PDF_WORKERS``): two where there are two cores. 16 analyses ending
together queue 16 reports (about 0.6 s of CPU each); one worker makes them one after
another while the other core waits (16 concurrent analyses took 23-24 s with one worker
that is never replaced, 21 s with two, on this 2-core machine). With more cores, a higher
``PDF_WORKERS`` renders more side by side (each worker about 170 MB)."""

_lock = threading.Lock()
_pool: ProcessPoolExecutor | None = None
_given = 0  # reports handed to the current pool
_next: ProcessPoolExecutor | None = None  # its successor, started before it is needed

# The workers are replaced here, not by ``max_tasks_per_child``: with Python 3.11's pool, a
# worker that exits after its quota while more reports wait leaves them waiting for good
# (16 concurrent reports: 8 made, then every later one timed out, minutes each).


def workers() -> int:
    """How many worker processes render at once (``PDF_WORKERS``, 1-8; default 1)."""
    raw = os.environ.get("PDF_WORKERS", "").strip()
    try:
        return min(max(int(raw), 1), 8) if raw else DEFAULT_WORKERS
    except ValueError:
        logger.warning("PDF_WORKERS=%r is not a number: using %d", raw, DEFAULT_WORKERS)
        return DEFAULT_WORKERS


def _preload() -> None:
    """In a new worker, before its first report: the imports and fonts every report needs
    (about half a second), so that no report waits for them. Without WeasyPrint's system
    libraries there is nothing to load: each report says so when it asks for its PDF."""
    with contextlib.suppress(OSError, ImportError):
        from weasyprint import HTML

        HTML(string='<p lang="zh-CN">报告 report</p>').write_pdf()


def _ready() -> None:
    """A no-op task: handing one to a new pool starts a worker process."""


def _render(page: str) -> bytes:
    """In the worker: the HTML page as PDF bytes."""
    from weasyprint import HTML

    pdf: bytes = HTML(string=page).write_pdf()
    return pdf


def _export(
    markdown: str, images: dict[str, bytes], title: str, lang: str
) -> tuple[str, bytes | str]:
    """In the worker: the report's HTML page, and its PDF or why there is none (WeasyPrint's
    system libraries are missing: the page is still worth having)."""
    page = render_html(markdown, images, title=title, lang=lang)
    try:
        return page, _render(page)
    except OSError as exc:
        return page, str(exc)


def _new_pool(count: int, *, start: bool = False) -> ProcessPoolExecutor:
    """A pool of ``count`` processes; ``start``: its processes start now (each loads
    WeasyPrint while the current pool still renders), not on its first reports."""
    pool = ProcessPoolExecutor(
        max_workers=count,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_preload,
    )
    if start:
        for _ in range(count):  # each task, while none is idle, starts one more process
            pool.submit(_ready)
    return pool


def _executor() -> ProcessPoolExecutor:
    """The current pool (started when there is none)."""
    global _pool, _given
    with _lock:
        if _pool is None:
            _pool, _given = _new_pool(workers()), 0
        return _pool


def _submit(fn: Callable[..., T], *args: Any) -> tuple[ProcessPoolExecutor, Future[T]]:
    """Hand ``fn(*args)`` to the current pool. Each pool takes :data:`TASKS_PER_WORKER`
    reports per worker; its successor starts a few reports before that, and takes the
    next ones while the old pool exits once its own are made."""
    global _pool, _given, _next
    with _lock:
        count = workers()
        quota = TASKS_PER_WORKER * count
        if _pool is not None and _given >= quota:
            _pool.shutdown(wait=False)  # what it was given still runs, then it exits
            _pool = None
        if _pool is None:
            _pool, _next, _given = _next or _new_pool(count), None, 0
        _given += 1
        if _next is None and _given >= quota - count:
            _next = _new_pool(count, start=True)
        return _pool, _pool.submit(fn, *args)


def _stop(pool: ProcessPoolExecutor, *, kill: bool) -> None:
    # Taken before shutdown, which forgets them.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    if kill:  # a worker stuck on one page holds its process, and the server's exit, for ever
        for process in processes:
            process.kill()


def shutdown() -> None:
    """Stop the workers (the next report starts new ones)."""
    global _pool, _next
    with _lock:
        pools, _pool, _next = [_pool, _next], None, None
    for pool in pools:
        if pool is not None:
            _stop(pool, kill=False)


def render_pdf(page: str) -> bytes:
    """The HTML ``page`` as a PDF, made in the worker process (blocking). OSError when
    WeasyPrint's system libraries are missing; RuntimeError when the worker died;
    TimeoutError after :data:`TIMEOUT_S` (the stuck worker is stopped, the next report
    gets a fresh one)."""
    return _run(_render, page)


async def arender_exports(
    markdown: str, images: dict[str, bytes], *, title: str, lang: str
) -> tuple[str, bytes | str]:
    """A Markdown report's self-contained HTML page (``images`` by the link the report
    uses, see :func:`graphs.tools.report_page.render_html`) and its PDF, or instead of the
    PDF the reason WeasyPrint could not load; both made in the worker process.
    RuntimeError and TimeoutError as :func:`render_pdf`.

    The report waits for its turn in the worker without holding a thread. Handing it over
    (which may start a worker process) and the clean-up after a failure run in a thread;
    they are short."""
    pool: ProcessPoolExecutor | None = None
    try:
        pool, future = await asyncio.to_thread(_submit, _export, markdown, images, title, lang)
        return await asyncio.wait_for(asyncio.wrap_future(future), TIMEOUT_S)
    except BrokenProcessPool as exc:
        await asyncio.to_thread(_died, exc)
        raise RuntimeError(f"the PDF worker stopped ({exc})") from exc
    except TimeoutError:
        await asyncio.to_thread(_stuck, pool)
        raise


def _run(fn: Callable[..., T], *args: Any) -> T:
    pool: ProcessPoolExecutor | None = None
    try:
        pool, future = _submit(fn, *args)
        return future.result(timeout=TIMEOUT_S)
    except BrokenProcessPool as exc:
        _died(exc)
        raise RuntimeError(f"the PDF worker stopped ({exc})") from exc
    except TimeoutError:
        _stuck(pool)
        raise


def _died(exc: BrokenProcessPool) -> None:
    """A worker was killed (out of memory, a signal): the next report starts afresh."""
    logger.warning("PDF worker died; the next report starts a new one: %s", exc)
    shutdown()


def _stuck(pool: ProcessPoolExecutor | None) -> None:
    """A report took more than :data:`TIMEOUT_S`: its pool is stopped (the next report
    gets a fresh one)."""
    global _pool
    with _lock:
        if _pool is pool:
            _pool = None
    logger.warning("PDF worker stuck for %.0f s: stopped", TIMEOUT_S)
    if pool is not None:
        _stop(pool, kill=True)
