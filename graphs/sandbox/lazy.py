"""A thread's sandbox that comes into being only when the thread first needs one.

Every run reads its sandbox: the skills listing (``/skills/...``), the global guidelines
(``/AGENTS.md``), the skills manifest. Creating a workspace (a folder with a copy of the
skills, or a remote container) for each of those reads gave every greeting and every
order thread a workspace of its own, never used. :class:`LazyWorkspace` answers reads of
a thread that has no workspace from the **seed**: one shared, read-only folder holding
what every new workspace starts with (the skills and ``/AGENTS.md``, kept up to date by
SkillsSync). The first write, edit, delete, upload or command creates the workspace,
copies the seed into it, and from then on everything goes to the workspace.

A thread whose workspace already exists (made earlier, or by another process before a
restart) is served by it directly. Creation is serialised per workspace, so two calls of
one thread never create it twice.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable
from pathlib import Path

from deepagents.backends.protocol import (
    BackendProtocol,
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

from graphs.sandbox.workspace import WorkspaceFiles, workspace_lock

__all__ = ["LazyWorkspace", "seed_files"]


def seed_files(seed: WorkspaceFiles) -> list[tuple[str, bytes]]:
    """Every file of the seed as ``(virtual path, content)``.

    The files at the seed's root (its index files: ``/AGENTS.md``, the skills manifest)
    come last, so a copy cut short never claims to be complete.
    """
    root = seed.root
    nested: list[tuple[str, bytes]] = []
    top: list[tuple[str, bytes]] = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        rel = Path(dirpath).relative_to(root)
        for name in sorted(filenames):
            vpath = "/" + (rel / name).as_posix()
            data = (Path(dirpath) / name).read_bytes()
            (top if rel == Path(".") else nested).append((vpath, data))
    return nested + top


class LazyWorkspace(SandboxBackendProtocol):
    """One thread's sandbox: reads from the seed until the thread needs its own workspace."""

    def __init__(
        self,
        thread_id: str,
        *,
        build: Callable[[], SandboxBackendProtocol],
        exists: Callable[[], bool],
        seed: WorkspaceFiles,
        root: Path | None = None,
    ) -> None:
        """``build()`` makes the thread's real backend (creating its workspace);
        ``exists()`` says whether that workspace is already there; ``root``: the
        workspace folder on this host, when it is a local one."""
        self.thread_id = thread_id
        self._build = build
        self._exists = exists
        self._seed = seed
        self._root = root
        self._real: SandboxBackendProtocol | None = None
        self._own_lock = threading.RLock()

    @property
    def root(self) -> Path | None:
        """The workspace folder on this host (it may not exist yet), if the provider is local."""
        return self._root

    @property
    def current(self) -> SandboxBackendProtocol | None:
        """The thread's own backend if this object has made or found it, else None."""
        return self._real

    @property
    def materialized(self) -> bool:
        """Whether the thread has its own workspace now."""
        return self._real is not None or self._exists()

    def real(self) -> SandboxBackendProtocol:
        """The thread's own backend, creating the workspace (seeded) if it is not there."""
        real = self._real
        if real is not None:
            return real
        # The process-wide lock of the folder (taken only now: a thread that never needs a
        # workspace adds nothing to the lock table).
        lock = workspace_lock(self._root) if self._root is not None else self._own_lock
        with lock:
            if self._real is None:
                fresh = not self._exists()
                backend = self._build()
                if fresh:
                    failed = [
                        r.path for r in backend.upload_files(seed_files(self._seed)) if r.error
                    ]
                    if failed:
                        msg = f"could not copy the seed into the new workspace: {failed[:5]}"
                        raise OSError(msg)
                self._real = backend
            return self._real

    def _reader(self) -> BackendProtocol:
        if self._real is not None:
            return self._real
        return self.real() if self._exists() else self._seed

    async def _areader(self) -> BackendProtocol:
        if self._real is not None:
            return self._real
        return await asyncio.to_thread(self._reader)

    async def _areal(self) -> SandboxBackendProtocol:
        if self._real is not None:
            return self._real
        return await asyncio.to_thread(self.real)

    @property
    def id(self) -> str:
        """The real backend's id once there is one; until then one derived from the thread."""
        return self._real.id if self._real is not None else f"pending-{self.thread_id}"

    # ---- reads: the seed until the workspace exists ---------------------------------------

    def ls(self, path: str) -> LsResult:
        """List a folder."""
        return self._reader().ls(path)

    async def als(self, path: str) -> LsResult:
        """List a folder."""
        return await (await self._areader()).als(path)

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Read a file."""
        return self._reader().read(file_path, offset, limit)

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Read a file."""
        return await (await self._areader()).aread(file_path, offset, limit)

    def grep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
    ) -> GrepResult:
        """Search files for a literal string."""
        return self._reader().grep(pattern, path, glob, max_count=max_count)

    async def agrep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
    ) -> GrepResult:
        """Search files for a literal string."""
        return await (await self._areader()).agrep(pattern, path, glob, max_count=max_count)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Find files by pattern."""
        return self._reader().glob(pattern, path)

    async def aglob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Find files by pattern."""
        return await (await self._areader()).aglob(pattern, path)

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Read files as bytes."""
        return self._reader().download_files(paths)

    async def adownload_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Read files as bytes."""
        return await (await self._areader()).adownload_files(paths)

    # ---- writes and commands: the thread's own workspace, created on first use ------------

    def write(self, file_path: str, content: str) -> WriteResult:
        """Write a file (creating the workspace first if need be)."""
        return self.real().write(file_path, content)

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        """Write a file (creating the workspace first if need be)."""
        return await (await self._areal()).awrite(file_path, content)

    def edit(
        self, file_path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> EditResult:
        """Edit a file (creating the workspace first if need be)."""
        return self.real().edit(file_path, old_string, new_string, replace_all)

    async def aedit(
        self, file_path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> EditResult:
        """Edit a file (creating the workspace first if need be)."""
        return await (await self._areal()).aedit(file_path, old_string, new_string, replace_all)

    def delete(self, file_path: str) -> DeleteResult:
        """Delete a path (creating the workspace first if need be)."""
        return self.real().delete(file_path)

    async def adelete(self, file_path: str) -> DeleteResult:
        """Delete a path (creating the workspace first if need be)."""
        return await (await self._areal()).adelete(file_path)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Write files (creating the workspace first if need be)."""
        return self.real().upload_files(files)

    async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Write files (creating the workspace first if need be)."""
        return await (await self._areal()).aupload_files(files)

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run a command (creating the workspace first if need be)."""
        return self.real().execute(command, timeout=timeout)

    async def aexecute(
        self,
        command: str,
        *,
        timeout: int | None = None,  # noqa: ASYNC109 - the protocol's per-command limit
    ) -> ExecuteResponse:
        """Run a command (creating the workspace first if need be)."""
        return await (await self._areal()).aexecute(command, timeout=timeout)
