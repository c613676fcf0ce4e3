"""The Store routes' large and binary files, kept on disk beside the Store under langgraph dev.

``langgraph dev``'s runtime keeps the whole LangGraph Store in the Agent Server's memory
(and pickles all of it to ``.langgraph_api/`` every few seconds). Each analysis archives
its report under ``/reports/{user_id}/`` with a PDF (about 0.6 MB), a self-contained HTML
page (0.3 MB) and its charts: a 10-minute soak grew the server by about 1.1 MB per
analysis, all of it archive bytes nobody was reading. :class:`OffloadingStoreBackend` is
the ``StoreBackend`` of a Store route that keeps, for a file that is binary or at least
``STORE_FILES_MIN_BYTES`` long, only a small record in the Store (its size, SHA-256,
encoding and where the bytes are) and the bytes themselves in a file under
``DATA_DIR/store-files/<namespace>/<path>``. Reads, downloads, edits and deletes through
the backend find the bytes there; listings show their real size.

Where the bytes go (``STORE_FILES_WHERE``):

- ``auto`` (default): on disk under the in-memory runtime (``langgraph dev``:
  ``LANGGRAPH_RUNTIME_EDITION=inmem``, one process, one machine), in the Store otherwise.
  A deployment's Store is PostgreSQL, shared by every replica and not held in memory, so
  the archive stays there and no replica depends on its own disk.
- ``disk`` / ``store``: always that.

Files whose record was deleted behind the backend's back (through the Store API) leave
their bytes behind; :func:`sweep_unreferenced` removes those (the retention sweep calls it).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import logging
import os
import posixpath
import time
from collections.abc import Awaitable, Callable, Iterable
from functools import partial
from pathlib import Path
from typing import Any, Literal, TypeVar

from deepagents.backends import StoreBackend
from deepagents.backends.protocol import (
    DeleteResult,
    EditResult,
    FileData,
    FileDownloadResponse,
    FileUploadResponse,
    GlobResult,
    LsResult,
    ReadResult,
    WriteResult,
)
from deepagents.backends.utils import (
    create_file_data,
    perform_string_replacement,
    slice_read_response,
)
from langgraph.store.base import BaseStore, Item, PutOp
from pydantic import Field
from pydantic_settings import SettingsConfigDict

from core.settings import CommonSettings
from graphs.store_locks import FileLockError, FileLocks

__all__ = [
    "LockedStoreBackend",
    "OffloadingStoreBackend",
    "StoreFileSettings",
    "offload_folder",
    "route_backend",
    "sweep_unreferenced",
]

logger = logging.getLogger(__name__)

_PAGE = 100
R = TypeVar("R")
FOLDER = "store-files"
"""The folder under ``DATA_DIR`` that holds the offloaded bytes."""


class StoreFileSettings(CommonSettings):
    """Where the Store routes' large and binary files keep their bytes (``STORE_FILES_``)."""

    model_config = SettingsConfigDict(
        env_prefix="STORE_FILES_", env_file=".env", extra="ignore", populate_by_name=True
    )

    where: Literal["auto", "disk", "store"] = Field(
        default="auto",
        description="auto: on disk under langgraph dev's in-memory runtime, in the Store "
        "(PostgreSQL) in a deployment. disk / store: always that.",
    )
    min_bytes: int = Field(
        default=64 * 1024,
        ge=0,
        description="Text files at least this long go to disk too (binary files always do).",
    )
    lock_url: str | None = Field(
        default=None,
        description="PostgreSQL whose advisory locks make changes to one file take turns "
        "across replicas. Unset: the deployment's DATABASE_URI outside langgraph dev; none "
        "under langgraph dev (one process: its own locks suffice).",
    )
    lock_timeout_s: float = Field(
        default=15.0,
        gt=0,
        description="Longest wait for a file's lock before the change is refused.",
    )


def offload_folder(settings: StoreFileSettings | None = None) -> Path | None:
    """The folder of the offloaded bytes, or ``None`` when the Store keeps every file."""
    settings = settings or StoreFileSettings()
    where = settings.where
    if where == "auto":
        edition = os.environ.get("LANGGRAPH_RUNTIME_EDITION")
        where = "disk" if edition == "inmem" else "store"
    return settings.data_dir / FOLDER if where == "disk" else None


def file_locks(settings: StoreFileSettings | None = None) -> FileLocks:
    """The locks of the Store routes' file changes: across replicas when a PostgreSQL is
    configured (``STORE_FILES_LOCK_URL``, else ``DATABASE_URI`` outside ``langgraph dev``)."""
    settings = settings or StoreFileSettings()
    url = settings.lock_url
    if not url and os.environ.get("LANGGRAPH_RUNTIME_EDITION") != "inmem":
        url = os.environ.get("DATABASE_URI") or None
    return FileLocks(url, timeout_s=settings.lock_timeout_s)


def _is_record(value: dict[str, Any]) -> bool:
    return isinstance(value.get("file"), str) and isinstance(value.get("sha256"), str)


class LockedStoreBackend(StoreBackend):
    """A ``StoreBackend`` whose writes and edits of one file take turns (``locks``): an
    edit reads the file and writes it back, and the Store has no conditional write, so two
    overlapping edits would keep only the later one. Across replicas when ``locks`` has a
    PostgreSQL URL (a deployment); a change that cannot get its lock is refused with an
    error the model can read, and changes nothing.

    ``create_only``: ``write`` makes new files only and refuses to replace one (an archive
    of records: a file there is changed with ``edit``). Checked under the file's lock, so
    of two writers that both found no file, the second is told it now exists and edits
    it, instead of silently replacing what the first wrote."""

    def __init__(
        self, *, locks: FileLocks | None = None, create_only: bool = False, **kwargs: Any
    ) -> None:
        """``kwargs`` go to ``StoreBackend`` (``namespace``, ``store`` ...)."""
        super().__init__(**kwargs)
        self.locks = locks or FileLocks()
        self.create_only = create_only

    def _refused(self, file_path: str) -> WriteResult:
        return WriteResult(
            error=f"Error: {file_path} already exists and this folder never replaces a file: "
            "read it and change it with edit_file (or write to a new path)."
        )

    def _create_only(self, file_path: str, change: Callable[[], WriteResult]) -> WriteResult:
        """``change()``, unless ``create_only`` and ``file_path`` exists (under its lock)."""
        if self.create_only and self._get_store().get(self._get_namespace(), file_path):
            return self._refused(file_path)
        return change()

    async def _acreate_only(
        self, file_path: str, change: Callable[[], Awaitable[WriteResult]]
    ) -> WriteResult:
        """``_create_only`` for the event loop."""
        if self.create_only and await self._get_store().aget(self._get_namespace(), file_path):
            return self._refused(file_path)
        return await change()

    def _locked(self, path: str, verb: str, change: Callable[[], R], result: Callable[..., R]) -> R:
        """``change()`` under ``path``'s lock; an error ``result`` saying why, when the lock
        cannot be had."""
        try:
            with self.locks.hold(self._get_namespace(), path):
                return change()
        except FileLockError as exc:
            return result(error=f"Error: could not {verb} {path}: {exc}")

    async def _alocked(
        self, path: str, verb: str, change: Callable[[], Awaitable[R]], result: Callable[..., R]
    ) -> R:
        """``_locked`` for the event loop."""
        try:
            async with self.locks.ahold(self._get_namespace(), path):
                return await change()
        except FileLockError as exc:
            return result(error=f"Error: could not {verb} {path}: {exc}")

    def write(self, file_path: str, content: str) -> WriteResult:
        """As ``StoreBackend.write``, after other changes of the file."""
        change = partial(self._create_only, file_path, partial(super().write, file_path, content))
        return self._locked(file_path, "write", change, WriteResult)

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        """``write`` for the event loop."""
        write = partial(super().awrite, file_path, content)
        change = partial(self._acreate_only, file_path, write)
        return await self._alocked(file_path, "write", change, WriteResult)

    def edit(
        self, file_path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> EditResult:
        """As ``StoreBackend.edit``, one edit of the file at a time."""
        change = partial(super().edit, file_path, old_string, new_string, replace_all)
        return self._locked(file_path, "edit", change, EditResult)

    async def aedit(
        self, file_path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> EditResult:
        """``edit`` for the event loop."""
        change = partial(super().aedit, file_path, old_string, new_string, replace_all)
        return await self._alocked(file_path, "edit", change, EditResult)


class OffloadingStoreBackend(LockedStoreBackend):
    """A ``StoreBackend`` whose large and binary files keep their bytes in ``folder``; its
    changes take turns as :class:`LockedStoreBackend`'s (its async calls run the sync ones
    in a worker thread, as they read and write files)."""

    def __init__(self, *, folder: Path, min_bytes: int, **kwargs: Any) -> None:
        """``kwargs`` go to ``LockedStoreBackend`` (``locks``, ``namespace``, ``store`` ...)."""
        super().__init__(**kwargs)
        self.folder = folder
        self.min_bytes = min_bytes

    # -- the bytes on disk ----------------------------------------------------------

    def _relative(self, namespace: tuple[str, ...], key: str) -> str:
        parts = [*namespace, *(p for p in key.split("/") if p)]
        if not parts or any(p in (".", "..") or "\x00" in p for p in parts):
            msg = f"{key!r}: not a file path"
            raise ValueError(msg)
        return posixpath.join(*parts)

    def _keep(
        self, namespace: tuple[str, ...], key: str, data: bytes, encoding: str
    ) -> dict[str, Any]:
        """Write ``data`` beside the Store (atomically) and answer the record the Store keeps."""
        relative = self._relative(namespace, key)
        target = self.folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.{os.getpid()}.partial")
        partial.write_bytes(data)
        partial.replace(target)
        value: dict[str, Any] = dict(create_file_data("", encoding=encoding))
        value.update(
            content="", file=relative, size=len(data), sha256=hashlib.sha256(data).hexdigest()
        )
        return value

    def _bytes(self, value: dict[str, Any]) -> bytes:
        """The record's bytes; ``ValueError`` saying what is wrong when they are gone."""
        path = self.folder / value["file"]
        try:
            data = path.read_bytes()
        except OSError as exc:
            msg = f"its bytes are missing from {path} ({exc.strerror})"
            raise ValueError(msg) from exc
        if hashlib.sha256(data).hexdigest() != value["sha256"]:
            msg = f"its bytes at {path} changed after it was written"
            raise ValueError(msg)
        return data

    def _forget(self, values: Iterable[dict[str, Any] | None]) -> None:
        for value in values:
            if value is not None and _is_record(value):
                with contextlib.suppress(FileNotFoundError):
                    (self.folder / value["file"]).unlink()

    def _file_data(self, item: Item) -> FileData:
        """The item as ``FileData`` with its real content (read from disk for a record)."""
        if not _is_record(item.value):
            return self._convert_store_item_to_file_data(item)
        data = self._bytes(item.value)
        encoding = str(item.value.get("encoding", "utf-8"))
        text = base64.standard_b64encode(data).decode("ascii") if encoding == "base64" else None
        result = FileData(
            content=text if text is not None else data.decode("utf-8"), encoding=encoding
        )
        for stamp in ("created_at", "modified_at"):
            if isinstance(item.value.get(stamp), str):
                result[stamp] = item.value[stamp]
        return result

    def _value(self, namespace: tuple[str, ...], key: str, data: bytes) -> dict[str, Any]:
        """The Store value for ``data`` at ``key``: inline when small text, else a record."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return self._keep(namespace, key, data, "base64")
        if len(data) >= self.min_bytes:
            return self._keep(namespace, key, data, "utf-8")
        return self._convert_file_data_to_store_value(create_file_data(text))

    def _put(self, store: BaseStore, namespace: tuple[str, ...], key: str, data: bytes) -> None:
        old = store.get(namespace, key)
        value = self._value(namespace, key, data)
        if old is not None and isinstance(old.value.get("created_at"), str):
            value["created_at"] = old.value["created_at"]
        store.put(namespace, key, value)
        if old is not None and _is_record(old.value) and not _is_record(value):
            self._forget([old.value])  # now inline: its old bytes on disk are stale

    # -- the protocol ---------------------------------------------------------------

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """As ``StoreBackend.read``, with a record's bytes read from disk."""
        item = self._get_store().get(self._get_namespace(), file_path)
        if item is None or not _is_record(item.value):
            return super().read(file_path, offset, limit)
        try:
            file_data = self._file_data(item)
        except ValueError as exc:
            return ReadResult(error=f"File '{file_path}': {exc}")
        if file_data["encoding"] == "base64":
            return ReadResult(file_data=file_data)
        return slice_read_response(file_data, offset, limit)

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """``read`` off the event loop (it may read a file)."""
        return await asyncio.to_thread(self.read, file_path, offset, limit)

    def write(self, file_path: str, content: str) -> WriteResult:
        """Write ``content`` (text), on disk when it is long."""
        return self._store_text(file_path, content, replace=not self.create_only)

    def _store_text(self, file_path: str, content: str, *, replace: bool) -> WriteResult:
        """Keep ``content`` at ``file_path`` under its lock (``replace``: over a file
        already there; else such a file is left as it is and the write refused)."""
        store, namespace = self._get_store(), self._get_namespace()
        try:
            with self.locks.hold(namespace, file_path):
                if not replace and store.get(namespace, file_path) is not None:
                    return self._refused(file_path)
                self._put(store, namespace, file_path, content.encode("utf-8"))
        except (ValueError, OSError, FileLockError) as exc:
            return WriteResult(error=f"Error: could not write {file_path}: {exc}")
        return WriteResult(path=file_path)

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        """``write`` off the event loop."""
        return await asyncio.to_thread(self.write, file_path, content)

    def edit(
        self,
        file_path: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,
    ) -> EditResult:
        """As ``StoreBackend.edit``, for inline files and records alike.

        Edits of one file run one at a time (read, replace, write back): two analyses
        adding their line to the same archive index both keep theirs."""
        change = partial(self._edit, file_path, old_string, new_string, replace_all)
        return self._locked(file_path, "edit", change, EditResult)

    def _edit(
        self, file_path: str, old_string: str, new_string: str, replace_all: bool
    ) -> EditResult:
        item = self._get_store().get(self._get_namespace(), file_path)
        if item is None or not _is_record(item.value):
            # Already under this file's lock: the Store's own edit, not the locking one.
            return StoreBackend.edit(self, file_path, old_string, new_string, replace_all)
        if item.value.get("encoding") == "base64":
            return EditResult(error="Error: Cannot edit binary files with text replacements.")
        try:
            content = self._bytes(item.value).decode("utf-8")
        except ValueError as exc:
            return EditResult(error=f"Error: File '{file_path}': {exc}")
        result = perform_string_replacement(content, old_string, new_string, replace_all)
        if isinstance(result, str):
            return EditResult(error=result)
        new_content, occurrences = result
        written = self._store_text(file_path, new_content, replace=True)
        if written.error:
            return EditResult(error=written.error)
        return EditResult(path=file_path, occurrences=int(occurrences))

    async def aedit(
        self,
        file_path: str,
        old_string: str,
        new_string: str,
        replace_all: bool = False,
    ) -> EditResult:
        """``edit`` off the event loop."""
        return await asyncio.to_thread(self.edit, file_path, old_string, new_string, replace_all)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Store each file: binary and long ones with their bytes on disk."""
        store, namespace = self._get_store(), self._get_namespace()
        answers: list[FileUploadResponse] = []
        for path, data in files:
            try:
                with self.locks.hold(namespace, path):
                    self._put(store, namespace, path, data)
            except (ValueError, OSError, FileLockError) as exc:
                logger.warning("store files: %s not written: %s", path, exc)
                answers.append(FileUploadResponse(path=path, error="invalid_path"))
                continue
            answers.append(FileUploadResponse(path=path, error=None))
        return answers

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Each file's bytes, from the Store or from disk."""
        store, namespace = self._get_store(), self._get_namespace()
        answers: list[FileDownloadResponse] = []
        for path in paths:
            item = store.get(namespace, path)
            if item is None or not _is_record(item.value):
                answers.extend(super().download_files([path]))
                continue
            try:
                data = self._bytes(item.value)
            except ValueError as exc:
                logger.warning("store files: %s: %s", path, exc)
                answers.append(FileDownloadResponse(path=path, error="file_not_found"))
                continue
            answers.append(FileDownloadResponse(path=path, content=data, error=None))
        return answers

    def delete(self, file_path: str) -> DeleteResult:
        """As ``StoreBackend.delete`` (a folder recursively), with the bytes on disk too."""
        store, namespace = self._get_store(), self._get_namespace()
        base = file_path.rstrip("/")
        doomed = [
            item
            for item in self._search_store_paginated(store, namespace)
            if item.key == base or item.key.startswith(base + "/")
        ]
        if not doomed:
            return DeleteResult(error=f"Error: File '{file_path}' not found")
        store.batch([PutOp(namespace, item.key, None) for item in doomed])
        self._forget(item.value for item in doomed)
        return DeleteResult(path=file_path)

    async def adelete(self, file_path: str) -> DeleteResult:
        """``delete`` off the event loop."""
        return await asyncio.to_thread(self.delete, file_path)

    def _sizes(self) -> dict[str, int]:
        items = self._search_store_paginated(self._get_store(), self._get_namespace())
        return {item.key: int(item.value["size"]) for item in items if _is_record(item.value)}

    def ls(self, path: str) -> LsResult:
        """As ``StoreBackend.ls``, with a record's real size."""
        found = super().ls(path)
        sizes = self._sizes()
        for info in found.entries or []:
            if info["path"] in sizes:
                info["size"] = sizes[info["path"]]
        return found

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """As ``StoreBackend.glob``, with a record's real size."""
        found = super().glob(pattern, path)
        sizes = self._sizes()
        for info in found.matches or []:
            if info["path"] in sizes:
                info["size"] = sizes[info["path"]]
        return found


CREATE_ONLY_ROUTES = frozenset({"reports"})
"""Routes whose ``write_file`` never replaces a file: the buyer's report archive, whose
index two analyses finishing together both add a line to (a second writer that found no
index must not replace the first's: it is told the index exists and edits it)."""


def route_backend(name: str, *, settings: StoreFileSettings | None = None) -> StoreBackend:
    """The backend of the Store route ``/{name}/`` (namespace ``("files", name)``)."""
    settings = settings or StoreFileSettings()
    folder = offload_folder(settings)

    def namespace(_runtime: Any) -> tuple[str, ...]:
        return ("files", name)

    locks = file_locks(settings)
    create_only = name in CREATE_ONLY_ROUTES
    if folder is None:
        return LockedStoreBackend(locks=locks, create_only=create_only, namespace=namespace)
    return OffloadingStoreBackend(
        folder=folder,
        min_bytes=settings.min_bytes,
        locks=locks,
        create_only=create_only,
        namespace=namespace,
    )


async def sweep_unreferenced(
    client: Any, folder: Path, names: Iterable[str], *, older_than_s: float = 600.0
) -> int:
    """Remove the bytes under ``folder`` that no record of the routes ``names`` points at
    (their record was deleted through the Store API) and that are older than
    ``older_than_s`` (a file just written has its record put right after); answers how
    many files went. ``client``: a LangGraph SDK client (its ``store.search_items``)."""
    if not await asyncio.to_thread(folder.is_dir):
        return 0
    kept: set[str] = set()
    for name in names:
        offset = 0
        while True:
            page = await client.store.search_items(["files", name], limit=_PAGE, offset=offset)
            items = page.get("items", []) if isinstance(page, dict) else []
            kept.update(i["value"]["file"] for i in items if _is_record(i.get("value") or {}))
            if len(items) < _PAGE:
                break
            offset += _PAGE

    def remove() -> int:
        cutoff = time.time() - older_than_s
        gone = 0
        for path in folder.rglob("*"):
            relative = path.relative_to(folder).as_posix()
            with contextlib.suppress(FileNotFoundError):
                if path.is_file() and relative not in kept and path.stat().st_mtime < cutoff:
                    path.unlink()
                    gone += 1
        return gone

    return await asyncio.to_thread(remove)
