"""Render in worker processes: vl-convert holds the GIL while it draws, so a render on a
thread would still freeze the event loop. Layout (Python) and drawing (vl-convert) both
run in a small process pool shared by the whole process; the event loop only awaits.
"""

from __future__ import annotations

import asyncio
import atexit
import contextlib
import ctypes
import multiprocessing
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any, Literal

ImageFormat = Literal["png", "svg"]


class RenderCrashed(RuntimeError):
    """A render worker died (out of memory, killed); the pool was restarted."""


# -- inside a worker -----------------------------------------------------------------
_worker_font: Any = None


def _exit_with_parent() -> None:
    """End this worker when the server dies, even by SIGKILL (no orphaned renderers)."""
    parent = os.getppid()
    with contextlib.suppress(Exception):  # Linux: the kernel signals us when the parent dies
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG

    def watch() -> None:  # elsewhere (and as a backstop): notice being re-parented
        while True:
            time.sleep(1.0)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _init_worker(font_dir: str | None, family: str | None) -> None:
    global _worker_font
    from viz_gateway import fonts

    _exit_with_parent()

    try:
        _worker_font = fonts.activate(Path(font_dir) if font_dir else None, family)
    except fonts.FontError as exc:
        _worker_font = exc


def _font_family() -> str:
    if isinstance(_worker_font, Exception):
        raise _worker_font
    return str(_worker_font.family)


def _draw(fmt: str, spec: dict[str, Any], image: ImageFormat) -> bytes:
    import vl_convert

    if fmt == "vega-lite":
        out = (
            vl_convert.vegalite_to_png(spec) if image == "png" else vl_convert.vegalite_to_svg(spec)
        )
    else:
        out = vl_convert.vega_to_png(spec) if image == "png" else vl_convert.vega_to_svg(spec)
    return out.encode() if isinstance(out, str) else out


def _build_and_draw(tool: str, args: dict[str, Any]) -> tuple[str, dict[str, Any], bytes]:
    from viz_gateway.render import build_spec

    family = _font_family()
    chart = build_spec(tool, args, family, getattr(_worker_font, "bold", family))
    return chart.format, chart.spec, _draw(chart.format, chart.spec, "png")


def _draw_spec(fmt: str, spec: dict[str, Any], image: ImageFormat) -> bytes:
    _font_family()
    return _draw(fmt, spec, image)


def _warm() -> int:
    spec = {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "data": {"values": [{"a": "预热", "b": 1}]},
        "mark": "bar",
        "encoding": {"x": {"field": "a"}, "y": {"field": "b", "type": "quantitative"}},
        "config": {"font": _font_family()},
    }
    return len(_draw("vega-lite", spec, "png"))


# -- in the server ---------------------------------------------------------------------
class RenderPool:
    """A lazily started process pool that builds and draws charts."""

    def __init__(
        self, workers: int, font_dir: Path | None, family: str | None, max_tasks: int = 500
    ) -> None:
        self.workers = workers
        self.max_tasks = max_tasks
        self.font_dir = font_dir
        self.family = family
        self._pool: ProcessPoolExecutor | None = None
        self._lock = threading.Lock()

    def _executor(self) -> ProcessPoolExecutor:
        with self._lock:
            if self._pool is None:
                self._pool = ProcessPoolExecutor(
                    max_workers=self.workers,
                    # spawn: the server has threads; forking it could copy a held lock.
                    mp_context=multiprocessing.get_context("spawn"),
                    initializer=_init_worker,
                    initargs=(str(self.font_dir) if self.font_dir else None, self.family),
                    # The JavaScript engine's heap creeps up; a fresh worker now and then
                    # keeps memory flat.
                    max_tasks_per_child=self.max_tasks,
                )
            return self._pool

    async def _run(self, fn: Any, *args: Any) -> Any:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._executor(), fn, *args)
        except BrokenProcessPool as exc:
            self.reset()
            msg = "the render worker crashed (the chart may be too large); try a smaller chart"
            raise RenderCrashed(msg) from exc

    async def build_and_render(self, tool: str, args: dict[str, Any]) -> tuple[str, Any, bytes]:
        """(spec format, spec, PNG bytes) for a tool call; layout errors propagate."""
        result: tuple[str, Any, bytes] = await self._run(_build_and_draw, tool, args)
        return result

    async def render_spec(self, fmt: str, spec: dict[str, Any], image: ImageFormat) -> bytes:
        """PNG or SVG bytes of an already built spec."""
        data: bytes = await self._run(_draw_spec, fmt, spec, image)
        return data

    async def warm_up(self) -> None:
        """Start every worker and load its fonts and JavaScript engine."""
        await asyncio.gather(*(self._run(_warm) for _ in range(self.workers)))

    def reset(self) -> None:
        """Drop the pool (its processes end); the next call starts a fresh one."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop the workers and wait for them."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)


_pools: dict[tuple[int, str | None, str | None, int], RenderPool] = {}
_pools_lock = threading.Lock()


def shared_pool(
    workers: int, font_dir: Path | None, family: str | None, max_tasks: int = 500
) -> RenderPool:
    """The process-wide pool for these settings (gateways in one process share workers)."""
    key = (workers, str(font_dir) if font_dir else None, family, max_tasks)
    with _pools_lock:
        if key not in _pools:
            _pools[key] = RenderPool(workers, font_dir, family, max_tasks)
        return _pools[key]


@atexit.register
def _close_all() -> None:
    for pool in list(_pools.values()):
        pool.close()


__all__ = ["RenderCrashed", "RenderPool", "shared_pool"]
