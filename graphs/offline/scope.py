"""The scope of an analysis, as the orchestrator resolved it against the ERP and the analyst
reads it back: which categories, which brands (supplier codes and the names their parts
carry), which history window, which parts, which suppliers or brands are ruled out, and
whether only domestic or only imported suppliers count.

It travels in the delegation's 【分析范围】 section as one JSON object, so a model-driven
orchestrator can write it too and the offline analyst never re-reads the buyer's words
to guess what the orchestrator already settled.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = ["SECTION", "Scope", "read_scope"]

SECTION = "分析范围"


@dataclass(frozen=True)
class Scope:
    """What one analysis covers. Empty fields mean "not limited"."""

    categories: list[str] = field(default_factory=list)  # category codes
    brands: list[str] = field(default_factory=list)  # supplier codes of the brands
    brand_names: list[str] = field(default_factory=list)  # how those brands' parts name them
    window_months: int | None = None
    part: str | None = None  # one SKU
    parts: list[str] = field(default_factory=list)  # several SKUs named together
    excluded: list[str] = field(default_factory=list)  # supplier codes ruled out ("except Bosch")
    excluded_names: list[str] = field(default_factory=list)  # how ruled-out brands' parts name them
    origin: str | None = None  # "domestic" / "imported": suppliers by their country

    def to_text(self) -> str:
        """The JSON written into the delegation."""
        data = {k: v for k, v in asdict(self).items() if v not in (None, [], "")}
        return json.dumps(data, ensure_ascii=False)


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [str(v) for v in value if isinstance(v, str | int) and str(v).strip()]
    return []


def read_scope(text: str) -> Scope:
    """The scope in a delegation's 【分析范围】 section (an empty scope when there is none)."""
    found = re.search(r"【" + SECTION + r"】(.*?)(?=【[^】]+】|\Z)", text, re.S)
    body = found.group(1).strip() if found else ""
    if not body:
        return Scope()
    start, end = body.find("{"), body.rfind("}")
    try:
        data = json.loads(body[start : end + 1]) if start >= 0 else None
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        return Scope()
    window = data.get("window_months")
    part = data.get("part")
    return Scope(
        categories=_strings(data.get("categories")),
        brands=_strings(data.get("brands")),
        brand_names=_strings(data.get("brand_names")),
        window_months=int(window) if isinstance(window, int) and window > 0 else None,
        part=str(part) if isinstance(part, str) and part.strip() else None,
        parts=_strings(data.get("parts")),
        excluded=_strings(data.get("excluded")),
        excluded_names=_strings(data.get("excluded_names")),
        origin=origin if (origin := data.get("origin")) in ("domestic", "imported") else None,
    )
