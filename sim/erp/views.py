"""The JSON shapes of docs/erp_api.md, built from rows.

Plain TypedDicts rather than pydantic models: a part search serializes dozens of
them per request and must stay fast; the request bodies are validated by
:mod:`sim.erp.schemas` instead.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, TypedDict, cast

from sim.erp.models import (
    AuditLog,
    Inventory,
    Part,
    PurchaseOrder,
    PurchaseOrderLine,
    Supplier,
    SupplierPrice,
)


class CategoryView(TypedDict):
    """A category with its other names and how many active parts it holds."""

    code: str
    name_zh: str
    name_en: str
    unit: str
    aliases: list[str]
    part_count: int


class SupplierView(TypedDict):
    """docs/erp_api.md Supplier."""

    id: int
    code: str
    name_zh: str
    name_en: str
    kind: str
    status: str
    rating: float
    website: str
    country: str
    currency: str


class PartView(TypedDict):
    """docs/erp_api.md Part."""

    id: int
    sku: str
    model: str
    name_zh: str
    name_en: str
    category_code: str
    category_zh: str
    category_en: str
    brand: str
    brand_zh: str
    unit: str
    attributes: dict[str, Any]  # the category's interchangeability attributes


class OfferTerms(TypedDict):
    """What one supplier price-list row offers, and who offers it: the fields an Offer and
    an order check's alternative (:class:`sim.erp.checks.Alternative`) share."""

    supplier_id: int
    supplier_code: str
    supplier_name_zh: str
    supplier_name_en: str
    price_minor: int
    price: str
    currency: str
    min_order_qty: int
    order_step: int
    lead_time_days: int


class OfferView(OfferTerms):
    """docs/erp_api.md Offer: one supplier price-list row."""

    valid_from: str
    valid_to: str


class InventoryView(TypedDict):
    """docs/erp_api.md Inventory."""

    on_hand: int
    reserved: int
    on_order: int
    safety_stock: int
    reorder_point: int


class OrderLineView(TypedDict):
    """One line of an Order."""

    id: int
    line_no: int
    part_id: int
    sku: str
    name_zh: str
    name_en: str
    quantity: int
    received_qty: int
    unit_price_minor: int
    unit_price: str
    amount_minor: int


class OrderView(TypedDict):
    """docs/erp_api.md Order."""

    id: int
    order_no: str
    idempotency_key: str | None
    supplier_id: int
    supplier_code: str
    supplier_name_zh: str
    supplier_name_en: str
    status: str
    currency: str
    order_date: str
    expected_date: str | None
    requested_by: str | None
    note: str | None
    approved_by: str | None
    total_minor: int
    total: str
    version: int
    created_at: str
    updated_at: str
    lines: list[OrderLineView]


class AuditView(TypedDict):
    """docs/erp_api.md AuditEntry."""

    id: int
    at: str
    actor: str
    action: str
    entity: str
    entity_id: int
    version: int
    before: dict[str, Any] | None
    after: dict[str, Any] | None


def money(minor: int) -> str:
    """Minor units as the display string: ``5430`` → ``"54.30"`` (CNY and USD have 2 digits)."""
    sign = "-" if minor < 0 else ""
    whole, frac = divmod(abs(minor), 100)
    return f"{sign}{whole}.{frac:02d}"


def day(value: date | None) -> str | None:
    """A date as ``YYYY-MM-DD``."""
    return value.isoformat() if value is not None else None


def timestamp(value: datetime) -> str:
    """A naive UTC timestamp as ISO 8601 with ``Z``."""
    return value.replace(microsecond=0).isoformat() + "Z"


def _view(view: type, row: object, **given: Any) -> Any:
    """The keys of the TypedDict ``view``, in its order: ``given`` ones as given, the rest
    copied from the same-named attributes of ``row``."""
    return {name: given[name] if name in given else getattr(row, name) for name in _KEYS[view]}


_KEYS: dict[type, tuple[str, ...]] = {
    view: tuple(view.__annotations__) for view in (SupplierView, PartView, InventoryView)
}


def supplier_view(s: Supplier) -> SupplierView:
    """The Supplier shape."""
    return cast(SupplierView, _view(SupplierView, s))


def listed(part: PartView) -> dict[str, Any]:
    """A part as lists show it: without its attributes. A page of fifty parts read by a
    model (or traced) would carry them all for nothing; one part (``GET /parts/{id}``) and
    its equivalents carry them."""
    return {k: v for k, v in part.items() if k != "attributes"}


def part_view(p: Part) -> PartView:
    """The Part shape (the category must be loaded)."""
    c = p.category
    return cast(
        PartView,
        _view(
            PartView,
            p,
            category_code=c.code,
            category_zh=c.name_zh,
            category_en=c.name_en,
            attributes=dict(p.attributes or {}),
        ),
    )


def offer_terms(sp: SupplierPrice, supplier: SupplierView) -> OfferTerms:
    """The terms of one price-list row of ``supplier``."""
    return OfferTerms(
        supplier_id=sp.supplier_id,
        supplier_code=supplier["code"],
        supplier_name_zh=supplier["name_zh"],
        supplier_name_en=supplier["name_en"],
        price_minor=sp.price_minor,
        price=money(sp.price_minor),
        currency=sp.currency,
        min_order_qty=sp.min_order_qty,
        order_step=sp.order_step,
        lead_time_days=sp.lead_time_days,
    )


def offer_view(sp: SupplierPrice, supplier: SupplierView) -> OfferView:
    """The Offer shape of one price-list row."""
    return OfferView(
        **offer_terms(sp, supplier),
        valid_from=sp.valid_from.isoformat(),
        valid_to=sp.valid_to.isoformat(),
    )


def inventory_view(inv: Inventory) -> InventoryView:
    """The Inventory shape."""
    return cast(InventoryView, _view(InventoryView, inv))


def line_view(line: PurchaseOrderLine, part: PartView) -> OrderLineView:
    """One order line."""
    return OrderLineView(
        id=line.id,
        line_no=line.line_no,
        part_id=line.part_id,
        sku=part["sku"],
        name_zh=part["name_zh"],
        name_en=part["name_en"],
        quantity=line.quantity,
        received_qty=line.received_qty,
        unit_price_minor=line.unit_price_minor,
        unit_price=money(line.unit_price_minor),
        amount_minor=line.amount_minor,
    )


def order_view(
    order: PurchaseOrder, supplier: SupplierView, parts: dict[int, PartView]
) -> OrderView:
    """The Order shape, lines included."""
    return OrderView(
        id=order.id,
        order_no=order.order_no,
        idempotency_key=order.idempotency_key,
        supplier_id=order.supplier_id,
        supplier_code=supplier["code"],
        supplier_name_zh=supplier["name_zh"],
        supplier_name_en=supplier["name_en"],
        status=order.status,
        currency=order.currency,
        order_date=order.order_date.isoformat(),
        expected_date=day(order.expected_date),
        requested_by=order.requested_by,
        note=order.note,
        approved_by=order.approved_by,
        total_minor=order.total_minor,
        total=money(order.total_minor),
        version=order.version,
        created_at=timestamp(order.created_at),
        updated_at=timestamp(order.updated_at),
        lines=[line_view(ln, parts[ln.part_id]) for ln in order.lines],
    )


def audit_view(entry: AuditLog) -> AuditView:
    """One audit entry."""
    return AuditView(
        id=entry.id,
        at=timestamp(entry.at),
        actor=entry.actor,
        action=entry.action,
        entity=entry.entity,
        entity_id=entry.entity_id,
        version=entry.version,
        before=entry.before,
        after=entry.after,
    )


def paged(items: list[Any], total: int, page: int, size: int) -> dict[str, Any]:
    """The paged-list envelope."""
    return {"items": items, "total": total, "page": page, "size": size}
