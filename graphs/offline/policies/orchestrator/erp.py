"""The ERP master data the orchestrator grounds a request in, read with read-only tools.

``category_list`` (categories and their aliases), every supplier (``supplier_query``,
paged) and, for each model-number-like word of the request, ``part_search``. Reads
already made since the request are reused; missing ones are asked for in one turn.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphs.offline.entities import Grounding, ground
from graphs.offline.history import View
from graphs.offline.policies.base import Decision, blocked, say
from graphs.offline.text import model_tokens

__all__ = ["READS", "ErpData", "read_erp"]

Record = dict[str, Any]
READS = frozenset({"category_list", "supplier_query", "part_search", "part_query",
                   "part_by_supplier", "inventory_warning"})  # fmt: skip
# Pages small enough that no read is moved to a file unread (TOOL_RESULT_EVICT_TOKENS).
_PAGE = 50


@dataclass
class ErpData:
    """What the ERP said about categories, suppliers and the parts the request may name."""

    categories: list[Record] = field(default_factory=list)
    suppliers: list[Record] = field(default_factory=list)
    parts: list[Record] = field(default_factory=list)

    def ground(self, text: str) -> Grounding:
        """The request's words resolved against this data."""
        return ground(text, categories=self.categories, suppliers=self.suppliers,
                      parts=self.parts)  # fmt: skip

    def category(self, code: str) -> Record | None:
        """The category with this code."""
        return next((c for c in self.categories if c.get("code") == code), None)


def _items(data: Any) -> list[Record]:
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        return [i for i in data["items"] if isinstance(i, dict)]
    return []


def paged(view: View, tool: str, **match: Any) -> tuple[list[Record], dict[str, Any] | None]:
    """Every item of ``tool``'s pages read with exactly ``match``, and the next page's args."""
    return view.paged(tool, _PAGE, **match)


def read_erp(view: View, text: str, zh: bool) -> ErpData | Decision:
    """The master data for ``text``, or the reads still to make (or the error that stops)."""
    stop = blocked([r for r in view.results if r.name in READS], zh)
    if stop is not None:
        return stop
    calls: list[tuple[str, dict[str, Any]]] = []
    data = ErpData()
    if view.has_tool("category_list"):
        listed = [d for _, d in view.iter_data("category_list")]
        if listed:
            data.categories = _items(listed[-1])
        else:
            calls.append(("category_list", {}))
    if view.has_tool("supplier_query"):
        data.suppliers, next_page = paged(view, "supplier_query", name="")
        if next_page is not None:
            calls.append(("supplier_query", next_page))
    if view.has_tool("part_search"):
        for token in model_tokens(text):
            found = [d for r, d in view.iter_data("part_search") if r.args.get("name") == token]
            if found:
                data.parts += _items(found[-1])
            else:
                calls.append(("part_search", {"name": token, "limit": 20}))
    if calls:
        return Decision(
            say(zh, "先在 ERP 里核对你提到的名称。", "Checking the names against the ERP first."),
            calls,
            note="ground",
        )
    return data
