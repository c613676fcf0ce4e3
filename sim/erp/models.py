"""The ERP's tables, shaped after Odoo's purchase module and ERPNext's buying module.

Money is integer minor units (fen / cents). Master data (categories, suppliers,
parts, price lists) keeps the ids of :mod:`sim.catalog`, so the same seed gives
the same ids everywhere; orders, lines and audit rows take ids from the database.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any, Literal, get_args

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

OrderStatus = Literal[
    "draft",
    "pending_approval",
    "approved",
    "partially_received",
    "received",
    "closed",
    "cancelled",
]
ORDER_STATUSES: tuple[OrderStatus, ...] = get_args(OrderStatus)
SUPPLIER_STATUSES = ("active", "on_hold", "blocked")


def _one_of(column: str, values: tuple[str, ...]) -> str:
    quoted = ", ".join(f"'{v}'" for v in values)
    return f"{column} IN ({quoted})"


class Base(DeclarativeBase):
    """Declarative base of every ERP table."""


class Category(Base):
    """A part category (火花塞 Spark Plug, ...)."""

    __tablename__ = "category"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    code: Mapped[str] = mapped_column(String(16), unique=True)
    name_zh: Mapped[str] = mapped_column(String(64))
    name_en: Mapped[str] = mapped_column(String(64))
    unit: Mapped[str] = mapped_column(String(16))
    # Other names buyers use for it (colloquial, spelling variants), as an ERP keyword field.
    aliases: Mapped[list[str]] = mapped_column(JSON, default=list)


class Supplier(Base):
    """A vendor: a maker selling its own brand, or a distributor of several."""

    __tablename__ = "supplier"
    __table_args__ = (
        CheckConstraint(_one_of("status", SUPPLIER_STATUSES), name="ck_supplier_status"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    code: Mapped[str] = mapped_column(String(32), unique=True)
    name_zh: Mapped[str] = mapped_column(String(128))
    name_en: Mapped[str] = mapped_column(String(128))
    kind: Mapped[str] = mapped_column(String(16))
    status: Mapped[str] = mapped_column(String(16))
    rating: Mapped[float] = mapped_column(Float)
    website: Mapped[str] = mapped_column(String(256))
    country: Mapped[str] = mapped_column(String(2))
    currency: Mapped[str] = mapped_column(String(3))


class Part(Base):
    """A purchasable item."""

    __tablename__ = "part"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    sku: Mapped[str] = mapped_column(String(64), unique=True)
    model: Mapped[str] = mapped_column(String(64))
    name_zh: Mapped[str] = mapped_column(String(128))
    name_en: Mapped[str] = mapped_column(String(128))
    category_id: Mapped[int] = mapped_column(ForeignKey("category.id"), index=True)
    brand: Mapped[str] = mapped_column(String(64))
    brand_zh: Mapped[str] = mapped_column(String(64))
    unit: Mapped[str] = mapped_column(String(16))
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    # The category's interchangeability attributes (``reach_mm``, ``capacity_ah`` ...).
    attributes: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict, server_default="{}")

    category: Mapped[Category] = relationship(lazy="joined")


EQUIVALENT_MATCHES = ("exact", "partial")


class PartEquivalent(Base):
    """The cross-reference: ``equivalent_id`` can replace ``part_id``. Kept symmetric (each
    pair is stored both ways) so one indexed lookup answers for either part."""

    __tablename__ = "part_equivalent"
    __table_args__ = (
        CheckConstraint(_one_of("match", EQUIVALENT_MATCHES), name="ck_part_equivalent_match"),
        CheckConstraint("part_id <> equivalent_id", name="ck_part_equivalent_other"),
    )

    part_id: Mapped[int] = mapped_column(ForeignKey("part.id"), primary_key=True)
    equivalent_id: Mapped[int] = mapped_column(ForeignKey("part.id"), primary_key=True)
    match: Mapped[str] = mapped_column(String(8))


class SupplierPrice(Base):
    """A supplier price-list row (Odoo ``product.supplierinfo``)."""

    __tablename__ = "supplier_price"
    __table_args__ = (
        Index("ix_supplier_price_supplier_part", "supplier_id", "part_id"),
        CheckConstraint("price_minor >= 0", name="ck_supplier_price_price"),
        CheckConstraint("min_order_qty >= 1", name="ck_supplier_price_moq"),
        CheckConstraint("order_step >= 1", name="ck_supplier_price_step"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    supplier_id: Mapped[int] = mapped_column(ForeignKey("supplier.id"))
    part_id: Mapped[int] = mapped_column(ForeignKey("part.id"), index=True)
    price_minor: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(3))
    min_order_qty: Mapped[int] = mapped_column(Integer)
    # Quantities above the MOQ go up in steps of this many units (a pack or carton).
    order_step: Mapped[int] = mapped_column(Integer, default=1, server_default="1")
    lead_time_days: Mapped[int] = mapped_column(Integer)
    valid_from: Mapped[date] = mapped_column(Date)
    valid_to: Mapped[date] = mapped_column(Date)


class Inventory(Base):
    """Stock of one part (ERPNext ``Bin``)."""

    __tablename__ = "inventory"

    part_id: Mapped[int] = mapped_column(ForeignKey("part.id"), primary_key=True)
    on_hand: Mapped[int] = mapped_column(Integer)
    reserved: Mapped[int] = mapped_column(Integer)
    on_order: Mapped[int] = mapped_column(Integer)
    safety_stock: Mapped[int] = mapped_column(Integer)
    reorder_point: Mapped[int] = mapped_column(Integer)


class PurchaseOrder(Base):
    """A purchase order; ``version`` guards updates, ``idempotency_key`` guards creates."""

    __tablename__ = "purchase_order"
    __table_args__ = (
        CheckConstraint(_one_of("status", ORDER_STATUSES), name="ck_purchase_order_status"),
        CheckConstraint("version >= 1", name="ck_purchase_order_version"),
        Index("ix_purchase_order_date", "order_date", "id"),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_no: Mapped[str] = mapped_column(String(32), unique=True)
    # Unique, so two racing creates with one key cannot both insert; NULL for history.
    idempotency_key: Mapped[str | None] = mapped_column(String(128), unique=True)
    request_hash: Mapped[str | None] = mapped_column(String(64))
    supplier_id: Mapped[int] = mapped_column(ForeignKey("supplier.id"), index=True)
    status: Mapped[str] = mapped_column(String(24), index=True)
    currency: Mapped[str] = mapped_column(String(3))
    order_date: Mapped[date] = mapped_column(Date)
    expected_date: Mapped[date | None] = mapped_column(Date)
    # User ids: who asked for the order and who approved it (named ``buyer`` before schema 2).
    requested_by: Mapped[str | None] = mapped_column(String(100), index=True)
    note: Mapped[str | None] = mapped_column(Text)
    approved_by: Mapped[str | None] = mapped_column(String(100))
    total_minor: Mapped[int] = mapped_column(BigInteger)
    version: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[datetime] = mapped_column(DateTime)
    updated_at: Mapped[datetime] = mapped_column(DateTime)

    lines: Mapped[list[PurchaseOrderLine]] = relationship(
        back_populates="order",
        order_by="PurchaseOrderLine.line_no",
        cascade="all, delete-orphan",
    )


class PurchaseOrderLine(Base):
    """One line of a purchase order."""

    __tablename__ = "purchase_order_line"
    __table_args__ = (
        UniqueConstraint("order_id", "line_no", name="uq_purchase_order_line_no"),
        CheckConstraint("quantity > 0", name="ck_purchase_order_line_qty"),
        CheckConstraint(
            "received_qty >= 0 AND received_qty <= quantity", name="ck_purchase_order_line_received"
        ),
    )

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    order_id: Mapped[int] = mapped_column(ForeignKey("purchase_order.id"), index=True)
    line_no: Mapped[int] = mapped_column(Integer)
    part_id: Mapped[int] = mapped_column(ForeignKey("part.id"), index=True)
    quantity: Mapped[int] = mapped_column(Integer)
    received_qty: Mapped[int] = mapped_column(Integer, default=0)
    unit_price_minor: Mapped[int] = mapped_column(BigInteger)
    amount_minor: Mapped[int] = mapped_column(BigInteger)

    order: Mapped[PurchaseOrder] = relationship(back_populates="lines")


class AuditLog(Base):
    """One recorded change, written in the same transaction as the change."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_entity", "entity", "entity_id", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime)
    actor: Mapped[str] = mapped_column(String(100))
    action: Mapped[str] = mapped_column(String(32))
    entity: Mapped[str] = mapped_column(String(32))
    entity_id: Mapped[int] = mapped_column(Integer)
    version: Mapped[int] = mapped_column(Integer)
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON)


class Counter(Base):
    """Named sequences (order numbers), bumped with ``UPDATE ... SET value = value + 1``."""

    __tablename__ = "counter"

    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    value: Mapped[int] = mapped_column(BigInteger)


__all__ = [
    "EQUIVALENT_MATCHES",
    "ORDER_STATUSES",
    "SUPPLIER_STATUSES",
    "AuditLog",
    "Base",
    "Category",
    "Counter",
    "Inventory",
    "OrderStatus",
    "Part",
    "PartEquivalent",
    "PurchaseOrder",
    "PurchaseOrderLine",
    "Supplier",
    "SupplierPrice",
]
