"""Bring a database written by an older ERP up to the current tables, keeping its data.

Each step looks at the table as it is and changes only what is missing, so running the
upgrade twice (or on a fresh database) does nothing. Steps, in order:

1. ``purchase_order.buyer`` becomes ``requested_by`` (same values: who asked for the order);
2. ``supplier_price.order_step`` is added, filled from each row's MOQ as the seed derives it.

SQLite (3.25+) and PostgreSQL both rename and add columns in place.
"""

from __future__ import annotations

import logging

from sqlalchemy import Engine, inspect, text

from sim.erp.seed import order_step

log = logging.getLogger("sim-erp.migrate")

__all__ = ["upgrade"]


def _columns(engine: Engine, table: str) -> set[str]:
    return {c["name"] for c in inspect(engine).get_columns(table)}


def upgrade(engine: Engine) -> list[str]:
    """Apply the missing steps; returns what was done (empty when already current)."""
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
    for step in done:
        log.info("database upgraded: %s", step)
    return done
