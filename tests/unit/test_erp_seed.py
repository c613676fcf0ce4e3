"""Seeding: deterministic, fast, automatic on an empty database; reset restores it."""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
from sqlalchemy import text

from sim.catalog import generate
from sim.erp import __main__ as cli
from sim.erp.__main__ import main
from sim.erp.db import Database
from sim.erp.seed import ensure_seeded, is_seeded, reset
from sim.erp.settings import ErpSettings
from tests.unit.erp_fixtures import (
    SEED,
    client_for,
    fingerprint,
    make_template,
    order_body,
    settings_for,
)

CATALOG = generate(SEED)


@pytest.fixture(autouse=True)
def _no_global_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    # The CLI sets up root logging with a file handler; keep tests from leaving one behind.
    monkeypatch.setattr(cli, "setup_logging", lambda *_a, **_k: logging.getLogger("sim-erp"))


def test_the_catalogue_is_the_size_of_a_small_plant() -> None:
    assert len(CATALOG.suppliers) >= 30
    assert len(CATALOG.parts) >= 300
    assert len(CATALOG.categories) >= 12
    assert sum(1 for i in CATALOG.inventory if i.on_hand - i.reserved < i.safety_stock) > 0
    sellers: dict[int, set[int]] = {}
    for p in CATALOG.prices:
        sellers.setdefault(p.part_id, set()).add(p.supplier_id)
    assert all(len(s) >= 2 for s in sellers.values())


def test_same_seed_same_database(tmp_path: Path) -> None:
    first = make_template(tmp_path / "a")
    second = make_template(tmp_path / "b")
    assert fingerprint(f"sqlite:///{first}") == fingerprint(f"sqlite:///{second}")
    other = make_template(tmp_path / "c", seed=SEED + 1)
    assert fingerprint(f"sqlite:///{other}") != fingerprint(f"sqlite:///{first}")


def test_seeded_rows_match_the_catalogue(tmp_path: Path) -> None:
    counts = {k: v[0] for k, v in fingerprint(f"sqlite:///{make_template(tmp_path)}").items()}
    assert counts["supplier"] == len(CATALOG.suppliers)
    assert counts["part"] == len(CATALOG.parts)
    assert counts["supplier_price"] == len(CATALOG.prices)
    assert counts["inventory"] == len(CATALOG.inventory)
    assert counts["purchase_order"] == len(CATALOG.orders)
    assert counts["purchase_order_line"] == sum(len(o.lines) for o in CATALOG.orders)
    assert counts["audit_log"] == 0


def test_first_start_on_an_empty_database_seeds_it(tmp_path: Path) -> None:
    settings = ErpSettings(data_dir=tmp_path, seed=SEED)
    assert settings.resolved_database_url == f"sqlite:///{tmp_path / 'erp.sqlite3'}"
    with client_for(settings) as client:
        assert client.get("/suppliers/search").json()["total"] == len(CATALOG.suppliers)
    assert (tmp_path / "erp.sqlite3").exists()


def test_admin_reset_restores_the_seed(tmp_path: Path) -> None:
    template = make_template(tmp_path / "template")
    settings = settings_for(template, tmp_path / "erp")
    seed_state = fingerprint(settings.resolved_database_url)
    with client_for(settings) as client:
        order = client.post("/orders/create", json=order_body("reset-key-1")).json()
        client.put(
            f"/orders/update/{order['id']}",
            json={"expected_version": 1, "status": "cancelled", "actor": "tester"},
        )
        assert fingerprint(settings.resolved_database_url) != seed_state
        answer = client.post("/admin/reset").json()
        assert answer["status"] == "reset"
        assert answer["orders"] == len(CATALOG.orders)
        assert fingerprint(settings.resolved_database_url) == seed_state
        # The service carries on: the next order takes the first number after the history.
        again = client.post("/orders/create", json=order_body("reset-key-2")).json()
        assert again["order_no"] == order["order_no"]
        assert again["id"] == order["id"]


def test_cli_seed_and_reset(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("LOG_LEVEL", "WARNING")
    url = f"sqlite:///{tmp_path / 'erp.sqlite3'}"
    assert main(["seed"]) == 0
    seed_state = fingerprint(url)
    db = Database(url)
    try:
        with db.write() as session:
            session.execute(text("UPDATE inventory SET on_hand = on_hand + 1"))
        assert not ensure_seeded(db, SEED)  # a filled database is left alone
        assert main(["seed"]) == 0
        assert fingerprint(url) != seed_state
        assert main(["reset"]) == 0
        assert fingerprint(url) == seed_state
        assert is_seeded(db.read_engine)
        assert reset(db, SEED)["parts"] == len(CATALOG.parts)
    finally:
        db.dispose()


def test_schema_and_queries_compile_for_postgres() -> None:
    # No Postgres driver is installed here; compiling catches dialect-specific SQL.
    from sqlalchemy import update
    from sqlalchemy.dialects import postgresql
    from sqlalchemy.schema import CreateTable

    from sim.erp.models import Base, PurchaseOrder

    dialect = postgresql.dialect()
    for table in Base.metadata.sorted_tables:
        assert "CREATE TABLE" in str(CreateTable(table).compile(dialect=dialect))
    claim = (
        update(PurchaseOrder)
        .where(PurchaseOrder.id == 1, PurchaseOrder.version == 1)
        .values(version=PurchaseOrder.version + 1)
    )
    sql = str(claim.compile(dialect=dialect))
    assert "SET version=(purchase_order.version + " in sql
    assert "AND purchase_order.version = " in sql


@pytest.mark.parametrize("url", ["sqlite://", "nonsense", "postgresql+nosuchdriver://u@h/db"])
def test_cli_refuses_an_unusable_database_url(
    url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("ERP_DATABASE_URL", url)
    assert main(["seed"]) == 2
    assert "ERP_DATABASE_URL" in capsys.readouterr().err


def test_a_database_of_the_older_schema_is_upgraded_in_place(tmp_path: Path) -> None:
    from sim.erp.seed import order_step

    settings = settings_for(make_template(tmp_path / "t"), tmp_path / "e")
    path = settings.resolved_database_url.removeprefix("sqlite:///")
    # Schema 1: the requester was called ``buyer`` and price lists had no order step.
    with sqlite3.connect(path) as conn:
        conn.execute("DROP INDEX ix_purchase_order_requested_by")
        conn.execute("ALTER TABLE purchase_order RENAME COLUMN requested_by TO buyer")
        # Rebuilt without the column (its CHECK constraint stops a plain DROP COLUMN).
        conn.executescript(
            "CREATE TABLE old_price AS SELECT id, supplier_id, part_id, price_minor, currency, "
            "min_order_qty, lead_time_days, valid_from, valid_to FROM supplier_price;"
            "DROP TABLE supplier_price; ALTER TABLE old_price RENAME TO supplier_price;"
        )
        conn.execute("UPDATE purchase_order SET buyer = 'old.buyer' WHERE id = 1")
        orders_before = conn.execute("SELECT count(*) FROM purchase_order").fetchone()[0]
        # Schema 2: parts had no attributes and there was no cross-reference, nor its parts.
        conn.execute("DROP TABLE part_equivalent")
        conn.execute("ALTER TABLE part DROP COLUMN attributes")
        added = ", ".join(str(i) for i in CATALOG.copies)
        for table in ("supplier_price", "inventory", "part"):
            column = "id" if table == "part" else "part_id"
            conn.execute(f"DELETE FROM {table} WHERE {column} IN ({added})")
        # A part the company added itself, unknown to the catalogue.
        conn.execute(
            "INSERT INTO part (id, sku, model, name_zh, name_en, category_id, brand, brand_zh, "
            "unit, active) VALUES (9001, 'SP-LOCAL-X1', 'X1', '自制 火花塞 X1', "
            "'Local Spark Plug X1', 1, 'Local', '自制', '个', 1)"
        )
    with client_for(settings) as client:
        first = client.get("/orders/search-details", params={"requested_by": "old.buyer"}).json()
        assert [o["id"] for o in first["items"]] == [1]
        assert client.get("/orders/search-details").json()["total"] == orders_before
        created = client.post("/orders/create", json=order_body("after-upgrade")).json()
        assert created["requested_by"] == "tester"
        assert client.get("/parts/1").json()["attributes"] == CATALOG.attributes[1]
        assert client.get("/parts/9001").json()["attributes"] == {}
        assert client.get("/parts/9001/equivalents").json()["equivalents"] == []
        copy_id = max(CATALOG.copies)
        copied = client.get(f"/parts/{copy_id}").json()
        assert copied["attributes"] == CATALOG.attributes[copy_id] and copied["offers"]
        assert {e["part"]["id"] for e in
                client.get(f"/parts/{copy_id}/equivalents").json()["equivalents"]} >= {
            CATALOG.copies[copy_id]}  # fmt: skip
        pair = CATALOG.equivalences[0]
        found = client.get(f"/parts/{pair.part_id}/equivalents").json()["equivalents"]
        assert (pair.equivalent_id, pair.match) in {(e["part"]["id"], e["match"]) for e in found}
    with sqlite3.connect(path) as conn:
        columns = {row[1] for row in conn.execute("PRAGMA table_info(purchase_order)")}
        assert "requested_by" in columns and "buyer" not in columns
        steps = conn.execute("SELECT min_order_qty, order_step FROM supplier_price").fetchall()
        pairs = conn.execute("SELECT part_id, equivalent_id, match FROM part_equivalent").fetchall()
        parts_after = conn.execute("SELECT count(*) FROM part").fetchone()[0]
    assert steps and all(step == order_step(moq) for moq, step in steps)
    assert sorted(pairs) == sorted(
        (e.part_id, e.equivalent_id, e.match) for e in CATALOG.equivalences
    )
    assert parts_after == len(CATALOG.parts) + 1
    # A second start finds nothing left to do.
    from sim.erp.db import Database
    from sim.erp.migrate import upgrade

    db = Database(settings.resolved_database_url)
    try:
        assert upgrade(db.write_engine) == []
    finally:
        db.dispose()
