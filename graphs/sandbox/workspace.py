"""Per-thread workspaces on the host and the file operations confined to them.

A workspace is a host folder that the agent sees as ``/``: the virtual path
``/data/analysis_result.json`` is ``<workspace>/data/analysis_result.json`` on the
host, and the same path inside the bubblewrap sandbox, which mounts the workspace
as its root. File operations run on the host directly (no sandbox start-up per
call) but never leave the workspace: every one of them resolves its path race-free
beneath a descriptor of the workspace root (:mod:`graphs.sandbox.beneath`) and
works on the descriptor it got, so a symlink swapped in by sandboxed code at any
moment is refused, never followed. :func:`open_workspace_file` is the same opener
for anything else that serves workspace files (the artifacts route).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import errno
import hashlib
import os
import re
import shutil
import stat
import threading
import weakref
from collections.abc import AsyncIterator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from deepagents.backends.filesystem import FilesystemBackend
from deepagents.backends.protocol import (
    FILE_NOT_FOUND,
    INVALID_PATH,
    IS_DIRECTORY,
    PERMISSION_DENIED,
    DeleteResult,
    EditResult,
    FileDownloadResponse,
    FileInfo,
    FileOperationError,
    FileUploadResponse,
    GlobResult,
    GrepResult,
    LsResult,
    ReadResult,
    WriteResult,
)
from deepagents.backends.utils import (
    MAX_VIDEO_INPUT_BYTES,
    _get_backend_read_file_type,  # private, but the library's own text/binary typing
    check_empty_content,
    perform_string_replacement,
    slice_read_response,
)

from graphs.sandbox import beneath
from graphs.sandbox.errors import SandboxConfigError, WorkspacePathError
from graphs.sandbox.workspace_search import file_info, glob_files, grep_files

STANDARD_DIRS: tuple[str, ...] = ("data", "analysis", "skills")
"""Folders created in every new workspace, so scripts can write there at once."""

_SAFE_CHARS = re.compile(r"[^A-Za-z0-9._-]")
_MAX_ID_CHARS = 80
_CHUNK = 64 * 1024
_ROOT_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_WRITE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | os.O_NOCTTY

_locks: dict[Path, threading.RLock] = {}
_locks_guard = threading.Lock()


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


def workspace_lock(root: Path) -> threading.RLock:
    """The one lock of the workspace at ``root`` in this process.

    Each command holds it for as long as it runs (with the repair of its mount
    points before), whichever backend object started it, so two commands never
    share a workspace at once. File operations take it too, so none runs while a
    command of this process does; their safety does not rest on it: they are race-free
    against any process. It orders nothing: whoever asks first gets it, and calls
    issued together reach it in any order (the router keeps their issue order,
    :mod:`graphs.sandbox.issue_order`).
    Re-entrant: a sync file operation called on the event loop's thread while an
    async command holds the lock must not deadlock the loop.
    """
    with _locks_guard:
        return _locks.setdefault(root, threading.RLock())


def forget_workspace_lock(root: Path) -> None:
    """Drop the lock of a workspace that was removed (the table would grow with every
    thread ever served otherwise)."""
    with _locks_guard:
        _locks.pop(root, None)


@contextlib.contextmanager
def root_fd(root: Path) -> Iterator[int]:
    """A descriptor of the workspace folder itself, closed on exit."""
    fd = os.open(root, _ROOT_FLAGS)
    try:
        yield fd
    finally:
        os.close(fd)


@dataclass
class OpenedFile:
    """A regular workspace file opened race-free: read it only through this object."""

    fd: int
    size: int
    """Size when opened; :meth:`chunks` never yields more."""
    name: str
    _closer: weakref.finalize = field(init=False, repr=False)

    def __post_init__(self) -> None:
        # Closes the descriptor even when nobody iterates (a response never sent).
        self._closer = weakref.finalize(self, os.close, self.fd)

    def close(self) -> None:
        """Close the descriptor (idempotent)."""
        self._closer()

    async def chunks(self, chunk_size: int = _CHUNK) -> AsyncIterator[bytes]:
        """The file's first :attr:`size` bytes, read off the event loop; closes at the end."""
        try:
            remaining = self.size
            while remaining > 0:
                chunk = await asyncio.to_thread(os.read, self.fd, min(chunk_size, remaining))
                if not chunk:
                    break
                remaining -= len(chunk)
                yield chunk
        finally:
            self.close()


def open_workspace_file(root: Path, virtual_path: str) -> OpenedFile:
    """Open ``virtual_path`` of the workspace at ``root`` for reading, race-free.

    No symlink is followed anywhere on the path, and only a regular file is
    accepted (no FIFO, device or folder).

    Raises:
        OSError: missing (``FileNotFoundError``), reached through a symlink
            (``ELOOP``), not a regular file, or the path contains ``..``.
    """
    try:
        parts = beneath.split_parts(virtual_path)
    except ValueError as exc:
        raise OSError(errno.EINVAL, str(exc), virtual_path) from None
    with root_fd(root) as rfd:
        fd = beneath.open_beneath(rfd, parts, beneath.READ_FLAGS)
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise OSError(errno.EISDIR if stat.S_ISDIR(st.st_mode) else errno.EINVAL, "not a file")
    return OpenedFile(fd=fd, size=st.st_size, name=parts[-1] if parts else root.name)


def workspace_usage(root: Path) -> int:
    """Bytes of disk the workspace's files and folders take (hard links counted once)."""
    seen: set[tuple[int, int]] = set()
    with root_fd(root) as fd:
        total = os.fstat(fd).st_blocks * 512
        for entry in beneath.walk(fd):
            key = (entry.stat.st_dev, entry.stat.st_ino)
            if key not in seen:
                seen.add(key)
                total += entry.stat.st_blocks * 512
    return total


def _error_code(exc: OSError) -> FileOperationError:
    if isinstance(exc, FileNotFoundError):
        return FILE_NOT_FOUND
    if isinstance(exc, IsADirectoryError):
        return IS_DIRECTORY
    if isinstance(exc, PermissionError) or exc.errno in (errno.ELOOP, errno.EXDEV, errno.EDQUOT):
        return PERMISSION_DENIED
    return INVALID_PATH


class WorkspaceFiles(FilesystemBackend):
    """deepagents' filesystem backend, confined to one workspace folder, race-free.

    On top of ``FilesystemBackend``'s virtual mode it refuses, with a message the
    model can act on: ``..`` components, paths through a symlink (any symlink: the
    file tools never follow links, so none can lead out, however it is swapped in),
    and the top-level names where the sandbox mounts its read-only runtime
    (``/usr``, ``/etc``, ``/tmp``, ...), which on the host are only empty mount
    points. With ``quota_bytes``, writes that would take the workspace over its
    disk quota are refused.
    """

    def __init__(
        self, root: Path, *, reserved: Iterable[str] = (), quota_bytes: int | None = None
    ) -> None:
        """Serve files under ``root`` (created with the standard folders if missing)."""
        root.mkdir(parents=True, exist_ok=True)
        with root_fd(root) as fd:
            for name in STANDARD_DIRS:
                # Relative to the root's descriptor: a link a script left there is left
                # alone (and refused by every tool), never followed.
                with contextlib.suppress(FileExistsError):
                    os.mkdir(name, 0o755, dir_fd=fd)
        super().__init__(root_dir=root, virtual_mode=True)
        self.reserved: frozenset[str] = frozenset(reserved)
        self.quota_bytes = quota_bytes
        self._busy = workspace_lock(self.cwd)

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

    def _parts(self, key: str) -> list[str]:
        """The components of virtual path ``key``, or a refusal the model can act on."""
        if "\x00" in key:
            msg = f"Path {key!r} refused: it contains a NUL byte."
            raise WorkspacePathError(msg)
        vpath = key if key.startswith("/") else "/" + key
        if ".." in PurePosixPath(vpath).parts or key.startswith("~"):
            msg = (
                f"Path '{key}' refused: '..' and '~' are not allowed. Use an absolute "
                "path inside the workspace, such as /data/result.json."
            )
            raise WorkspacePathError(msg)
        parts = beneath.split_parts(vpath)
        if parts and parts[0] in self.reserved:
            self._refuse_reserved(key, parts[0])
        return parts

    def _resolve_path(self, key: str) -> Path:
        """The host path of ``key`` (for deepagents' permission checks; never opened by name)."""
        parts = self._parts(key)
        full = (self.cwd / "/".join(parts)).resolve()
        if not full.is_relative_to(self.cwd):
            raise self._refusal(key, OSError(errno.ELOOP, "symlink"))
        return full

    def _refusal(self, key: str, exc: OSError) -> OSError:
        """A clear error for ``key`` from the OSError the opener raised."""
        if exc.errno == errno.ELOOP:
            msg = (
                f"Path '{key}' refused: it goes through a symbolic link, which could lead "
                "outside the sandbox workspace; the file tools never follow links (use the "
                "path of the link's target instead)."
            )
            return WorkspacePathError(msg)
        if exc.errno == errno.EXDEV:
            return WorkspacePathError(f"Path '{key}' refused: it crosses a mount point.")
        return exc

    def _open(self, key: str, flags: int) -> int:
        parts = self._parts(key)
        try:
            with root_fd(self.cwd) as rfd:
                return beneath.open_beneath(rfd, parts, flags)
        except OSError as exc:
            raise self._refusal(key, exc) from None

    @contextlib.contextmanager
    def _parent(self, key: str, *, create: bool = False) -> Iterator[tuple[int, str]]:
        """The descriptor of ``key``'s folder (created if asked) and ``key``'s own name."""
        parts = self._parts(key)
        if not parts:
            raise IsADirectoryError(errno.EISDIR, "the workspace root is a folder", key)
        try:
            with root_fd(self.cwd) as rfd:
                fd = beneath.open_dir_beneath(rfd, parts[:-1], create=create)
        except OSError as exc:
            raise self._refusal(key, exc) from None
        try:
            yield fd, parts[-1]
        finally:
            os.close(fd)

    def _read_bytes(self, key: str) -> bytes:
        fd = self._open(key, beneath.READ_FLAGS)
        with os.fdopen(fd, "rb") as fh:
            mode = os.fstat(fd).st_mode
            if stat.S_ISDIR(mode):
                raise IsADirectoryError(errno.EISDIR, "is a folder", key)
            if not stat.S_ISREG(mode):
                raise OSError(errno.EINVAL, "not a regular file", key)
            return fh.read()

    def _check_quota(self, growth: int, used: int | None = None) -> int | None:
        """Refuse ``growth`` more bytes past the quota; the usage after it (None: no quota).

        ``used``: the usage already measured in this batch of writes (one walk, not one
        per file).
        """
        if self.quota_bytes is None:
            return None
        if used is None:
            used = workspace_usage(self.cwd)
        if growth > 0 and used + growth > self.quota_bytes:
            mb = 1024 * 1024
            msg = (
                f"the workspace's disk quota of {self.quota_bytes // mb} MB would be exceeded "
                f"({used / mb:.1f} MB used, {growth / mb:.1f} MB more asked); delete files "
                "you no longer need"
            )
            raise OSError(errno.EDQUOT, msg)
        return used + max(growth, 0)

    def _write_bytes(self, key: str, data: bytes, used: int | None = None) -> int | None:
        """Write ``data`` to ``key``; returns the workspace usage after it (see _check_quota)."""
        with self._parent(key, create=True) as (dir_fd, name):
            try:
                old = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_size
            except FileNotFoundError:
                old = 0
            used = self._check_quota(len(data) - old, used)
            flags = _WRITE_FLAGS | os.O_NOFOLLOW | os.O_CLOEXEC
            try:
                fd = os.open(name, flags, 0o644, dir_fd=dir_fd)
            except OSError as exc:
                raise self._refusal(key, exc) from None
            with os.fdopen(fd, "wb") as fh:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise OSError(errno.EINVAL, "not a regular file", key)
                fh.write(data)
        return used

    def ls(self, path: str) -> LsResult:
        """List a workspace folder; at ``/`` the runtime's mount points are hidden."""
        try:
            with self._busy:
                fd = self._open(path, os.O_RDONLY | os.O_DIRECTORY)
                try:
                    entries = self._entries(path, fd)
                finally:
                    os.close(fd)
        except FileNotFoundError:
            return LsResult(error=f"Path '{path}': path_not_found", entries=None)
        except NotADirectoryError:
            return LsResult(error=f"Path '{path}': not_a_directory", entries=None)
        except OSError as exc:
            return LsResult(error=f"Cannot list '{path}': {exc}", entries=None)
        return LsResult(entries=entries)

    def _entries(self, path: str, fd: int) -> list[FileInfo]:
        base = "/" + "/".join(self._parts(path))
        found: list[FileInfo] = []
        for entry in os.scandir(fd):
            st = entry.stat(follow_symlinks=False)
            vpath = f"{base.rstrip('/')}/{entry.name}"
            if base == "/" and entry.name in self.reserved:
                continue
            if stat.S_ISDIR(st.st_mode):
                found.append(file_info(vpath + "/", st))
            elif stat.S_ISREG(st.st_mode):
                found.append(file_info(vpath, st))
        return sorted(found, key=lambda e: e["path"])

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Read a workspace file (as ``FilesystemBackend.read``: text paged, binary base64)."""
        try:
            with self._busy:
                raw = self._read_bytes(file_path)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return ReadResult(error=f"File '{file_path}' not found")
        except OSError as exc:
            return ReadResult(error=f"Error reading file '{file_path}': {exc}")
        kind = _get_backend_read_file_type(file_path)
        if kind != "text":
            if kind == "video" and len(raw) > MAX_VIDEO_INPUT_BYTES:
                return ReadResult(
                    error=f"Video file exceeds maximum input size of {MAX_VIDEO_INPUT_BYTES} bytes"
                )
            encoded = base64.standard_b64encode(raw).decode("ascii")
            return ReadResult(file_data={"content": encoded, "encoding": "base64"})
        try:
            content = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            return ReadResult(error=f"Error reading file '{file_path}': {exc}")
        empty = check_empty_content(content)
        if empty:
            return ReadResult(file_data={"content": empty, "encoding": "utf-8"})
        # Universal newlines, as FilesystemBackend's text-mode read gives.
        content = content.replace("\r\n", "\n").replace("\r", "\n")
        return slice_read_response({"content": content, "encoding": "utf-8"}, offset, limit)

    def write(self, file_path: str, content: str) -> WriteResult:
        """Write a workspace file, creating parent folders; never through a symlink."""
        try:
            with self._busy:
                self._write_bytes(file_path, content.encode("utf-8"))
        except (OSError, UnicodeEncodeError) as exc:
            return WriteResult(error=f"Error writing file '{file_path}': {exc}")
        return WriteResult(path=file_path)

    def edit(
        self,
        file_path: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,
    ) -> EditResult:
        """Replace text in a workspace file (read and rewritten through one descriptor)."""
        try:
            with self._busy:
                return self._edit(file_path, old_string, new_string, replace_all)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return EditResult(error=f"Error: File '{file_path}' not found")
        except (OSError, UnicodeDecodeError, UnicodeEncodeError) as exc:
            return EditResult(error=f"Error editing file '{file_path}': {exc}")

    def _edit(self, file_path: str, old: str, new: str, replace_all: bool) -> EditResult:
        fd = self._open(file_path, os.O_RDWR | os.O_NONBLOCK | os.O_NOCTTY)
        with os.fdopen(fd, "r+b") as fh:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise IsADirectoryError(errno.EISDIR, "not a regular file", file_path)
            raw = fh.read()
            # Newlines normalised as FilesystemBackend's text-mode edit does.
            content = raw.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
            old = old.replace("\r\n", "\n").replace("\r", "\n")
            new = new.replace("\r\n", "\n").replace("\r", "\n")
            result = perform_string_replacement(content, old, new, replace_all)
            if isinstance(result, str):
                return EditResult(error=result)
            updated, occurrences = result
            data = updated.encode("utf-8")
            self._check_quota(len(data) - len(raw))
            fh.seek(0)
            fh.truncate()
            fh.write(data)
        return EditResult(path=file_path, occurrences=int(occurrences))

    def delete(self, file_path: str) -> DeleteResult:
        """Delete a workspace file or folder (never the workspace itself, never via a link)."""
        if PurePosixPath("/" + file_path.strip("/")) == PurePosixPath("/"):
            return DeleteResult(error="Refusing to delete the whole workspace '/'.")
        try:
            with self._busy, self._parent(file_path) as (dir_fd, name):
                st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
                if stat.S_ISDIR(st.st_mode):
                    # dir_fd: rmtree's descriptor-based walk, which never follows links.
                    shutil.rmtree(name, dir_fd=dir_fd)
                else:
                    os.unlink(name, dir_fd=dir_fd)
        except FileNotFoundError:
            return DeleteResult(error=f"Error: '{file_path}' not found")
        except OSError as exc:
            return DeleteResult(error=f"Error deleting '{file_path}': {exc}")
        return DeleteResult(path=file_path)

    def grep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        context_lines: int = 0,
    ) -> GrepResult:
        """Search workspace files for a literal string (links and runtime mounts skipped)."""
        if context_lines < 0:
            msg = "context_lines must be non-negative"
            raise ValueError(msg)
        try:
            parts = self._parts(path or "/")
            with self._busy, root_fd(self.cwd) as rfd:
                return grep_files(
                    rfd,
                    parts,
                    pattern,
                    include=glob,
                    max_count=max_count,
                    context_lines=context_lines,
                    reserved=self.reserved,
                    max_file_bytes=self.max_file_size_bytes,
                )
        except OSError as exc:
            return GrepResult(error=f"Error searching path '{path or '/'}': {exc}", matches=[])

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Find workspace files by glob pattern (links and runtime mounts skipped)."""
        try:
            parts = self._parts(path or "/")
            with self._busy, root_fd(self.cwd) as rfd:
                return glob_files(rfd, parts, pattern, reserved=self.reserved)
        except OSError as exc:
            return GlobResult(error=f"Error globbing path '{path or '/'}': {exc}", matches=[])

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Write several files into the workspace."""
        responses: list[FileUploadResponse] = []
        used: int | None = None
        for path, content in files:
            try:
                with self._busy:
                    used = self._write_bytes(path, content, used)
                responses.append(FileUploadResponse(path=path))
            except OSError as exc:
                responses.append(FileUploadResponse(path=path, error=_error_code(exc)))
        return responses

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Read several workspace files as bytes."""
        responses: list[FileDownloadResponse] = []
        for path in paths:
            try:
                with self._busy:
                    content = self._read_bytes(path)
                responses.append(FileDownloadResponse(path=path, content=content))
            except OSError as exc:
                responses.append(FileDownloadResponse(path=path, error=_error_code(exc)))
        return responses
