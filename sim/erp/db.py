"""Engines and sessions: one transaction per request, writers serialized safely.

Any SQLAlchemy URL works. SQLite gets WAL (readers never wait for the writer), a
busy timeout, foreign keys, and ``BEGIN IMMEDIATE`` for write transactions:
a deferred transaction that reads first and writes later can fail at once with
"database is locked" when another writer got in between, while an immediate one
waits for the lock. Other databases use their own row locking.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

BUSY_TIMEOUT_MS = 15_000


def _sqlite_engine(url: str, *, immediate: bool) -> Engine:
    engine = create_engine(
        url,
        connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000},
        pool_size=8,
        max_overflow=16,
    )

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event emit BEGIN, instead of pysqlite's own guesswork.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection: Any) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

    return engine


class Database:
    """The ERP database: ``read()`` and ``write()`` each give one transaction."""

    def __init__(self, url: str) -> None:
        parsed = make_url(url)
        self.url = url
        self.dialect = parsed.get_backend_name()
        if self.dialect == "sqlite":
            database = parsed.database or ""
            if database in ("", ":memory:") or database.startswith("file:"):
                msg = (
                    f"ERP_DATABASE_URL={url!r}: the ERP needs a SQLite file (or another "
                    "database) shared by its worker threads, not an in-memory one."
                )
                raise ValueError(msg)
            Path(database).parent.mkdir(parents=True, exist_ok=True)
            self.read_engine = _sqlite_engine(url, immediate=False)
            self.write_engine = _sqlite_engine(url, immediate=True)
        else:
            self.read_engine = create_engine(url, pool_pre_ping=True)
            self.write_engine = self.read_engine
        self._read = sessionmaker(self.read_engine, expire_on_commit=False)
        self._write = sessionmaker(self.write_engine, expire_on_commit=False)

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session whose transaction is rolled back at the end (reads only)."""
        # Closing the session rolls back the transaction it began on first use.
        with self._read() as session:
            yield session

    @contextmanager
    def write(self) -> Iterator[Session]:
        """A session committed when the block ends normally, rolled back on any exception."""
        with self._write() as session, session.begin():
            yield session

    def dispose(self) -> None:
        """Close every pooled connection (SQLite then checkpoints its WAL)."""
        self.read_engine.dispose()
        if self.write_engine is not self.read_engine:
            self.write_engine.dispose()
