"""``POST /orders/validate``: the dry run of a new order or of a change, writing nothing.

A new order is checked by the same rules create refuses with
(:func:`sim.erp.checks.check_draft`). A change is checked as update would apply it:
the order must exist, be at the expected version (when one is sent), not be closed or
cancelled; the status change must be one the state machine allows; lines change only
in draft and are priced like a new order's; a new delivery date must be reachable from
the order's date. Both run in a read transaction that is rolled back.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy.orm import Session, selectinload

from sim.erp.checks import (
    Checked,
    Issue,
    PricedLine,
    Rules,
    check_draft,
    delivery_issues,
    line_warnings,
    price_lines,
    supplier_issue,
)
from sim.erp.db import Database
from sim.erp.errors import ErpError
from sim.erp.masterdata import MasterData
from sim.erp.models import PurchaseOrder, Supplier
from sim.erp.orders import TRANSITIONS, changed_fields, current_lines, find_order
from sim.erp.schemas import OrderChange, OrderDraft
from sim.erp.views import order_view

__all__ = ["validate_change", "validate_draft"]


def validate_draft(
    db: Database, master: MasterData, rules: Rules, draft: OrderDraft, today: date
) -> dict[str, Any]:
    """The Validation answer for a new order."""
    with db.read() as session:
        return check_draft(session, master, rules, draft, today, warnings=True).answer()


def validate_change(
    db: Database, master: MasterData, rules: Rules, change: OrderChange
) -> dict[str, Any]:
    """The Validation answer for a change to an existing order."""
    with db.read() as session:
        try:
            order_id, _no, _version = find_order(session, str(change.order_id))
        except ErpError as err:
            missing = Issue(
                "ORDER_NOT_FOUND",
                "error",
                err.message,
                "Look the order up again by its order number.",
                details=dict(err.details),
            )
            return Checked("update", None, None, None, None, [], [missing]).answer()
        order = session.get(PurchaseOrder, order_id, options=[selectinload(PurchaseOrder.lines)])
        assert order is not None
        return _check_change(session, master, rules, order, change).answer()


def _state_issues(order: PurchaseOrder, change: OrderChange, changing: set[str]) -> list[Issue]:
    """What update would refuse before touching anything: nothing to change, a stale
    version, a closed order, a status change the state machine forbids."""
    where = {"order_no": order.order_no, "status": order.status}
    if not changing:
        return [
            Issue(
                "NOTHING_TO_CHANGE",
                "error",
                "Nothing to change: send at least one of status, lines, expected_date or note.",
                "Say what should change.",
                details=where,
            )
        ]
    issues: list[Issue] = []
    if change.expected_version is not None and change.expected_version != order.version:
        issues.append(
            Issue(
                "VERSION_STALE",
                "error",
                f"Order {order.order_no} has changed since you read it (it is at version "
                f"{order.version}, you sent {change.expected_version}).",
                "Read the order again and decide on its current state.",
                details=where | {"current_version": order.version},
                suggested={"expected_version": order.version},
            )
        )
    if order.status in ("closed", "cancelled"):
        issues.append(
            Issue(
                "ORDER_LOCKED",
                "error",
                f"Order {order.order_no} is {order.status}; a {order.status} order cannot be "
                "changed.",
                "Place a new order instead.",
                details=where,
            )
        )
        return issues
    target = change.status
    if target is not None and target != order.status and target not in TRANSITIONS[order.status]:
        allowed = TRANSITIONS[order.status]
        issues.append(
            Issue(
                "TRANSITION_NOT_ALLOWED",
                "error",
                f"Order {order.order_no} cannot go from {order.status} to {target}; from "
                f"{order.status} it can go to {' or '.join(allowed) or 'nothing'}.",
                "Choose one of the allowed next states."
                if allowed
                else "The order cannot change any more.",
                details=where | {"to": target, "allowed": list(allowed)},
            )
        )
    if "lines" in changing and order.status != "draft":
        issues.append(
            Issue(
                "LINES_LOCKED",
                "error",
                f"Lines can be changed only while an order is a draft; order {order.order_no} "
                f"is {order.status.replace('_', ' ')}.",
                "Cancel this order and place a new one with the lines you need.",
                details=where,
            )
        )
    return issues


def _check_change(
    session: Session, master: MasterData, rules: Rules, order: PurchaseOrder, change: OrderChange
) -> Checked:
    changing = changed_fields(change)
    issues = _state_issues(order, change, changing)
    supplier = master.suppliers[order.supplier_id]
    priced: list[PricedLine]
    if change.lines is not None and order.status == "draft":
        problem = supplier_issue(master, supplier["id"], session.get(Supplier, supplier["id"]))
        if problem is not None:
            issues.append(problem)
        priced, line_issues = price_lines(
            session, master, supplier, change.lines, order.order_date, order.currency
        )
        issues.extend(line_issues)
        issues.extend(
            line_warnings(
                session,
                master,
                rules,
                supplier=supplier,
                priced=priced,
                order_date=order.order_date,
                currency=order.currency,
            )
        )
    else:
        priced = current_lines(session, master, order)
    expected = change.expected_date if "expected_date" in changing else order.expected_date
    delivery = delivery_issues(
        session,
        master,
        rules,
        supplier=supplier,
        priced=priced,
        order_date=order.order_date,
        expected=change.expected_date if "expected_date" in changing else None,
    )
    issues.extend(delivery.issues)
    current = order_view(order, supplier, master.parts)
    return Checked(
        "update",
        supplier,
        order.currency,
        order.order_date,
        expected,
        priced,
        issues,
        change.status or order.status,
        delivery,
        current,
    )
