"""Cross-reference parts: the parts makers publish as equivalents of other brands' parts.

Real catalogues cross-reference nearly every current part of the big brands; the seed's
drawn parts alone leave whole brand pairs without an equivalent (no Bosch plug matches an
NGK one). This adds, per category, parts of brand B whose attributes equal an existing
part of brand A, by one rule for every category and brand:

1. every ordered pair of brands (A, B) making the category has at least
   :data:`PAIR_MINIMUM` parts of A with an exact equivalent of B: A's own parts (those
   a buyer's BOM names), made by B to match;
2. at least half of each brand's own parts have an exact equivalent of some other brand.

A copy carries a model number in its maker's style (a two-letter house code, see
:data:`HOUSE`) that the model→attribute derivation of :mod:`sim.interchange` reads back
to the copied attributes, that equals no other model and contains no existing model
(compared as the ERP compares codes: any case, spaces and punctuation ignored), so every
existing lookup by model keeps exactly its candidates. A copy the maker's numbering
cannot express (a K&N filter is always K&N media, an Öhlins shock always fully
adjustable) is not made; the pair is then covered by a copy the other way round.

Everything is drawn from its own random stream, after the catalogue's own parts.
"""

from __future__ import annotations

import random
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sim.interchange import BATTERY_LETTERS, SPARK_CODES, Attributes, implied_attributes

if TYPE_CHECKING:
    from sim.catalog import Category, Part

__all__ = ["HOUSE", "PAIR_MINIMUM", "CrossReferenceParts", "crossref_parts", "maker_of"]

PAIR_MINIMUM = 2
"""Parts of brand A with an exact equivalent of brand B, at least, per category."""

# Each maker's house code, the start of its cross-reference part numbers.
HOUSE = {
    "NGK": "NK", "BOSCH": "BS", "DENSO": "DN", "DELPHI": "DL", "CHAMPION": "CP",
    "BREMBO": "BR", "TORCH": "TJ", "EBC": "EB", "FERODO": "FD", "DID": "DD", "REGINA": "RG",
    "KMC": "KM", "MAHLE": "ML", "MANN": "MN", "KN": "KN", "CST": "CS", "CHAOYANG": "CY",
    "PIRELLI": "PZ", "DUNLOP": "DP", "YUASA": "YU", "SAIL": "FB", "CAMEL": "CB", "FCC": "FC",
    "PHILIPS": "PH", "OSRAM": "OS", "FSL": "FS", "KYB": "KY", "OHLINS": "OH", "GATES": "GT",
    "BANDO": "BD", "ZONGSHEN": "ZS",
}  # fmt: skip

_DRAWS = 20  # serial numbers tried for one copy before giving it up
MakePart = Callable[[int, "Category", str, str], "Part"]  # (id, category, maker code, model)


@dataclass(frozen=True)
class CrossReferenceParts:
    """The added parts (ids after the catalogue's), their attributes and what each copies."""

    parts: tuple[Part, ...]
    attributes: dict[int, Attributes]
    copies: dict[int, int]  # added part id → the id of the part it is equivalent to


def _compact(text: str) -> str:
    # As the ERP's model lookup compares codes (mcp_erp.catalog_tools._code).
    return re.sub(r"[\W_]+", "", unicodedata.normalize("NFKC", text).casefold())


def maker_of(part: Part) -> str:
    """The supplier code of ``part``'s maker (the middle of its SKU)."""
    return part.sku.split("-")[1]


def _models(
    code: str, house: str, source: Part, attrs: Attributes, rng: random.Random
) -> Iterator[str]:
    """Model numbers in the maker's style for a part with ``attrs``, first choice first."""
    if code == "SP":
        codes = SPARK_CODES
        resistor = "R" if attrs["resistor_kohm"] else ""
        yield (
            f"{house}{codes['thread'][attrs['thread']]}{resistor}{attrs['heat_range']}"
            f"{codes['reach_mm'][attrs['reach_mm']]}{codes['electrode'][attrs['electrode']]}"
            f"-{round(float(attrs['gap_mm']) * 10)}"
        )
    elif code == "CH":
        series = source.model.rsplit("-", 1)[0]
        yield f"{series}{house}-{attrs['links']}L"
    elif code == "TY":
        kind = source.model.rsplit(" ", 1)[1]
        for _ in range(_DRAWS):
            tread = f"{house}{rng.randint(10, 99)}"
            yield f"{attrs['size']} {tread} {attrs['load_index']}{attrs['speed_symbol']} {kind}"
    elif code == "BT":
        for letter in BATTERY_LETTERS.values():
            for size in (4, 5, 7, 9, 12, 14):
                yield f"{house}{letter}{size}{'L' if attrs['terminal'] == 'reversed' else ''}-BS"
    elif code == "LB":
        yield f"{house}-{attrs['bulb_type']}-{attrs['wattage_w']}W{attrs['voltage_v']}V"
    else:
        # Categories whose model says little: a serial number, and a brake pad's
        # sintered rating ("HH") as the catalogue's own numbers carry it.
        rating = "HH" if attrs.get("compound") == "sintered" else ""
        for _ in range(_DRAWS):
            yield f"{house}{code}{rng.randint(100, 999)}{rating}"


@dataclass
class _Category:
    """One category's parts while copies are added."""

    category: Category
    parts: list[Part]
    attributes: dict[int, Attributes]
    taken: list[str]  # compact model numbers no copy may equal or contain
    make_part: MakePart
    next_id: Callable[[], int]
    rng: random.Random
    added: list[Part]
    copies: dict[int, int]

    def makers_of(self, attrs: Attributes) -> set[str]:
        return {maker_of(p) for p in self.parts if self.attributes[p.id] == attrs}

    def covered(self, part: Part, other: str | None = None) -> bool:
        """Whether ``part`` has an exact equivalent of ``other`` (any other brand: None)."""
        makers = self.makers_of(self.attributes[part.id]) - {maker_of(part)}
        return bool(makers) if other is None else other in makers

    def of(self, maker: str, *, own: bool = False) -> list[Part]:
        """``maker``'s parts (only the catalogue's own with ``own``), shuffled."""
        found = [
            p for p in self.parts if maker_of(p) == maker and (not own or p.id not in self.copies)
        ]
        self.rng.shuffle(found)
        return found

    def copy(self, source: Part, maker: str) -> bool:
        """Add ``maker``'s equivalent of ``source``; False when its numbering cannot say it."""
        attrs = self.attributes[source.id]
        if maker in self.makers_of(attrs):
            return False
        code = self.category.code
        for model in _models(code, HOUSE[maker], source, attrs, self.rng):
            compact = _compact(model)
            if any(t in compact for t in self.taken):
                continue
            part = self.make_part(0, self.category, maker, model)
            try:
                implied = implied_attributes(part)
            except ValueError:
                continue
            if any(attrs.get(k) != v for k, v in implied.items()):
                continue
            part = self.make_part(self.next_id(), self.category, maker, model)
            self.parts.append(part)
            self.added.append(part)
            self.attributes[part.id] = dict(attrs)
            self.copies[part.id] = source.id
            self.taken.append(compact)
            return True
        return False

    def cover_pair(self, first: str, second: str) -> None:
        """Copies until PAIR_MINIMUM parts of ``first`` have an exact ``second`` equivalent:
        its own parts (those a buyer's BOM names) when ``second`` can number them."""

        def missing(*, own: bool) -> int:
            mine = self.of(first, own=own)
            return PAIR_MINIMUM - sum(self.covered(p, second) for p in mine)

        for source in self.of(first, own=True):
            if missing(own=True) <= 0:
                return
            if not self.covered(source, second):
                self.copy(source, second)
        # Copies into ``second`` it cannot number: ``first``'s equivalents of its parts.
        for source in self.of(second, own=True):
            if missing(own=False) <= 0:
                return
            if not self.covered(source, first):
                self.copy(source, first)

    def cover_half(self, maker: str) -> None:
        """Copies until at least half of ``maker``'s own parts have an exact equivalent."""
        others = [m for m in self.category.makers if m != maker]
        mine = self.of(maker, own=True)
        for source in mine:
            if 2 * sum(self.covered(p) for p in mine) >= len(mine):
                return
            if self.covered(source):
                continue
            # The maker with the fewest parts first: copies spread over the brands.
            ranked = sorted(others, key=lambda m: (len(self.of(m)), self.rng.random()))
            any(self.copy(source, other) for other in ranked)


def crossref_parts(
    seed: int,
    categories: Sequence[Category],
    parts: Sequence[Part],
    attributes: dict[int, Attributes],
    make_part: MakePart,
) -> CrossReferenceParts:
    """The cross-reference parts for the catalogue's ``parts``, numbered after them."""
    taken = [_compact(p.model) for p in parts]
    counter = iter(range(max(p.id for p in parts) + 1, 10**9))
    added: list[Part] = []
    attrs = dict(attributes)
    copies: dict[int, int] = {}
    for category in categories:
        work = _Category(
            category=category,
            parts=[p for p in parts if p.category == category.code],
            attributes=attrs,
            taken=taken,
            make_part=make_part,
            next_id=lambda: next(counter),
            rng=random.Random(f"{seed}:crossref:{category.code}"),
            added=added,
            copies=copies,
        )
        for first in category.makers:
            for second in category.makers:
                if first != second:
                    work.cover_pair(first, second)
        for maker in category.makers:
            work.cover_half(maker)
    return CrossReferenceParts(
        parts=tuple(added),
        attributes={p.id: attrs[p.id] for p in added},
        copies=copies,
    )
