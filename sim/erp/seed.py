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

from sim.catalog import Catalog, generate
from sim.erp.db import Database
from sim.erp.models import (
    Base,
    Category,
    Counter,
    Inventory,
    Part,
    PurchaseOrder,
    PurchaseOrderLine,
    Supplier,
    SupplierPrice,
)

log = logging.getLogger("sim-erp.seed")

ORDER_COUNTER = "purchase_order"
SEED_ACTOR = "seed"
_BUYERS = ("张伟 Zhang Wei", "李娜 Li Na", "王强 Wang Qiang")
_APPROVER = "陈经理 Manager Chen"


def is_seeded(engine: Engine) -> bool:
    """True when every ERP table exists and suppliers are present."""
    tables = set(inspect(engine).get_table_names())
    if not set(Base.metadata.tables) <= tables:
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
    cat_ids = {c.code: i for i, c in enumerate(catalog.categories, start=1)}
    session.execute(
        insert(Category),
        [
            {
                "id": cat_ids[c.code],
                "code": c.code,
                "name_zh": c.name_zh,
                "name_en": c.name_en,
                "unit": c.unit,
            }
            for c in catalog.categories
        ],
    )
    session.execute(
        insert(Supplier),
        [
            {
                "id": s.id,
                "code": s.code,
                "name_zh": s.name_zh,
                "name_en": s.name_en,
                "kind": s.kind,
                "status": s.status,
                "rating": s.rating,
                "website": s.website,
                "country": s.country,
                "currency": s.currency,
            }
            for s in catalog.suppliers
        ],
    )
    session.execute(
        insert(Part),
        [
            {
                "id": p.id,
                "sku": p.sku,
                "model": p.model,
                "name_zh": p.name_zh,
                "name_en": p.name_en,
                "category_id": cat_ids[p.category],
                "brand": p.brand,
                "brand_zh": p.brand_zh,
                "unit": p.unit,
                "active": True,
            }
            for p in catalog.parts
        ],
    )
    session.execute(
        insert(SupplierPrice),
        [
            {
                "id": sp.id,
                "supplier_id": sp.supplier_id,
                "part_id": sp.part_id,
                "price_minor": sp.price_minor,
                "currency": sp.currency,
                "min_order_qty": sp.min_order_qty,
                "lead_time_days": sp.lead_time_days,
                "valid_from": sp.valid_from,
                "valid_to": sp.valid_to,
            }
            for sp in catalog.prices
        ],
    )
    session.execute(
        insert(Inventory),
        [
            {
                "part_id": inv.part_id,
                "on_hand": inv.on_hand,
                "reserved": inv.reserved,
                "on_order": inv.on_order,
                "safety_stock": inv.safety_stock,
                "reorder_point": inv.reorder_point,
            }
            for inv in catalog.inventory
        ],
    )
    order_rows = []
    for n, o in enumerate(catalog.orders):
        created = datetime.combine(o.order_date, time(9, 0))
        done = datetime.combine(o.expected_date, time(17, 0))
        cancelled = o.status == "cancelled"
        order_rows.append(
            {
                "order_no": o.order_no,
                "idempotency_key": None,
                "request_hash": None,
                "supplier_id": o.supplier_id,
                "status": o.status,
                "currency": o.currency,
                "order_date": o.order_date,
                "expected_date": o.expected_date,
                "buyer": _BUYERS[n % len(_BUYERS)],
                "note": None,
                "approved_by": None if cancelled else _APPROVER,
                "total_minor": sum(ln.quantity * ln.unit_price_minor for ln in o.lines),
                "version": 1,
                "created_at": created,
                "updated_at": created + timedelta(days=1) if cancelled else done,
            }
        )
    # Ids in the order given, from the database itself, so its sequence stays right.
    order_ids = session.scalars(
        insert(PurchaseOrder).returning(PurchaseOrder.id, sort_by_parameter_order=True),
        order_rows,
    ).all()
    session.execute(
        insert(PurchaseOrderLine),
        [
            {
                "order_id": order_id,
                "line_no": line_no,
                "part_id": ln.part_id,
                "quantity": ln.quantity,
                "received_qty": ln.received_qty,
                "unit_price_minor": ln.unit_price_minor,
                "amount_minor": ln.quantity * ln.unit_price_minor,
            }
            for order_id, o in zip(order_ids, catalog.orders, strict=True)
            for line_no, ln in enumerate(o.lines, start=1)
        ],
    )
    session.add(Counter(name=ORDER_COUNTER, value=len(catalog.orders)))
