"""Choosing the sandbox backend, and one backend object serving every thread.

``make_sandbox_backend(thread_id)`` builds the backend of one thread.
``ThreadSandboxBackend`` is what a graph factory passes to ``create_deep_agent``:
the graph is built once, and each call is routed to the workspace of the thread
the current run belongs to (read from LangGraph's run config).

With a **seed** folder, workspaces are lazy (:mod:`graphs.sandbox.lazy`): a thread gets
one only when it first writes or runs something; until then its reads come from the
seed. Workspaces are removed with their thread (:meth:`ThreadSandboxBackend.remove`) or
once idle past the retention (:meth:`ThreadSandboxBackend.sweep`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path

from deepagents.backends.protocol import SandboxBackendProtocol
from langgraph.config import get_config

from graphs.sandbox.bubblewrap import check_bubblewrap, make_bubblewrap_sandbox
from graphs.sandbox.errors import SandboxConfigError
from graphs.sandbox.forwarding import ForwardingSandbox
from graphs.sandbox.issue_order import IssueOrder
from graphs.sandbox.lazy import LazyWorkspace
from graphs.sandbox.settings import SandboxSettings
from graphs.sandbox.workspace import (
    WorkspaceFiles,
    forget_workspace_lock,
    workspace_lock,
    workspace_path,
)

logger = logging.getLogger(__name__)

BackendFactory = Callable[..., SandboxBackendProtocol]
# A used workspace's folder has its time stamp renewed at most this often (the retention
# sweep reads it as "last used").
_TOUCH_EVERY_S = 60.0


def make_sandbox_backend(
    thread_id: str, *, settings: SandboxSettings | None = None
) -> SandboxBackendProtocol:
    """The sandbox backend of ``thread_id``: bubblewrap by default, OpenSandbox when configured.

    Raises:
        SandboxUnavailableError: bubblewrap is missing or cannot run here.
        SandboxConfigError: OpenSandbox is chosen but not configured or not installed.
    """
    settings = settings or SandboxSettings()
    if settings.provider == "opensandbox":
        from graphs.sandbox.opensandbox import OpenSandboxBackend

        return OpenSandboxBackend(thread_id, settings=settings)
    return make_bubblewrap_sandbox(thread_id, settings=settings)


def current_thread_id() -> str:
    """The ``thread_id`` of the LangGraph run this code is part of.

    Raises:
        SandboxConfigError: called outside a run, or the run has no thread.
    """
    try:
        config = get_config()
    except RuntimeError as exc:
        msg = (
            "The sandbox was used outside a LangGraph run, so it cannot tell "
            "which thread's workspace to use."
        )
        raise SandboxConfigError(msg) from exc
    thread_id = (config.get("configurable") or {}).get("thread_id")
    if not thread_id:
        msg = (
            "The run has no thread_id; the sandbox keeps one workspace per thread. Run the "
            "graph on a thread (config={'configurable': {'thread_id': ...}})."
        )
        raise SandboxConfigError(msg)
    return str(thread_id)


class ThreadSandboxBackend(ForwardingSandbox):
    """One backend object for a graph, one sandbox workspace per thread behind it.

    Plug it in as ``create_deep_agent(backend=ThreadSandboxBackend())`` or as the
    ``default`` of a ``CompositeBackend``. Per-thread backends are built on first
    use and the most recently used ``max_cached`` are kept.

    A thread's async calls take effect in the order they were issued
    (:mod:`graphs.sandbox.issue_order`): the tool calls of one model message run
    concurrently, and a listing or read issued after a command sees what it wrote.
    """

    def __init__(
        self,
        *,
        settings: SandboxSettings | None = None,
        factory: BackendFactory = make_sandbox_backend,
        max_cached: int = 256,
        seed: Path | None = None,
    ) -> None:
        """Check the configured provider now, so a missing bubblewrap fails at start-up.

        ``seed``: the folder every new workspace starts as a copy of; with it, a thread's
        workspace is created only when the thread first writes or runs something.

        Raises:
            SandboxUnavailableError: bubblewrap is the provider and cannot run here.
        """
        self.settings = settings or SandboxSettings()
        if self.settings.provider == "bubblewrap":
            check_bubblewrap(self.settings.bwrap_path)
        self._factory = factory
        self._max_cached = max_cached
        self._backends: OrderedDict[str, SandboxBackendProtocol] = OrderedDict()
        self._lock = threading.Lock()
        self._touched: dict[str, float] = {}
        self._order = IssueOrder()
        self.seed: WorkspaceFiles | None = WorkspaceFiles(seed) if seed is not None else None
        """The shared read-only start of every workspace (SkillsSync keeps it current)."""

    @property
    def local(self) -> bool:
        """Whether workspaces are folders on this host (bubblewrap) rather than remote."""
        return self.settings.provider == "bubblewrap"

    def workspace_root(self, thread_id: str) -> Path | None:
        """The host folder of ``thread_id``'s workspace (may not exist), if workspaces are local."""
        return workspace_path(self.settings.sandboxes_dir, thread_id) if self.local else None

    def _build(self, thread_id: str) -> SandboxBackendProtocol:
        if self.seed is None:
            return self._factory(thread_id, settings=self.settings)
        root = self.workspace_root(thread_id)
        return LazyWorkspace(
            thread_id,
            build=lambda: self._factory(thread_id, settings=self.settings),
            exists=(lambda: root.is_dir()) if root is not None else (lambda: False),
            seed=self.seed,
            root=root,
        )

    def for_thread(self, thread_id: str) -> SandboxBackendProtocol:
        """The backend serving ``thread_id`` (built on first use; with a seed, lazy)."""
        with self._lock:
            backend = self._backends.get(thread_id)
            if backend is None:
                backend = self._build(thread_id)
                self._backends[thread_id] = backend
                while len(self._backends) > self._max_cached:
                    dropped, _ = self._backends.popitem(last=False)
                    self._touched.pop(dropped, None)
            else:
                self._backends.move_to_end(thread_id)
            touch = time.monotonic() - self._touched.get(thread_id, 0.0) > _TOUCH_EVERY_S
            if touch:
                self._touched[thread_id] = time.monotonic()
        if touch:
            self._touch(thread_id)
        return backend

    def _touch(self, thread_id: str) -> None:
        root = self.workspace_root(thread_id)
        if root is not None:
            with contextlib.suppress(OSError):  # not created yet: nothing to mark
                os.utime(root)

    def _forget(self, root: Path | None, thread_id: str | None = None) -> None:
        """Drop cached backends of ``thread_id`` or of the workspace at ``root``."""
        with self._lock:
            for tid in list(self._backends):
                if tid == thread_id or (root is not None and self.workspace_root(tid) == root):
                    del self._backends[tid]
                    self._touched.pop(tid, None)

    def remove(self, thread_id: str) -> bool:
        """Remove ``thread_id``'s workspace (its thread is gone); whether there was one.

        A local workspace's folder is deleted once no command of this process runs in it;
        a remote sandbox this process opened is closed.
        """
        with self._lock:
            backend = self._backends.get(thread_id)
        root = self.workspace_root(thread_id)
        self._forget(root, thread_id)
        if root is None:
            real = backend.current if isinstance(backend, LazyWorkspace) else backend
            close = getattr(real, "close", None)
            if callable(close):
                close()
            return real is not None
        with workspace_lock(root):
            if not root.is_dir():
                return False
            shutil.rmtree(root, ignore_errors=True)
        forget_workspace_lock(root)
        logger.info("sandbox: removed the workspace of thread %s", thread_id)
        return True

    def workspaces(self) -> dict[str, float]:
        """Local workspaces by folder name, with when each was last used (epoch seconds)."""
        base = self.settings.sandboxes_dir
        found: dict[str, float] = {}
        if not self.local or not base.is_dir():
            return found
        for entry in os.scandir(base):
            # Hidden names are ours (the seed); thread ids never start with a dot.
            if entry.name.startswith(".") or not entry.is_dir(follow_symlinks=False):
                continue
            with contextlib.suppress(OSError):
                found[entry.name] = entry.stat(follow_symlinks=False).st_mtime
        return found

    def sweep(self, max_idle_s: float, *, now: float | None = None) -> list[str]:
        """Remove the local workspaces unused for more than ``max_idle_s`` seconds (a folder
        busy with a command of this process is left for the next sweep); their names."""
        now = time.time() if now is None else now
        removed = []
        for name, used in self.workspaces().items():
            if now - used <= max_idle_s:
                continue
            root = self.settings.sandboxes_dir / name
            lock = workspace_lock(root)
            if not lock.acquire(blocking=False):
                continue
            try:
                self._forget(root)
                shutil.rmtree(root, ignore_errors=True)
                removed.append(name)
            finally:
                lock.release()
            forget_workspace_lock(root)
        if removed:
            logger.info(
                "sandbox: removed %d workspaces idle for over %.0f s", len(removed), max_idle_s
            )
        return removed

    def _in_order(self, *, exclusive: bool) -> contextlib.AbstractAsyncContextManager[None]:
        # The thread id is read now, synchronously (a context variable), so the turn is
        # taken when the call is issued, before the hops to worker threads below.
        return self._order.turn(current_thread_id(), exclusive=exclusive)

    def _current(self) -> SandboxBackendProtocol:
        return self.for_thread(current_thread_id())

    async def _acurrent(self) -> SandboxBackendProtocol:
        # Building a backend touches the disk (and the cache lock may be held):
        # do it off the event loop. to_thread copies the context, so the run's
        # config, and with it the thread id, is still visible.
        return await asyncio.to_thread(self._current)

    # Every call goes to the current thread's workspace, reads and writes alike.
    _reader = _writer = _current
    _areader = _awriter = _acurrent

    @property
    def id(self) -> str:
        """The current thread's sandbox id."""
        return self._current().id
