"""Check a tool call's arguments: size, finite numbers, the JSON schema, and graph sanity.

Every problem is reported at once, each prefixed with the path of the field at fault, so a
model can fix its call in one go.
"""

from __future__ import annotations

import functools
from typing import Any

from core.schema_errors import nonfinite_errors, schema_errors, too_many_items
from viz_gateway.schemas import TOOLS

_ROOT = "(arguments)"


def _too_big(args: dict[str, Any], max_points: int) -> str | None:
    """An error when any list (or all lists together) holds more than ``max_points`` items."""
    total = 0
    stack: list[tuple[str, Any]] = [(k, v) for k, v in args.items()]
    while stack:
        path, value = stack.pop()
        if isinstance(value, list):
            total += len(value)
            if len(value) > max_points or total > 4 * max_points:
                return too_many_items(path, len(value), max_points)
            stack.extend(
                (f"{path}[{i}]", v) for i, v in enumerate(value) if isinstance(v, dict | list)
            )
        elif isinstance(value, dict):
            stack.extend((f"{path}.{k}", v) for k, v in value.items())
    return None


@functools.lru_cache(maxsize=64)
def _validator(tool: str) -> Any:
    from jsonschema import Draft7Validator

    return Draft7Validator(TOOLS[tool][1])


def _tree_names(node: Any, seen: dict[str, int], dupes: list[str]) -> None:
    if not isinstance(node, dict):
        return
    name = node.get("name")
    if isinstance(name, str):
        seen[name] = seen.get(name, 0) + 1
        if seen[name] == 2:
            dupes.append(name)
    for child in node.get("children") or []:
        _tree_names(child, seen, dupes)


def _semantic(tool: str, args: dict[str, Any]) -> list[str]:
    errors: list[str] = []
    data = args.get("data")
    if tool in ("generate_mind_map", "generate_fishbone_diagram") and isinstance(data, dict):
        dupes: list[str] = []
        _tree_names(data, {}, dupes)
        if dupes:
            errors.append(
                "data: node names must be unique; repeated: "
                + ", ".join(repr(d) for d in dupes[:10])
            )
    if tool in ("generate_flow_diagram", "generate_network_graph") and isinstance(data, dict):
        nodes = {n.get("name") for n in data.get("nodes") or [] if isinstance(n, dict)}
        for i, e in enumerate(data.get("edges") or []):
            if not isinstance(e, dict):
                continue
            for end in ("source", "target"):
                if isinstance(e.get(end), str) and e[end] not in nodes:
                    errors.append(f"data.edges[{i}].{end}: {e[end]!r} is not one of data.nodes")
    if tool == "generate_dual_axes_chart":
        cats = args.get("categories")
        for i, s in enumerate(args.get("series") or []):
            if (
                isinstance(cats, list)
                and isinstance(s, dict)
                and isinstance(s.get("data"), list)
                and len(s["data"]) != len(cats)
            ):
                errors.append(
                    f"series[{i}].data: {len(s['data'])} values for {len(cats)} "
                    "categories; give one value per category"
                )
    if tool == "generate_venn_chart" and isinstance(data, list):
        for i, item in enumerate(data):
            if isinstance(item, dict) and item.get("sets") == []:
                errors.append(f"data[{i}].sets: should name at least one set")
    if tool == "generate_spreadsheet" and isinstance(data, list):
        for i, item in enumerate(data):
            if isinstance(item, dict) and not item:
                errors.append(f"data[{i}]: a row needs at least one column")
    return errors


def check_arguments(tool: str, args: Any, *, max_points: int) -> list[str]:
    """Every problem with ``args`` for ``tool``, as ``"<field path>: <what is wrong>"`` lines."""
    if not isinstance(args, dict):
        return [f"(arguments): expected an object, got {type(args).__name__}"]
    big = _too_big(args, max_points)
    if big:
        return [big]
    errors = nonfinite_errors(args, root=_ROOT)
    errors += schema_errors(_validator(tool).iter_errors(args), root=_ROOT, null_note=True)
    if not errors:
        errors.extend(_semantic(tool, args))
    return errors


__all__ = ["check_arguments"]
