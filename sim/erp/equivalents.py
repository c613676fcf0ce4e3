"""``GET /parts/{part_id}/equivalents``: the parts of other brands that can replace a part.

The cross-reference (``part_equivalent``, read into :class:`MasterData` with the other
master data) says which parts fit and whether the match is ``exact`` (every attribute
equal) or ``partial`` (same fit, something else differs). Each equivalent comes with the
attributes that agree and differ, the company's stock of it, and the price-list rows
valid today: active suppliers first, then CNY before other currencies (they are not
converted), cheapest first. Exact equivalents come before partial ones, then the one
with the cheapest offer.
"""

from __future__ import annotations

from datetime import date
from typing import Any, TypedDict

from sqlalchemy import select

from sim.erp.catalogue import known_part
from sim.erp.db import Database
from sim.erp.errors import ErpError, echo
from sim.erp.masterdata import MasterData
from sim.erp.models import Inventory, SupplierPrice
from sim.erp.search import compact
from sim.erp.views import OfferView, PartView, offer_view

__all__ = ["Difference", "EquivalentView", "StockView", "equivalents_of"]


class StockView(TypedDict):
    """The company's stock of a part: on hand, and on hand less reserved."""

    on_hand: int
    available: int


class Difference(TypedDict):
    """One attribute's value on the part asked about and on its equivalent."""

    part: Any
    equivalent: Any


class EquivalentView(TypedDict):
    """docs/erp_api.md Equivalent."""

    part: PartView
    match: str
    same: list[str]
    different: dict[str, Difference]
    stock: StockView
    offers: list[OfferView]


def brand_keys(part: PartView) -> set[str]:
    """Every name a part's brand answers to: its brand (English, Chinese) and its maker's
    supplier code (the middle of the SKU, ``SP-NGK-CR7HSA``), compacted."""
    keys = {compact(part["brand"]), compact(part["brand_zh"])}
    segments = part["sku"].split("-")
    if len(segments) >= 3:
        keys.add(compact(segments[1]))
    return keys - {""}


def _brand_filter(master: MasterData, brand: str, category: str) -> str:
    """``brand`` compacted, or VALIDATION naming the brands of ``category``."""
    key = compact(brand)
    for supplier in master.suppliers.values():
        # A maker's full name (日本特殊陶业 NGK, Daido Kogyo D.I.D) names its brand too.
        names = {compact(supplier["name_zh"]), compact(supplier["name_en"])}
        if supplier["kind"] == "maker" and key in names:
            key = compact(supplier["code"])
    if key and any(key in brand_keys(p) for p in master.parts.values()):
        return key
    brands = sorted({p["brand"] for p in master.parts.values() if p["category_code"] == category})
    raise ErpError(
        "VALIDATION",
        f"There is no brand {echo(brand)}; the brands of this category are: {', '.join(brands)}.",
        {"field": "brand", "brands": brands},
    )


def _comparison(part: PartView, other: PartView) -> tuple[list[str], dict[str, Difference]]:
    mine, theirs = part["attributes"], other["attributes"]
    keys = [*mine, *(k for k in theirs if k not in mine)]
    same = [k for k in keys if k in mine and k in theirs and mine[k] == theirs[k]]
    different = {
        k: Difference(part=mine.get(k), equivalent=theirs.get(k)) for k in keys if k not in same
    }
    return same, different


def _offer_order(offer: OfferView, master: MasterData) -> tuple[bool, bool, int, int]:
    active = master.suppliers[offer["supplier_id"]]["status"] == "active"
    return (not active, offer["currency"] != "CNY", offer["price_minor"], offer["supplier_id"])


def _equivalent_order(view: EquivalentView) -> tuple[bool, bool, bool, int, int]:
    best = view["offers"][0] if view["offers"] else None
    return (
        view["match"] != "exact",
        best is None,
        best is not None and best["currency"] != "CNY",
        best["price_minor"] if best else 0,
        view["part"]["id"],
    )


def equivalents_of(
    db: Database, master: MasterData, part_id: int, brand: str | None, today: date
) -> dict[str, Any]:
    """The part and its equivalents (only of ``brand`` when given), each with what agrees
    and differs, its stock and its offers valid ``today``; NOT_FOUND for an unknown part."""
    part = known_part(master, part_id)
    active = set(master.active_part_ids)
    found = [(i, m) for i, m in master.equivalents.get(part_id, ()) if i in active]
    if brand is not None:
        key = _brand_filter(master, brand, part["category_code"])
        found = [(i, m) for i, m in found if key in brand_keys(master.parts[i])]
    ids = [i for i, _m in found]
    with db.read() as session:
        rows = session.scalars(
            select(SupplierPrice).where(
                SupplierPrice.part_id.in_(ids),
                SupplierPrice.valid_from <= today,
                SupplierPrice.valid_to >= today,
            )
        ).all()
        stock = {
            inv.part_id: StockView(on_hand=inv.on_hand, available=inv.on_hand - inv.reserved)
            for inv in session.scalars(select(Inventory).where(Inventory.part_id.in_(ids)))
        }
    offers: dict[int, list[OfferView]] = {i: [] for i in ids}
    for sp in rows:
        offers[sp.part_id].append(offer_view(sp, master.suppliers[sp.supplier_id]))
    views: list[EquivalentView] = []
    for equivalent_id, match in found:
        other = master.parts[equivalent_id]
        same, different = _comparison(part, other)
        views.append(
            EquivalentView(
                part=other,
                match=match,
                same=same,
                different=different,
                stock=stock.get(equivalent_id, StockView(on_hand=0, available=0)),
                offers=sorted(offers[equivalent_id], key=lambda o: _offer_order(o, master)),
            )
        )
    views.sort(key=_equivalent_order)
    return {"part": part, "equivalents": views}
