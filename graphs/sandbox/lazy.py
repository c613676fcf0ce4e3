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

from deepagents.backends.protocol import BackendProtocol, SandboxBackendProtocol

from graphs.sandbox.forwarding import ForwardingSandbox
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


class LazyWorkspace(ForwardingSandbox):
    """One thread's sandbox: reads from the seed until the thread needs its own workspace;
    writes, deletes, uploads and commands create the workspace first if need be."""

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

    def _writer(self) -> SandboxBackendProtocol:
        return self.real()

    async def _awriter(self) -> SandboxBackendProtocol:
        if self._real is not None:
            return self._real
        return await asyncio.to_thread(self.real)

    @property
    def id(self) -> str:
        """The real backend's id once there is one; until then one derived from the thread."""
        return self._real.id if self._real is not None else f"pending-{self.thread_id}"
