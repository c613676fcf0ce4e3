"""What the catalogue holds of one category ("空气滤清器有哪些型号", "what models of air filters do
we have?", "火花塞有多少个型号", "list all spark plug parts"), answered from the ERP's parts
(``part_query`` by category): how many, and the models by brand. Read-only: nothing is ordered
and no analysis starts; the answer says what can be done next.

From the nineteenth red-team round, where these were "outside what I do".
"""

from __future__ import annotations

from typing import Any

from graphs.offline import lexicon
from graphs.offline.entities import Grounding
from graphs.offline.history import View
from graphs.offline.policies.base import Decision, local_name, say

__all__ = ["category_parts"]

Record = dict[str, Any]
_PAGE = 100  # a category's parts read at once (the ERP's largest page)


def category_parts(view: View, found: Grounding, zh: bool) -> Decision | None:
    """The parts of the one category the request names and asks the models of (None: it
    asks something else, or names a supplier, a part or several categories)."""
    if not lexicon.has(view.request, "catalogue") or not view.has_tool("part_query"):
        return None
    codes = {m.record.get("code") for m in found.categories}
    if len(codes) != 1 or found.suppliers or found.parts:
        return None
    category = found.categories[0].record
    query = {"category": category.get("code"), "size": _PAGE}
    read = view.latest("part_query", query)
    if read is None:
        return Decision(
            say(zh, "查询这一类的零件。", "Looking up the parts of that category."),
            [("part_query", query)],
            note="catalogue-read",
        )
    data = read if isinstance(read, dict) else {}
    items = [i for i in data.get("items") or [] if isinstance(i, dict)]
    return Decision(_listed(category, items, int(data.get("total") or len(items)), zh),
                    note="catalogue")  # fmt: skip


def _listed(category: Record, items: list[Record], total: int, zh: bool) -> str:
    name = local_name(category, zh)
    if not items:
        return say(zh, f"ERP 里没有{name}的零件。", f"The ERP holds no {name} parts.")
    brands: dict[str, list[str]] = {}
    for item in items:
        brand = str(item.get("brand_zh" if zh else "brand") or item.get("brand") or "")
        brands.setdefault(brand, []).append(str(item.get("model") or item.get("sku")))
    lines = [f"- {brand}（{len(models)}）：{'、'.join(models)}" if zh
             else f"- {brand} ({len(models)}): {', '.join(models)}"
             for brand, models in sorted(brands.items(), key=lambda kv: -len(kv[1]))]  # fmt: skip
    text = say(
        zh,
        f"{name}在 ERP 里有 {total} 个零件（{len(brands)} 个品牌），按品牌列出型号：",
        f"The ERP holds {total} {name} parts ({len(brands)} brands); models by brand:",
    )
    text += "\n" + "\n".join(lines)
    if total > len(items):
        text += say(zh, f"\n（列出了前 {len(items)} 个。）", f"\n(The first {len(items)} listed.)")
    return text + say(
        zh,
        "\n要看某个型号的报价、库存或下单，告诉我型号；要比较这一类的供应商，说“比价”。",
        "\nTell me a model for its prices, stock or an order, or ask for a comparison of "
        "this category's suppliers.",
    )
