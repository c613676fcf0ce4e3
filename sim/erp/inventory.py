"""Stock warnings: parts whose available stock (on hand − reserved) is below safety stock."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, func, select

from sim.erp.db import Database
from sim.erp.masterdata import MasterData
from sim.erp.models import Inventory
from sim.erp.views import inventory_view, listed, paged


def warnings(
    db: Database, master: MasterData, category_code: str | None, page: int, size: int
) -> dict[str, Any]:
    """A page of short parts, largest shortage first, each with its stock figures."""
    available = Inventory.on_hand - Inventory.reserved
    shortage = Inventory.safety_stock - available
    conditions: list[ColumnElement[bool]] = [available < Inventory.safety_stock]
    if category_code:
        ids = [
            i for i in master.active_part_ids if master.parts[i]["category_code"] == category_code
        ]
        conditions.append(Inventory.part_id.in_(ids))
    else:
        conditions.append(Inventory.part_id.in_(master.active_part_ids))
    with db.read() as session:
        total = session.scalar(select(func.count()).select_from(Inventory).where(*conditions)) or 0
        rows = session.scalars(
            select(Inventory)
            .where(*conditions)
            .order_by(shortage.desc(), Inventory.part_id)
            .offset((page - 1) * size)
            .limit(size)
        ).all()
        items = [
            listed(master.parts[inv.part_id])
            | dict(inventory_view(inv))
            | {
                "available": inv.on_hand - inv.reserved,
                "shortage": inv.safety_stock - (inv.on_hand - inv.reserved),
            }
            for inv in rows
        ]
    return paged(items, total, page, size)
