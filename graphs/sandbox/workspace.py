"""Per-thread workspaces on the host and the file operations confined to them.

A workspace is a host folder that the agent sees as ``/``: the virtual path
``/data/analysis_result.json`` is ``<workspace>/data/analysis_result.json`` on the
host, and the same path inside the bubblewrap sandbox, which mounts the workspace
as its root. File operations run on the host directly (no sandbox start-up per
call) but never leave the workspace.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from deepagents.backends.filesystem import FilesystemBackend
from deepagents.backends.protocol import (
    DeleteResult,
    EditResult,
    FileDownloadResponse,
    FileUploadResponse,
    GlobResult,
    GrepResult,
    LsResult,
    ReadResult,
    WriteResult,
)

from graphs.sandbox.errors import SandboxConfigError, WorkspacePathError

STANDARD_DIRS: tuple[str, ...] = ("data", "analysis", "skills")
"""Folders created in every new workspace, so scripts can write there at once."""

_SAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]")
_MAX_ID_CHARS = 80


def safe_thread_id(thread_id: str) -> str:
    """Map a thread id to a folder name that cannot escape the sandboxes folder.

    Ids made only of letters, digits, ``.``, ``_`` and ``-`` (LangGraph's UUIDs)
    are kept as they are; anything else is replaced and suffixed with a hash of
    the original, so two different ids never share a workspace.
    """
    if not thread_id or not thread_id.strip():
        msg = "A sandbox needs a non-empty thread id."
        raise SandboxConfigError(msg)
    cleaned = _SAFE_CHARS.sub("_", thread_id)[:_MAX_ID_CHARS].lstrip(".")
    if cleaned != thread_id or not cleaned:
        digest = hashlib.sha256(thread_id.encode("utf-8")).hexdigest()[:12]
        cleaned = f"{cleaned or 'thread'}-{digest}"
    return cleaned


def workspace_path(sandboxes_dir: Path, thread_id: str) -> Path:
    """The host folder of ``thread_id``'s workspace (not created)."""
    return sandboxes_dir / safe_thread_id(thread_id)


class WorkspaceFiles(FilesystemBackend):
    """deepagents' filesystem backend, confined to one workspace folder.

    On top of ``FilesystemBackend``'s virtual mode it refuses, with a message the
    model can act on: ``..`` components, paths that resolve outside the workspace
    (symlinks a script left behind), and the top-level names where the sandbox
    mounts its read-only runtime (``/usr``, ``/etc``, ``/tmp``, ...), which on the
    host are only empty mount points. Every operation holds ``self._busy``, which
    command execution also holds, so no sandboxed process can swap a path for a
    symlink between the check and the use.
    """

    def __init__(self, root: Path, *, reserved: Iterable[str] = ()) -> None:
        """Serve files under ``root`` (created with the standard folders if missing)."""
        root.mkdir(parents=True, exist_ok=True)
        for name in STANDARD_DIRS:
            (root / name).mkdir(exist_ok=True)
        super().__init__(root_dir=root, virtual_mode=True)
        self.reserved: frozenset[str] = frozenset(reserved)
        # Re-entrant: a sync file operation called on the event loop's thread
        # while an async execute holds the lock must not deadlock the loop.
        self._busy = threading.RLock()

    @property
    def root(self) -> Path:
        """The workspace folder on the host."""
        return self.cwd

    def _refuse_reserved(self, key: str, top: str) -> None:
        if top == "tmp":
            hint = "/tmp is private to each command; keep files in /data or /analysis"
        else:
            hint = (
                f"/{top} belongs to the sandbox's read-only runtime and is only visible "
                "to commands run with execute; keep your files in /data, /analysis or "
                "another folder of your own"
            )
        msg = f"Path '{key}' refused: {hint}."
        raise WorkspacePathError(msg)

    def _resolve_path(self, key: str) -> Path:
        """Resolve a virtual path to a host path inside the workspace, or refuse it."""
        if "\x00" in key:
            msg = f"Path {key!r} refused: it contains a NUL byte."
            raise WorkspacePathError(msg)
        vpath = key if key.startswith("/") else "/" + key
        parts = PurePosixPath(vpath).parts
        if ".." in parts or key.startswith("~"):
            msg = (
                f"Path '{key}' refused: '..' and '~' are not allowed. Use an absolute "
                "path inside the workspace, such as /data/result.json."
            )
            raise WorkspacePathError(msg)
        if len(parts) > 1 and parts[1] in self.reserved:
            self._refuse_reserved(key, parts[1])
        full = (self.cwd / vpath.lstrip("/")).resolve()
        if not full.is_relative_to(self.cwd):
            msg = (
                f"Path '{key}' refused: it leads outside the sandbox workspace "
                "(a symlink pointing out of it?)."
            )
            raise WorkspacePathError(msg)
        rel = full.relative_to(self.cwd).parts
        if rel and rel[0] in self.reserved:
            self._refuse_reserved(key, rel[0])
        return full

    def ls(self, path: str) -> LsResult:
        """List a workspace folder; at ``/`` the runtime's mount points are hidden."""
        with self._busy:
            result = super().ls(path)
        if result.entries is not None and not path.strip("/"):
            result.entries = [e for e in result.entries if not self._is_reserved(e["path"])]
        return result

    def _is_reserved(self, virtual_path: str) -> bool:
        parts = PurePosixPath(virtual_path).parts
        return len(parts) > 1 and parts[1] in self.reserved

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Read a workspace file (see ``FilesystemBackend.read``)."""
        with self._busy:
            return super().read(file_path, offset, limit)

    def write(self, file_path: str, content: str) -> WriteResult:
        """Write a workspace file, creating parent folders."""
        with self._busy:
            return super().write(file_path, content)

    def edit(
        self,
        file_path: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,
    ) -> EditResult:
        """Replace text in a workspace file."""
        with self._busy:
            return super().edit(file_path, old_string, new_string, replace_all)

    def delete(self, file_path: str) -> DeleteResult:
        """Delete a workspace file or folder (never the workspace itself)."""
        if PurePosixPath("/" + file_path.strip("/")) == PurePosixPath("/"):
            return DeleteResult(error="Refusing to delete the whole workspace '/'.")
        with self._busy:
            return super().delete(file_path)

    def grep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        context_lines: int = 0,
    ) -> GrepResult:
        """Search workspace files for a literal string."""
        with self._busy:
            result = super().grep(
                pattern, path, glob, max_count=max_count, context_lines=context_lines
            )
        if result.matches:
            result.matches = [m for m in result.matches if not self._is_reserved(m["path"])]
        return result

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Find workspace files by glob pattern."""
        with self._busy:
            result = super().glob(pattern, path)
        # The runtime's mount points (empty files such as /etc/ld.so.cache on the
        # host) are not the agent's files.
        if result.matches:
            result.matches = [m for m in result.matches if not self._is_reserved(m["path"])]
        return result

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Write several files into the workspace."""
        with self._busy:
            return super().upload_files(files)

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Read several workspace files as bytes."""
        with self._busy:
            return super().download_files(paths)
