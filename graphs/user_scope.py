"""Per-user isolation of the Store routes: ``/memories/{user_id}/``, ``/reports/{user_id}/``, ...

DESIGN section 4: a user's agent reads and writes only its own user's memories and
reports; another user's path is refused with a clear message. The check wraps the
route backends of the ``CompositeBackend`` (``storage.make_backend`` is not edited):
:func:`user_scoped` rebuilds the composite with every scoped route wrapped in a
:class:`UserScopedBackend`, which sees route-relative paths (``/u1/preferences.md``)
and requires their first segment to be the run's ``user_id``.

The user comes from the run's context (``runtime.context.user_id``); with auth on, the
authenticated user wins over what a client claims (:func:`graphs.context.claimed_user`).
"""

from __future__ import annotations

import logging
import posixpath
from collections.abc import Callable, Iterable
from typing import Any

from deepagents.backends import CompositeBackend
from deepagents.backends.protocol import (
    BackendProtocol,
    DeleteResult,
    EditResult,
    FileDownloadResponse,
    FileInfo,
    FileUploadResponse,
    GlobResult,
    GrepMatch,
    GrepResult,
    LsResult,
    ReadResult,
    WriteResult,
)

from graphs.context import claimed_user, valid_user_id

__all__ = [
    "SCOPED_ROUTES",
    "UserScopedBackend",
    "current_user_id",
    "user_scoped",
]

logger = logging.getLogger(__name__)

SCOPED_ROUTES: tuple[str, ...] = ("/memories/", "/reports/", "/persisted-skills/")
"""Store routes whose first path segment is a user id."""


def current_user_id() -> str | None:
    """The current LangGraph run's ``user_id`` (from its context), or ``None`` outside a run."""
    try:
        from langgraph.runtime import get_runtime

        runtime = get_runtime()
    except (RuntimeError, KeyError, LookupError):
        return None
    user_id, _ = claimed_user(getattr(runtime, "context", None))
    return valid_user_id(user_id) if user_id else None


def _refusal(route: str, path: str, user_id: str | None) -> str:
    full = route.rstrip("/") + path
    if user_id is None:
        return (
            f"Access denied: '{full}' is per-user storage and this run has no valid user_id "
            "in its context."
        )
    return (
        f"Access denied: '{full}' belongs to another user. You may only read and write "
        f"{route}{user_id}/ (your own files)."
    )


class UserScopedBackend(BackendProtocol):
    """A route backend (a ``StoreBackend``) that serves only the current user's folder.

    Paths are route-relative, as ``CompositeBackend`` passes them: ``/u1/notes.md``
    under the ``/memories/`` route. Operations on another user's folder, or on a path
    with ``..``, return an error result the model can read; listings and searches at
    the route's root show only the user's own folder.
    """

    def __init__(
        self,
        inner: BackendProtocol,
        *,
        route: str,
        user_id: Callable[[], str | None] = current_user_id,
    ) -> None:
        """Wrap ``inner`` (mounted at ``route``); ``user_id`` says whose run this is."""
        self.inner = inner
        self.route = route if route.endswith("/") else route + "/"
        self._user_id = user_id

    # -- checks -------------------------------------------------------------------

    def _owner(self, path: str) -> tuple[bool, str | None]:
        """Whether ``path`` is inside the current user's folder, and that user."""
        user_id = self._user_id()
        if user_id is None:
            return False, None
        parts = [p for p in path.split("/") if p]
        if ".." in parts:
            return False, user_id
        return (bool(parts) and parts[0] == user_id), user_id

    def _check(self, path: str) -> str | None:
        """``None`` when allowed, else the refusal message."""
        ok, user_id = self._owner(path)
        if ok:
            return None
        logger.warning(
            "UserScopedBackend refused %s%s for user %s", self.route.rstrip("/"), path, user_id
        )
        return _refusal(self.route, path, user_id)

    def _is_root(self, path: str | None) -> bool:
        return path is None or posixpath.normpath("/" + path.strip("/")) == "/"

    def _mine(self, paths: Iterable[str]) -> set[str]:
        return {p for p in paths if self._owner(p)[0]}

    def _filter_infos(self, infos: list[FileInfo] | None) -> list[FileInfo] | None:
        if infos is None:
            return None
        mine = self._mine(i["path"] for i in infos)
        return [i for i in infos if i["path"] in mine]

    def _filter_matches(self, matches: list[GrepMatch] | None) -> list[GrepMatch] | None:
        if matches is None:
            return None
        mine = self._mine(m["path"] for m in matches)
        return [m for m in matches if m["path"] in mine]

    # -- listing and search: the route root shows only the user's own folder -----

    def ls(self, path: str) -> LsResult:
        """List a folder of the user's own tree (the root shows only their folder)."""
        if self._is_root(path):
            result = self.inner.ls(path)
            result.entries = self._filter_infos(result.entries)
            return result
        if (error := self._check(path)) is not None:
            return LsResult(error=error)
        return self.inner.ls(path)

    async def als(self, path: str) -> LsResult:
        """Async :meth:`ls`."""
        if self._is_root(path):
            result = await self.inner.als(path)
            result.entries = self._filter_infos(result.entries)
            return result
        if (error := self._check(path)) is not None:
            return LsResult(error=error)
        return await self.inner.als(path)

    def grep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        **kwargs: Any,
    ) -> GrepResult:
        """Search the user's own files."""
        if not self._is_root(path) and (error := self._check(path or "/")) is not None:
            return GrepResult(error=error)
        result = self.inner.grep(pattern, path, glob, max_count=max_count, **kwargs)
        result.matches = self._filter_matches(result.matches)
        return result

    async def agrep(
        self,
        pattern: str,
        path: str | None = None,
        glob: str | None = None,
        *,
        max_count: int | None = None,
        **kwargs: Any,
    ) -> GrepResult:
        """Async :meth:`grep`."""
        if not self._is_root(path) and (error := self._check(path or "/")) is not None:
            return GrepResult(error=error)
        result = await self.inner.agrep(pattern, path, glob, max_count=max_count, **kwargs)
        result.matches = self._filter_matches(result.matches)
        return result

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Find the user's own files by pattern."""
        if not self._is_root(path) and (error := self._check(path or "/")) is not None:
            return GlobResult(error=error)
        result = self.inner.glob(pattern, path)
        result.matches = self._filter_infos(result.matches)
        return result

    async def aglob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Async :meth:`glob`."""
        if not self._is_root(path) and (error := self._check(path or "/")) is not None:
            return GlobResult(error=error)
        result = await self.inner.aglob(pattern, path)
        result.matches = self._filter_infos(result.matches)
        return result

    # -- single-file operations ---------------------------------------------------

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Read one of the user's own files."""
        if (error := self._check(file_path)) is not None:
            return ReadResult(error=error)
        return self.inner.read(file_path, offset, limit)

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Async :meth:`read`."""
        if (error := self._check(file_path)) is not None:
            return ReadResult(error=error)
        return await self.inner.aread(file_path, offset, limit)

    def write(self, file_path: str, content: str) -> WriteResult:
        """Write one of the user's own files."""
        if (error := self._check(file_path)) is not None:
            return WriteResult(error=error)
        return self.inner.write(file_path, content)

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        """Async :meth:`write`."""
        if (error := self._check(file_path)) is not None:
            return WriteResult(error=error)
        return await self.inner.awrite(file_path, content)

    def edit(
        self, file_path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> EditResult:
        """Edit one of the user's own files."""
        if (error := self._check(file_path)) is not None:
            return EditResult(error=error)
        return self.inner.edit(file_path, old_string, new_string, replace_all)

    async def aedit(
        self, file_path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> EditResult:
        """Async :meth:`edit`."""
        if (error := self._check(file_path)) is not None:
            return EditResult(error=error)
        return await self.inner.aedit(file_path, old_string, new_string, replace_all)

    def delete(self, file_path: str) -> DeleteResult:
        """Delete one of the user's own files."""
        if (error := self._check(file_path)) is not None:
            return DeleteResult(error=error)
        return self.inner.delete(file_path)

    async def adelete(self, file_path: str) -> DeleteResult:
        """Async :meth:`delete`."""
        if (error := self._check(file_path)) is not None:
            return DeleteResult(error=error)
        return await self.inner.adelete(file_path)

    def _split_uploads(
        self, files: list[tuple[str, bytes]]
    ) -> tuple[list[tuple[str, bytes]], dict[str, str]]:
        allowed: list[tuple[str, bytes]] = []
        refused: dict[str, str] = {}
        for path, data in files:
            error = self._check(path)
            if error is None:
                allowed.append((path, data))
            else:
                refused[path] = error
        return allowed, refused

    @staticmethod
    def _merge_uploads(
        files: list[tuple[str, bytes]], done: list[FileUploadResponse], refused: dict[str, str]
    ) -> list[FileUploadResponse]:
        by_path = {r.path: r for r in done}
        return [
            FileUploadResponse(path=p, error=refused[p]) if p in refused else by_path[p]
            for p, _ in files
        ]

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Upload into the user's own folder; other paths are refused one by one."""
        allowed, refused = self._split_uploads(files)
        done = self.inner.upload_files(allowed) if allowed else []
        return self._merge_uploads(files, done, refused)

    async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Async :meth:`upload_files`."""
        allowed, refused = self._split_uploads(files)
        done = await self.inner.aupload_files(allowed) if allowed else []
        return self._merge_uploads(files, done, refused)

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Download the user's own files; other paths are refused one by one."""
        allowed = [p for p in paths if self._check(p) is None]
        by_path = {r.path: r for r in (self.inner.download_files(allowed) if allowed else [])}
        return [
            by_path[p] if p in by_path else FileDownloadResponse(path=p, error="permission_denied")
            for p in paths
        ]

    async def adownload_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Async :meth:`download_files`."""
        allowed = [p for p in paths if self._check(p) is None]
        done = await self.inner.adownload_files(allowed) if allowed else []
        by_path = {r.path: r for r in done}
        return [
            by_path[p] if p in by_path else FileDownloadResponse(path=p, error="permission_denied")
            for p in paths
        ]


def user_scoped(
    backend: CompositeBackend,
    *,
    routes: Iterable[str] = SCOPED_ROUTES,
    user_id: Callable[[], str | None] = current_user_id,
) -> CompositeBackend:
    """A copy of ``backend`` whose per-user ``routes`` are wrapped in :class:`UserScopedBackend`.

    Routes not present in ``backend`` are ignored; the default backend (the sandbox) is
    kept as it is, so ``execute`` stays available.
    """
    wanted = set(routes)
    wrapped: dict[str, BackendProtocol] = {
        prefix: (
            UserScopedBackend(inner, route=prefix, user_id=user_id)
            if prefix in wanted and not isinstance(inner, UserScopedBackend)
            else inner
        )
        for prefix, inner in backend.routes.items()
    }
    return CompositeBackend(default=backend.default, routes=wrapped)
