"""Choosing the sandbox backend, and one backend object serving every thread.

``make_sandbox_backend(thread_id)`` builds the backend of one thread.
``ThreadSandboxBackend`` is what a graph factory passes to ``create_deep_agent``:
the graph is built once, and each call is routed to the workspace of the thread
the current run belongs to (read from LangGraph's run config).
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Callable

from deepagents.backends.protocol import (
    DeleteResult,
    EditResult,
    ExecuteResponse,
    FileDownloadResponse,
    FileUploadResponse,
    GlobResult,
    GrepResult,
    LsResult,
    ReadResult,
    SandboxBackendProtocol,
    WriteResult,
)
from langgraph.config import get_config

from graphs.sandbox.bubblewrap import check_bubblewrap, make_bubblewrap_sandbox
from graphs.sandbox.errors import SandboxConfigError
from graphs.sandbox.settings import SandboxSettings

BackendFactory = Callable[..., SandboxBackendProtocol]


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


class ThreadSandboxBackend(SandboxBackendProtocol):
    """One backend object for a graph, one sandbox workspace per thread behind it.

    Plug it in as ``create_deep_agent(backend=ThreadSandboxBackend())`` or as the
    ``default`` of a ``CompositeBackend``. Per-thread backends are built on first
    use and the most recently used ``max_cached`` are kept.
    """

    def __init__(
        self,
        *,
        settings: SandboxSettings | None = None,
        factory: BackendFactory = make_sandbox_backend,
        max_cached: int = 256,
    ) -> None:
        """Check the configured provider now, so a missing bubblewrap fails at start-up.

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

    def for_thread(self, thread_id: str) -> SandboxBackendProtocol:
        """The backend serving ``thread_id`` (built on first use)."""
        with self._lock:
            backend = self._backends.get(thread_id)
            if backend is None:
                backend = self._factory(thread_id, settings=self.settings)
                self._backends[thread_id] = backend
                while len(self._backends) > self._max_cached:
                    self._backends.popitem(last=False)
            else:
                self._backends.move_to_end(thread_id)
            return backend

    def _current(self) -> SandboxBackendProtocol:
        return self.for_thread(current_thread_id())

    async def _acurrent(self) -> SandboxBackendProtocol:
        # Building a backend touches the disk (and the cache lock may be held):
        # do it off the event loop. to_thread copies the context, so the run's
        # config, and with it the thread id, is still visible.
        return await asyncio.to_thread(self._current)

    @property
    def id(self) -> str:
        """The current thread's sandbox id."""
        return self._current().id

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run ``command`` in the current thread's sandbox."""
        return self._current().execute(command, timeout=timeout)

    async def aexecute(
        self,
        command: str,
        *,
        timeout: int | None = None,  # noqa: ASYNC109 - the protocol's per-command limit
    ) -> ExecuteResponse:
        """Run ``command`` in the current thread's sandbox."""
        backend = await self._acurrent()
        return await backend.aexecute(command, timeout=timeout)

    def ls(self, path: str) -> LsResult:
        """List a folder of the current thread's workspace."""
        return self._current().ls(path)

    async def als(self, path: str) -> LsResult:
        """List a folder of the current thread's workspace."""
        backend = await self._acurrent()
        return await backend.als(path)

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Read a file of the current thread's workspace."""
        return self._current().read(file_path, offset, limit)

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Read a file of the current thread's workspace."""
        backend = await self._acurrent()
        return await backend.aread(file_path, offset, limit)

    def write(self, file_path: str, content: str) -> WriteResult:
        """Write a file of the current thread's workspace."""
        return self._current().write(file_path, content)

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        """Write a file of the current thread's workspace."""
        backend = await self._acurrent()
        return await backend.awrite(file_path, content)

    def edit(
        self,
        file_path: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,
    ) -> EditResult:
        """Edit a file of the current thread's workspace."""
        return self._current().edit(file_path, old_string, new_string, replace_all)

    async def aedit(
        self,
        file_path: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,
    ) -> EditResult:
        """Edit a file of the current thread's workspace."""
        backend = await self._acurrent()
        return await backend.aedit(file_path, old_string, new_string, replace_all)

    def delete(self, file_path: str) -> DeleteResult:
        """Delete a path of the current thread's workspace."""
        return self._current().delete(file_path)

    async def adelete(self, file_path: str) -> DeleteResult:
        """Delete a path of the current thread's workspace."""
        backend = await self._acurrent()
        return await backend.adelete(file_path)

    def grep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
    ) -> GrepResult:
        """Search the current thread's workspace for a literal string."""
        return self._current().grep(pattern, path, glob, max_count=max_count)

    async def agrep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
    ) -> GrepResult:
        """Search the current thread's workspace for a literal string."""
        backend = await self._acurrent()
        return await backend.agrep(pattern, path, glob, max_count=max_count)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Find files of the current thread's workspace by pattern."""
        return self._current().glob(pattern, path)

    async def aglob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Find files of the current thread's workspace by pattern."""
        backend = await self._acurrent()
        return await backend.aglob(pattern, path)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Write files into the current thread's workspace."""
        return self._current().upload_files(files)

    async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Write files into the current thread's workspace."""
        backend = await self._acurrent()
        return await backend.aupload_files(files)

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Read files of the current thread's workspace as bytes."""
        return self._current().download_files(paths)

    async def adownload_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Read files of the current thread's workspace as bytes."""
        backend = await self._acurrent()
        return await backend.adownload_files(paths)
