"""Reads of the master data: suppliers, categories, parts and their price lists.

Suppliers, categories and parts come from the in-memory :class:`MasterData`;
price-list rows and stock from the database.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Any

from sqlalchemy import select

from sim.erp.db import Database
from sim.erp.errors import ErpError
from sim.erp.masterdata import MasterData
from sim.erp.models import Inventory, SupplierPrice
from sim.erp.views import (
    PartView,
    SupplierView,
    inventory_view,
    listed,
    offer_view,
    paged,
)


def _slice(items: list[Any], page: int, size: int) -> list[Any]:
    return items[(page - 1) * size : page * size]


def search_suppliers(
    master: MasterData, name: str | None, status: str | None, page: int, size: int
) -> dict[str, Any]:
    """Suppliers matching ``name`` (fuzzy; empty = all), best first, then by id."""
    if name and name.strip():
        found = [master.suppliers[h.key] for h in master.supplier_index.search(name)]
    else:
        found = list(master.suppliers.values())
    if status:
        found = [s for s in found if s["status"] == status]
    return paged(_slice(found, page, size), len(found), page, size)


def get_supplier(master: MasterData, supplier_id: int) -> SupplierView:
    """One supplier, or NOT_FOUND."""
    supplier = master.suppliers.get(supplier_id)
    if supplier is None:
        raise ErpError(
            "NOT_FOUND",
            f"There is no supplier with id {supplier_id}.",
            {"supplier_id": supplier_id},
        )
    return supplier


def list_parts(
    master: MasterData,
    *,
    name: str | None,
    category: str | None,
    supplier_id: int | None,
    page: int,
    size: int,
) -> dict[str, Any]:
    """Parts filtered by name (fuzzy, best first), category and supplier; else by id."""
    if name and name.strip():
        ids = [h.key for h in master.part_index.search(name)]
    else:
        ids = list(master.active_part_ids)
    if category:
        code = resolve_category(master, category)
        ids = [i for i in ids if master.parts[i]["category_code"] == code]
    if supplier_id is not None:
        get_supplier(master, supplier_id)
        sold = set(master.part_ids_by_supplier.get(supplier_id, ()))
        ids = [i for i in ids if i in sold]
    return paged([listed(master.parts[i]) for i in _slice(ids, page, size)], len(ids), page, size)


def resolve_category(master: MasterData, text: str) -> str:
    """The category code ``text`` names, or a VALIDATION error listing the categories."""
    code = master.category_code(text)
    if code is None:
        known = ", ".join(f"{c['code']} {c['name_zh']} {c['name_en']}" for c in master.categories)
        raise ErpError(
            "VALIDATION",
            f"There is no category {text[:40]!r}; the categories are: {known}.",
            {"categories": [c["code"] for c in master.categories]},
        )
    return code


def search_parts(master: MasterData, name: str, limit: int) -> dict[str, Any]:
    """The best ``limit`` parts for ``name`` with their scores, and how many matched."""
    hits = master.part_index.search(name)
    items = [listed(master.parts[h.key]) | {"score": h.score} for h in hits[:limit]]
    return {"items": items, "total": len(hits)}


def get_part(db: Database, master: MasterData, part_id: int) -> dict[str, Any]:
    """One part with every supplier's offer (cheapest first) and its stock."""
    found = get_parts(db, master, [part_id])
    if found["missing"]:
        known_part(master, part_id)  # raises NOT_FOUND
    record: dict[str, Any] = found["items"][0]
    return record


def get_parts(db: Database, master: MasterData, part_ids: Sequence[int]) -> dict[str, Any]:
    """Several parts, each the record :func:`get_part` gives, in the order asked.

    ``{"items": [record], "missing": [id]}``: an id asked twice is answered once (at its
    first place); ids of no part are listed in ``missing`` (in the order asked) rather than
    failing the others, so one stale id does not cost a caller the whole batch. Offers and
    stock of all the parts are read in one transaction (two queries).
    """
    wanted = list(dict.fromkeys(part_ids))
    known = [i for i in wanted if i in master.parts]
    missing = [i for i in wanted if i not in master.parts]
    offers: dict[int, list[Any]] = {i: [] for i in known}
    stock: dict[int, Any] = {}
    if known:
        with db.read() as session:
            rows = session.scalars(
                select(SupplierPrice)
                .where(SupplierPrice.part_id.in_(known))
                .order_by(SupplierPrice.price_minor, SupplierPrice.supplier_id, SupplierPrice.id)
            ).all()
            for sp in rows:
                offers[sp.part_id].append(offer_view(sp, master.suppliers[sp.supplier_id]))
            for inv in session.scalars(select(Inventory).where(Inventory.part_id.in_(known))):
                stock[inv.part_id] = inventory_view(inv)
    items = [
        dict(master.parts[i]) | {"offers": offers[i], "inventory": stock.get(i)} for i in known
    ]
    return {"items": items, "missing": missing}


def parts_of_supplier(
    db: Database, master: MasterData, supplier_id: int, page: int, size: int, today: date
) -> dict[str, Any]:
    """The parts a supplier sells, each with its offer valid ``today`` (else its latest)."""
    supplier = get_supplier(master, supplier_id)
    ids = list(master.part_ids_by_supplier.get(supplier_id, ()))
    page_ids = _slice(ids, page, size)
    with db.read() as session:
        rows = session.scalars(
            select(SupplierPrice).where(
                SupplierPrice.supplier_id == supplier_id, SupplierPrice.part_id.in_(page_ids)
            )
        ).all()
    best: dict[int, SupplierPrice] = {}
    for sp in rows:
        current = best.get(sp.part_id)
        if current is None or _offer_rank(sp, today) > _offer_rank(current, today):
            best[sp.part_id] = sp
    items = [
        listed(master.parts[i]) | {"offer": offer_view(best[i], supplier)}
        for i in page_ids
        if i in best
    ]
    return {"supplier": supplier} | paged(items, len(ids), page, size)


def _offer_rank(sp: SupplierPrice, today: date) -> tuple[bool, date, int]:
    return (sp.valid_from <= today <= sp.valid_to, sp.valid_to, sp.id)


def known_part(master: MasterData, part_id: int) -> PartView:
    """The part with this id (also an inactive one), or NOT_FOUND."""
    part = master.parts.get(part_id)
    if part is None:
        raise ErpError("NOT_FOUND", f"There is no part with id {part_id}.", {"part_id": part_id})
    return part
