"""Deterministic web quotes: each shop's tiered prices, stock and lead time per part.

Derived from the generator's ERP contract prices (``sim.catalog``) but never equal
to them: every quote is moved by a per-(shop, part) factor, some cheaper, some
dearer, so an analysis comparing ERP and web prices has something to find. The
same seed always gives the same quotes, on any day and in any process.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from sim.catalog import Catalog, Part, SupplierPrice

Status = Literal["in_stock", "out_of_stock", "discontinued"]


@dataclass(frozen=True)
class Tier:
    """Unit price from ``min_qty`` pieces up (inclusive)."""

    min_qty: int
    unit_price_minor: int


@dataclass(frozen=True)
class Quote:
    """What a shop's quote page for one part says."""

    shop: str
    part: Part
    currency: str
    tiers: tuple[Tier, ...]  # empty when discontinued
    stock: int
    lead_time_days: int
    status: Status
    updated: date
    contract_price_minor: int  # the ERP contract price it was derived from (for tests)


def money(minor: int) -> str:
    """Minor units as a decimal string: 1235 -> "12.35"."""
    return f"{minor // 100}.{minor % 100:02d}"


def _round(value: float, currency: str) -> int:
    if currency == "CNY" and value >= 10000:
        return max(100, round(value / 100) * 100)
    if currency == "CNY":
        return max(5, round(value / 5) * 5)
    return max(1, round(value))


def _breaks(price_minor: int, moq: int) -> tuple[int, ...]:
    steps: tuple[int, ...]
    if price_minor < 5000:
        steps = (1, 10, 50, 100, 500)
    elif price_minor < 30000:
        steps = (1, 5, 20, 50, 200)
    else:
        steps = (1, 2, 5, 10)
    # The smallest break is the shop's own minimum, usually below the ERP contract MOQ.
    first = max(1, moq // 10)
    return tuple(sorted({first, *(s for s in steps if s > first)}))


def make_quote(catalog: Catalog, shop: str, price: SupplierPrice, part: Part) -> Quote:
    """The quote ``shop`` shows for ``part``, from the ERP contract ``price``."""
    rng = random.Random(f"{catalog.seed}:{shop}:{part.sku}")
    factor = rng.uniform(0.84, 0.97) if rng.random() < 0.5 else rng.uniform(1.03, 1.22)
    base = _round(price.price_minor * factor, price.currency)
    if base == price.price_minor:  # rounding must not land on the contract price
        base += 5 if price.currency == "CNY" and base < 10000 else 100
    roll = rng.random()
    status: Status = "in_stock"
    if roll < 0.04:
        status = "discontinued"
    elif roll < 0.12:
        status = "out_of_stock"
    tiers: list[Tier] = []
    if status != "discontinued":
        discount = 0.0
        last = None
        for i, qty in enumerate(_breaks(base, price.min_order_qty)):
            if i:
                discount += rng.uniform(0.025, 0.06)
            unit = _round(base * (1 - discount), price.currency)
            if last is not None and unit >= last:
                unit = last - (5 if price.currency == "CNY" and last < 10000 else 100)
                unit = max(1, unit)
            tiers.append(Tier(qty, unit))
            last = unit
    stock = 0 if status != "in_stock" else rng.choice([1, 5, 10]) * rng.randint(12, 480)
    lead = max(1, price.lead_time_days + rng.randint(-2, 7))
    if status == "out_of_stock":
        lead += 14
    return Quote(
        shop=shop,
        part=part,
        currency=price.currency,
        tiers=tuple(tiers),
        stock=stock,
        lead_time_days=lead,
        status=status,
        updated=catalog.reference_date - timedelta(days=rng.randint(0, 45)),
        contract_price_minor=price.price_minor,
    )


def quotes_for(catalog: Catalog, supplier_code: str) -> list[Quote]:
    """Every part ``supplier_code`` sells in the ERP catalogue, quoted, ordered by sku."""
    supplier = catalog.supplier(supplier_code)
    parts = {p.id: p for p in catalog.parts}
    out = [
        make_quote(catalog, supplier_code, sp, parts[sp.part_id])
        for sp in catalog.prices
        if sp.supplier_id == supplier.id
    ]
    return sorted(out, key=lambda q: q.part.sku)
