"""Purchase orders: idempotent creation, versioned updates, the state machine, the audit.

Each public function is one database transaction: it either makes the whole
change, audit row included, or raises :class:`~sim.erp.errors.ErpError` and
changes nothing.

Concurrency. Create looks its idempotency key up first and relies on the unique
index when two requests race (the loser reads the winner's order and replays or
conflicts). Update claims the order with ``UPDATE ... SET version = version + 1
WHERE id = :id AND version = :expected`` before anything else, so of two updates
sent with the same version exactly one proceeds and the other gets
VERSION_CONFLICT; a refusal later in the same request rolls the claim back.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from sim.erp.checks import (
    PricedLine,
    Rules,
    check_draft,
    delivery_issues,
    price_lines,
    refuse_first,
)
from sim.erp.checks import supplier_issue as _supplier_issue
from sim.erp.db import Database
from sim.erp.errors import ErpError
from sim.erp.masterdata import MasterData
from sim.erp.models import (
    AuditLog,
    Counter,
    Inventory,
    PurchaseOrder,
    PurchaseOrderLine,
    Supplier,
)
from sim.erp.schemas import LineIn, OrderChange, OrderCreate, OrderUpdate
from sim.erp.seed import ORDER_COUNTER
from sim.erp.views import OrderView, SupplierView, order_view, paged

ENTITY = "purchase_order"
TRANSITIONS: dict[str, tuple[str, ...]] = {
    "draft": ("pending_approval", "cancelled"),
    "pending_approval": ("approved", "draft", "cancelled"),
    "approved": ("partially_received", "received", "cancelled"),
    "partially_received": ("received",),
    "received": ("closed",),
    "closed": (),
    "cancelled": (),
}
DEFAULT_RULES = Rules()


def utcnow() -> datetime:
    """Now, in UTC, without tzinfo (how timestamps are stored)."""
    return datetime.now(UTC).replace(tzinfo=None, microsecond=0)


def request_hash(payload: OrderCreate) -> str:
    """A digest of what a create request orders: everything but its idempotency key and who
    sends or approves it (a retry by another person is the same order)."""
    body = payload.model_dump(mode="json", exclude={"idempotency_key", "actor", "approved_by"})
    # Named as before schema 2, so keys stored then still replay.
    body["buyer"] = body.pop("requested_by")
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class Created:
    """The answer to a create: the order, and whether it was made by an earlier request."""

    order: OrderView
    replayed: bool


# ---------------------------------------------------------------- create


def create_order(
    db: Database, master: MasterData, payload: OrderCreate, rules: Rules = DEFAULT_RULES
) -> Created:
    """Create an order, or return the one an earlier request with this key created."""
    digest = request_hash(payload)
    try:
        with db.write() as session:
            existing = _by_key(session, payload.idempotency_key)
            if existing is not None:
                return _replay(existing, digest, master)
            order = _insert(session, master, payload, digest, rules)
            return Created(_view(order, master), replayed=False)
    except IntegrityError:
        # Another request inserted this key between our look-up and our insert.
        with db.read() as session:
            existing = _by_key(session, payload.idempotency_key)
            if existing is None:
                raise
            return _replay(existing, digest, master)


def _by_key(session: Session, key: str) -> PurchaseOrder | None:
    return session.scalars(
        select(PurchaseOrder)
        .where(PurchaseOrder.idempotency_key == key)
        .options(selectinload(PurchaseOrder.lines))
    ).one_or_none()


def _replay(order: PurchaseOrder, digest: str, master: MasterData) -> Created:
    if order.request_hash != digest:
        raise ErpError(
            "IDEMPOTENCY_CONFLICT",
            f"The idempotency key was already used for order {order.order_no} with different "
            "contents; send a new key to create another order, or the same contents to get "
            "that order back.",
            {"order_id": order.id, "order_no": order.order_no},
        )
    return Created(_view(order, master), replayed=True)


def _insert(
    session: Session, master: MasterData, payload: OrderCreate, digest: str, rules: Rules
) -> PurchaseOrder:
    actor = _acting(payload.actor or payload.requested_by, "requested_by", "asks for this order")
    checked = check_draft(session, master, rules, payload, utcnow().date(), warnings=False)
    refuse_first(checked.issues)
    assert checked.supplier is not None and checked.currency and checked.order_date
    order_date = checked.order_date
    priced = checked.lines
    expected = payload.expected_date or order_date + timedelta(
        days=max(p.lead_time_days for p in priced)
    )
    now = utcnow()
    status = checked.status or "draft"
    order = PurchaseOrder(
        order_no=_next_order_no(session, order_date),
        idempotency_key=payload.idempotency_key,
        request_hash=digest,
        supplier_id=checked.supplier["id"],
        status=status,
        currency=checked.currency,
        order_date=order_date,
        expected_date=expected,
        requested_by=payload.requested_by,
        note=payload.note,
        approved_by=payload.approved_by,
        total_minor=sum(p.amount_minor for p in priced),
        version=1,
        created_at=now,
        updated_at=now,
        lines=_new_lines(priced),
    )
    session.add(order)
    session.flush()
    if status == "approved":
        # Approved at creation (the approver is named): the goods are on order from now.
        _stock(session, {ln.part_id: (0, ln.quantity) for ln in order.lines})
    _audit(session, order, "order.create", actor, before=None)
    return order


def _next_order_no(session: Session, order_date: date) -> str:
    # The counter row is locked until commit, so concurrent creates get distinct numbers.
    session.execute(
        update(Counter).where(Counter.name == ORDER_COUNTER).values(value=Counter.value + 1)
    )
    seq = session.scalar(select(Counter.value).where(Counter.name == ORDER_COUNTER))
    if seq is None:
        msg = "the order-number counter is missing; run `python -m sim.erp reset`"
        raise RuntimeError(msg)
    return f"PO{order_date:%Y%m}{seq:05d}"


def _new_lines(priced: Iterable[PricedLine]) -> list[PurchaseOrderLine]:
    return [
        PurchaseOrderLine(
            line_no=n,
            part_id=p.part["id"],
            quantity=p.quantity,
            received_qty=0,
            unit_price_minor=p.unit_price_minor,
            amount_minor=p.amount_minor,
        )
        for n, p in enumerate(priced, start=1)
    ]


def _active_supplier(session: Session, master: MasterData, supplier_id: int) -> SupplierView:
    problem = _supplier_issue(master, supplier_id, session.get(Supplier, supplier_id))
    if problem is not None:
        raise problem.error()
    return master.suppliers[supplier_id]


def _acting(actor: str | None, field: str, who: str) -> str:
    """``actor``; when there is none, a VALIDATION error asking for ``field``."""
    if not actor:
        raise ErpError("VALIDATION", f"Say who {who}: send {field} (a user id).", {"field": field})
    return actor


# ---------------------------------------------------------------- update


def changed_fields(change: OrderUpdate | OrderChange) -> set[str]:
    """The fields ``change`` changes, as update applies it: null clears a note or an
    expected date, and means "no change" for the other fields."""
    return {
        name
        for name in change.model_fields_set - {"order_id", "expected_version", "actor"}
        if name in ("note", "expected_date") or getattr(change, name) is not None
    }


def update_order(
    db: Database,
    master: MasterData,
    ref: str,
    payload: OrderUpdate,
    rules: Rules = DEFAULT_RULES,
) -> OrderView:
    """Apply ``payload`` to the order ``ref`` (id or order number) at its expected version."""
    changing = changed_fields(payload)
    if not changing:
        raise ErpError(
            "VALIDATION",
            "Nothing to change: send at least one of status, lines, expected_date, note, "
            "approved_by or received with expected_version.",
        )
    with db.write() as session:
        order_id, order_no, current = find_order(session, ref)
        claimed = session.connection().execute(
            update(PurchaseOrder.__table__)  # type: ignore[arg-type]
            .where(
                PurchaseOrder.__table__.c.id == order_id,
                PurchaseOrder.__table__.c.version == payload.expected_version,
            )
            .values(version=PurchaseOrder.__table__.c.version + 1)
        )
        if claimed.rowcount != 1:
            raise ErpError(
                "VERSION_CONFLICT",
                f"Order {order_no} has changed since you read it (it is at version {current}, "
                f"you sent {payload.expected_version}); read it again and retry.",
                {
                    "order_id": order_id,
                    "order_no": order_no,
                    "current_version": current,
                    "expected_version": payload.expected_version,
                },
            )
        order = session.get(PurchaseOrder, order_id, populate_existing=True)
        assert order is not None
        before = _snapshot(order) | {"version": payload.expected_version}
        action = _apply(session, master, order, payload, changing, rules)
        # Checked last, so a request that is wrong in other ways hears about those first;
        # raising here rolls the whole change back.
        actor = _acting(payload.actor or payload.approved_by, "actor", "makes this change")
        order.updated_at = utcnow()
        session.flush()
        _audit(session, order, action, actor, before=before)
        return _view(order, master)


def _apply(
    session: Session,
    master: MasterData,
    order: PurchaseOrder,
    payload: OrderUpdate,
    changing: set[str],
    rules: Rules,
) -> str:
    """Make the changes on ``order`` (not yet flushed); returns the audit action."""
    if order.status in ("closed", "cancelled"):
        raise ErpError(
            "INVALID_TRANSITION",
            f"Order {order.order_no} is {order.status}; a {order.status} order cannot be changed.",
            {"order_no": order.order_no, "status": order.status},
        )
    target = payload.status if payload.status != order.status else None
    if payload.status is not None and target is None and changing == {"status"}:
        raise ErpError(
            "VALIDATION",
            f"Order {order.order_no} is already {order.status.replace('_', ' ')}; "
            "nothing to change.",
            {"order_no": order.order_no, "status": order.status},
        )
    if payload.approved_by is not None and target != "approved":
        raise ErpError(
            "VALIDATION",
            'approved_by is recorded only when the order is approved: send status "approved" '
            "with it.",
            {"status": order.status},
        )
    action = "order.update"
    priced = None
    if payload.lines is not None:
        priced = _replace_lines(session, master, order, payload.lines)
    if "expected_date" in changing:
        if payload.expected_date is not None:
            _check_delivery(session, master, rules, order, payload.expected_date, priced)
        order.expected_date = payload.expected_date
    if "note" in changing:
        order.note = payload.note
    if payload.received is not None:
        _receive(session, order, {r.part_id: r.quantity for r in payload.received}, target)
        return "order.receive"
    if target is not None:
        _transition(session, order, target, payload.approved_by)
        action = "order.status"
    return action


def _replace_lines(
    session: Session, master: MasterData, order: PurchaseOrder, lines: Sequence[LineIn]
) -> list[PricedLine]:
    if order.status != "draft":
        raise ErpError(
            "INVALID_TRANSITION",
            f"Lines can be changed only while an order is a draft; order {order.order_no} is "
            f"{order.status.replace('_', ' ')}.",
            {"order_no": order.order_no, "status": order.status},
        )
    supplier = _active_supplier(session, master, order.supplier_id)
    priced, issues = price_lines(session, master, supplier, lines, order.order_date, order.currency)
    refuse_first(issues)
    order.lines.clear()
    # Old lines go before new ones take their line numbers (unique per order).
    session.flush()
    order.lines.extend(_new_lines(priced))
    order.total_minor = sum(p.amount_minor for p in priced)
    return priced


def current_lines(session: Session, master: MasterData, order: PurchaseOrder) -> list[PricedLine]:
    """The order's lines at the prices it was placed at, with the lead time, MOQ and step of
    their price-list rows (a line whose price list has gone: lead time 0, no MOQ)."""
    supplier = master.suppliers[order.supplier_id]
    lines = [LineIn(part_id=ln.part_id, quantity=ln.quantity) for ln in order.lines]
    listed, _issues = price_lines(
        session, master, supplier, lines, order.order_date, order.currency
    )
    by_part = {p.part["id"]: p for p in listed}
    out: list[PricedLine] = []
    for n, ln in enumerate(order.lines):
        ref = by_part.get(ln.part_id)
        out.append(
            PricedLine(
                n,
                master.parts[ln.part_id],
                ln.quantity,
                ln.unit_price_minor,
                ref.lead_time_days if ref else 0,
                ref.min_order_qty if ref else 1,
                ref.order_step if ref else 1,
            )
        )
    return out


def _check_delivery(
    session: Session,
    master: MasterData,
    rules: Rules,
    order: PurchaseOrder,
    expected: date,
    priced: list[PricedLine] | None,
) -> None:
    """Refuse a delivery date the order's lines cannot reach (lead times from its date)."""
    delivery = delivery_issues(
        session,
        master,
        rules,
        supplier=master.suppliers[order.supplier_id],
        priced=priced if priced is not None else current_lines(session, master, order),
        order_date=order.order_date,
        expected=expected,
    )
    refuse_first(delivery.issues)


def _transition(
    session: Session, order: PurchaseOrder, target: str, approved_by: str | None
) -> None:
    allowed = TRANSITIONS[order.status]
    if target not in allowed:
        if target == "cancelled" and order.status in ("partially_received", "received"):
            why = "goods have already been received against it"
            message = f"Order {order.order_no} cannot be cancelled: {why}."
        else:
            message = (
                f"Order {order.order_no} cannot go from {order.status} to {target}; from "
                f"{order.status} it can go to {' or '.join(allowed) or 'nothing'}."
            )
        raise ErpError(
            "INVALID_TRANSITION",
            message,
            {"order_no": order.order_no, "from": order.status, "to": target, "allowed": allowed},
        )
    if target == "approved" and not approved_by:
        raise ErpError(
            "APPROVAL_REQUIRED",
            f"Approving order {order.order_no} needs approved_by: the name of the person who "
            "approves it.",
            {"order_no": order.order_no},
        )
    if target == "partially_received":
        raise ErpError(
            "VALIDATION",
            "Say what arrived: send received as a list of {part_id, quantity}.",
            {"order_no": order.order_no},
        )
    if target == "received":
        # "Received" without a list: everything still outstanding arrived.
        _receive(
            session,
            order,
            {
                ln.part_id: ln.quantity - ln.received_qty
                for ln in order.lines
                if ln.quantity > ln.received_qty
            },
            target,
        )
        return
    if target == "approved":
        order.approved_by = approved_by
        _stock(session, {ln.part_id: (0, ln.quantity) for ln in order.lines})
    elif target == "cancelled" and order.status == "approved":
        _stock(session, {ln.part_id: (0, -ln.quantity) for ln in order.lines})
    order.status = target


def _receive(
    session: Session, order: PurchaseOrder, quantities: dict[int, int], target: str | None
) -> None:
    if order.status not in ("approved", "partially_received"):
        raise ErpError(
            "INVALID_TRANSITION",
            f"Goods can be received only on an approved order; order {order.order_no} is "
            f"{order.status.replace('_', ' ')}.",
            {"order_no": order.order_no, "status": order.status},
        )
    lines = {ln.part_id: ln for ln in order.lines}
    for part_id, qty in quantities.items():
        line = lines.get(part_id)
        if line is None:
            raise ErpError(
                "VALIDATION",
                f"Part {part_id} is not on order {order.order_no}.",
                {"order_no": order.order_no, "part_id": part_id},
            )
        if line.received_qty + qty > line.quantity:
            raise ErpError(
                "INVALID_TRANSITION",
                f"Receiving {qty} of part {part_id} would exceed the {line.quantity} ordered on "
                f"{order.order_no} ({line.received_qty} already received).",
                {
                    "order_no": order.order_no,
                    "part_id": part_id,
                    "ordered": line.quantity,
                    "already_received": line.received_qty,
                    "receiving": qty,
                },
            )
    for part_id, qty in quantities.items():
        lines[part_id].received_qty += qty
    done = all(ln.received_qty >= ln.quantity for ln in order.lines)
    new_status = "received" if done else "partially_received"
    if target is not None and target != new_status:
        raise ErpError(
            "VALIDATION",
            f"After this receipt order {order.order_no} would be {new_status.replace('_', ' ')}, "
            f"not {target.replace('_', ' ')}; send received without status, or with the "
            "quantities that make it so.",
            {"order_no": order.order_no, "would_be": new_status, "status": target},
        )
    _stock(session, {pid: (qty, -qty) for pid, qty in quantities.items()})
    order.status = new_status


def _stock(session: Session, moves: dict[int, tuple[int, int]]) -> None:
    """Add (on_hand, on_order) deltas to each part's stock; on order never goes below 0."""
    for part_id, (on_hand, on_order) in moves.items():
        inv = session.get(Inventory, part_id)
        if inv is None:
            continue
        inv.on_hand += on_hand
        inv.on_order = max(0, inv.on_order + on_order)


def find_order(session: Session, ref: str) -> tuple[int, str, int]:
    """(id, order number, version) of the order named by id or order number."""
    numeric = ref.isascii() and ref.isdigit()
    if numeric and (len(ref) > 10 or int(ref) > 2_147_483_647):
        raise ErpError("NOT_FOUND", f"There is no order {ref[:40]!r}.", {"order": ref[:40]})
    column = PurchaseOrder.id if numeric else PurchaseOrder.order_no
    key: int | str = int(ref) if numeric else ref.strip().upper()
    row = session.execute(
        select(PurchaseOrder.id, PurchaseOrder.order_no, PurchaseOrder.version).where(column == key)
    ).first()
    if row is None:
        raise ErpError("NOT_FOUND", f"There is no order {ref[:40]!r}.", {"order": ref[:40]})
    return row[0], row[1], row[2]


# ---------------------------------------------------------------- audit and views


def _snapshot(order: PurchaseOrder) -> dict[str, Any]:
    return {
        "order_no": order.order_no,
        "status": order.status,
        "version": order.version,
        "currency": order.currency,
        "expected_date": order.expected_date.isoformat() if order.expected_date else None,
        "note": order.note,
        "approved_by": order.approved_by,
        "total_minor": order.total_minor,
        "lines": [
            {
                "part_id": ln.part_id,
                "quantity": ln.quantity,
                "received_qty": ln.received_qty,
                "unit_price_minor": ln.unit_price_minor,
            }
            for ln in order.lines
        ],
    }


def _audit(
    session: Session,
    order: PurchaseOrder,
    action: str,
    actor: str,
    *,
    before: dict[str, Any] | None,
) -> None:
    session.add(
        AuditLog(
            at=utcnow(),
            actor=actor,
            action=action,
            entity=ENTITY,
            entity_id=order.id,
            version=order.version,
            before=before,
            after=_snapshot(order),
        )
    )


def _view(order: PurchaseOrder, master: MasterData) -> OrderView:
    return order_view(order, master.suppliers[order.supplier_id], master.parts)


# ---------------------------------------------------------------- reads


def get_order(db: Database, master: MasterData, ref: str) -> OrderView:
    """The order named by id or order number."""
    with db.read() as session:
        order_id, _no, _v = find_order(session, ref)
        order = session.get(PurchaseOrder, order_id, options=[selectinload(PurchaseOrder.lines)])
        assert order is not None
        return _view(order, master)


@dataclass(frozen=True)
class OrderFilters:
    """The filters of ``GET /orders/search-details``; None means "any"."""

    order_no: str | None = None
    requested_by: str | None = None
    approved_by: str | None = None
    supplier_id: int | None = None
    supplier_name: str | None = None
    part_id: int | None = None
    sku: str | None = None
    status: str | None = None
    date_from: date | None = None
    date_to: date | None = None


def search_orders(
    db: Database, master: MasterData, filters: OrderFilters, page: int, size: int
) -> dict[str, Any]:
    """A page of orders matching every filter, newest first."""
    conditions = order_conditions(master, filters)
    with db.read() as session:
        total = (
            session.scalar(select(func.count()).select_from(PurchaseOrder).where(*conditions)) or 0
        )
        orders = session.scalars(
            select(PurchaseOrder)
            .where(*conditions)
            .order_by(PurchaseOrder.order_date.desc(), PurchaseOrder.id.desc())
            .offset((page - 1) * size)
            .limit(size)
            .options(selectinload(PurchaseOrder.lines))
        ).all()
        return paged([_view(o, master) for o in orders], total, page, size)


def order_conditions(master: MasterData, filters: OrderFilters) -> list[ColumnElement[bool]]:
    """The SQL conditions of ``filters`` on ``PurchaseOrder``."""
    conditions: list[ColumnElement[bool]] = []
    if filters.order_no:
        conditions.append(
            func.upper(PurchaseOrder.order_no).contains(
                filters.order_no.strip().upper(), autoescape=True
            )
        )
    if filters.requested_by:
        conditions.append(PurchaseOrder.requested_by == filters.requested_by.strip())
    if filters.approved_by:
        conditions.append(PurchaseOrder.approved_by == filters.approved_by.strip())
    if filters.supplier_id is not None:
        conditions.append(PurchaseOrder.supplier_id == filters.supplier_id)
    if filters.supplier_name:
        ids = [h.key for h in master.supplier_index.search(filters.supplier_name)]
        conditions.append(PurchaseOrder.supplier_id.in_(ids))
    part_ids: list[int] = []
    if filters.part_id is not None:
        part_ids.append(filters.part_id)
    if filters.sku:
        found = master.part_id_for_sku(filters.sku)
        part_ids.append(found if found is not None else -1)
    for part_id in part_ids:
        conditions.append(PurchaseOrder.lines.any(PurchaseOrderLine.part_id == part_id))
    if filters.status:
        conditions.append(PurchaseOrder.status == filters.status)
    if filters.date_from:
        conditions.append(PurchaseOrder.order_date >= filters.date_from)
    if filters.date_to:
        conditions.append(PurchaseOrder.order_date <= filters.date_to)
    return conditions
