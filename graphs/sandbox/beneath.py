"""Race-free file access beneath a directory: nothing is ever reached through a symlink.

Sandboxed code owns its workspace and can swap any folder in it for a symlink at
any moment, for instance between a path check and the ``open`` that follows it.
So the host never checks a path and then opens it by name: every path is resolved
here, one step, relative to a file descriptor of the workspace root, and the
resulting file descriptor is what gets read, written or listed.

- Where the kernel has ``openat2`` (Linux 5.6+), one call resolves the whole
  path with ``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS |
  RESOLVE_NO_XDEV``: the kernel refuses any symlink, any ``..`` escape and any
  mount crossing on the way.
- Elsewhere (older kernels, seccomp profiles that deny it) the same guarantees
  come from a component walk: each folder is opened with ``O_NOFOLLOW |
  O_DIRECTORY`` relative to the descriptor of the one before, and must sit on
  the same device as the root.

Either way a symlink anywhere on the path fails with ``ELOOP``; the callers turn
that into a refusal the model can act on.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import logging
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

logger = logging.getLogger(__name__)

RESOLVE_NO_XDEV = 0x01
RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08
_RESOLVE = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV
_SYS_OPENAT2 = 437  # the same number on every architecture with the unified syscall table
_USE_OPENAT2 = True
"""Off only in tests, to run the component walk on a kernel that has openat2."""

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_PATH_DIR_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
# O_NONBLOCK: a FIFO planted under a file's name must not hang the reader.
READ_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY


class _OpenHow(ctypes.Structure):
    _fields_ = (
        ("flags", ctypes.c_uint64),
        ("mode", ctypes.c_uint64),
        ("resolve", ctypes.c_uint64),
    )


@functools.cache
def _libc() -> ctypes.CDLL:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    return libc


def _openat2(dir_fd: int, path: str, flags: int, mode: int) -> int:
    how = _OpenHow(flags | os.O_CLOEXEC, mode if flags & os.O_CREAT else 0, _RESOLVE)
    raw = os.fsencode(path)
    for _ in range(8):  # EAGAIN: a concurrent rename was seen; the kernel asks to retry
        fd = _libc().syscall(
            _SYS_OPENAT2, ctypes.c_int(dir_fd), raw, ctypes.byref(how), ctypes.sizeof(how)
        )
        if fd >= 0:
            return int(fd)
        err = ctypes.get_errno()
        if err != errno.EAGAIN:
            raise OSError(err, os.strerror(err), path)
    raise OSError(errno.EAGAIN, os.strerror(errno.EAGAIN), path)


@functools.cache
def openat2_available() -> bool:
    """Whether this kernel (and any seccomp profile around us) lets us call ``openat2``."""
    try:
        os.close(_openat2(os.open("/", os.O_PATH | os.O_CLOEXEC), ".", os.O_PATH, 0))
    except OSError as exc:
        logger.info("openat2 unavailable (%s); resolving paths one component at a time", exc)
        return False
    return True


def split_parts(rel: str) -> list[str]:
    """The components of a path relative to the root; ``..`` and NUL bytes are refused.

    Raises:
        ValueError: the path contains ``..`` or a NUL byte.
    """
    if "\x00" in rel:
        msg = "path contains a NUL byte"
        raise ValueError(msg)
    parts = [p for p in rel.split("/") if p not in ("", ".")]
    if ".." in parts:
        msg = "'..' is not allowed"
        raise ValueError(msg)
    return parts


def _refuse_link(dir_fd: int, name: str, exc: OSError) -> OSError:
    """Report a symlink met on the way as ELOOP, whatever error the open gave."""
    try:
        if stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode):
            return OSError(errno.ELOOP, "refusing to follow a symbolic link", name)
    except OSError:
        pass
    return exc


def _step(dir_fd: int, name: str, root_dev: int) -> int:
    """Open folder ``name`` of ``dir_fd`` (O_PATH), refusing symlinks and other devices."""
    try:
        fd = os.open(name, _PATH_DIR_FLAGS, dir_fd=dir_fd)
    except (NotADirectoryError, OSError) as exc:
        raise _refuse_link(dir_fd, name, exc) from None
    if os.fstat(fd).st_dev != root_dev:
        os.close(fd)
        raise OSError(errno.EXDEV, "refusing to cross a mount point", name)
    return fd


def _walk_open(root_fd: int, parts: Sequence[str], flags: int, mode: int) -> int:
    root_dev = os.fstat(root_fd).st_dev
    held: list[int] = []
    try:
        cur = root_fd
        for name in parts[:-1]:
            cur = _step(cur, name, root_dev)
            held.append(cur)
        try:
            fd = os.open(parts[-1], flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode, dir_fd=cur)
        except OSError as exc:
            raise _refuse_link(cur, parts[-1], exc) from None
        if os.fstat(fd).st_dev != root_dev:
            os.close(fd)
            raise OSError(errno.EXDEV, "refusing to cross a mount point", parts[-1])
        return fd
    finally:
        for fd in held:
            os.close(fd)


def open_beneath(root_fd: int, parts: Sequence[str], flags: int, mode: int = 0o644) -> int:
    """Open ``parts`` (from :func:`split_parts`) beneath ``root_fd``, following no symlink.

    ``flags`` are ``os.open`` flags (``O_NOFOLLOW`` and ``O_CLOEXEC`` are always
    added). With no parts, the root itself is opened again with ``flags``.

    Raises:
        OSError: ``ELOOP`` when a component is a symlink, ``EXDEV`` for a mount
            crossing, or the usual errors (``ENOENT``, ``ENOTDIR``, ...).
    """
    if not parts:
        return os.open(".", flags | os.O_CLOEXEC, dir_fd=root_fd)
    if _USE_OPENAT2 and openat2_available():
        try:
            return _openat2(root_fd, "/".join(parts), flags | os.O_NOFOLLOW, mode)
        except NotADirectoryError:
            # A link where a folder is expected gives ENOTDIR, not ELOOP: the walk
            # (as safe) tells which it is.
            pass
    return _walk_open(root_fd, parts, flags, mode)


def open_dir_beneath(
    root_fd: int,
    parts: Sequence[str],
    *,
    create: bool = False,
    mode: int = 0o755,
    on_create: Callable[[int], None] | None = None,
) -> int:
    """A readable descriptor of folder ``parts`` beneath ``root_fd``, optionally created.

    With ``create``, missing folders are made one at a time (``mkdirat`` then an
    ``O_NOFOLLOW`` open, so a symlink raced into place is still refused);
    ``on_create`` gets the descriptor of each new folder (to set its owner).
    """
    if not create:
        return open_beneath(root_fd, parts, _DIR_FLAGS)
    cur = os.dup(root_fd)
    try:
        for name in parts:
            made = False
            try:
                os.mkdir(name, mode, dir_fd=cur)
                made = True
            except FileExistsError:
                pass
            nxt = open_beneath(cur, [name], _DIR_FLAGS)
            os.close(cur)
            cur = nxt
            if made and on_create is not None:
                on_create(cur)
        return cur
    except BaseException:
        os.close(cur)
        raise


@dataclass(frozen=True)
class Entry:
    """One name found by :func:`walk` (never followed if it is a symlink)."""

    parts: tuple[str, ...]
    """Components relative to where the walk started."""
    stat: os.stat_result
    """``lstat`` of the entry."""
    dir_fd: int
    """Descriptor of the folder holding it; valid only while the walk is at it."""

    @property
    def name(self) -> str:
        """The entry's own name."""
        return self.parts[-1]


def walk(dir_fd: int, *, skip: Callable[[tuple[str, ...]], bool] | None = None) -> Iterator[Entry]:
    """Every file and folder below ``dir_fd``, top-down, never entering a symlink.

    Built on ``os.fwalk``, which opens each folder relative to its parent and
    checks that what it opened is what it listed. ``skip(parts)`` prunes a folder.
    """
    root_dev = os.fstat(dir_fd).st_dev
    for top, dirnames, filenames, fd in os.fwalk(".", dir_fd=dir_fd, follow_symlinks=False):
        base = tuple(p for p in top.split("/") if p not in ("", "."))
        for name in list(dirnames):
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                dirnames.remove(name)
                continue
            parts = (*base, name)
            if st.st_dev != root_dev or (skip is not None and skip(parts)):
                dirnames.remove(name)
                continue
            yield Entry(parts, st, fd)
        for name in filenames:
            try:
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
            except OSError:
                continue
            yield Entry((*base, name), st, fd)


def read_regular(dir_fd: int, name: str, *, max_bytes: int | None = None) -> bytes:
    """The bytes of regular file ``name`` in ``dir_fd`` (no symlink, FIFO or device).

    Raises:
        OSError: not a regular file (``EINVAL``), larger than ``max_bytes`` (``EFBIG``),
            or the open failed.
    """
    fd = os.open(name, READ_FLAGS | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=dir_fd)
    with os.fdopen(fd, "rb") as fh:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise OSError(errno.EINVAL, "not a regular file", name)
        if max_bytes is not None and st.st_size > max_bytes:
            raise OSError(errno.EFBIG, "file too large", name)
        return fh.read()
