"""What makes two parts interchangeable, and the cross-reference of equivalent parts.

Each category has a rule: the attribute keys a buyer compares (units in the key:
``reach_mm``, ``capacity_ah``), the ``fit`` keys that decide whether a part fits at all,
what the maker's model number says (a spark plug's heat range digit, a chain's pitch and
link count, a tyre's size, a bulb's base and wattage, a battery's code), and how the rest
is drawn. Parts of different brands with equal fit are equivalent: ``exact`` when every
attribute is equal, ``partial`` when only the fit is (another compound, electrode,
terminal layout ...). Some parts have no equivalent at all.

Everything here is drawn from its own random streams, seeded from the catalogue's seed and
the category (and group or part), never from the catalogue's generator: adding this left
every part, price, order and stock figure of a seed as it was.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING, Literal, TypeVar

if TYPE_CHECKING:
    from sim.catalog import Part

__all__ = [
    "BATTERY_LETTERS",
    "FIT_KEYS",
    "SPARK_CODES",
    "Attributes",
    "CrossReference",
    "Equivalence",
    "Match",
    "cross_reference",
    "equivalences_of",
    "implied_attributes",
]

Attributes = dict[str, str | int | float]
T = TypeVar("T")
Match = Literal["exact", "partial"]


@dataclass(frozen=True)
class Equivalence:
    """``equivalent_id`` can replace ``part_id``; listed in both directions."""

    part_id: int
    equivalent_id: int
    match: Match


@dataclass(frozen=True)
class CrossReference:
    """Every part's attributes and every equivalence (both directions, by part id)."""

    attributes: dict[int, Attributes]
    equivalences: tuple[Equivalence, ...]


Draw = Callable[[random.Random], Attributes]
Vary = Callable[[random.Random, Attributes], Attributes]


@dataclass(frozen=True)
class _Rule:
    keys: tuple[str, ...]  # every attribute, in the order a part lists them
    fit: tuple[str, ...]  # equal fit: the part fits; the other keys may differ (partial)
    implied: Callable[[Part], Attributes]  # read from the model number or the brand
    draw: Draw  # the rest, drawn once per group of equivalent parts
    vary: Vary | None = None  # how one member of a group differs (a partial equivalent)
    # True when the model number implies the whole fit: parts then group by their fit.
    by_model: bool = False


def _pick(rng: random.Random, *choices: T) -> T:
    return rng.choice(choices)


def _step(rng: random.Random, lo: float, hi: float, step: float) -> float:
    """A value from lo to hi in ``step`` increments (rounded for clean JSON)."""
    return round(lo + step * rng.randint(0, round((hi - lo) / step)), 2)


def _other(rng: random.Random, current: object, choices: Sequence[T]) -> T:
    return rng.choice([c for c in choices if c != current])


def _nothing(_part: Part) -> Attributes:
    return {}


# ------------------------------------------------------------------ spark plugs

# Model family → thread, reach, hex, resistor, electrode, gap. Families of other brands
# with the same figures are the same plug (NGK CPR7EA-9 = Denso-style U7FER9).
_SPARK_FAMILIES: tuple[tuple[str, str, float, int, float, str, float], ...] = (
    (r"CR(\d)HSA", "M10x1.0", 12.7, 16, 5.0, "nickel", 0.7),
    (r"A(\d)RTC", "M10x1.0", 12.7, 16, 5.0, "nickel", 0.7),
    (r"C(\d)HSA", "M10x1.0", 12.7, 16, 0.0, "nickel", 0.7),
    (r"CPR(\d)EA-9", "M10x1.0", 19.0, 16, 5.0, "nickel", 0.9),
    (r"U(\d)FER9", "M10x1.0", 19.0, 16, 5.0, "nickel", 0.9),
    (r"CR(\d)EIX", "M10x1.0", 19.0, 16, 5.0, "iridium", 0.9),
    (r"DPR(\d)EA-9", "M12x1.25", 19.0, 18, 5.0, "nickel", 0.9),
    (r"NDM(\d)", "M12x1.25", 19.0, 18, 5.0, "nickel", 0.9),
    (r"D(\d)EA", "M12x1.25", 19.0, 18, 0.0, "nickel", 0.9),
    (r"BKR(\d)E", "M14x1.25", 19.0, 16, 5.0, "nickel", 0.8),
    (r"RG(\d)YC", "M14x1.25", 19.0, 16, 5.0, "nickel", 0.8),
    (r"IU(\d)", "M14x1.25", 19.0, 16, 5.0, "iridium", 0.8),
)


# The grammar of the cross-reference parts' plugs (sim.crossref): house prefix, then thread,
# resistor, heat range, reach, electrode and gap in tenths of a millimetre ("NKUR7DC-9").
SPARK_CODES: dict[str, dict[object, str]] = {
    "thread": {"M10x1.0": "U", "M12x1.25": "X", "M14x1.25": "W"},
    "reach_mm": {12.7: "A", 19.0: "D"},
    "electrode": {"nickel": "C", "iridium": "I"},
}
_SPARK_HEX = {"M10x1.0": 16, "M12x1.25": 18, "M14x1.25": 16}
_SPARK_CODE = re.compile(r"[A-Z]{2}([UXW])(R?)(\d)([AD])([CI])-(\d)")


def _decode(key: str, letter: str) -> object:
    return next(value for value, code in SPARK_CODES[key].items() if code == letter)


def _spark_code(model: str) -> Attributes | None:
    found = _SPARK_CODE.fullmatch(model)
    if found is None:
        return None
    thread, resistor, heat, reach, electrode, gap = found.groups()
    thread_name = str(_decode("thread", thread))
    return {
        "thread": thread_name,
        "reach_mm": float(str(_decode("reach_mm", reach))),
        "hex_mm": _SPARK_HEX[thread_name],
        "heat_range": int(heat),
        "electrode": str(_decode("electrode", electrode)),
        "resistor_kohm": 5.0 if resistor else 0.0,
        "gap_mm": int(gap) / 10,
    }


def _spark_plug(part: Part) -> Attributes:
    coded = _spark_code(part.model)
    if coded is not None:
        return coded
    for pattern, thread, reach, hex_mm, resistor, electrode, gap in _SPARK_FAMILIES:
        found = re.fullmatch(pattern, part.model)
        if found:
            return {
                "thread": thread,
                "reach_mm": reach,
                "hex_mm": hex_mm,
                "heat_range": int(found.group(1)),
                "electrode": electrode,
                "resistor_kohm": resistor,
                "gap_mm": gap,
            }
    msg = f"spark plug model {part.model!r} matches no known family"
    raise ValueError(msg)


# ------------------------------------------------------------------ chains

# Series → pitch size, pitch, inner width, seal, tensile strength (kN).
_CHAIN_SERIES = {
    "428": ("428", 12.7, 7.94, "none", 17.6),
    "428H": ("428", 12.7, 7.94, "none", 20.6),
    "520VX3": ("520", 15.875, 6.35, "x-ring", 36.3),
    "525ZVM-X": ("525", 15.875, 7.94, "zvm-x-ring", 41.7),
    "530ERV7": ("530", 15.875, 9.53, "x-ring", 45.1),
}


def _chain(part: Part) -> Attributes:
    found = re.fullmatch(r"(.+)-(\d+)L", part.model)
    # A cross-reference chain is a series with the maker's two-letter house code ("428HKM").
    series = found.group(1) if found else ""
    if series not in _CHAIN_SERIES and re.fullmatch(r".+[A-Z]{2}", series):
        series = series[:-2]
    if found is None or series not in _CHAIN_SERIES:
        msg = f"chain model {part.model!r} is not SERIES-LINKSL"
        raise ValueError(msg)
    size, pitch, width, seal, tensile = _CHAIN_SERIES[series]
    return {
        "pitch": size,
        "pitch_mm": pitch,
        "inner_width_mm": width,
        "links": int(found.group(2)),
        "seal": seal,
        "tensile_kn": tensile,
    }


# ------------------------------------------------------------------ tyres

_TYRE_LOAD = {"2.75": 42, "3.00": 47, "90/90": 50, "100/80": 53, "110/70": 54, "130/70": 60}


# A cross-reference tyre also names its tread pattern, load index and speed symbol:
# "90/90-17 PZ12 50P TL".
_TYRE_MODEL = re.compile(r"([\d./]+)-(\d+) (?:[A-Z]{2}\d{2} (\d+)([A-Z]) )?(\dPR|TL)")


def _tyre(part: Part) -> Attributes:
    found = _TYRE_MODEL.fullmatch(part.model)
    if found is None:
        msg = f"tyre model {part.model!r} is not WIDTH-RIM [PATTERN LOADSPEED] PLY|TL"
        raise ValueError(msg)
    width, rim, load, speed, kind = found.groups()
    attrs: Attributes = {
        "size": f"{width}-{rim}",
        "rim_in": int(rim),
        "construction": "bias",
        "tube_type": "TL" if kind == "TL" else "TT",
    }
    if load is not None:
        attrs |= {"load_index": int(load), "speed_symbol": speed}
    return attrs


def _tyre_draw(rng: random.Random) -> Attributes:
    return {"speed_symbol": _pick(rng, "J", "L", "P", "P", "S")}


def _tyre_vary(rng: random.Random, attrs: Attributes) -> Attributes:
    return {"speed_symbol": _other(rng, attrs["speed_symbol"], "JLPS")}


def _tyre_load(part: Part) -> Attributes:
    attrs = _tyre(part)
    width = str(attrs["size"]).split("-")[0]
    # Bigger rims carry a little more at the same section.
    load = _TYRE_LOAD.get(width, 50) + (int(attrs["rim_in"]) - 14) // 4
    return {"load_index": load, **attrs}


# ------------------------------------------------------------------ batteries

# Battery code family → (dimensions L×W×H and capacity by size number, technology, terminal).
_BATTERY_DIMENSIONS: dict[str, dict[int, tuple[int, int, int, float]]] = {
    "YTX": {
        4: (113, 70, 85, 3.0),
        5: (113, 70, 105, 4.0),
        7: (113, 70, 130, 6.0),
        9: (150, 87, 105, 8.0),
        12: (150, 87, 130, 10.0),
        14: (150, 87, 145, 12.0),
    },
    "YTZ": {
        4: (114, 49, 86, 3.0),
        5: (113, 70, 86, 4.0),
        7: (113, 70, 107, 6.0),
        9: (150, 87, 93, 8.5),
        12: (150, 87, 110, 11.0),
        14: (150, 87, 115, 11.2),
    },
    "conventional": {
        4: (120, 70, 92, 4.0),
        5: (120, 60, 130, 5.0),
        7: (137, 76, 134, 7.0),
        9: (135, 75, 139, 9.0),
        12: (134, 80, 160, 12.0),
        14: (134, 89, 166, 14.0),
    },
}
# Code pattern → family, technology, terminal layout ("reversed": positive on the left).
_BATTERY_CODES = (
    (r"YTX(\d+)A-BS", "YTX", "AGM", "standard"),
    (r"YTX(\d+)L-BS", "YTX", "AGM", "reversed"),
    (r"YTZ(\d+)V", "YTZ", "GEL", "standard"),
    (r"YB(\d+)L-B", "conventional", "flooded", "reversed"),
    (r"12N(\d+)-4B-1", "conventional", "flooded", "reversed"),
    # Cross-reference batteries: house code, technology letter, size, L when reversed.
    (r"[A-Z][A-Z0-9]X(\d+)-BS", "YTX", "AGM", "standard"),
    (r"[A-Z][A-Z0-9]X(\d+)L-BS", "YTX", "AGM", "reversed"),
    (r"[A-Z][A-Z0-9]Z(\d+)-BS", "YTZ", "GEL", "standard"),
    (r"[A-Z][A-Z0-9]N(\d+)L-BS", "conventional", "flooded", "reversed"),
)
BATTERY_LETTERS = {"YTX": "X", "YTZ": "Z", "conventional": "N"}
"""The technology letter of a cross-reference battery's code, per dimension family."""


def _battery(part: Part) -> Attributes:
    for pattern, family, technology, terminal in _BATTERY_CODES:
        found = re.fullmatch(pattern, part.model)
        if found:
            length, width, height, capacity = _BATTERY_DIMENSIONS[family][int(found.group(1))]
            return {
                "voltage_v": 12,
                "capacity_ah": capacity,
                "length_mm": length,
                "width_mm": width,
                "height_mm": height,
                "terminal": terminal,
                "technology": technology,
            }
    msg = f"battery code {part.model!r} matches no known family"
    raise ValueError(msg)


# ------------------------------------------------------------------ bulbs

_BULB_BASES = {
    "H4": ("P43t", "halogen"),
    "HS1": ("PX43t", "halogen"),
    "H7": ("PX26d", "halogen"),
    "BA20D": ("BA20d", "halogen"),
    "T10": ("W2.1x9.5d", "incandescent"),
}


def _bulb(part: Part) -> Attributes:
    found = re.fullmatch(r"(?P<type>\w+) (?P<v>\d+)V(?P<w>\d+)W", part.model)
    # A cross-reference bulb puts the maker's house code first: "PH-H4-60W12V".
    found = found or re.fullmatch(r"[A-Z]{2}-(?P<type>\w+)-(?P<w>\d+)W(?P<v>\d+)V", part.model)
    if found is None or found["type"] not in _BULB_BASES:
        msg = f"bulb model {part.model!r} is not TYPE VOLTSV WATTSW"
        raise ValueError(msg)
    base, technology = _BULB_BASES[found["type"]]
    return {
        "bulb_type": found["type"],
        "base": base,
        "voltage_v": int(found["v"]),
        "wattage_w": int(found["w"]),
        "technology": technology,
    }


# ------------------------------------------------------------------ categories drawn per group


def _brake_pad_compound(part: Part) -> Attributes:
    # "HH" is the friction rating of sintered pads.
    return {"compound": "sintered"} if part.model.endswith("HH") else {}


def _brake_pad(rng: random.Random) -> Attributes:
    return {
        "shape_code": f"P{rng.randint(100, 999)}",
        "position": _pick(rng, "front", "front", "rear"),
        "length_mm": _step(rng, 55, 110, 0.5),
        "height_mm": _step(rng, 35, 55, 0.5),
        "thickness_mm": _step(rng, 7, 10, 0.5),
        "compound": _pick(rng, "organic", "semi-metallic", "ceramic"),
    }


def _compound_vary(rng: random.Random, attrs: Attributes) -> Attributes:
    return {"compound": _other(rng, attrs["compound"], ("organic", "semi-metallic"))}


def _kn_media(media: str) -> Callable[[Part], Attributes]:
    def implied(part: Part) -> Attributes:
        # K&N's filters are its own washable media, whatever the size.
        return {"media": media} if part.brand == "K&N" else {}

    return implied


def _air_filter(rng: random.Random) -> Attributes:
    return {
        "shape": _pick(rng, "panel", "oval", "cylindrical"),
        "length_mm": rng.randint(90, 320),
        "width_mm": rng.randint(60, 200),
        "height_mm": rng.randint(20, 90),
        "media": _pick(rng, "paper", "paper", "foam"),
    }


def _media_vary(rng: random.Random, attrs: Attributes) -> Attributes:
    return {"media": _other(rng, attrs["media"], ("paper", "foam"))}


def _oil_filter(rng: random.Random) -> Attributes:
    spin_on = rng.random() < 0.6
    return {
        "type": "spin-on" if spin_on else "cartridge",
        "outer_diameter_mm": rng.randint(40, 80),
        "height_mm": rng.randint(35, 90),
        "thread": _pick(rng, "M20x1.5", "3/4-16UNF", "M16x1.5") if spin_on else "none",
        "bypass_kpa": _pick(rng, 80, 100, 150),
        "media": _pick(rng, "cellulose", "cellulose", "synthetic-blend"),
    }


def _bypass_vary(rng: random.Random, attrs: Attributes) -> Attributes:
    return {"bypass_kpa": _other(rng, attrs["bypass_kpa"], (80, 100, 150))}


def _clutch(rng: random.Random) -> Attributes:
    return {
        "friction_plates": rng.randint(5, 9),
        "outer_diameter_mm": rng.randint(100, 150),
        "thickness_mm": _step(rng, 2.6, 3.0, 0.1),
        "tabs": _pick(rng, 6, 8, 10, 12),
        "material": _pick(rng, "cork", "paper-based", "aramid"),
    }


def _material_vary(rng: random.Random, attrs: Attributes) -> Attributes:
    return {"material": _other(rng, attrs["material"], ("cork", "paper-based", "aramid"))}


_CAP_ANGLES = {"LB": 90, "VB": 90, "XD": 120, "TC": 0, "SD": 0}


def _plug_cap_angle(part: Part) -> Attributes:
    return {"angle_deg": _CAP_ANGLES[part.model[:2]]} if part.model[:2] in _CAP_ANGLES else {}


def _plug_cap(rng: random.Random) -> Attributes:
    return {
        "angle_deg": _pick(rng, 0, 90, 120),
        "terminal": _pick(rng, "M4", "SAE"),
        "cable_diameter_mm": _pick(rng, 5, 7),
        "length_mm": rng.randint(8, 14) * 5,
        "resistance_kohm": _pick(rng, 0, 1, 5, 5, 10),
    }


def _resistance_vary(rng: random.Random, attrs: Attributes) -> Attributes:
    return {"resistance_kohm": _other(rng, attrs["resistance_kohm"], (0, 1, 5, 10))}


def _ohlins_adjustment(part: Part) -> Attributes:
    # Öhlins sells only fully adjustable shocks.
    return {"adjustment": "preload+rebound"} if part.brand == "Ohlins" else {}


def _shock(rng: random.Random) -> Attributes:
    return {
        "length_mm": rng.randint(56, 84) * 5,
        "upper_mount": _pick(rng, "eye", "eye", "fork"),
        "lower_mount": _pick(rng, "eye", "fork"),
        "eye_diameter_mm": _pick(rng, 8, 10, 12),
        "spring_rate_n_mm": rng.randint(15, 35),
        "adjustment": _pick(rng, "none", "preload", "preload"),
    }


def _spring_vary(rng: random.Random, attrs: Attributes) -> Attributes:
    return {"spring_rate_n_mm": int(attrs["spring_rate_n_mm"]) + rng.choice((-4, -2, 2, 4))}


def _belt(rng: random.Random) -> Attributes:
    return {
        "length_mm": rng.randint(130, 200) * 5,
        "width_mm": _step(rng, 16.5, 24, 0.5),
        "angle_deg": _pick(rng, 28, 30),
        "cord": _pick(rng, "aramid", "polyester"),
    }


def _cord_vary(rng: random.Random, attrs: Attributes) -> Attributes:
    return {"cord": "polyester" if attrs["cord"] == "aramid" else "aramid"}


def _coil(rng: random.Random) -> Attributes:
    return {
        "voltage_v": 12,
        "trigger": _pick(rng, "CDI", "TCI"),
        "outputs": _pick(rng, 1, 1, 2),
        "connector": _pick(rng, "2-pin", "3-pin", "spade"),
        "mounting": _pick(rng, "bracket", "plug-top"),
        "primary_ohm": _step(rng, 0.5, 4.0, 0.1),
        "secondary_kohm": _step(rng, 5, 15, 0.5),
    }


def _coil_vary(rng: random.Random, attrs: Attributes) -> Attributes:
    return {"secondary_kohm": float(attrs["secondary_kohm"]) + rng.choice((-1.5, 1.0, 2.0))}


def _disc(rng: random.Random) -> Attributes:
    thickness = _step(rng, 3.5, 6, 0.5)
    return {
        "diameter_mm": rng.randint(110, 160) * 2,
        "thickness_mm": thickness,
        "min_thickness_mm": round(thickness - 0.5, 2),
        "bolt_pattern": f"{rng.choice((5, 6))}x{rng.randint(18, 28) * 5}mm",
        "position": _pick(rng, "front", "front", "rear"),
        "mounting": _pick(rng, "fixed", "floating"),
    }


def _mounting_vary(rng: random.Random, attrs: Attributes) -> Attributes:
    return {"mounting": "floating" if attrs["mounting"] == "fixed" else "fixed"}


def _none_drawn(_rng: random.Random) -> Attributes:
    return {}


_RULES: dict[str, _Rule] = {
    "SP": _Rule(
        keys=("thread", "reach_mm", "hex_mm", "heat_range", "electrode", "resistor_kohm",
              "gap_mm"),
        fit=("thread", "reach_mm", "hex_mm", "heat_range"),
        implied=_spark_plug, draw=_none_drawn, by_model=True,
    ),
    "BP": _Rule(
        keys=("shape_code", "position", "length_mm", "height_mm", "thickness_mm", "compound"),
        fit=("shape_code", "position", "length_mm", "height_mm", "thickness_mm"),
        implied=_brake_pad_compound, draw=_brake_pad, vary=_compound_vary,
    ),
    "CH": _Rule(
        keys=("pitch", "pitch_mm", "inner_width_mm", "links", "seal", "tensile_kn"),
        fit=("pitch", "pitch_mm", "inner_width_mm", "links"),
        implied=_chain, draw=_none_drawn, by_model=True,
    ),
    "AF": _Rule(
        keys=("shape", "length_mm", "width_mm", "height_mm", "media"),
        fit=("shape", "length_mm", "width_mm", "height_mm"),
        implied=_kn_media("cotton-gauze"), draw=_air_filter, vary=_media_vary,
    ),
    "OF": _Rule(
        keys=("type", "outer_diameter_mm", "height_mm", "thread", "bypass_kpa", "media"),
        fit=("type", "outer_diameter_mm", "height_mm", "thread"),
        implied=_kn_media("synthetic"), draw=_oil_filter, vary=_bypass_vary,
    ),
    "TY": _Rule(
        keys=("size", "rim_in", "construction", "tube_type", "load_index", "speed_symbol"),
        fit=("size", "rim_in", "construction", "tube_type"),
        implied=_tyre_load, draw=_tyre_draw, vary=_tyre_vary, by_model=True,
    ),
    "BT": _Rule(
        keys=("voltage_v", "capacity_ah", "length_mm", "width_mm", "height_mm", "terminal",
              "technology"),
        fit=("voltage_v", "length_mm", "width_mm", "height_mm"),
        implied=_battery, draw=_none_drawn, by_model=True,
    ),
    "CP": _Rule(
        keys=("friction_plates", "outer_diameter_mm", "thickness_mm", "tabs", "material"),
        fit=("friction_plates", "outer_diameter_mm", "thickness_mm", "tabs"),
        implied=_nothing, draw=_clutch, vary=_material_vary,
    ),
    "LB": _Rule(
        keys=("bulb_type", "base", "voltage_v", "wattage_w", "technology"),
        fit=("bulb_type", "base", "voltage_v"),
        implied=_bulb, draw=_none_drawn, by_model=True,
    ),
    "PC": _Rule(
        keys=("angle_deg", "terminal", "cable_diameter_mm", "length_mm", "resistance_kohm"),
        fit=("angle_deg", "terminal", "cable_diameter_mm", "length_mm"),
        implied=_plug_cap_angle, draw=_plug_cap, vary=_resistance_vary,
    ),
    "SA": _Rule(
        keys=("length_mm", "upper_mount", "lower_mount", "eye_diameter_mm", "spring_rate_n_mm",
              "adjustment"),
        fit=("length_mm", "upper_mount", "lower_mount", "eye_diameter_mm"),
        implied=_ohlins_adjustment, draw=_shock, vary=_spring_vary,
    ),
    "BL": _Rule(
        keys=("length_mm", "width_mm", "angle_deg", "cord"),
        fit=("length_mm", "width_mm", "angle_deg"),
        implied=_nothing, draw=_belt, vary=_cord_vary,
    ),
    "IC": _Rule(
        keys=("voltage_v", "trigger", "outputs", "connector", "mounting", "primary_ohm",
              "secondary_kohm"),
        fit=("voltage_v", "trigger", "outputs", "connector", "mounting"),
        implied=_nothing, draw=_coil, vary=_coil_vary,
    ),
    "BD": _Rule(
        keys=("diameter_mm", "thickness_mm", "min_thickness_mm", "bolt_pattern", "position",
              "mounting"),
        fit=("diameter_mm", "thickness_mm", "min_thickness_mm", "bolt_pattern", "position"),
        implied=_nothing, draw=_disc, vary=_mounting_vary,
    ),
}  # fmt: skip

FIT_KEYS: dict[str, tuple[str, ...]] = {code: rule.fit for code, rule in _RULES.items()}
"""Per category code, the attribute keys that must be equal for a part to fit at all."""

# A group of parts drawn for a category without model-implied fit: mostly pairs, some
# parts alone (no equivalent), some triples.
_GROUP_SIZES = (1, 1, 2, 2, 2, 3)
# Chance that one member of a drawn group differs outside the fit (a partial equivalent).
_PARTIAL_GROUP = 0.35


def _rng(seed: int, *labels: object) -> random.Random:
    # A string seed is hashed with SHA-512: the same labels give the same stream anywhere.
    return random.Random(":".join(str(x) for x in (seed, "interchange", *labels)))


def _fit_of(rule: _Rule, attrs: Attributes) -> tuple[object, ...]:
    return tuple(attrs[k] for k in rule.fit)


def _ordered(rule: _Rule, attrs: Attributes) -> Attributes:
    return {k: attrs[k] for k in rule.keys}


def _model_groups(rule: _Rule, parts: Sequence[Part]) -> list[list[Part]]:
    groups: dict[tuple[object, ...], list[Part]] = {}
    for part in parts:
        groups.setdefault(_fit_of(rule, rule.implied(part)), []).append(part)
    return list(groups.values())


def _implied_fit(rule: _Rule, part: Part) -> Attributes:
    return {k: v for k, v in rule.implied(part).items() if k in rule.fit}


def _drawn_groups(rule: _Rule, parts: Sequence[Part], rng: random.Random) -> list[list[Part]]:
    """Parts shuffled into groups of distinct brands whose implied fit agrees. Until one
    group of two agreeing on everything implied exists, groups are pairs that prefer such
    a partner, so every category has an exact equivalent."""
    remaining = list(parts)
    rng.shuffle(remaining)
    groups: list[list[Part]] = []
    exact_pair = False
    while remaining:
        leader = remaining.pop(0)
        implied, fit = rule.implied(leader), _implied_fit(rule, leader)
        group = [leader]
        size = rng.choice(_GROUP_SIZES) if exact_pair else 2
        while len(group) < size:
            brands = {p.brand for p in group}
            fitting = [
                p for p in remaining if p.brand not in brands and _implied_fit(rule, p) == fit
            ]
            same = [p for p in fitting if rule.implied(p) == implied]
            pool = same if same and (not exact_pair or rng.random() < 0.8) else fitting
            if not pool:
                break
            group.append(pool[0])
            remaining.remove(pool[0])
        exact_pair = exact_pair or _agree(rule, group)
        groups.append(group)
    return groups


def _agree(rule: _Rule, group: Sequence[Part]) -> bool:
    """Whether the group has two parts that agree on everything their models imply."""
    return len(group) > 1 and rule.implied(group[0]) == rule.implied(group[1])


_MAX_DRAWS = 200


def _group_draw(
    rule: _Rule, group: Sequence[Part], rng: random.Random, used: set[object]
) -> Attributes:
    """The drawn attributes of a group, fitting unlike every group before it."""
    for _ in range(_MAX_DRAWS):
        drawn = rule.draw(rng)
        fit = _fit_of(rule, drawn | rule.implied(group[0]))
        if rule.by_model or fit not in used:
            used.add(fit)
            return drawn
    msg = f"no unused fit left for a group of {group[0].category} after {_MAX_DRAWS} draws"
    raise ValueError(msg)


def _category(seed: int, code: str, parts: Sequence[Part]) -> dict[int, Attributes]:
    """The attributes of one category's parts."""
    rule = _RULES[code]
    if rule.by_model:
        groups = _model_groups(rule, parts)
    else:
        groups = _drawn_groups(rule, parts, _rng(seed, code, "groups"))
    used: set[object] = set()
    out: dict[int, Attributes] = {}
    protected = False  # the first agreeing group keeps its exact equivalent
    shared = 0  # groups with parts of more than one brand so far
    partial = False  # whether one of them has a partial member yet
    for group in groups:
        group_rng = _rng(seed, code, "group", group[0].id)
        drawn = _group_draw(rule, group, group_rng, used)
        varied: int | None = None
        if len(group) > 1 and len({p.brand for p in group}) > 1:
            keep = not protected and _agree(rule, group)
            protected = protected or keep
            # The first group after the kept one always has a partial member, so every
            # category shows both kinds; then model-grouped categories alternate, drawn
            # ones leave it to chance.
            chance = group_rng.random() < _PARTIAL_GROUP
            later = shared % 2 == 1 if rule.by_model else chance
            if not keep and (not partial or later):
                varied = group[-1].id
                partial = True
            shared += 1
        for part in group:
            attrs = dict(drawn)
            if rule.vary is not None and part.id == varied:
                attrs |= rule.vary(_rng(seed, code, "part", part.id), attrs)
            out[part.id] = _ordered(rule, attrs | rule.implied(part))
    return out


def _pairs(rule: _Rule, parts: Sequence[Part], attrs: dict[int, Attributes]) -> list[Equivalence]:
    out: list[Equivalence] = []
    for a, b in combinations(parts, 2):
        if a.brand == b.brand or _fit_of(rule, attrs[a.id]) != _fit_of(rule, attrs[b.id]):
            continue
        match: Match = "exact" if attrs[a.id] == attrs[b.id] else "partial"
        out += [Equivalence(a.id, b.id, match), Equivalence(b.id, a.id, match)]
    return out


def cross_reference(seed: int, parts: Sequence[Part]) -> CrossReference:
    """The attributes of ``parts`` and their equivalences, the same for the same seed."""
    by_category: dict[str, list[Part]] = {}
    for part in parts:
        by_category.setdefault(part.category, []).append(part)
    attributes: dict[int, Attributes] = {}
    for code, members in by_category.items():
        attributes.update(_category(seed, code, members))
    attributes = {p.id: attributes[p.id] for p in parts}
    return CrossReference(attributes=attributes, equivalences=equivalences_of(parts, attributes))


def equivalences_of(
    parts: Sequence[Part], attributes: dict[int, Attributes]
) -> tuple[Equivalence, ...]:
    """Every equivalence among ``parts`` with these attributes (both directions, by id):
    parts of different brands in a category with equal fit; exact when all is equal."""
    by_category: dict[str, list[Part]] = {}
    for part in parts:
        by_category.setdefault(part.category, []).append(part)
    found: list[Equivalence] = []
    for code, members in by_category.items():
        found += _pairs(_RULES[code], members, attributes)
    return tuple(sorted(found, key=lambda e: (e.part_id, e.equivalent_id)))


def implied_attributes(part: Part) -> Attributes:
    """What ``part``'s model number and brand say of its attributes (ValueError when its
    model does not fit the category's numbering)."""
    return _RULES[part.category].implied(part)
