"""Fill the ERP database from :mod:`sim.catalog`, or put it back to that state.

Reset drops and recreates every table, so the database's own id sequences start
again too (Postgres keeps a sequence across ``DELETE``); the same seed then gives
the same rows, ids included, on any database.
"""

from __future__ import annotations

import logging
from datetime import datetime, time, timedelta

from sqlalchemy import Engine, func, insert, inspect, select
from sqlalchemy.orm import Session

from sim.catalog import Catalog, HistoricalOrder, generate
from sim.erp.db import Database
from sim.erp.models import (
    Base,
    Category,
    Counter,
    Inventory,
    Part,
    PartEquivalent,
    PurchaseOrder,
    PurchaseOrderLine,
    Supplier,
    SupplierPrice,
)

log = logging.getLogger("sim-erp.seed")

ORDER_COUNTER = "purchase_order"
SEED_ACTOR = "seed"
SCHEMA_VERSION = 3
"""2: ``purchase_order.requested_by`` (was ``buyer``) and ``supplier_price.order_step``;
3: ``part.attributes`` and the ``part_equivalent`` cross-reference."""
# User ids of the company's purchasing team, as the history's requesters and approver.
_BUYERS = ("zhang.wei", "li.na", "wang.qiang")
_APPROVER = "chen.jing"


def order_step(min_order_qty: int) -> int:
    """The pack size a price list sells in beyond its MOQ, derived from the MOQ alone.

    The catalogue has no pack sizes; deriving them (rather than drawing them) keeps every
    other seeded value as it was, and every MOQ is a whole number of packs.
    """
    if min_order_qty >= 50 and min_order_qty % 10 == 0:
        return 10
    if min_order_qty >= 5 and min_order_qty % 5 == 0:
        return 5
    return 1


# Tables a schema upgrade creates (sim.erp.migrate): a database without them holds data
# that an upgrade keeps, so it counts as seeded.
UPGRADE_TABLES = frozenset({PartEquivalent.__tablename__})


def is_seeded(engine: Engine) -> bool:
    """True when the ERP's tables exist (those an upgrade adds aside) and suppliers are
    present."""
    tables = set(inspect(engine).get_table_names())
    if not set(Base.metadata.tables) - UPGRADE_TABLES <= tables:
        return False
    with engine.connect() as conn:
        return bool(conn.scalar(select(func.count()).select_from(Supplier)))


def reset(db: Database, seed: int) -> dict[str, int]:
    """Drop every ERP table, recreate it, and load the data of ``seed``; returns row counts."""
    catalog = generate(seed)
    Base.metadata.drop_all(db.write_engine)
    Base.metadata.create_all(db.write_engine)
    with db.write() as session:
        _load(session, catalog)
    counts = {
        "suppliers": len(catalog.suppliers),
        "parts": len(catalog.parts),
        "prices": len(catalog.prices),
        "orders": len(catalog.orders),
        "order_lines": sum(len(o.lines) for o in catalog.orders),
    }
    log.info("ERP database reset to seed %s: %s", seed, counts)
    return counts


def ensure_seeded(db: Database, seed: int) -> bool:
    """Seed the database when it is empty or incomplete; True when it did."""
    if is_seeded(db.read_engine):
        return False
    reset(db, seed)
    return True


def _load(session: Session, catalog: Catalog) -> None:
    _load_master_data(session, catalog)
    _load_orders(session, catalog)


def _columns(row: object, *names: str, **extra: object) -> dict[str, object]:
    """The attributes ``names`` of ``row`` (a catalogue dataclass), plus ``extra`` columns."""
    return {name: getattr(row, name) for name in names} | extra


# Columns copied as they are from the catalogue's dataclasses, per table.
_SUPPLIER_COLUMNS = (
    "id", "code", "name_zh", "name_en", "kind", "status", "rating", "website", "country",
    "currency",
)  # fmt: skip
_PART_COLUMNS = ("id", "sku", "model", "name_zh", "name_en", "brand", "brand_zh", "unit")
_PRICE_COLUMNS = (
    "id", "supplier_id", "part_id", "price_minor", "currency", "min_order_qty",
    "lead_time_days", "valid_from", "valid_to",
)  # fmt: skip
_INVENTORY_COLUMNS = (
    "part_id", "on_hand", "reserved", "on_order", "safety_stock", "reorder_point",
)  # fmt: skip
_ORDER_COLUMNS = ("order_no", "supplier_id", "status", "currency", "order_date", "expected_date")
_LINE_COLUMNS = ("part_id", "quantity", "received_qty", "unit_price_minor")


def _load_master_data(session: Session, catalog: Catalog) -> None:
    """Categories, suppliers, parts, price lists and stock, with the catalogue's ids."""
    cat_ids = {c.code: i for i, c in enumerate(catalog.categories, start=1)}
    tables: list[tuple[type[Base], list[dict[str, object]]]] = [
        (
            Category,
            [
                _columns(
                    c,
                    "code",
                    "name_zh",
                    "name_en",
                    "unit",
                    id=cat_ids[c.code],
                    aliases=list(c.aliases),
                )
                for c in catalog.categories
            ],
        ),
        (Supplier, [_columns(s, *_SUPPLIER_COLUMNS) for s in catalog.suppliers]),
        *part_tables(catalog, cat_ids, {p.id for p in catalog.parts}),
        (PartEquivalent, equivalent_rows(catalog)),
    ]
    for model, rows in tables:
        session.execute(insert(model), rows)


def part_tables(
    catalog: Catalog, cat_ids: dict[str, int], part_ids: set[int]
) -> list[tuple[type[Base], list[dict[str, object]]]]:
    """The rows of the catalogue's parts ``part_ids``: parts, their price lists and stock."""
    return [
        (
            Part,
            [
                _columns(
                    p,
                    *_PART_COLUMNS,
                    category_id=cat_ids[p.category],
                    active=True,
                    attributes=catalog.attributes[p.id],
                )
                for p in catalog.parts
                if p.id in part_ids
            ],
        ),
        (
            SupplierPrice,
            [
                _columns(sp, *_PRICE_COLUMNS, order_step=order_step(sp.min_order_qty))
                for sp in catalog.prices
                if sp.part_id in part_ids
            ],
        ),
        (
            Inventory,
            [_columns(i, *_INVENTORY_COLUMNS) for i in catalog.inventory if i.part_id in part_ids],
        ),
    ]


def equivalent_rows(catalog: Catalog) -> list[dict[str, object]]:
    """The catalogue's cross-reference as ``part_equivalent`` rows (both directions)."""
    return [
        {"part_id": e.part_id, "equivalent_id": e.equivalent_id, "match": e.match}
        for e in catalog.equivalences
    ]


def _load_orders(session: Session, catalog: Catalog) -> None:
    """The order history with its lines, and the order-number counter after it."""
    order_rows = [_order_row(n, o) for n, o in enumerate(catalog.orders)]
    # Ids in the order given, from the database itself, so its sequence stays right.
    order_ids = session.scalars(
        insert(PurchaseOrder).returning(PurchaseOrder.id, sort_by_parameter_order=True),
        order_rows,
    ).all()
    session.execute(
        insert(PurchaseOrderLine),
        [
            _columns(
                ln,
                *_LINE_COLUMNS,
                order_id=order_id,
                line_no=line_no,
                amount_minor=ln.quantity * ln.unit_price_minor,
            )
            for order_id, o in zip(order_ids, catalog.orders, strict=True)
            for line_no, ln in enumerate(o.lines, start=1)
        ],
    )
    session.add(Counter(name=ORDER_COUNTER, value=len(catalog.orders)))


def _order_row(n: int, o: HistoricalOrder) -> dict[str, object]:
    created = datetime.combine(o.order_date, time(9, 0))
    done = datetime.combine(o.expected_date, time(17, 0))
    cancelled = o.status == "cancelled"
    return _columns(
        o,
        *_ORDER_COLUMNS,
        idempotency_key=None,
        request_hash=None,
        requested_by=_BUYERS[n % len(_BUYERS)],
        note=None,
        approved_by=None if cancelled else _APPROVER,
        total_minor=sum(ln.quantity * ln.unit_price_minor for ln in o.lines),
        version=1,
        created_at=created,
        updated_at=created + timedelta(days=1) if cancelled else done,
    )
