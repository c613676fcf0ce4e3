"""The ERP on a real PostgreSQL server (``ERP_DATABASE_URL``), beside the default SQLite.

The same seed is served from both databases by two ``python -m sim.erp`` processes:
every read answers the same JSON on both, and the write rules that lean on the
database (idempotent create under a race, optimistic versions, one transaction per
request with its audit row, a refusal that changes nothing, ``reset``) hold on
PostgreSQL too.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import create_engine, select, text
from sqlalchemy.orm import Session

from runstack.processes import ROOT, ServiceHandle, free_port, start_service
from sim.erp.models import Base, PurchaseOrder
from tests.concurrency import all_at_once

pytestmark = pytest.mark.integration

ORDER = {
    "supplier_id": 1,
    "lines": [{"part_id": 1, "quantity": 100}],
    "order_date": "2026-12-01",
    "requested_by": "tester",
}

# Reads over every endpoint and the fuzzy matching (Chinese, English, case, codes).
READS: list[tuple[str, dict[str, Any]]] = [
    ("/categories", {}),
    ("/suppliers/search", {"name": "ngk"}),
    ("/suppliers/search", {"name": "博世"}),
    ("/suppliers/search", {"size": 100}),
    ("/suppliers/2", {}),
    ("/parts", {"category": "火花塞", "size": 50}),
    ("/parts", {"category": "brake pad", "page": 2, "size": 5}),
    ("/parts", {"name": "denso", "supplierId": 3}),
    ("/parts/search", {"name": "Spark Plug", "limit": 30}),
    ("/parts/search", {"name": "刹车片", "limit": 30}),
    ("/parts/search", {"name": "bosch 火花塞"}),
    ("/parts/1", {}),
    ("/parts/7/equivalents", {}),
    ("/parts/1/equivalents", {"brand": "denso"}),
    ("/parts/supplier/3", {"size": 50}),
    ("/orders/search-details", {"size": 50}),
    ("/orders/search-details", {"supplier_name": "电装", "status": "received"}),
    ("/orders/search-details", {"date_from": "2026-01-01", "date_to": "2026-03-31", "page": 2}),
    ("/orders/1", {}),
    ("/inventory/warnings", {"size": 100}),
    ("/inventory/warnings", {"category": "链条"}),
]


def fingerprint(url: str) -> dict[str, tuple[int, str]]:
    """Row count and a digest of the contents of every ERP table."""
    engine = create_engine(url)
    out: dict[str, tuple[int, str]] = {}
    try:
        with engine.connect() as conn:
            for name, table in Base.metadata.tables.items():
                keys = ", ".join(c.name for c in table.primary_key.columns)
                rows = conn.execute(text(f"SELECT * FROM {name} ORDER BY {keys}")).fetchall()
                out[name] = (len(rows), hashlib.sha256(repr(rows).encode()).hexdigest())
    finally:
        engine.dispose()
    return out


@pytest.fixture(scope="module")
def erps(tmp_path_factory: pytest.TempPathFactory, pg_url: str) -> Iterator[dict[str, str]]:
    """Base URLs of the ERP on SQLite and on PostgreSQL, both from the default seed."""
    folder = tmp_path_factory.mktemp("erp-pg")
    lite_port, pg_port = free_port(), free_port()
    common = {"DATA_DIR": str(folder), "LOG_LEVEL": "WARNING"}
    with (
        start_service("sim.erp", {**common, "SIM_ERP_PORT": str(lite_port)}, lite_port) as lite,
        start_service(
            "sim.erp",
            {**common, "SIM_ERP_PORT": str(pg_port), "ERP_DATABASE_URL": pg_url},
            pg_port,
            timeout=60,
        ) as pg,
    ):
        yield {"sqlite": lite.url, "postgresql": pg.url}
        _no_tracebacks(lite, pg)


DRY_RUNS = [
    {"supplier_id": 1, "order_date": "2026-12-01", "lines": [{"part_id": 1, "quantity": 20}]},
    {"supplier_id": 32, "order_date": "2026-12-01", "lines": [{"part_id": 1, "quantity": 20}]},
]


def _no_tracebacks(*services: ServiceHandle) -> None:
    for service in services:
        assert "Traceback" not in service.log_tail(2000), service.log_tail()


@pytest.fixture
def pg(erps: dict[str, str]) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=erps["postgresql"], timeout=30) as client:
        yield client


def test_every_read_answers_the_same_on_postgresql_as_on_sqlite(erps: dict[str, str]) -> None:
    with (
        httpx.Client(base_url=erps["sqlite"], timeout=30) as lite,
        httpx.Client(base_url=erps["postgresql"], timeout=30) as pg,
    ):
        assert pg.get("/health").json() == {"status": "ok", "database": "postgresql"}
        for client in (lite, pg):
            assert client.post("/admin/reset").status_code == 200
        for path, params in READS:
            a, b = lite.get(path, params=params), pg.get(path, params=params)
            assert a.status_code == b.status_code == 200, (path, params, a.text, b.text)
            assert a.json() == b.json(), (path, params)
            if "items" in a.json():
                assert a.json()["items"], f"{path} {params} matched nothing: a weak comparison"
        # The dry run reads prices, lead times and the order history: the same rules, the
        # same answer (a price above its average and a violation with alternatives).
        for body in DRY_RUNS:
            a, b = lite.post("/orders/validate", json=body), pg.post("/orders/validate", json=body)
            assert a.status_code == b.status_code == 200, (body, a.text, b.text)
            assert a.json() == b.json(), body
            assert a.json()["violations"] or a.json()["warnings"], f"{body}: nothing to compare"


def test_idempotent_create_under_a_race_makes_one_order(pg: httpx.Client, pg_url: str) -> None:
    body = {**ORDER, "idempotency_key": "pg-race-0001"}

    def create(_: int) -> httpx.Response:
        with httpx.Client(base_url=str(pg.base_url), timeout=30) as client:
            return client.post("/orders/create", json=body)

    answers = all_at_once(8, create)
    assert sorted(a.status_code for a in answers) == [200] * 7 + [201]
    assert len({a.json()["id"] for a in answers}) == 1
    engine = create_engine(pg_url)
    try:
        with Session(engine) as session:
            rows = session.scalars(
                select(PurchaseOrder).where(
                    PurchaseOrder.idempotency_key == body["idempotency_key"]
                )
            ).all()
    finally:
        engine.dispose()
    assert len(rows) == 1

    before = fingerprint(pg_url)
    other = {**body, "lines": [{"part_id": 1, "quantity": 200}]}
    refused = pg.post("/orders/create", json=other)
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "IDEMPOTENCY_CONFLICT"
    assert fingerprint(pg_url) == before


def test_concurrent_updates_with_one_version_let_exactly_one_through(
    pg: httpx.Client, pg_url: str
) -> None:
    order = pg.post("/orders/create", json={**ORDER, "idempotency_key": "pg-versions-1"}).json()

    def put(n: int) -> httpx.Response:
        with httpx.Client(base_url=str(pg.base_url), timeout=30) as client:
            return client.put(
                f"/orders/update/{order['id']}",
                json={"expected_version": 1, "note": f"writer {n}", "actor": "tester"},
            )

    answers = all_at_once(4, put)
    assert sorted(a.status_code for a in answers) == [200, 409, 409, 409]
    assert {a.json()["error"]["code"] for a in answers if a.status_code == 409} == {
        "VERSION_CONFLICT"
    }
    after = pg.get(f"/orders/{order['id']}").json()
    assert after["version"] == 2
    # The create and the one update that won, each with its audit row.
    audit = pg.get("/audit", params={"entity_id": order["id"]}).json()
    assert [e["action"] for e in audit["items"]] == ["order.update", "order.create"]
    assert audit["items"][0]["version"] == 2


def test_refusals_change_nothing_on_postgresql(pg: httpx.Client, pg_url: str) -> None:
    order = pg.post("/orders/create", json={**ORDER, "idempotency_key": "pg-refusals-1"}).json()
    cancelled = pg.put(
        f"/orders/update/{order['id']}",
        json={"expected_version": 1, "status": "cancelled", "actor": "tester"},
    )
    assert cancelled.status_code == 200, cancelled.text
    before = fingerprint(pg_url)

    def create(key: str, **changes: Any) -> tuple[str, str, dict[str, Any]]:
        return "POST", "/orders/create", {**ORDER, "idempotency_key": key, **changes}

    def update(order_id: int, **body: Any) -> tuple[str, str, dict[str, Any]]:
        return "PUT", f"/orders/update/{order_id}", body

    bad = [
        (create("pg-zero-qty", lines=[{"part_id": 1, "quantity": 0}]), "VALIDATION"),
        (create("pg-frac-qty", lines=[{"part_id": 1, "quantity": 1.5}]), "VALIDATION"),
        (create("pg-no-supplier", supplier_id=99999), "NOT_FOUND"),
        (create("pg-sql-typed", supplier_id="1; DROP TABLE part;--"), "VALIDATION"),
        (create("pg-huge-note", note="x" * 100_000), "VALIDATION"),
        (update(order["id"], expected_version=2, note="too late"), "INVALID_TRANSITION"),
        (update(order["id"], expected_version=1, note="stale"), "VERSION_CONFLICT"),
        (update(99999, expected_version=1, note="nobody"), "NOT_FOUND"),
    ]
    for (method, path, body), code in bad:
        answer = pg.request(method, path, json=body)
        assert answer.status_code >= 400, (path, body, answer.text)
        assert answer.json()["error"]["code"] == code, (path, answer.text)
        assert answer.json()["error"]["message"]
    assert fingerprint(pg_url) == before
    # SQL in a free-text field is stored as text, never run.
    hostile = "x'); DROP TABLE part; --"
    stored = pg.post(
        "/orders/create", json={**ORDER, "idempotency_key": "pg-sql-note", "note": hostile}
    )
    assert stored.status_code == 201, stored.text
    assert pg.get(f"/orders/{stored.json()['id']}").json()["note"] == hostile
    assert fingerprint(pg_url)["part"] == before["part"]
    assert pg.get("/health").status_code == 200


def test_reset_command_restores_the_seed_on_postgresql(
    pg: httpx.Client, pg_url: str, tmp_path: Path
) -> None:
    pg.post("/admin/reset").raise_for_status()
    seeded = fingerprint(pg_url)
    created = pg.post("/orders/create", json={**ORDER, "idempotency_key": "pg-reset-1"})
    assert created.status_code == 201
    assert fingerprint(pg_url) != seeded
    result = subprocess.run(
        [sys.executable, "-m", "sim.erp", "reset"],
        cwd=ROOT,
        env={"ERP_DATABASE_URL": pg_url, "DATA_DIR": str(tmp_path), "PATH": "/usr/bin"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert fingerprint(pg_url) == seeded
