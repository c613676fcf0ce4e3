"""An in-memory snapshot of the master data, with its search indexes.

Categories, suppliers and parts do not change through the API, so they are read
once at start-up (and after a reset) and served from memory: a part search then
costs no database round trip. Stock, prices and orders are always read from the
database.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from sim.erp.models import Category, Part, PartEquivalent, Supplier, SupplierPrice
from sim.erp.search import SearchIndex, compact, normalize
from sim.erp.views import CategoryView, PartView, SupplierView, part_view, supplier_view

# How much a match in each field counts.
_PART_FIELDS = (
    ("sku", 10.0),
    ("model", 9.0),
    ("brand", 6.0),
    ("brand_zh", 6.0),
    ("category_code", 3.0),
    ("category_zh", 5.0),
    ("category_en", 5.0),
    ("name_zh", 4.0),
    ("name_en", 4.0),
)
_SUPPLIER_FIELDS = (("code", 10.0), ("name_zh", 6.0), ("name_en", 6.0))
# A category's other names (火嘴 for 火花塞) count a little less than its own names.
_ALIAS_WEIGHT = 4.5
_IS_LATIN_END = re.compile(r"[A-Za-z]$")


def _category_names(categories: tuple[CategoryView, ...]) -> dict[str, str]:
    """Every name a category answers to (code, names, aliases, English plurals) → its code."""
    names: dict[str, str] = {}
    for c in categories:
        for name in (c["code"], c["name_zh"], c["name_en"], *c["aliases"]):
            names.setdefault(compact(name), c["code"])
            # "Brake Pads" as well as "Brake Pad".
            if not _IS_LATIN_END.search(name):
                continue
            names.setdefault(compact(name) + "s", c["code"])
    return names


@dataclass(frozen=True)
class MasterData:
    """Suppliers, parts and categories as served, plus who sells what."""

    categories: tuple[CategoryView, ...]
    suppliers: dict[int, SupplierView]
    parts: dict[int, PartView]  # every part, also inactive ones that old orders name
    active_part_ids: tuple[int, ...]
    part_ids_by_supplier: dict[int, tuple[int, ...]]
    part_index: SearchIndex
    supplier_index: SearchIndex
    sku_to_id: dict[str, int]
    # The cross-reference: part id → (equivalent id, "exact" | "partial"), by equivalent id.
    equivalents: dict[int, tuple[tuple[int, str], ...]]
    _category_names: dict[str, str]

    @classmethod
    def load(cls, session: Session) -> MasterData:
        """Read the master data and build the indexes."""
        suppliers = {
            s.id: supplier_view(s) for s in session.scalars(select(Supplier).order_by(Supplier.id))
        }
        rows = session.scalars(select(Part).order_by(Part.id)).all()
        parts = {p.id: part_view(p) for p in rows}
        active = tuple(p.id for p in rows if p.active)
        active_set = set(active)
        counts = dict(
            session.execute(
                select(Part.category_id, func.count()).where(Part.active).group_by(Part.category_id)
            ).all()
        )
        categories = tuple(
            CategoryView(
                code=c.code,
                name_zh=c.name_zh,
                name_en=c.name_en,
                unit=c.unit,
                aliases=[str(a) for a in c.aliases or []],
                part_count=counts.get(c.id, 0),
            )
            for c in session.scalars(select(Category).order_by(Category.id))
        )
        by_supplier: dict[int, set[int]] = {}
        for supplier_id, part_id in session.execute(
            select(SupplierPrice.supplier_id, SupplierPrice.part_id).distinct()
        ).all():
            if part_id in active_set:
                by_supplier.setdefault(supplier_id, set()).add(part_id)
        equivalents: dict[int, list[tuple[int, str]]] = {}
        for row in session.scalars(
            select(PartEquivalent).order_by(PartEquivalent.part_id, PartEquivalent.equivalent_id)
        ):
            equivalents.setdefault(row.part_id, []).append((row.equivalent_id, row.match))
        names = _category_names(categories)
        aliases = {c["code"]: " ".join(c["aliases"]) for c in categories}
        return cls(
            categories=categories,
            suppliers=suppliers,
            parts=parts,
            active_part_ids=active,
            part_ids_by_supplier={k: tuple(sorted(v)) for k, v in by_supplier.items()},
            part_index=SearchIndex(
                (
                    p["id"],
                    [(str(p[f]), w) for f, w in _PART_FIELDS]  # type: ignore[literal-required]
                    + [(aliases.get(p["category_code"], ""), _ALIAS_WEIGHT)],
                )
                for p in (parts[i] for i in active)
            ),
            supplier_index=SearchIndex(
                (s["id"], [(str(s[f]), w) for f, w in _SUPPLIER_FIELDS])  # type: ignore[literal-required]
                for s in suppliers.values()
            ),
            sku_to_id={normalize(parts[i]["sku"]): i for i in active},
            equivalents={k: tuple(v) for k, v in equivalents.items()},
            _category_names=names,
        )

    def category_code(self, text: str) -> str | None:
        """The category named by its code, Chinese or English name (any case), or None."""
        return self._category_names.get(compact(text))

    def part_id_for_sku(self, sku: str) -> int | None:
        """The id of the part with this SKU (any case), or None."""
        return self.sku_to_id.get(normalize(sku.strip()))
