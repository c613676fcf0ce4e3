"""A sandbox that forwards every call of deepagents' sandbox protocol to a backend it picks
per call: reads to :meth:`ForwardingSandbox._reader`, writes and commands to
:meth:`ForwardingSandbox._writer`.

Both of our sandbox wrappers are such forwarders:
:class:`~graphs.sandbox.factory.ThreadSandboxBackend` picks the workspace of the thread the
current run belongs to, and :class:`~graphs.sandbox.lazy.LazyWorkspace` reads from the
shared seed until the thread writes. Only the choice differs between them; the forwarding
is written here once.
"""

from __future__ import annotations

import abc
import contextlib

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

__all__ = ["ForwardingSandbox"]


class ForwardingSandbox(SandboxBackendProtocol):
    """Every protocol call, forwarded: reads to :meth:`_reader` (:meth:`_areader` from async
    code), writes, deletes, uploads and commands to :meth:`_writer` (:meth:`_awriter`)."""

    def _in_order(self, *, exclusive: bool) -> contextlib.AbstractAsyncContextManager[None]:
        """Hold the async call's turn among the calls issued before it (no order by default).

        Entered by every async call before anything is awaited; ``exclusive`` for writes,
        deletes, uploads and commands, shared for reads.
        """
        return contextlib.nullcontext()

    @abc.abstractmethod
    def _reader(self) -> BackendProtocol:
        """The backend that answers reads now."""

    @abc.abstractmethod
    async def _areader(self) -> BackendProtocol:
        """:meth:`_reader`, for async callers (finding it may touch the disk)."""

    @abc.abstractmethod
    def _writer(self) -> SandboxBackendProtocol:
        """The backend that takes writes and commands now."""

    @abc.abstractmethod
    async def _awriter(self) -> SandboxBackendProtocol:
        """:meth:`_writer`, for async callers (finding it may touch the disk)."""

    # ---- reads ------------------------------------------------------------------------------

    def ls(self, path: str) -> LsResult:
        """List a folder."""
        return self._reader().ls(path)

    async def als(self, path: str) -> LsResult:
        """List a folder."""
        async with self._in_order(exclusive=False):
            return await (await self._areader()).als(path)

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Read a file."""
        return self._reader().read(file_path, offset, limit)

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """Read a file."""
        async with self._in_order(exclusive=False):
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
        async with self._in_order(exclusive=False):
            return await (await self._areader()).agrep(pattern, path, glob, max_count=max_count)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Find files by pattern."""
        return self._reader().glob(pattern, path)

    async def aglob(self, pattern: str, path: str | None = None) -> GlobResult:
        """Find files by pattern."""
        async with self._in_order(exclusive=False):
            return await (await self._areader()).aglob(pattern, path)

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Read files as bytes."""
        return self._reader().download_files(paths)

    async def adownload_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Read files as bytes."""
        async with self._in_order(exclusive=False):
            return await (await self._areader()).adownload_files(paths)

    # ---- writes and commands ----------------------------------------------------------------

    def write(self, file_path: str, content: str) -> WriteResult:
        """Write a file."""
        return self._writer().write(file_path, content)

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        """Write a file."""
        async with self._in_order(exclusive=True):
            return await (await self._awriter()).awrite(file_path, content)

    def edit(
        self, file_path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> EditResult:
        """Edit a file."""
        return self._writer().edit(file_path, old_string, new_string, replace_all)

    async def aedit(
        self, file_path: str, old_string: str, new_string: str, replace_all: bool = False
    ) -> EditResult:
        """Edit a file."""
        async with self._in_order(exclusive=True):
            return await (await self._awriter()).aedit(
                file_path, old_string, new_string, replace_all
            )

    def delete(self, file_path: str) -> DeleteResult:
        """Delete a path."""
        return self._writer().delete(file_path)

    async def adelete(self, file_path: str) -> DeleteResult:
        """Delete a path."""
        async with self._in_order(exclusive=True):
            return await (await self._awriter()).adelete(file_path)

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Write files."""
        return self._writer().upload_files(files)

    async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Write files."""
        async with self._in_order(exclusive=True):
            return await (await self._awriter()).aupload_files(files)

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run a command."""
        return self._writer().execute(command, timeout=timeout)

    async def aexecute(
        self,
        command: str,
        *,
        timeout: int | None = None,  # noqa: ASYNC109 - the protocol's per-command limit
    ) -> ExecuteResponse:
        """Run a command."""
        async with self._in_order(exclusive=True):
            return await (await self._awriter()).aexecute(command, timeout=timeout)
