"""The BOM tools a JSON-RPC client lends (issue 19), and the request returned without one.

A client's tools are known by name, description and JSON schema only. A **BOM tool**
reads a bill of materials (its name or description says BOM / bill of materials / 物料清单,
and nothing about changing it); an **apply tool** changes one (its name or description also
says apply / update / replace / 替换 / 更新 ...). :func:`apply_arguments` fits the changes
to the apply tool's schema (an array parameter whose items name the line, the old and the
new part; else the changes as JSON text). Without an apply tool the changes go back to the
client as a batch-replace request: one ``{old, new, tasks}`` body of ``POST
/api/batch-replace`` per distinct rewrite, plus the changes line by line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["apply_arguments", "apply_tool", "batch_replace_request", "bom_tools"]

_BOM = re.compile(
    r"\bboms?\b|bill[\s_-]*of[\s_-]*materials?|物料清单|物料表|材料清单|(?<![a-z])bom", re.I
)
_CHANGE = re.compile(
    r"appl(?:y|ies)|updat|replac|substitut|swap|modif|chang|writ|sav|edit|set_|替换|更新|修改|"
    r"应用|写入|保存|变更",
    re.I,
)
_SYNONYMS = {
    "line": ("line", "item", "position", "pos", "line_no", "lineno", "row"),
    "old_part": ("old_part", "old", "from", "old_part_no", "old_sku", "old_model", "original",
                 "source", "part", "old_part_number"),
    "new_part": ("new_part", "new", "to", "new_part_no", "new_sku", "new_model", "replacement",
                 "target", "new_part_number", "substitute"),
    "qty": ("qty", "quantity"),
}  # fmt: skip


def _text(spec: Mapping[str, Any]) -> str:
    name = re.sub(r"[_\-]+", " ", str(spec.get("name") or ""))
    return f"{name} {spec.get('description') or ''}"


def bom_tools(specs: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Names of the client's tools that read a BOM (and change nothing)."""
    return [n for n, s in specs.items() if _BOM.search(_text(s)) and not _CHANGE.search(n)]


def apply_tool(specs: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The client's tool that applies part changes to a BOM, if it lends one."""
    fits = [n for n, s in specs.items() if _BOM.search(_text(s)) and _CHANGE.search(_text(s))]
    named = [n for n in fits if _CHANGE.search(n)]  # "apply_bom_changes" over a reader
    return (named or fits)[0] if fits else None


def _item_keys(item_schema: Mapping[str, Any]) -> dict[str, str]:
    """Our field → the item schema's property for it."""
    props = item_schema.get("properties") or {}
    if not isinstance(props, Mapping) or not props:
        return {k: k for k in ("line", "old_part", "new_part")}
    found: dict[str, str] = {}
    for ours, names in _SYNONYMS.items():
        for name in names:
            hit = next((p for p in props if p.lower() == name), None)
            if hit is not None and hit not in found.values():
                found[ours] = hit
                break
    return found


def _typed(value: Any, schema: Mapping[str, Any]) -> Any:
    kind = schema.get("type") if isinstance(schema, Mapping) else None
    if kind == "integer":
        try:
            return int(float(value))
        except (TypeError, ValueError):
            return value
    if kind == "number":
        try:
            return float(value)
        except (TypeError, ValueError):
            return value
    if kind == "string":
        return str(value)
    return value


def apply_arguments(
    schema: Mapping[str, Any], changes: Sequence[Mapping[str, Any]], *, product: str = ""
) -> dict[str, Any]:
    """Arguments for an apply tool of JSON ``schema`` carrying ``changes``
    (``{"line", "old_part", "new_part", "qty", ...}``)."""
    props: Mapping[str, Any] = schema.get("properties") or {}
    array = next((p for p, s in props.items() if isinstance(s, Mapping)
                  and s.get("type") == "array"), None)  # fmt: skip
    args: dict[str, Any] = {}
    if array is not None:
        item = props[array].get("items") or {}
        keys = _item_keys(item if isinstance(item, Mapping) else {})
        item_props = (item.get("properties") or {}) if isinstance(item, Mapping) else {}
        args[array] = [
            {theirs: _typed(c.get(ours), item_props.get(theirs) or {})
             for ours, theirs in keys.items() if c.get(ours) is not None}
            for c in changes
        ]  # fmt: skip
    else:
        text = next((p for p, s in props.items() if isinstance(s, Mapping)
                     and s.get("type") == "string"), None)  # fmt: skip
        payload = [dict(c) for c in changes]
        if text is not None:
            args[text] = json.dumps(payload, ensure_ascii=False)
        else:
            args["changes"] = payload
    for name in ("product", "product_id", "bom_id"):
        if name in props and product and name not in args:
            args[name] = product
    return args


def batch_replace_request(changes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """What a client without an apply tool runs: ``batch_replace`` (one body of
    ``POST /api/batch-replace`` per distinct old → new rewrite, its ``tasks`` the BOM's
    occurrences) and ``changes`` (line by line)."""
    bodies: dict[tuple[str, str], dict[str, Any]] = {}
    for c in changes:
        old, new = str(c["old_part"]), str(c["new_part"])
        bodies.setdefault((old, new), {"old": old, "new": new, "tasks": []})["tasks"].append(old)
    return {
        "batch_replace": list(bodies.values()),
        "changes": [{"line": c["line"], "old": c["old_part"], "new": c["new_part"]}
                    for c in changes],
    }  # fmt: skip
