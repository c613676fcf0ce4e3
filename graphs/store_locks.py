"""One change at a time per Store file: in this process, and across replicas.

A Store route's ``edit_file`` reads the file, replaces a string and writes the whole file
back. The Store has no conditional write, so two edits of one file that overlap keep only
the later one: two analyses of one buyer filing their reports at the same moment would
leave one line in the archive index (``/reports/{user_id}/index.md``), and a memory note
could be lost the same way. :class:`FileLocks` makes such changes take turns:

- in this process, with a lock per file (striped over a fixed set);
- across processes and replicas, given a PostgreSQL URL (``STORE_FILES_LOCK_URL``; by
  default a deployment's own ``DATABASE_URI``), with a PostgreSQL advisory lock per file,
  held on a connection of its own for the length of the change. A replica that dies
  mid-change loses its connection and with it the lock; nobody waits for it. A change that
  cannot get its lock within ``STORE_FILES_LOCK_TIMEOUT_S`` (another replica is stuck) or
  cannot reach PostgreSQL is refused with :class:`FileLockError` and changes nothing.

``langgraph dev`` is one process: its in-process locks suffice and no database is needed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

__all__ = ["FileLockError", "FileLocks", "lock_key"]

_STRIPES = 64
_THREAD_LOCKS = tuple(threading.RLock() for _ in range(_STRIPES))
"""Sync callers (worker threads): re-entrant, so a change may call another under its lock."""
_TASK_LOCKS = tuple(threading.Lock() for _ in range(_STRIPES))
"""Async callers: polled, never waited on in the event loop; not re-entrant, as two tasks
of one thread must still exclude each other."""
_CLASS_ID = int.from_bytes(
    hashlib.blake2b(b"procurement-agents/store-files", digest_size=4).digest(), "big", signed=True
)
"""The first key of every advisory lock taken here: two-key locks of other programs on the
same database (with other first keys) never collide with ours."""
_DRIVER = re.compile(r"^postgres(?:ql)?\+\w+://")


class FileLockError(RuntimeError):
    """The change could not get its file's lock; nothing was changed."""


def lock_key(namespace: tuple[str, ...], key: str) -> int:
    """The advisory lock's second key for the file ``key`` of ``namespace`` (32 bits)."""
    digest = hashlib.blake2b(repr((namespace, key)).encode("utf-8"), digest_size=4).digest()
    return int.from_bytes(digest, "big", signed=True)


def _stripe(namespace: tuple[str, ...], key: str) -> int:
    return (lock_key(namespace, key) & 0x7FFFFFFF) % _STRIPES


def _conninfo(url: str) -> str:
    """A libpq URL from ``url`` (a SQLAlchemy-style ``postgresql+psycopg://`` works too)."""
    return _DRIVER.sub("postgresql://", url.strip())


def _where(url: str) -> str:
    """Host, port and database of ``url``, for messages (never its password)."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts: dict[str, Any] = conninfo_to_dict(_conninfo(url))
    except Exception:
        return "the configured PostgreSQL"
    host = parts.get("host") or "localhost"
    return f"PostgreSQL at {host}:{parts.get('port') or 5432}/{parts.get('dbname') or ''}"


class FileLocks:
    """Locks per Store file; across replicas too when ``url`` (PostgreSQL) is given."""

    def __init__(self, url: str | None = None, *, timeout_s: float = 15.0) -> None:
        self.url = _conninfo(url) if url else None
        self.timeout_s = timeout_s
        # This process's locks (one set per process: replicas do not share them).
        self.thread_locks: tuple[threading.RLock, ...] = _THREAD_LOCKS
        self.task_locks: tuple[threading.Lock, ...] = _TASK_LOCKS

    def _refused(self, what: str, exc: BaseException) -> FileLockError:
        assert self.url is not None
        if _is_lock_timeout(exc):
            msg = (
                f"{what} is being changed elsewhere (another replica) and was not released "
                f"within {self.timeout_s:g} s; nothing was changed, try again"
            )
        else:
            msg = (
                f"the lock for {what} could not be taken: {_where(self.url)} cannot be "
                f"reached ({_first_line(exc)}); nothing was changed"
            )
        return FileLockError(msg)

    def _statements(
        self, namespace: tuple[str, ...], key: str
    ) -> list[tuple[str, tuple[Any, ...]]]:
        wait = f"{max(1, int(self.timeout_s * 1000))}ms"
        return [
            ("SELECT set_config('lock_timeout', %s, false)", (wait,)),
            ("SELECT pg_advisory_lock(%s, %s)", (_CLASS_ID, lock_key(namespace, key))),
        ]

    @contextlib.contextmanager
    def hold(self, namespace: tuple[str, ...], key: str) -> Iterator[None]:
        """Hold ``key``'s lock while the block runs (blocking: call it from a worker thread;
        re-entrant in that thread). ``FileLockError`` before the block runs when the lock
        cannot be had."""
        mine = (namespace, key)
        with self.thread_locks[_stripe(namespace, key)]:
            held = _held()
            if self.url is None or mine in held:
                yield
                return
            psycopg = _psycopg()
            conn: Any = None
            try:
                conn = psycopg.connect(
                    self.url, autocommit=True, connect_timeout=max(1, int(self.timeout_s))
                )
                for sql, args in self._statements(namespace, key):
                    conn.execute(sql, args)
            except psycopg.Error as exc:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        conn.close()
                raise self._refused(key, exc) from None
            held.add(mine)
            try:
                yield
            finally:
                held.discard(mine)
                conn.close()  # a session's advisory locks end with it

    @contextlib.asynccontextmanager
    async def ahold(self, namespace: tuple[str, ...], key: str) -> AsyncIterator[None]:
        """``hold`` for the event loop: waits without blocking it."""
        local = self.task_locks[_stripe(namespace, key)]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.timeout_s
        while not local.acquire(blocking=False):
            if loop.time() > deadline:
                msg = f"{key} is being changed by another task of this server; try again"
                raise FileLockError(msg)
            await asyncio.sleep(0.01)
        try:
            if self.url is None:
                yield
                return
            psycopg = _psycopg()
            conn: Any = None
            try:
                conn = await psycopg.AsyncConnection.connect(
                    self.url, autocommit=True, connect_timeout=max(1, int(self.timeout_s))
                )
                for sql, args in self._statements(namespace, key):
                    await conn.execute(sql, args)
            except psycopg.Error as exc:
                if conn is not None:
                    with contextlib.suppress(Exception):
                        await conn.close()
                raise self._refused(key, exc) from None
            try:
                yield
            finally:
                await conn.close()
        finally:
            local.release()


_local = threading.local()


def _psycopg() -> Any:
    """The PostgreSQL driver, imported only where a lock URL is set."""
    try:
        import psycopg
    except ImportError:
        msg = (
            "a lock URL is set (STORE_FILES_LOCK_URL or DATABASE_URI) but the PostgreSQL "
            "driver is not installed: pip install 'psycopg[binary]'; nothing was changed"
        )
        raise FileLockError(msg) from None
    return psycopg


def _held() -> set[tuple[tuple[str, ...], str]]:
    """The files whose advisory lock this thread holds."""
    if not hasattr(_local, "held"):
        _local.held = set()
    held: set[tuple[tuple[str, ...], str]] = _local.held
    return held


def _is_lock_timeout(exc: BaseException) -> bool:
    return getattr(exc, "sqlstate", None) == "55P03"  # lock_not_available


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
