"""``GET /orders/summary``: what was spent, added up in the database.

"How much did we spend on batteries in 2025", "our biggest supplier by spend this year":
answered from every matching order at once, not from pages of orders (a year holds
hundreds). Amounts are the order lines' (so a category or part narrows them to its own
lines), by currency, cancelled orders left out and counted apart; optionally by supplier,
month, requester, approver or part (with each part's quantity: which parts were bought, and
so which were not, "哪些零件半年没订过").
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import and_, func, select

from sim.erp.db import Database
from sim.erp.masterdata import MasterData
from sim.erp.models import Category, Part, PurchaseOrder, PurchaseOrderLine
from sim.erp.orders import OrderFilters, order_conditions
from sim.erp.views import money

__all__ = ["GROUPINGS", "summarise"]

GROUPINGS = ("supplier", "month", "requester", "approver", "part")


def summarise(
    db: Database,
    master: MasterData,
    filters: OrderFilters,
    *,
    category: str | None = None,
    group_by: str | None = None,
) -> dict[str, Any]:
    """The spend of the orders matching ``filters`` (and lines of ``category``, a code)."""
    conditions = order_conditions(master, filters)
    lines = [PurchaseOrderLine.order_id == PurchaseOrder.id]
    if category is not None:
        lines.append(PurchaseOrderLine.part_id.in_(
            select(Part.id).join(Category, Part.category_id == Category.id)
            .where(Category.code == category)
        ))  # fmt: skip
    if filters.part_id is not None:
        lines.append(PurchaseOrderLine.part_id == filters.part_id)
    placed = [*conditions, PurchaseOrder.status != "cancelled"]
    # a month is read from each day's rows (portable across databases)
    key = {
        None: None,
        "supplier": PurchaseOrder.supplier_id,
        "month": PurchaseOrder.order_date,
        "requester": PurchaseOrder.requested_by,
        "approver": PurchaseOrder.approved_by,
        "part": PurchaseOrderLine.part_id,
    }[group_by]
    columns = [PurchaseOrder.currency, func.sum(PurchaseOrderLine.amount_minor),
               func.count(func.distinct(PurchaseOrder.id)),
               func.sum(PurchaseOrderLine.quantity)]  # fmt: skip
    if key is not None:
        columns.insert(0, key)
    query = select(*columns).join(PurchaseOrderLine, and_(*lines)).where(*placed)
    query = query.group_by(*([key] if key is not None else []), PurchaseOrder.currency)
    cancelled = (
        select(func.count(func.distinct(PurchaseOrder.id)))
        .join(PurchaseOrderLine, and_(*lines))
        .where(*conditions, PurchaseOrder.status == "cancelled")
    )
    with db.read() as session:
        rows = list(session.execute(query).all())
        n_cancelled = session.scalar(cancelled) or 0
    return _shaped(master, rows, group_by, n_cancelled)


def _shaped(
    master: MasterData, rows: list[Any], group_by: str | None, cancelled: int
) -> dict[str, Any]:
    totals: dict[str, int] = {}
    orders = 0
    groups: dict[Any, dict[str, Any]] = {}
    for row in rows:
        *head, currency, amount, count, quantity = row
        totals[currency] = totals.get(currency, 0) + int(amount or 0)
        orders += int(count)
        if head:
            name = head[0].isoformat()[:7] if group_by == "month" else head[0]
            group = groups.setdefault(name, {"totals": {}, "orders": 0, "quantity": 0})
            group["totals"][currency] = group["totals"].get(currency, 0) + int(amount or 0)
            group["orders"] += int(count)
            group["quantity"] += int(quantity or 0)
    answer: dict[str, Any] = {
        "totals": [_total(c, v) for c, v in sorted(totals.items())],
        "orders": orders,
        "cancelled_orders": cancelled,
    }
    if group_by is not None:
        answer["groups"] = sorted(
            (_group(master, group_by, k, g) for k, g in groups.items()),
            key=lambda g: g["key"] if group_by == "month" else -g["rank_minor"],
        )
        for g in answer["groups"]:
            del g["rank_minor"]
    return answer


def _total(currency: str, minor: int) -> dict[str, Any]:
    return {"currency": currency, "amount_minor": minor, "amount": money(minor)}


def _group(master: MasterData, group_by: str, key: Any, group: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {
        "key": key,
        "totals": [_total(c, v) for c, v in sorted(group["totals"].items())],
        "orders": group["orders"],
        # ranked by the CNY amount first, then any other (one number to sort by)
        "rank_minor": group["totals"].get("CNY", 0) or sum(group["totals"].values()),
    }
    if group_by == "supplier":
        supplier = master.suppliers.get(int(key))
        if supplier is not None:
            out.update(code=supplier["code"], name_zh=supplier["name_zh"],
                       name_en=supplier["name_en"])  # fmt: skip
    elif group_by == "part":
        out["quantity"] = group["quantity"]
        part = master.parts.get(int(key))
        if part is not None:
            out.update(sku=part["sku"], name_zh=part["name_zh"], name_en=part["name_en"],
                       category_code=part["category_code"])  # fmt: skip
    return out
