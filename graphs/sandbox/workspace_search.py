"""``grep`` and ``glob`` over a workspace, through descriptors only.

The same results as deepagents' ``FilesystemBackend`` (literal substring search,
its include-glob semantics, ``max_count`` and context lines), but every folder is
entered and every file opened relative to its parent's descriptor, never through
a symlink (:mod:`graphs.sandbox.beneath`), so sandboxed code swapping links in
while a search runs cannot make it read anything outside the workspace.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from datetime import datetime

from deepagents.backends.protocol import (
    DEFAULT_GREP_TIMEOUT,
    ContextLine,
    FileInfo,
    GlobResult,
    GrepMatch,
    GrepResult,
)
from deepagents.backends.utils import InvalidGlobPatternError, compile_grep_include_glob

from graphs.sandbox import beneath

GLOB_BUDGET_S = 5.0
"""Wall time one glob may walk before it returns what it found, flagged truncated."""


def _skipper(parts: Sequence[str], reserved: Collection[str]) -> Callable[[tuple[str, ...]], bool]:
    """Prunes the runtime's mount points when the walk starts at the workspace root."""
    at_root = not parts
    return lambda sub: at_root and sub[0] in reserved


@contextlib.contextmanager
def _base(root_fd: int, parts: Sequence[str]) -> Iterator[tuple[int, str | None] | None]:
    """``(folder fd, None)`` for a folder, ``(parent fd, name)`` for one file, None if missing."""
    try:
        fd = beneath.open_dir_beneath(root_fd, parts)
        name = None
    except NotADirectoryError:
        fd = beneath.open_dir_beneath(root_fd, parts[:-1])
        name = parts[-1]
    except FileNotFoundError:
        yield None
        return
    try:
        yield fd, name
    finally:
        os.close(fd)


def glob_files(
    root_fd: int, parts: Sequence[str], pattern: str, *, reserved: Collection[str]
) -> GlobResult:
    """Regular files under folder ``parts`` whose path relative to it matches ``pattern``."""
    try:
        matches = compile_grep_include_glob(pattern)
    except InvalidGlobPatternError as exc:
        return GlobResult(error=str(exc), matches=None)
    prefix = "/" + "".join(f"{p}/" for p in parts)
    deadline = time.monotonic() + GLOB_BUDGET_S
    found: list[FileInfo] = []
    truncated = False
    with _base(root_fd, parts) as base:
        if base is None or base[1] is not None:
            return GlobResult(matches=[])
        for entry in beneath.walk(base[0], skip=_skipper(parts, reserved)):
            if time.monotonic() > deadline:
                truncated = True
                break
            rel = "/".join(entry.parts)
            regular = stat.S_ISREG(entry.stat.st_mode)
            if regular and not _reserved(parts, entry, reserved) and matches(rel):
                found.append(file_info(prefix + rel, entry.stat))
    found.sort(key=lambda f: f["path"])
    return GlobResult(
        matches=found, truncated=truncated, truncation_reason="budget" if truncated else None
    )


def _reserved(parts: Sequence[str], entry: beneath.Entry, reserved: Collection[str]) -> bool:
    return not parts and entry.parts[0] in reserved


def file_info(vpath: str, st: os.stat_result) -> FileInfo:
    """deepagents' listing entry for a file or (``vpath`` ending in ``/``) a folder."""
    is_dir = vpath.endswith("/")
    modified = datetime.fromtimestamp(st.st_mtime).isoformat()
    return {
        "path": vpath,
        "is_dir": is_dir,
        "size": 0 if is_dir else st.st_size,
        "modified_at": modified,
    }


def _candidates(
    base: tuple[int, str | None],
    parts: Sequence[str],
    include: Callable[[str], bool] | None,
    reserved: Collection[str],
) -> Iterator[tuple[int, str, str]]:
    """``(folder fd, name, virtual path)`` of each regular file to search."""
    fd, single = base
    if single is not None:
        yield fd, single, "/" + "/".join(parts)
        return
    prefix = "/" + "".join(f"{p}/" for p in parts)
    for entry in beneath.walk(fd, skip=_skipper(parts, reserved)):
        rel = "/".join(entry.parts)
        if not stat.S_ISREG(entry.stat.st_mode) or _reserved(parts, entry, reserved):
            continue
        if include is None or include(rel):
            yield entry.dir_fd, entry.name, prefix + rel


def _with_context(
    lines: list[str], hits: list[int], context_lines: int, pattern: str
) -> Iterator[tuple[int, list[ContextLine], list[ContextLine]]]:
    """Context before and after each hit (other matching lines are not repeated as context)."""
    hit_set = set(hits)

    def around(rng: range) -> list[ContextLine]:
        return [
            {"line": n, "text": lines[n - 1]}
            for n in rng
            if 1 <= n <= len(lines) and n not in hit_set and pattern not in lines[n - 1]
        ]

    for n in hits:
        yield (
            n,
            around(range(n - context_lines, n)),
            around(range(n + 1, n + context_lines + 1)),
        )


def grep_files(
    root_fd: int,
    parts: Sequence[str],
    pattern: str,
    *,
    include: str | None,
    max_count: int | None,
    context_lines: int,
    reserved: Collection[str],
    max_file_bytes: int,
) -> GrepResult:
    """Lines containing ``pattern`` in the file or under the folder ``parts``.

    Files over ``max_file_bytes`` and files that are not UTF-8 text are skipped;
    ``truncated`` is set when ``max_count`` matches were reached with more left,
    or the time budget ran out.
    """
    try:
        matcher = compile_grep_include_glob(include) if include else None
    except InvalidGlobPatternError as exc:
        return GrepResult(error=str(exc), matches=[])
    deadline = time.monotonic() + DEFAULT_GREP_TIMEOUT
    found: list[GrepMatch] = []
    errors: list[str] = []
    truncated = False
    with _base(root_fd, parts) as base:
        if base is None:
            return GrepResult(matches=[])
        for dir_fd, name, vpath in _candidates(base, parts, matcher, reserved):
            if truncated or time.monotonic() > deadline:
                truncated = True
                break
            try:
                text = beneath.read_regular(dir_fd, name, max_bytes=max_file_bytes).decode("utf-8")
            except UnicodeDecodeError:
                continue  # binary: skipped, as ripgrep does
            except OSError as exc:
                if exc.errno not in (errno.EFBIG, errno.EINVAL):
                    errors.append(f"- {vpath}: {exc.strerror}")
                continue
            lines = text.splitlines()
            hits = [n for n, line in enumerate(lines, 1) if pattern in line]
            for n, before, after in _with_context(lines, hits, context_lines, pattern):
                if max_count is not None and len(found) >= max_count:
                    truncated = True  # one match more than asked for: stop here
                    break
                match: GrepMatch = {"path": vpath, "line": n, "text": lines[n - 1]}
                if context_lines:
                    match["context_before"] = before
                    match["context_after"] = after
                found.append(match)
    found.sort(key=lambda m: (m["path"], m["line"]))
    error = "One or more files could not be fully searched:\n" + "\n".join(errors)
    return GrepResult(error=error if errors else None, matches=found, truncated=truncated)
