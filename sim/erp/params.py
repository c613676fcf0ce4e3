"""Query-string parameters read strictly: a bad one is a VALIDATION error naming it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from starlette.datastructures import QueryParams

from sim.erp.errors import ErpError, echo

MAX_TEXT = 200
DEFAULT_SIZE = 20
MAX_SIZE = 100


def text(params: QueryParams, name: str, *, max_len: int = MAX_TEXT) -> str | None:
    """A text parameter, stripped; None when absent or blank."""
    value = params.get(name)
    if value is None:
        return None
    if len(value) > max_len:
        raise ErpError(
            "VALIDATION",
            f"{name} is too long (at most {max_len} characters).",
            {"field": name, "length": len(value)},
        )
    if "\x00" in value:
        # Postgres refuses NUL in text; no real name contains one.
        raise ErpError("VALIDATION", f"{name} contains a NUL character.", {"field": name})
    value = value.strip()
    return value or None


def integer(
    params: QueryParams,
    name: str,
    *,
    default: int | None = None,
    lo: int = 1,
    hi: int = 2_147_483_647,
) -> int | None:
    """A whole-number parameter within ``lo``..``hi``; ``default`` when absent or blank."""
    raw = params.get(name)
    if raw is None or not raw.strip():
        return default
    raw = raw.strip()
    if not (raw.isascii() and raw.lstrip("-").isdigit()) or len(raw) > 12:
        raise ErpError(
            "VALIDATION", f"{name} must be a whole number, not {echo(raw)}.", {"field": name}
        )
    value = int(raw)
    if not lo <= value <= hi:
        raise ErpError(
            "VALIDATION",
            f"{name} must be between {lo} and {hi}, not {value}.",
            {"field": name, "min": lo, "max": hi},
        )
    return value


def page(params: QueryParams) -> tuple[int, int]:
    """``page`` (from 1) and ``size`` (1-100, default 20)."""
    number = integer(params, "page", default=1, hi=1_000_000)
    size = integer(params, "size", default=DEFAULT_SIZE, hi=MAX_SIZE)
    assert number is not None and size is not None
    return number, size


def day(params: QueryParams, name: str) -> date | None:
    """A ``YYYY-MM-DD`` parameter."""
    raw = text(params, name, max_len=20)
    if raw is None:
        return None
    try:
        return date.fromisoformat(raw)
    except ValueError:
        raise ErpError(
            "VALIDATION",
            f"{name} must be a date written YYYY-MM-DD, not {echo(raw)}.",
            {"field": name},
        ) from None


def choice(params: QueryParams, name: str, allowed: Sequence[str]) -> str | None:
    """A parameter that must be one of ``allowed``."""
    raw = text(params, name, max_len=40)
    if raw is None:
        return None
    if raw not in allowed:
        raise ErpError(
            "VALIDATION",
            f"{name} must be one of {', '.join(allowed)}, not {echo(raw)}.",
            {"field": name, "allowed": list(allowed)},
        )
    return raw


def path_id(value: str, what: str) -> int:
    """A numeric id from the URL path; anything else names no record (NOT_FOUND)."""
    if value.isascii() and value.isdigit() and len(value) <= 10 and int(value) <= 2_147_483_647:
        return int(value)
    raise ErpError("NOT_FOUND", f"There is no {what} with id {echo(value)}.", {"id": value[:40]})


def id_list(params: QueryParams, name: str, *, max_count: int) -> list[int]:
    """A required comma-separated list of 1..``max_count`` positive ids (``ids=1,2,3``).

    Blanks around commas are allowed; an empty entry, a non-number or zero is a
    VALIDATION error naming the entry.
    """
    raw = text(params, name, max_len=max_count * 12)
    if raw is None:
        raise ErpError(
            "VALIDATION",
            f"{name} is required: 1 to {max_count} part ids separated by commas, e.g. 1,2,3.",
            {"field": name},
        )
    entries = [entry.strip() for entry in raw.split(",")]
    if len(entries) > max_count:
        raise ErpError(
            "VALIDATION",
            f"{name} names {len(entries)} ids; ask for at most {max_count} at a time.",
            {"field": name, "max": max_count, "count": len(entries)},
        )
    ids: list[int] = []
    for entry in entries:
        if not (entry.isascii() and entry.isdigit()) or len(entry) > 10:
            raise ErpError(
                "VALIDATION",
                f"{name} must be whole numbers separated by commas; {echo(entry)} is not one.",
                {"field": name, "value": entry[:40]},
            )
        value = int(entry)
        if not 1 <= value <= 2_147_483_647:
            raise ErpError(
                "VALIDATION",
                f"{name} must be ids from 1 to 2147483647, not {value}.",
                {"field": name, "value": entry[:40]},
            )
        ids.append(value)
    return ids
