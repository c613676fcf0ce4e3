"""Stock questions, answered by the orchestrator itself with read-only ERP tools.

- a part (by SKU or model) → ``part_query`` → its stock figures;
- a supplier → the parts it sells (``part_query`` by supplier) that are below safety stock;
- a category → ``inventory_warning`` for that category;
- nothing named → every part below safety stock.
"""

from __future__ import annotations

import re
from typing import Any

from graphs.offline.entities import Grounding
from graphs.offline.history import View
from graphs.offline.policies.base import Decision, say
from graphs.offline.policies.orchestrator.analysis import categories_named
from graphs.offline.policies.orchestrator.erp import ErpData, paged, read_erp
from graphs.offline.text import model_tokens

__all__ = ["inventory", "parts_read", "stock_line", "verdict"]

Record = dict[str, Any]
_SHOWN = 12


def _name(part: Record, zh: bool) -> str:
    return f"{part.get('sku')} {part.get('name_zh') if zh else part.get('name_en')}"


def stock_line(part: Record, zh: bool) -> str:
    inv = part.get("inventory") or part
    on_hand, reserved = int(inv.get("on_hand") or 0), int(inv.get("reserved") or 0)
    safety = int(inv.get("safety_stock") or 0)
    available = on_hand - reserved
    low = available < safety
    return say(
        zh,
        f"- {_name(part, zh)}：在库 {on_hand}，已预留 {reserved}，可用 {available}，"
        f"在途 {inv.get('on_order', 0)}，安全库存 {safety}" + ("（低于安全库存）" if low else ""),
        f"- {_name(part, zh)}: on hand {on_hand}, reserved {reserved}, available {available}, "
        f"on order {inv.get('on_order', 0)}, safety stock {safety}"
        + (" (below safety stock)" if low else ""),
    )


_REORDER_ASKED = re.compile(
    r"补货|补不补|要不要订|需要订|多备|多订|多买|"
    r"\b(?:reorder|restock|replenish|top up|order more|buy more|stock up)\w*",
    re.I,
)


def verdict(part: Record, zh: bool) -> str:
    """Whether the part needs reordering, by its available stock against its safety stock."""
    inv = part.get("inventory") or part
    available = int(inv.get("on_hand") or 0) - int(inv.get("reserved") or 0)
    safety, on_order = int(inv.get("safety_stock") or 0), int(inv.get("on_order") or 0)
    if available + on_order < safety:
        return say(zh, f"{part.get('sku')}：建议补货（可用 {available} + 在途 {on_order} "
                       f"低于安全库存 {safety}）。要下单就告诉我供应商和数量。",
                   f"{part.get('sku')}: reorder (available {available} + on order {on_order} is "
                   f"below the safety stock of {safety}). Tell me the supplier and quantity to "
                   "order.")  # fmt: skip
    return say(zh, f"{part.get('sku')}：暂时不用补货（可用 {available} + 在途 {on_order}，"
                   f"安全库存 {safety}）。",
               f"{part.get('sku')}: no need to reorder yet (available {available} + on order "
               f"{on_order}, safety stock {safety}).")  # fmt: skip


def parts_read(view: View) -> dict[int, Any]:
    """The parts ``part_query`` has answered by id so far (``None``: no such part)."""
    read: dict[int, Any] = {}
    for r, d in view.iter_data("part_query"):
        if "part_id" in r.args:
            read[int(r.args["part_id"])] = d
        elif "part_ids" in r.args and isinstance(d, dict):
            read.update((int(i), None) for i in d.get("missing") or [])
            read.update((int(p["id"]), p) for p in d.get("items") or [] if isinstance(p, dict))
    return read


# A stock question asked of a supplier ("in stock at NGK", "NGK 那边有现货吗").
_AT_SUPPLIER = re.compile(r"\b(?:at|from)\b|那边|那儿|那里|现货", re.I)


def _parts_stock(view: View, found: Grounding, zh: bool) -> Decision:
    ids = [int(m.record["id"]) for m in found.parts if m.record.get("id") is not None][:5]
    read = parts_read(view)
    missing = [i for i in ids if i not in read]
    if missing:
        # One call for all of them: each call is a tool step of the graph.
        args: dict[str, Any] = (
            {"part_id": missing[0]} if len(missing) == 1 else {"part_ids": missing}
        )
        return Decision(
            say(zh, "查询库存。", "Reading the stock."),
            [("part_query", args)],
            note="inventory-part",
        )
    lines = [stock_line(read[i], zh) for i in ids if isinstance(read[i], dict)]
    text = say(zh, "库存情况：\n", "Stock:\n") + "\n".join(lines)
    if _REORDER_ASKED.search(view.request):  # "IU7要不要补货", "do we need to reorder IU7?"
        text += "\n" + "\n".join(verdict(read[i], zh) for i in ids if isinstance(read[i], dict))
    if found.suppliers and _AT_SUPPLIER.search(view.request):
        # "Is IU7 in stock at NGK?": the ERP holds our stock, not the supplier's.
        record = found.suppliers[0].record
        name = record.get("name_zh") if zh else record.get("name_en")
        text += say(zh, f"\n这是我们自己的库存。{name}那边的现货 ERP 里没有，"
                        "比价分析会读它官网上的库存。",
                    f"\nThat is our own stock. The ERP does not hold {name}'s; a price "
                    "comparison reads the stock on its web shop.")  # fmt: skip
    return Decision(text, note="inventory-answer")


# Out of stock now ("哪些零件缺货", "which parts are out of stock?"), not running low ("快缺货了",
# "running out"): the parts with nothing available.
_OUT = re.compile(
    r"缺货|断货|没货|零库存|无库存|没有库存|\b(?:out of stock|no stock|stocked out)\b", re.I
)
_SOON = re.compile(r"快|要|将|即将|马上|\b(?:soon|about to|going to|almost|nearly)\b", re.I)


def _available(part: Record) -> int:
    inv = part.get("inventory") or part
    return int(inv.get("on_hand") or 0) - int(inv.get("reserved") or 0)


def _empty_answer(items: list[Record], total: int, zh: bool, where: str) -> Decision:
    """The parts below safety stock with nothing available (``items``: all below it)."""
    empty = [p for p in items if _available(p) <= 0]
    low = say(zh, f"（低于安全库存的共 {total} 个，问“哪些低于安全库存”可看全部。）",
              f"({total} part{'' if total == 1 else 's'} below safety stock in all; ask "
              "which are below safety stock for the list.)")  # fmt: skip
    if not empty:
        none = say(zh, f"{where}没有可用库存为 0 的零件。",
                   f"Nothing{where} is out of stock (nothing with 0 available). ")  # fmt: skip
        return Decision(none + low, note="inventory-answer")
    lines = [stock_line(p, zh) for p in empty[:_SHOWN]]
    more = len(empty) - _SHOWN
    tail = say(zh, f"\n……另有 {more} 个。", f"\n... and {more} more.") if more > 0 else ""
    head = say(zh, f"{where}可用库存为 0 的零件（{len(empty)} 个）：\n",
               f"Out of stock{where} (0 available, {len(empty)} part"
               f"{'' if len(empty) == 1 else 's'}):\n")  # fmt: skip
    return Decision(head + "\n".join(lines) + tail + "\n" + low, note="inventory-answer")


def _warnings_answer(items: list[Record], total: int, zh: bool, where: str) -> Decision:
    if not items:
        return Decision(
            say(zh, f"{where}没有低于安全库存的零件。", f"Nothing{where} is below safety stock."),
            note="inventory-answer",
        )
    lines = [stock_line(p, zh) for p in items[:_SHOWN]]
    more = len(items) - _SHOWN if total <= len(items) else total - _SHOWN
    tail = say(zh, f"\n……另有 {more} 个。", f"\n... and {more} more.") if more > 0 else ""
    return Decision(
        say(zh, f"{where}低于安全库存的零件（{total} 个）：\n",
            f"Below safety stock{where} ({total} part{'' if total == 1 else 's'}):\n")
        + "\n".join(lines) + tail,
        note="inventory-answer",
    )  # fmt: skip


def _by_supplier(view: View, supplier: Record, zh: bool) -> Decision:
    # The supplier's parts without their offers: a distributor's catalogue with offers is
    # larger than a tool result the graph keeps in the conversation.
    sold, sold_next = paged(view, "part_query", supplier_id=supplier["id"])
    short, short_next = paged(view, "inventory_warning")
    calls = [("part_query", sold_next)] if sold_next else []
    calls += [("inventory_warning", short_next)] if short_next else []
    if calls:
        return Decision(say(zh, "查询库存预警。", "Reading stock warnings."), calls,
                        note="inventory-supplier")  # fmt: skip
    ids = {int(p["id"]) for p in sold if "id" in p}
    mine = [p for p in short if int(p.get("id", -1)) in ids]
    name = supplier.get("name_zh") if zh else supplier.get("name_en")
    return _warnings_answer(mine, len(mine), zh, say(zh, f"{name}供应的零件中", f" from {name}"))


def inventory(view: View, zh: bool) -> Decision:
    """The next step for a stock question."""
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    found = erp.ground(view.request)
    if found.parts:
        return _parts_stock(view, found, zh)
    if model_tokens(view.request) and not (found.categories or found.suppliers):
        tokens = "、".join(model_tokens(view.request))
        return Decision(
            say(zh, f"ERP 里没有型号或 SKU 为 {tokens} 的零件。请核对型号。",
                f"The ERP has no part with model or SKU {tokens}. Please check the number."),
            note="ask:part",
        )  # fmt: skip
    if found.suppliers and not found.categories:
        return _by_supplier(view, found.suppliers[0].record, zh)
    return _by_category(view, erp, found, zh)


# A question about shortage, not about every part's stock.
_SHORTAGE = re.compile(
    r"缺货|补货|低于安全|预警|断货|快没|不够|短缺|紧张|告急|要补|需要补|"
    r"\b(?:low|short|shortage|below|restock\w*|replenish\w*|reorder\w*|run(?:ning)? out|"
    r"out of stock|alerts?|warnings?)\b",
    re.I,
)


def _brand_of(item: Record, supplier: Record) -> bool:
    """Whether the part is of the brand the supplier is (NGK's plugs, Bosch's filters)."""
    brand = str(item.get("brand") or "").casefold()
    brand_zh = str(item.get("brand_zh") or "")
    names = {str(supplier.get(k) or "").casefold() for k in ("code", "name_en", "name_zh")}
    if not brand:
        return False
    if brand in names or any(n.startswith(brand + " ") or n.endswith(" " + brand) for n in names):
        return True
    return bool(brand_zh) and brand_zh in str(supplier.get("name_zh") or "")


def _by_category(view: View, erp: ErpData, found: Grounding, zh: bool) -> Decision:
    named = categories_named(found, erp)
    codes: list[str | None] = [str(c["code"]) for c in named] or [None]
    calls = []
    results: list[tuple[str | None, list[Record]]] = []
    for code in codes:
        items, next_page = paged(view, "inventory_warning", **({"category": code} if code else {}))
        if next_page is not None:
            calls.append(("inventory_warning", next_page))
        results.append((code, items))
    if calls:
        return Decision(say(zh, "查询库存预警。", "Reading stock warnings."), calls,
                        note="inventory-warnings")  # fmt: skip
    brands = [m.record for m in found.suppliers]
    parts: list[str] = []
    for code, items in results:
        cat = erp.category(code) if code else None
        where = (say(zh, f"{cat.get('name_zh')}中", f" among {cat.get('name_en')}") if cat
                 else "")  # fmt: skip
        if brands:  # "NGK 的火花塞", "all Bosch spark plugs": that brand's parts only
            items = [i for i in items if any(_brand_of(i, b) for b in brands)]
            label = "、".join(
                next((str(i.get("brand_zh" if zh else "brand")) for i in items
                      if _brand_of(i, b)), str(b.get("name_zh" if zh else "name_en")))
                for b in brands
            )  # fmt: skip
            where = say(zh, f"{label} 的{cat.get('name_zh') if cat else '零件'}中",
                        f" among {label}'s {cat.get('name_en') if cat else 'parts'}")  # fmt: skip
        out = _OUT.search(view.request) and not _SOON.search(view.request)  # "缺货", not "快缺货"
        answer = _empty_answer if out else _warnings_answer
        parts.append(answer(items, len(items), zh, where).text)
    text = "\n\n".join(parts)
    if not _SHORTAGE.search(view.request):
        # "电瓶还剩多少", "stock of all NGK spark plugs": the list is the short ones; say so.
        text += say(zh, "\n\n（这里只列出低于安全库存的零件；要看某个零件的全部库存，"
                        "请告诉我型号。）",
                    "\n\n(Only the parts below safety stock are listed; for any other part's "
                    "stock, tell me its model.)")  # fmt: skip
    return Decision(text, note="inventory-answer")
