"""The field errors a model gets back for a tool call that does not fit its JSON schema.

One wording for every place that checks chart arguments (the ``generate_visualization``
tool in the graphs and the visualization gateway): each problem is one line,
``"<field path>: <what is wrong>"``, so a model can fix its call in one go.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError

__all__ = ["field_path", "nonfinite_errors", "schema_errors", "too_many_items"]

_MAX_MESSAGE = 240
_REQUIRED = re.compile(r"'(.+)' is a required property")


def field_path(parts: Iterable[Any], *, root: str) -> str:
    """``["data", 0, "value"]`` → ``data[0].value``; no parts → ``root``."""
    out = ""
    for p in parts:
        out += f"[{p}]" if isinstance(p, int) else (f".{p}" if out else str(p))
    return out or root


def _walk(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _walk(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from _walk(v, (*path, i))


def nonfinite_errors(value: Any, *, root: str) -> list[str]:
    """A line for every NaN or infinite number anywhere in ``value``."""
    return [
        f"{field_path(path, root=root)}: {v} is not a finite number"
        for path, v in _walk(value)
        if isinstance(v, float) and not math.isfinite(v)
    ]


def too_many_items(path: str, count: int, limit: int) -> str:
    """The line for a list longer than one chart can show."""
    return (
        f"{path}: {count:,} items is too many for one chart (at most "
        f"{limit:,}); aggregate or sample the data first"
    )


def schema_errors(
    errors: Iterable[ValidationError], *, root: str, null_note: bool = False
) -> list[str]:
    """One line per JSON-schema error, in field order; a missing required field is named by
    its own path. ``null_note`` adds, to a null of the wrong type, that NaN and Infinity
    arrive as null (true of arguments that went through JSON)."""
    lines: list[str] = []
    for err in sorted(errors, key=lambda e: [str(p) for p in e.absolute_path]):
        missing = _REQUIRED.fullmatch(err.message)
        if err.validator == "required" and missing:
            where = field_path([*err.absolute_path, missing.group(1)], root=root)
            lines.append(f"{where}: required field is missing")
            continue
        message = err.message
        if null_note and err.instance is None and err.validator == "type":
            message = (
                f"null is not of type {err.validator_value!r} (NaN and Infinity arrive as null)"
            )
        if len(message) > _MAX_MESSAGE:
            message = message[:_MAX_MESSAGE] + "…"
        lines.append(f"{field_path(err.absolute_path, root=root)}: {message}")
    return lines
