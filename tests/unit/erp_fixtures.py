"""Helpers shared by the ERP unit tests: a seeded template database, clients, fingerprints.

Seeding takes a fraction of a second; each test module seeds a template file once
and every test copies it, so tests never share state.
"""

from __future__ import annotations

import hashlib
import shutil
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Self

from sqlalchemy.engine import make_url
from starlette.testclient import TestClient

from sim.erp.app import create_app
from sim.erp.db import Database
from sim.erp.models import Base
from sim.erp.seed import reset
from sim.erp.settings import ErpSettings

SEED = 20261201
BASE_URL = "http://localhost"


def make_template(folder: Path, seed: int = SEED) -> Path:
    """A freshly seeded SQLite file in ``folder`` (its WAL checkpointed, ready to copy)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "template.sqlite3"
    db = Database(f"sqlite:///{path}")
    try:
        reset(db, seed)
    finally:
        db.dispose()
    return path


def settings_for(template: Path, folder: Path) -> ErpSettings:
    """Settings pointing at a private copy of ``template`` under ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    db_path = folder / "erp.sqlite3"
    shutil.copyfile(template, db_path)
    return ErpSettings(
        data_dir=folder, database_url=f"sqlite:///{db_path}", seed=SEED, log_level="WARNING"
    )


@contextmanager
def client_for(settings: ErpSettings) -> Iterator[TestClient]:
    """A TestClient of the guarded app with its lifespan running."""
    with TestClient(create_app(settings), base_url=BASE_URL) as client:
        yield client


def fingerprint(url: str) -> dict[str, tuple[int, str]]:
    """Row counts of every ERP table and a digest of all their contents."""
    path = make_url(url).database
    assert path, url
    out: dict[str, tuple[int, str]] = {}
    # Plain sqlite3: this runs twice per refused request, and must be cheap.
    conn = sqlite3.connect(path)
    try:
        for name, table in Base.metadata.tables.items():
            keys = ", ".join(c.name for c in table.primary_key.columns)
            rows = conn.execute(f"SELECT * FROM {name} ORDER BY {keys}").fetchall()
            out[name] = (len(rows), hashlib.sha256(repr(rows).encode()).hexdigest())
    finally:
        conn.close()
    return out


class DbWatch:
    """Cheap "did anything change?" checks on a SQLite file, for every refused request.

    ``PRAGMA data_version`` on one long-lived connection changes whenever any other
    connection commits, so an equal value means nothing was committed at all; the
    row counts of every table are compared as well.
    """

    def __init__(self, url: str) -> None:
        path = make_url(url).database
        assert path, url
        self._conn = sqlite3.connect(path, check_same_thread=False)
        self._lock = threading.Lock()

    def state(self) -> tuple[int, dict[str, int]]:
        """(data version, row count per table)."""
        with self._lock:
            version = self._conn.execute("PRAGMA data_version").fetchone()[0]
            counts = {
                name: self._conn.execute(f"SELECT count(*) FROM {name}").fetchone()[0]
                for name in Base.metadata.tables
            }
        return version, counts

    def close(self) -> None:
        """Close the watching connection."""
        self._conn.close()


class WatchedErp:
    """A TestClient of the ERP on a private copy of a template, its database URL, a
    :class:`DbWatch` on that database, and a counter for idempotency keys."""

    def __init__(self, client: TestClient, url: str) -> None:
        self.client = client
        self.url = url
        self.watch = DbWatch(url)
        self._keys = 0

    def next_key(self, prefix: str) -> str:
        """A new idempotency key: ``prefix`` and a running number."""
        self._keys += 1
        return f"{prefix}-{self._keys:05d}"

    @classmethod
    @contextmanager
    def serving(cls, template: Path, folder: Path) -> Iterator[Self]:
        """The app on a copy of ``template`` under ``folder``, its lifespan running; the
        watch closed afterwards."""
        settings = settings_for(template, folder)
        with client_for(settings) as client:
            erp = cls(client, settings.resolved_database_url)
            try:
                yield erp
            finally:
                erp.watch.close()


def order_body(key: str, **overrides: Any) -> dict[str, Any]:
    """A valid create request: NGK (supplier 1), 100 of part 1 (its MOQ is 50), on 2026-12-01."""
    body: dict[str, Any] = {
        "idempotency_key": key,
        "supplier_id": 1,
        "lines": [{"part_id": 1, "quantity": 100}],
        "buyer": "tester",
        "order_date": "2026-12-01",
    }
    body.update(overrides)
    return body


def assert_error(response: Any, status: int, code: str) -> dict[str, Any]:
    """The error body of ``response`` after checking its status and code."""
    assert response.status_code == status, response.text
    body = response.json()
    assert set(body) == {"error"}, body
    error: dict[str, Any] = body["error"]
    assert error["code"] == code, error
    assert isinstance(error["message"], str) and error["message"].endswith((".", ")")), error
    assert "Traceback" not in response.text
    return error
