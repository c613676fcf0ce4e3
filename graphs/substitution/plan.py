"""Which BOM lines a request affects, and the equivalent each one gets (issue 19).

A :class:`Selector` says what to replace (brands, suppliers, categories, parts, or the parts
that can no longer be bought); a :class:`Target` what to replace it with (a brand, a
supplier, or anything else). For each BOM line the ERP gives the part it is
(``part_equivalents``' ``part``), the part's current offers (``part_query``) and its
cross-reference (``part_equivalents``' ``equivalents``). :func:`build_plan` keeps the lines
the selector matches and picks, per line, the best equivalent: exact before partial, one
with a current offer before one without, then one whose minimum order the line's quantity
meets, then the cheapest, then the shortest lead time, then the most in stock. Lines the
selector does not match are left out of the plan (and never touched). Everything here is
pure: the ERP answers come in as data.
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NotRequired, TypedDict

from graphs.substitution.bom import Bom, BomLine

__all__ = [
    "ErpLine",
    "Plan",
    "PlanRow",
    "RowStatus",
    "Selector",
    "Target",
    "build_plan",
    "changes_of",
    "matches",
    "order_quantity",
]

RowStatus = Literal["exact", "partial", "none", "not_found", "ambiguous", "error"]
Record = Mapping[str, Any]

_PART_FIELDS = ("id", "sku", "model", "name_zh", "name_en", "brand", "brand_zh", "category_code",
                "category_zh", "category_en", "unit")  # fmt: skip
_OFFER_FIELDS = ("supplier_id", "supplier_code", "supplier_name_zh", "supplier_name_en",
                 "supplier_status", "price_minor", "currency", "min_order_qty", "order_step",
                 "lead_time_days")  # fmt: skip
_INACTIVE = ("blocked", "on_hold", "inactive")
_CJK = re.compile(r"[\u4e00-\u9fff]")


class PlanRow(TypedDict):
    """One affected BOM line and what replaces it (``new`` is None when nothing does)."""

    line: str
    qty: float | None
    bom_part: str
    description: str
    status: RowStatus
    old: dict[str, Any] | None
    new: dict[str, Any] | None
    same: list[str]
    different: dict[str, Any]
    old_offer: dict[str, Any] | None
    new_offer: dict[str, Any] | None
    available: int | None
    note: str


class Plan(TypedDict):
    """A replacement plan: the affected lines, what was asked, how many lines stay as they are."""

    plan_id: str
    product: str
    source: str
    lang: Literal["zh", "en"]
    asked: dict[str, Any]
    rows: list[PlanRow]
    untouched: int
    lines_total: int
    other_brands: NotRequired[list[str]]


@dataclass(frozen=True)
class Selector:
    """What to replace: every dimension given must match (any of its terms)."""

    brands: Sequence[str] = ()
    suppliers: Sequence[str] = ()
    categories: Sequence[str] = ()
    parts: Sequence[str] = ()
    unavailable: bool = False  # parts with no current offer (discontinued, price list expired)

    @property
    def empty(self) -> bool:
        """Whether nothing was said about what to replace."""
        return not (self.brands or self.suppliers or self.categories or self.parts
                    or self.unavailable)  # fmt: skip


@dataclass(frozen=True)
class Target:
    """What to replace with: a brand and/or a supplier (neither: any other brand)."""

    brand: str | None = None
    supplier: str | None = None


@dataclass
class ErpLine:
    """What the ERP said about one BOM line's part."""

    part: Record | None = None
    equivalents: list[Record] = field(default_factory=list)
    offers: list[Record] = field(default_factory=list)
    error: str = ""
    status: RowStatus | None = None  # not_found / ambiguous / error when the part is unknown


def _norm(text: Any) -> str:
    return re.sub(r"[\s_\-./]+", "", str(text or "").casefold())


def _word(term: str, value: str) -> bool:
    """``term`` as a whole word of ``value`` (a plural term names its singular)."""
    for t in dict.fromkeys((term, term.removesuffix("es"), term.removesuffix("s"))):
        if len(t) >= 2 and re.search(rf"(?<![a-z0-9]){re.escape(t)}(?:s|es)?(?![a-z0-9])", value):
            return True
    return False


def matches(term: str, values: Iterable[Any]) -> bool:
    """Whether ``term`` names one of ``values``: the same name (case, spaces and punctuation
    ignored), a whole word of it ("NGK" in "NGK Spark Plug Co.", "pads" in "Brake Pad"), or,
    in Chinese, a part of it ("博世" in "博世火花塞")."""
    t = str(term or "").casefold().strip()
    nt = _norm(t)
    if not nt:
        return False
    for value in values:
        v = str(value or "").casefold()
        nv = _norm(v)
        if not nv:
            continue
        if nt in (nv, nv + "s", nv + "es") or _word(t, v):
            return True
        if _CJK.search(nt) and len(nt) >= 2 and nt in nv:
            return True
    return False


def _brand_names(part: Record) -> list[Any]:
    return [part.get("brand"), part.get("brand_zh")]


def _offer_names(offer: Record) -> list[Any]:
    return [
        offer.get("supplier_code"),
        offer.get("supplier_name_zh"),
        offer.get("supplier_name_en"),
    ]


def _current(offers: Iterable[Record]) -> list[Record]:
    return [o for o in offers if str(o.get("supplier_status") or "active") not in _INACTIVE]


def _affected(line: BomLine, erp: ErpLine, sel: Selector) -> bool:
    part = erp.part or {}
    if sel.parts and not any(
        matches(p, [line.part, part.get("sku"), part.get("model")]) for p in sel.parts
    ):
        return False
    if sel.brands and not any(matches(b, _brand_names(part)) for b in sel.brands):
        return False
    cats = [part.get("category_code"), part.get("category_zh"), part.get("category_en")]
    if sel.categories and not any(matches(c, cats) for c in sel.categories):
        return False
    names = [n for o in erp.offers for n in _offer_names(o)]
    if sel.suppliers and not any(matches(s, names) for s in sel.suppliers):
        return False
    return not (sel.unavailable and _current(erp.offers))


def _usable_offers(eq: Record, sel: Selector, target: Target, qty: float | None) -> list[Record]:
    """The offers a buyer could use, best first: one the line's quantity meets (MOQ), then
    the cheapest, then the shortest lead time."""
    offers = _current(eq.get("offers") or [])
    if target.supplier:
        offers = [o for o in offers if matches(target.supplier, _offer_names(o))]
    if sel.suppliers:  # "from another supplier": not from the one being replaced
        offers = [o for o in offers if not any(matches(s, _offer_names(o)) for s in sel.suppliers)]

    def key(o: Record) -> tuple[int, int, int]:
        below_moq = qty is not None and qty < int(o.get("min_order_qty") or 0)
        return (int(below_moq), int(o.get("price_minor") or 0), int(o.get("lead_time_days") or 0))

    return sorted(offers, key=key)


def _rank(eq: Record, offers: list[Record], qty: float | None) -> tuple[int, ...]:
    best = offers[0] if offers else {}
    stock = (eq.get("stock") or {}).get("available")
    return (
        0 if eq.get("match") == "exact" else 1,
        0 if offers else 1,
        int(qty is not None and qty < int(best.get("min_order_qty") or 0)),
        int(best.get("price_minor") or 0),
        int(best.get("lead_time_days") or 0),
        -int(stock or 0),
    )


def _pick(
    erp: ErpLine, sel: Selector, target: Target, qty: float | None
) -> tuple[Record, list[Record]] | None:
    old_brand = _brand_names(erp.part or {})
    found = []
    for eq in erp.equivalents:
        part = eq.get("part") or {}
        if target.brand and not matches(target.brand, _brand_names(part)):
            continue
        if sel.brands and any(matches(b, _brand_names(part)) for b in sel.brands):
            continue  # replacing a brand: never by the same brand
        if not target.brand and any(_norm(b) and _norm(b) == _norm(o) for b, o in
                                    zip(_brand_names(part), old_brand, strict=True)):  # fmt: skip
            continue
        offers = _usable_offers(eq, sel, target, qty)
        if target.supplier and not offers:
            continue
        found.append((eq, offers))
    if not found:
        return None
    return min(found, key=lambda pair: _rank(pair[0], pair[1], qty))


def _slim(record: Record | None, fields: Sequence[str]) -> dict[str, Any] | None:
    if not record:
        return None
    return {k: record[k] for k in fields if k in record}


def _row(line: BomLine, erp: ErpLine, sel: Selector, target: Target) -> PlanRow:
    base = line.to_json()
    old_offers = sorted(_current(erp.offers), key=lambda o: int(o.get("price_minor") or 0))
    row: PlanRow = {
        "line": line.line, "qty": base["qty"], "bom_part": line.part,
        "description": line.description, "status": erp.status or "none",
        "old": _slim(erp.part, _PART_FIELDS), "new": None, "same": [], "different": {},
        "old_offer": _slim(old_offers[0] if old_offers else None, _OFFER_FIELDS),
        "new_offer": None, "available": None, "note": erp.error,
    }  # fmt: skip
    if erp.status is not None:
        return row
    chosen = _pick(erp, sel, target, line.qty)
    if chosen is None:
        return row
    eq, offers = chosen
    stock = (eq.get("stock") or {}).get("available")
    row["status"] = "exact" if eq.get("match") == "exact" else "partial"
    row["new"] = _slim(eq.get("part"), _PART_FIELDS)
    row["same"] = [str(s) for s in eq.get("same") or []]
    row["different"] = dict(eq.get("different") or {})
    row["new_offer"] = _slim(offers[0] if offers else None, _OFFER_FIELDS)
    row["available"] = int(stock) if isinstance(stock, int | float) else None
    return row


def _other_brands(rows: list[PlanRow], erps: Mapping[str, ErpLine], target: Target) -> list[str]:
    """Brands that do have equivalents for the lines the named target brand could not cover."""
    if not target.brand:
        return []
    brands: list[str] = []
    for row in rows:
        if row["status"] != "none":
            continue
        for eq in erps[row["bom_part"]].equivalents:
            brand = str((eq.get("part") or {}).get("brand") or "")
            if brand and brand not in brands:
                brands.append(brand)
    return brands


def build_plan(
    bom: Bom,
    erp: Mapping[str, ErpLine],
    selector: Selector,
    target: Target,
    *,
    lang: Literal["zh", "en"],
) -> Plan:
    """The plan for ``bom`` from the ERP's answers (``erp``, keyed by the part as the BOM
    writes it).

    A line whose part the ERP does not know (or knows ambiguously) is in the plan only when
    the selector's words are in its part number or description; it is flagged, never
    guessed.
    """
    rows: list[PlanRow] = []
    for line in bom.lines:
        answer = erp.get(line.part) or ErpLine(status="error", error="no ERP answer")
        if answer.status is not None:
            # The ERP cannot say what this part is: the BOM's own words may.
            terms = [*selector.parts, *selector.brands, *selector.categories, *selector.suppliers]
            if any(matches(t, [line.part, line.description]) for t in terms):
                rows.append(_row(line, answer, selector, target))
            continue
        if _affected(line, answer, selector):
            rows.append(_row(line, answer, selector, target))
    plan: Plan = {
        "plan_id": uuid.uuid4().hex[:12],
        "product": bom.product,
        "source": bom.source,
        "lang": lang,
        "asked": {
            "brands": list(selector.brands),
            "suppliers": list(selector.suppliers),
            "categories": list(selector.categories),
            "parts": list(selector.parts),
            "unavailable": selector.unavailable,
            "target_brand": target.brand,
            "target_supplier": target.supplier,
        },
        "rows": rows,
        "untouched": len(bom.lines) - len(rows),
        "lines_total": len(bom.lines),
    }
    others = _other_brands(rows, erp, target)
    if others:
        plan["other_brands"] = others
    return plan


def order_quantity(qty: float | None, offer: Record) -> int | None:
    """The smallest quantity of ``offer`` that covers ``qty``: at least the minimum order,
    then in whole order steps above it (None without a quantity)."""
    if qty is None:
        return None
    need = math.ceil(qty)
    moq = max(int(offer.get("min_order_qty") or 1), 1)
    step = max(int(offer.get("order_step") or 1), 1)
    if need <= moq:
        return moq
    return moq + math.ceil((need - moq) / step) * step


def changes_of(plan: Plan, lines: Iterable[str] | None = None) -> list[dict[str, Any]]:
    """The line changes a plan makes (only lines with an equivalent; only ``lines`` if given):
    ``{"line", "old_part", "new_part", "new_sku", "qty", "supplier", "order_qty"}``.
    ``old_part`` is the part as the BOM writes it, ``new_part`` the equivalent written the
    same way (a model number, or the SKU for a BOM of SKUs); ``order_qty`` what to order of
    it from ``supplier`` to cover ``qty`` (:func:`order_quantity`)."""
    keep = {str(x) for x in lines} if lines is not None else None
    changes = []
    for row in plan["rows"]:
        new = row["new"]
        if new is None or (keep is not None and row["line"] not in keep):
            continue
        old = row["old"] or {}
        # Written as the BOM writes parts; a model number another brand shares
        # (Bosch CPR7EA-9 → Denso CPR7EA-9) would change nothing, so the SKU then.
        model = str(new.get("model") or "")
        by_sku = _norm(row["bom_part"]) in (_norm(old.get("sku")), _norm(model)) or not model
        offer = row["new_offer"] or {}
        changes.append({
            "line": row["line"], "old_part": row["bom_part"],
            "new_part": str(new.get("sku") if by_sku else model),
            "new_sku": new.get("sku"), "qty": row["qty"],
            "supplier": offer.get("supplier_code"),
            "order_qty": order_quantity(row["qty"], offer),
        })  # fmt: skip
    return changes
