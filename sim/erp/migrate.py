"""Bring a database written by an older ERP up to the current tables, keeping its data.

Each step looks at the table as it is and changes only what is missing, so running the
upgrade twice (or on a fresh database) does nothing. Steps, in order:

1. ``purchase_order.buyer`` becomes ``requested_by`` (same values: who asked for the order);
2. ``supplier_price.order_step`` is added, filled from each row's MOQ as the seed derives it;
3. ``part.attributes`` is added, filled from the catalogue of the ERP's seed (matched by SKU;
   a part the catalogue does not know keeps ``{}``);
4. the ``part_equivalent`` cross-reference is created and filled from that catalogue, for
   the pairs whose two SKUs the database holds;
5. the catalogue's cross-reference parts (:mod:`sim.crossref`) the database lacks are
   added with their catalogue ids, price-list rows and stock (when those ids are free),
   with their equivalences.

SQLite (3.25+) and PostgreSQL both rename and add columns in place.
"""

from __future__ import annotations

import logging

from sqlalchemy import JSON, Connection, Engine, bindparam, insert, inspect, select, text, update

from sim.catalog import DEFAULT_SEED, Catalog, generate
from sim.erp.models import Base, Category, Part, PartEquivalent
from sim.erp.seed import order_step, part_tables

log = logging.getLogger("sim-erp.migrate")

__all__ = ["upgrade"]


def _columns(engine: Engine, table: str) -> set[str]:
    return {c["name"] for c in inspect(engine).get_columns(table)}


def upgrade(engine: Engine, seed: int = DEFAULT_SEED) -> list[str]:
    """Apply the missing steps (data the seed derives from the catalogue of ``seed``);
    returns what was done (empty when already current)."""
    done: list[str] = []
    order_columns = _columns(engine, "purchase_order")
    if "buyer" in order_columns and "requested_by" not in order_columns:
        with engine.begin() as conn:
            conn.execute(text("ALTER TABLE purchase_order RENAME COLUMN buyer TO requested_by"))
            conn.execute(
                text(
                    "CREATE INDEX IF NOT EXISTS ix_purchase_order_requested_by "
                    "ON purchase_order (requested_by)"
                )
            )
        done.append("purchase_order.buyer renamed requested_by")
    if "order_step" not in _columns(engine, "supplier_price"):
        with engine.begin() as conn:
            conn.execute(
                text("ALTER TABLE supplier_price ADD COLUMN order_step INTEGER NOT NULL DEFAULT 1")
            )
            moqs = conn.execute(text("SELECT DISTINCT min_order_qty FROM supplier_price")).all()
            for (moq,) in moqs:
                conn.execute(
                    text("UPDATE supplier_price SET order_step = :step WHERE min_order_qty = :moq"),
                    {"step": order_step(int(moq)), "moq": moq},
                )
        done.append("supplier_price.order_step added")
    done += _interchange(engine, seed)
    done += _crossref_parts(engine, seed)
    for step in done:
        log.info("database upgraded: %s", step)
    return done


def _interchange(engine: Engine, seed: int) -> list[str]:
    """Steps 3 and 4: the parts' attributes and the cross-reference."""
    done: list[str] = []
    new_column = "attributes" not in _columns(engine, "part")
    new_table = not inspect(engine).has_table(PartEquivalent.__tablename__)
    if not (new_column or new_table):
        return done
    catalog = generate(seed)
    with engine.begin() as conn:
        ids = {sku: part_id for part_id, sku in conn.execute(select(Part.id, Part.sku)).all()}
        if new_column:
            conn.execute(text("ALTER TABLE part ADD COLUMN attributes JSON NOT NULL DEFAULT '{}'"))
            _fill_attributes(conn, catalog, ids)
            done.append("part.attributes added")
        if new_table:
            Base.metadata.tables[PartEquivalent.__tablename__].create(conn)
            _fill_equivalents(conn, catalog, ids)
            done.append("part_equivalent created")
    return done


def _fill_attributes(conn: Connection, catalog: Catalog, ids: dict[str, int]) -> None:
    rows = [
        {"b_id": ids[p.sku], "b_attributes": catalog.attributes[p.id]}
        for p in catalog.parts
        if p.sku in ids
    ]
    if rows:
        table = Base.metadata.tables[Part.__tablename__]
        conn.execute(
            update(table)
            .where(table.c.id == bindparam("b_id"))
            .values(attributes=bindparam("b_attributes", type_=JSON)),
            rows,
        )


def _fill_equivalents(conn: Connection, catalog: Catalog, ids: dict[str, int]) -> None:
    sku = {p.id: p.sku for p in catalog.parts}
    rows = [
        {
            "part_id": ids[sku[e.part_id]],
            "equivalent_id": ids[sku[e.equivalent_id]],
            "match": e.match,
        }
        for e in catalog.equivalences
        if sku[e.part_id] in ids and sku[e.equivalent_id] in ids
    ]
    if rows:
        conn.execute(insert(PartEquivalent), rows)


def _crossref_parts(engine: Engine, seed: int) -> list[str]:
    """Step 5: the cross-reference parts a database seeded before them lacks."""
    catalog = generate(seed)
    with engine.begin() as conn:
        held = dict(conn.execute(select(Part.sku, Part.id)).all())
        missing = {
            p.id
            for p in catalog.parts
            if p.id in catalog.copies and p.sku not in held and p.id not in held.values()
        }
        if not missing:
            return []
        cat_ids = dict(conn.execute(select(Category.code, Category.id)).all())
        for model, rows in part_tables(catalog, cat_ids, missing):
            if rows:
                conn.execute(insert(model), rows)
        ids = {sku: part_id for part_id, sku in conn.execute(select(Part.id, Part.sku)).all()}
        sku = {p.id: p.sku for p in catalog.parts}
        rows = [
            {"part_id": ids[sku[e.part_id]], "equivalent_id": ids[sku[e.equivalent_id]],
             "match": e.match}
            for e in catalog.equivalences
            if (e.part_id in missing or e.equivalent_id in missing)
            and sku[e.part_id] in ids and sku[e.equivalent_id] in ids
        ]  # fmt: skip
        if rows:
            conn.execute(insert(PartEquivalent), rows)
    return [f"{len(missing)} cross-reference parts added"]
