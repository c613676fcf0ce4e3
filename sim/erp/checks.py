"""Order rules: what makes an order acceptable, and the fix when it is not.

The same rules serve two callers. Create and update (:mod:`sim.erp.orders`) refuse the
first hard violation, as a real ERP does. ``POST /orders/validate``, a dry run that
writes nothing, reports every violation and warning, each with a code, a sentence and
the fix (the quantity to raise to, the earliest date, other active suppliers that sell
the part with their price), and a priced preview of the order, so an agent can show a
buyer what would happen before anyone is asked to approve.

Hard (``severity: "error"``): the supplier exists and is active; each part exists, is
active and is sold by the supplier at a price valid on the order date, in the order's
currency; quantity ≥ the MOQ and a whole number of order steps; the requested delivery
date is not before the order date and can be reached even expedited (order date +
``ceil(lead time × expedite ratio)``). For a change to an order: it exists, is at the
expected version, is not closed or cancelled, the status change is allowed, lines change
only in draft. Soft (``"warning"``): a unit price more than ``price_warning_percent``
above what the company paid on average for the part over the last 12 months; a date
inside the supplier's standard lead time (reachable only expedited); a quantity more than
``quantity_warning_factor`` times the part's usual level (the largest of: its largest
order line in the last 12 months, its stock on hand, its safety stock), a likely typo.

Messages and fixes are English sentences; ``code``, ``details``, ``suggested`` and
``alternatives`` carry the same facts as data, so a client can say them in its
user's language.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, timedelta
from typing import Any, Literal, Protocol

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sim.erp.errors import ErpError, ErrorCode
from sim.erp.masterdata import MasterData
from sim.erp.models import (
    Inventory,
    Part,
    PurchaseOrder,
    PurchaseOrderLine,
    Supplier,
    SupplierPrice,
)
from sim.erp.schemas import LineIn
from sim.erp.views import OfferTerms, PartView, SupplierView, money, offer_terms

__all__ = [
    "Alternative",
    "Checked",
    "Delivery",
    "DraftLike",
    "Issue",
    "IssueCode",
    "PricedLine",
    "Rules",
    "alternatives",
    "check_draft",
    "delivery_issues",
    "line_warnings",
    "price_lines",
    "price_warnings",
    "quantity_warnings",
    "refuse_first",
    "supplier_issue",
]

IssueCode = Literal[
    "SUPPLIER_NOT_FOUND",
    "SUPPLIER_ON_HOLD",
    "SUPPLIER_BLOCKED",
    "PART_NOT_FOUND",
    "PART_INACTIVE",
    "PART_NOT_SUPPLIED",
    "NO_VALID_PRICE",
    "CURRENCY_MISMATCH",
    "BELOW_MOQ",
    "NOT_ORDER_STEP",
    "DATE_BEFORE_ORDER_DATE",
    "DATE_UNREACHABLE",
    "ORDER_NOT_FOUND",
    "ORDER_LOCKED",
    "VERSION_STALE",
    "TRANSITION_NOT_ALLOWED",
    "LINES_LOCKED",
    "NOTHING_TO_CHANGE",
    "PRICE_ABOVE_AVERAGE",
    "DATE_INSIDE_LEAD_TIME",
    "QUANTITY_UNUSUAL",
]
Severity = Literal["error", "warning"]

# The ERP error a hard violation is refused with by create and update.
_ERP_CODE: dict[str, ErrorCode] = {
    "SUPPLIER_NOT_FOUND": "NOT_FOUND",
    "PART_NOT_FOUND": "NOT_FOUND",
    "ORDER_NOT_FOUND": "NOT_FOUND",
    "VERSION_STALE": "VERSION_CONFLICT",
    "ORDER_LOCKED": "INVALID_TRANSITION",
    "TRANSITION_NOT_ALLOWED": "INVALID_TRANSITION",
    "LINES_LOCKED": "INVALID_TRANSITION",
}
_MAX_ALTERNATIVES = 5


@dataclass(frozen=True)
class Rules:
    """The tunable parts of the rules (``SIM_ERP_PRICE_WARNING_PERCENT``,
    ``SIM_ERP_EXPEDITE_RATIO``, ``SIM_ERP_QUANTITY_WARNING_FACTOR``)."""

    price_warning_percent: float = 10.0
    quantity_warning_factor: float = 10.0
    expedite_ratio: float = 0.5
    history_days: int = 365


class Alternative(OfferTerms):
    """Another active supplier that sells the part, with its offer valid on the order date."""

    earliest_date: str


@dataclass(frozen=True)
class Issue:
    """One broken rule: a code, a sentence, the fix, and the same facts as data."""

    code: IssueCode
    severity: Severity
    message: str
    fix: str
    line: int | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    suggested: Mapping[str, Any] = field(default_factory=dict)
    alternatives: tuple[Alternative, ...] = ()

    def view(self) -> dict[str, Any]:
        """The JSON shape of docs/erp_api.md Issue."""
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "fix": self.fix,
            "line": self.line,
            "details": dict(self.details),
            "suggested": dict(self.suggested),
            "alternatives": list(self.alternatives),
        }
        return out

    def error(self) -> ErpError:
        """The refusal create / update answer with when this is the first hard violation."""
        details: dict[str, Any] = {"violation": self.code, **self.details}
        if self.line is not None:
            details["line"] = self.line
        if self.suggested:
            details["suggested"] = dict(self.suggested)
        if self.alternatives:
            details["sold_by"] = [a["supplier_code"] for a in self.alternatives]
        return ErpError(_ERP_CODE.get(self.code, "VALIDATION"), self.message, details)


def refuse_first(issues: Iterable[Issue]) -> None:
    """Raise the first hard violation among ``issues`` as create and update refuse it
    (:meth:`Issue.error`); return when there is none (warnings do not refuse)."""
    for issue in issues:
        if issue.severity == "error":
            raise issue.error()


@dataclass(frozen=True)
class PricedLine:
    """An order line with the price-list row that prices it."""

    index: int
    part: PartView
    quantity: int
    unit_price_minor: int
    lead_time_days: int
    min_order_qty: int
    order_step: int

    @property
    def amount_minor(self) -> int:
        """Quantity × unit price."""
        return self.quantity * self.unit_price_minor

    def view(self, currency: str) -> dict[str, Any]:
        """The preview line of ``POST /orders/validate``."""
        return {
            "line": self.index,
            "part_id": self.part["id"],
            "sku": self.part["sku"],
            "name_zh": self.part["name_zh"],
            "name_en": self.part["name_en"],
            "unit": self.part["unit"],
            "quantity": self.quantity,
            "unit_price_minor": self.unit_price_minor,
            "unit_price": money(self.unit_price_minor),
            "amount_minor": self.amount_minor,
            "amount": money(self.amount_minor),
            "currency": currency,
            "min_order_qty": self.min_order_qty,
            "order_step": self.order_step,
            "lead_time_days": self.lead_time_days,
        }


def _name(supplier: SupplierView) -> str:
    return f"{supplier['name_en']} ({supplier['code']})"


def supplier_issue(master: MasterData, supplier_id: int, row: Supplier | None) -> Issue | None:
    """Why ``supplier_id`` takes no new orders (unknown, on hold, blocked), or None."""
    view = master.suppliers.get(supplier_id)
    if row is None or view is None:
        return Issue(
            "SUPPLIER_NOT_FOUND",
            "error",
            f"There is no supplier with id {supplier_id}.",
            "Pick the supplier again from the ERP's supplier search.",
            details={"supplier_id": supplier_id},
        )
    if row.status == "active":
        return None
    state = row.status.replace("_", " ")
    return Issue(
        "SUPPLIER_BLOCKED" if row.status == "blocked" else "SUPPLIER_ON_HOLD",
        "error",
        f"Supplier {_name(view)} is {state}; it takes no new orders.",
        "Order from another active supplier that sells these parts.",
        details={"supplier_id": supplier_id, "status": row.status},
    )


def alternatives(
    session: Session,
    master: MasterData,
    part_id: int,
    order_date: date,
    *,
    exclude: int | None,
    currency: str | None = None,
) -> tuple[Alternative, ...]:
    """Other active suppliers with a price for ``part_id`` valid on ``order_date``, those in
    ``currency`` first, cheapest first (at most five)."""
    rows = session.scalars(
        select(SupplierPrice).where(
            SupplierPrice.part_id == part_id,
            SupplierPrice.valid_from <= order_date,
            SupplierPrice.valid_to >= order_date,
        )
    ).all()
    found: dict[int, SupplierPrice] = {}
    for sp in rows:
        supplier = master.suppliers.get(sp.supplier_id)
        if sp.supplier_id == exclude or supplier is None or supplier["status"] != "active":
            continue
        best = found.get(sp.supplier_id)
        if best is None or (sp.valid_from, sp.id) > (best.valid_from, best.id):
            found[sp.supplier_id] = sp
    ranked = sorted(found.values(), key=lambda sp: (sp.currency != currency, sp.price_minor, sp.id))
    return tuple(_alternative(sp, master, order_date) for sp in ranked[:_MAX_ALTERNATIVES])


def _alternative(sp: SupplierPrice, master: MasterData, order_date: date) -> Alternative:
    return Alternative(
        **offer_terms(sp, master.suppliers[sp.supplier_id]),
        earliest_date=(order_date + timedelta(days=sp.lead_time_days)).isoformat(),
    )


def _offer_text(alts: Sequence[Alternative]) -> str:
    return ", ".join(f"{a['supplier_code']} at {a['price']} {a['currency']}" for a in alts[:3])


def _or_elsewhere(alts: Sequence[Alternative]) -> str:
    return f", or order from {_offer_text(alts)}" if alts else ""


@dataclass
class _LineContext:
    """What every line of one order is checked against."""

    session: Session
    master: MasterData
    supplier: SupplierView
    order_date: date
    currency: str
    parts: dict[int, Part]
    offers: dict[int, list[SupplierPrice]]

    def others(self, part_id: int) -> tuple[Alternative, ...]:
        return alternatives(
            self.session,
            self.master,
            part_id,
            self.order_date,
            exclude=self.supplier["id"],
            currency=self.currency,
        )


def price_lines(
    session: Session,
    master: MasterData,
    supplier: SupplierView,
    lines: Sequence[LineIn],
    order_date: date,
    currency: str,
) -> tuple[list[PricedLine], list[Issue]]:
    """Each line priced from the supplier's price list, and every rule a line breaks.

    A line that cannot be priced (unknown or inactive part, not sold, no valid price,
    other currency) has an issue and no priced line; one below the MOQ or off the order
    step is priced and has an issue.
    """
    ids = [line.part_id for line in lines]
    offers: dict[int, list[SupplierPrice]] = {}
    for sp in session.scalars(
        select(SupplierPrice).where(
            SupplierPrice.supplier_id == supplier["id"], SupplierPrice.part_id.in_(ids)
        )
    ):
        offers.setdefault(sp.part_id, []).append(sp)
    ctx = _LineContext(
        session,
        master,
        supplier,
        order_date,
        currency,
        {p.id: p for p in session.scalars(select(Part).where(Part.id.in_(ids)))},
        offers,
    )
    priced: list[PricedLine] = []
    issues: list[Issue] = []
    for n, line in enumerate(lines):
        offer, problem = _offer_for(ctx, n, line)
        if problem is not None:
            issues.append(problem)
        if offer is None:
            continue
        item = PricedLine(
            n,
            master.parts[line.part_id],
            line.quantity,
            offer.price_minor,
            offer.lead_time_days,
            offer.min_order_qty,
            offer.order_step,
        )
        priced.append(item)
        issues.extend(_quantity_issues(ctx, item))
    return priced, issues


def _offer_for(
    ctx: _LineContext, n: int, line: LineIn
) -> tuple[SupplierPrice | None, Issue | None]:
    """The price-list row that prices ``line``, or why there is none."""
    where = {"part_id": line.part_id}
    part = ctx.parts.get(line.part_id)
    if part is None:
        return None, Issue(
            "PART_NOT_FOUND",
            "error",
            f"There is no part with id {line.part_id}.",
            "Pick the part again from the ERP's part search.",
            n,
            where,
        )
    if not part.active:
        return None, Issue(
            "PART_INACTIVE",
            "error",
            f"Part {part.sku} is no longer active.",
            "Choose a current part of the same kind.",
            n,
            where | {"sku": part.sku},
        )
    name = _name(ctx.supplier)
    rows = ctx.offers.get(line.part_id)
    if not rows:
        others = ctx.others(line.part_id)
        sold_by = ", ".join(a["supplier_code"] for a in others)
        return None, Issue(
            "PART_NOT_SUPPLIED",
            "error",
            f"{name} does not sell part {part.sku}; it is sold by {sold_by}."
            if others
            else f"{name} does not sell part {part.sku}.",
            f"Order {part.sku} from {_offer_text(others)}."
            if others
            else "No active supplier sells this part; choose another part.",
            n,
            where | {"sku": part.sku},
            alternatives=others,
        )
    valid = [sp for sp in rows if sp.valid_from <= ctx.order_date <= sp.valid_to]
    if not valid:
        latest = max(rows, key=lambda sp: sp.valid_to)
        others = ctx.others(line.part_id)
        return None, Issue(
            "NO_VALID_PRICE",
            "error",
            f"{name} has no price for {part.sku} valid on {ctx.order_date.isoformat()}: its "
            f"price list runs from {latest.valid_from.isoformat()} to "
            f"{latest.valid_to.isoformat()}.",
            "Ask purchasing to renew the price list" + _or_elsewhere(others) + ".",
            n,
            where
            | {
                "sku": part.sku,
                "valid_from": latest.valid_from.isoformat(),
                "valid_to": latest.valid_to.isoformat(),
            },
            alternatives=others,
        )
    offer = max(valid, key=lambda sp: (sp.valid_from, sp.id))
    if offer.currency != ctx.currency:
        return None, Issue(
            "CURRENCY_MISMATCH",
            "error",
            f"{name} prices {part.sku} in {offer.currency}, but this order is in "
            f"{ctx.currency}; one order takes one currency.",
            f"Place the order in {offer.currency}, or put this part on a separate order.",
            n,
            where | {"sku": part.sku, "price_currency": offer.currency},
            suggested={"currency": offer.currency},
        )
    return offer, None


def _round_up(quantity: int, step: int) -> int:
    return math.ceil(quantity / step) * step


def _quantity_issues(ctx: _LineContext, item: PricedLine) -> list[Issue]:
    part, qty, unit = item.part, item.quantity, item.part["unit"]
    where = {"part_id": part["id"], "sku": part["sku"], "quantity": qty}
    moq, step = item.min_order_qty, item.order_step
    if qty < moq:
        raise_to = _round_up(moq, step)
        others = tuple(
            a
            for a in ctx.others(part["id"])
            if a["min_order_qty"] <= qty and qty % a["order_step"] == 0
        )
        return [
            Issue(
                "BELOW_MOQ",
                "error",
                f"{_name(ctx.supplier)} sells {part['sku']} in quantities of at least {moq} "
                f"{unit}; {qty} is below that minimum order quantity.",
                f"Raise the quantity to {raise_to} {unit}{_or_elsewhere(others)}.",
                item.index,
                where | {"min_order_qty": moq, "order_step": step},
                {"quantity": raise_to},
                others,
            )
        ]
    if qty % step:
        up, down = _round_up(qty, step), qty - qty % step
        choices = f"{up}" if down < moq else f"{down} or {up}"
        return [
            Issue(
                "NOT_ORDER_STEP",
                "error",
                f"{_name(ctx.supplier)} sells {part['sku']} in steps of {step} {unit} above the "
                f"minimum of {moq}; {qty} is not a whole number of steps.",
                f"Order {choices} {unit} instead.",
                item.index,
                where | {"min_order_qty": moq, "order_step": step},
                {"quantity": up},
            )
        ]
    return []


@dataclass(frozen=True)
class Delivery:
    """When the goods can arrive: standard lead time, and expedited."""

    earliest: date | None
    expedited: date | None
    issues: list[Issue]


def delivery_issues(
    session: Session,
    master: MasterData,
    rules: Rules,
    *,
    supplier: SupplierView,
    priced: Sequence[PricedLine],
    order_date: date,
    expected: date | None,
) -> Delivery:
    """The earliest dates for ``priced`` and what is wrong with ``expected``, if anything."""
    if expected is not None and expected < order_date:
        return Delivery(
            None,
            None,
            [
                Issue(
                    "DATE_BEFORE_ORDER_DATE",
                    "error",
                    f"The expected date {expected.isoformat()} is before the order date "
                    f"{order_date.isoformat()}.",
                    "Choose a delivery date after the order date.",
                    details={
                        "expected_date": expected.isoformat(),
                        "order_date": order_date.isoformat(),
                    },
                )
            ],
        )
    if not priced:
        return Delivery(None, None, [])
    slowest = max(priced, key=lambda p: p.lead_time_days)
    lead = slowest.lead_time_days
    earliest = order_date + timedelta(days=lead)
    expedited = order_date + timedelta(days=math.ceil(lead * rules.expedite_ratio))
    if expected is None or expected >= earliest:
        return Delivery(earliest, expedited, [])
    facts = {
        "expected_date": expected.isoformat(),
        "earliest_date": earliest.isoformat(),
        "expedited_date": expedited.isoformat(),
        "lead_time_days": lead,
        "sku": slowest.part["sku"],
    }
    if expected >= expedited:
        warning = Issue(
            "DATE_INSIDE_LEAD_TIME",
            "warning",
            f"{expected.isoformat()} is inside {_name(supplier)}'s lead time of {lead} days for "
            f"{slowest.part['sku']}: it arrives by then only if the supplier expedites.",
            f"Confirm expediting with the supplier, or accept {earliest.isoformat()}.",
            details=facts,
            suggested={"expected_date": earliest.isoformat()},
        )
        return Delivery(earliest, expedited, [warning])
    faster = tuple(
        a
        for a in alternatives(
            session, master, slowest.part["id"], order_date, exclude=supplier["id"]
        )
        if a["earliest_date"] <= expected.isoformat()
    )
    unreachable = Issue(
        "DATE_UNREACHABLE",
        "error",
        f"Delivery by {expected.isoformat()} cannot be reached: {_name(supplier)} needs "
        f"{lead} days for {slowest.part['sku']}, so the earliest is {earliest.isoformat()} "
        f"({expedited.isoformat()} if expedited).",
        f"Choose {earliest.isoformat()} or later{_or_elsewhere(faster)}.",
        details=facts,
        suggested={"expected_date": earliest.isoformat()},
        alternatives=faster,
    )
    return Delivery(earliest, expedited, [unreachable])


def price_warnings(
    session: Session,
    master: MasterData,
    rules: Rules,
    *,
    supplier: SupplierView,
    priced: Sequence[PricedLine],
    order_date: date,
    currency: str,
) -> list[Issue]:
    """A warning per line priced more than the set percentage above the quantity-weighted
    average the company paid for that part (any supplier, same currency, not cancelled)
    over the last 12 months; cheaper active suppliers as alternatives."""
    since = order_date - timedelta(days=rules.history_days)
    warnings: list[Issue] = []
    for item in priced:
        spent, units = session.execute(
            select(
                func.sum(PurchaseOrderLine.quantity * PurchaseOrderLine.unit_price_minor),
                func.sum(PurchaseOrderLine.quantity),
            )
            .join(PurchaseOrder, PurchaseOrder.id == PurchaseOrderLine.order_id)
            .where(
                PurchaseOrderLine.part_id == item.part["id"],
                PurchaseOrder.currency == currency,
                PurchaseOrder.status != "cancelled",
                PurchaseOrder.order_date >= since,
                PurchaseOrder.order_date < order_date,
            )
        ).one()
        if not units:
            continue
        average = round(spent / units)
        limit = average * (1 + rules.price_warning_percent / 100)
        if item.unit_price_minor <= limit:
            continue
        above = round((item.unit_price_minor / average - 1) * 100, 1)
        cheaper = tuple(
            a
            for a in alternatives(
                session, master, item.part["id"], order_date, exclude=supplier["id"]
            )
            if a["currency"] == currency and a["price_minor"] < item.unit_price_minor
        )
        warnings.append(
            Issue(
                "PRICE_ABOVE_AVERAGE",
                "warning",
                f"{item.part['sku']} at {money(item.unit_price_minor)} {currency} is {above}% "
                f"above the last 12 months' average of {money(average)} {currency}.",
                "Check the price with the supplier" + _or_elsewhere(cheaper) + ".",
                item.index,
                {
                    "sku": item.part["sku"],
                    "unit_price_minor": item.unit_price_minor,
                    "average_price_minor": average,
                    "average_price": money(average),
                    "percent_above": above,
                    "threshold_percent": rules.price_warning_percent,
                },
                alternatives=cheaper,
            )
        )
    return warnings


def _times(quantity: int, usual: int) -> float:
    """``quantity / usual`` rounded down to one decimal (never shown above what it is)."""
    return (quantity * 10 // usual) / 10


@dataclass(frozen=True)
class _Usual:
    """What a part's usual quantity is read from."""

    largest_order_qty: int
    on_hand: int
    safety_stock: int

    @property
    def level(self) -> int:
        return max(self.largest_order_qty, self.on_hand, self.safety_stock)


def _usual_levels(
    session: Session, rules: Rules, part_ids: Sequence[int], order_date: date
) -> dict[int, _Usual]:
    """Per part: its largest quantity on one order line (any supplier, not cancelled) in the
    12 months before ``order_date``, its stock on hand and safety stock (0 when unknown)."""
    since = order_date - timedelta(days=rules.history_days)
    rows = session.execute(
        select(PurchaseOrderLine.part_id, func.max(PurchaseOrderLine.quantity))
        .join(PurchaseOrder, PurchaseOrder.id == PurchaseOrderLine.order_id)
        .where(
            PurchaseOrderLine.part_id.in_(part_ids),
            PurchaseOrder.status != "cancelled",
            PurchaseOrder.order_date >= since,
            PurchaseOrder.order_date < order_date,
        )
        .group_by(PurchaseOrderLine.part_id)
    )
    largest: dict[int, int] = {part_id: most for part_id, most in rows}
    stock = {
        inv.part_id: inv
        for inv in session.scalars(select(Inventory).where(Inventory.part_id.in_(part_ids)))
    }
    out: dict[int, _Usual] = {}
    for part_id in part_ids:
        inv = stock.get(part_id)
        out[part_id] = _Usual(
            largest.get(part_id) or 0,
            inv.on_hand if inv else 0,
            inv.safety_stock if inv else 0,
        )
    return out


def quantity_warnings(
    session: Session, rules: Rules, *, priced: Sequence[PricedLine], order_date: date
) -> list[Issue]:
    """A warning per line whose quantity is more than the set factor times the part's usual
    level: the largest of its largest quantity on one order line (any supplier, not
    cancelled) in the 12 months before ``order_date``, its stock on hand and its safety
    stock. A part with none of these (all 0) has nothing to compare with: no warning."""
    if not priced:
        return []
    levels = _usual_levels(session, rules, [item.part["id"] for item in priced], order_date)
    factor = rules.quantity_warning_factor
    warnings: list[Issue] = []
    for item in priced:
        part, qty = item.part, item.quantity
        seen = levels[part["id"]]
        usual = seen.level
        if usual <= 0 or qty <= usual * factor:
            continue
        times = _times(qty, usual)
        unit = part["unit"]
        warnings.append(
            Issue(
                "QUANTITY_UNUSUAL",
                "warning",
                f"{qty} {unit} of {part['sku']} is {times:g} times its usual level of {usual} "
                f"{unit} (largest order line in the last 12 months: {seen.largest_order_qty}; "
                f"on hand: {seen.on_hand}; safety stock: {seen.safety_stock}).",
                f"Check the quantity: {qty} is {times:g} times the usual {usual}; make sure "
                "no extra zero was typed.",
                item.index,
                {
                    "part_id": part["id"],
                    "sku": part["sku"],
                    "quantity": qty,
                    "usual": usual,
                    "largest_order_qty": seen.largest_order_qty,
                    "on_hand": seen.on_hand,
                    "safety_stock": seen.safety_stock,
                    "factor": factor,
                    "times": times,
                },
            )
        )
    return warnings


def line_warnings(
    session: Session,
    master: MasterData,
    rules: Rules,
    *,
    supplier: SupplierView,
    priced: Sequence[PricedLine],
    order_date: date,
    currency: str,
) -> list[Issue]:
    """The soft rules on the lines: a price above the 12-month average
    (:func:`price_warnings`), a quantity far above the part's usual
    (:func:`quantity_warnings`)."""
    return price_warnings(
        session,
        master,
        rules,
        supplier=supplier,
        priced=priced,
        order_date=order_date,
        currency=currency,
    ) + quantity_warnings(session, rules, priced=priced, order_date=order_date)


@dataclass
class Checked:
    """An order as the rules see it: priced lines, dates, and every issue found."""

    kind: Literal["create", "update"]
    supplier: SupplierView | None
    currency: str | None
    order_date: date | None
    expected_date: date | None
    lines: list[PricedLine]
    issues: list[Issue]
    status: str | None = None
    delivery: Delivery | None = None
    current: Mapping[str, Any] | None = None

    def errors(self) -> list[Issue]:
        """The hard violations, in the order they were found."""
        return [i for i in self.issues if i.severity == "error"]

    def answer(self) -> dict[str, Any]:
        """The answer of ``POST /orders/validate`` (docs/erp_api.md Validation)."""
        supplier = self.supplier
        total = sum(p.amount_minor for p in self.lines)
        delivery = self.delivery
        earliest = delivery.earliest if delivery else None
        expedited = delivery.expedited if delivery else None
        return {
            "kind": self.kind,
            "ok": not self.errors(),
            "violations": [i.view() for i in self.issues if i.severity == "error"],
            "warnings": [i.view() for i in self.issues if i.severity == "warning"],
            "order": {
                "supplier": {
                    k: supplier[k]
                    for k in ("id", "code", "name_zh", "name_en", "status", "currency")
                }
                if supplier
                else None,
                "status": self.status,
                "currency": self.currency,
                "order_date": self.order_date.isoformat() if self.order_date else None,
                "expected_date": self.expected_date.isoformat() if self.expected_date else None,
                "earliest_date": earliest.isoformat() if earliest else None,
                "expedited_date": expedited.isoformat() if expedited else None,
                "lines": [p.view(self.currency or "") for p in self.lines],
                "total_minor": total,
                "total": money(total),
            },
            "current": dict(self.current) if self.current is not None else None,
        }


class DraftLike(Protocol):
    """What :func:`check_draft` reads from an OrderCreate or OrderDraft."""

    supplier_id: int
    lines: list[LineIn]
    currency: str | None
    order_date: date | None
    expected_date: date | None
    approved_by: str | None
    submit: bool


def check_draft(
    session: Session,
    master: MasterData,
    rules: Rules,
    draft: DraftLike,
    today: date,
    *,
    warnings: bool,
) -> Checked:
    """Every rule a new order breaks (``warnings``: the soft ones too), and its preview."""
    status = "approved" if draft.approved_by else "pending_approval" if draft.submit else "draft"
    problem = supplier_issue(master, draft.supplier_id, session.get(Supplier, draft.supplier_id))
    supplier = master.suppliers.get(draft.supplier_id)
    order_date = draft.order_date or today
    if supplier is None:
        assert problem is not None
        return Checked(
            "create", None, draft.currency, order_date, draft.expected_date, [], [problem], status
        )
    currency = draft.currency or supplier["currency"]
    priced, issues = price_lines(session, master, supplier, draft.lines, order_date, currency)
    if problem is not None:
        # Name who else sells the first part, so the fix is concrete.
        others = alternatives(
            session,
            master,
            draft.lines[0].part_id,
            order_date,
            exclude=supplier["id"],
            currency=currency,
        )
        fix = f"Order from {_offer_text(others)} instead." if others else problem.fix
        issues.insert(0, replace(problem, fix=fix, alternatives=others))
    delivery = delivery_issues(
        session,
        master,
        rules,
        supplier=supplier,
        priced=priced,
        order_date=order_date,
        expected=draft.expected_date,
    )
    issues.extend(delivery.issues)
    if warnings:
        issues.extend(
            line_warnings(
                session,
                master,
                rules,
                supplier=supplier,
                priced=priced,
                order_date=order_date,
                currency=currency,
            )
        )
    return Checked(
        "create",
        supplier,
        currency,
        order_date,
        draft.expected_date,
        priced,
        issues,
        status,
        delivery,
    )
