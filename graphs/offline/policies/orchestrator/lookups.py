"""Questions about one thing the ERP holds, answered by the orchestrator from the ERP.

- **What can replace one part** ("C8HSA 有哪些替代型号", "what can replace Bosch C8HSA?",
  "C8HSA 有没有 NGK 的替代型号"), with no BOM in sight: ``part_equivalents`` for that part
  (of the brand named, if one is), each equivalent with how well it matches, the company's
  stock of it and its cheapest offer. A replacement *in a BOM* stays the substitution flow.
- **Who a supplier is** ("NGK 的供应商信息", "NGK 的评级怎么样", "tell me about Brembo",
  "what currency do we pay Pirelli in?") and whether it takes our orders ("力帆还能下单吗",
  "can we still order from Champion?"): its ERP record (kind, status, rating, country,
  currency, website), how many parts it has prices for, and what its status means.
- **What a supplier sells us** ("NGK 供应哪些零件", "what does Bosch sell us?"): its parts
  with their prices, by category, from ``part_by_supplier``.

Read-only: nothing is ordered and no analysis starts; the answer says what can be done next.
"""

from __future__ import annotations

import re
from typing import Any

from graphs.offline import lexicon
from graphs.offline.history import View
from graphs.offline.intent import Reading
from graphs.offline.policies.base import Decision, local_name, say
from graphs.offline.policies.orchestrator.erp import read_erp
from graphs.offline.policies.orchestrator.replies import quality_note
from graphs.offline.text import has_quantity, model_tokens
from graphs.orders.words import money, supplier_status_word
from graphs.substitution.bom import bom_in_messages
from graphs.substitution.client import bom_tools

__all__ = [
    "asks_equivalents",
    "equivalents",
    "supplier_info",
    "supplier_parts",
    "supplier_question",
]

Record = dict[str, Any]
_SHOWN = 8  # equivalents listed; the rest counted
_PAGE = 50  # a supplier's parts read at once
_PER_CATEGORY = 6  # parts named per category; the rest counted
_TOOL = "part_equivalents"
_CONTACT = re.compile(r"电话|联系人|联系方式|邮箱|地址|phone|contact|e-?mail|address|reach", re.I)


def asks_equivalents(text: str) -> bool:
    """Whether ``text`` asks what can replace a part, with no BOM and no order in it."""
    return (
        lexicon.has(text, "substitute", "equivalent")
        and not lexicon.has(text, "bom", "order_verb", "order_noun", "new_order")
        and not has_quantity(text)  # "CQMP BKR7E 100个，算了换成 QJPARTS": an order line
    )


def _difference(item: Record, names: dict[str, Any], zh: bool) -> str:
    if item.get("match") == "exact":
        return say(zh, "完全等效", "exact match")
    parts = []
    for key, values in (item.get("different") or {}).items():
        label = (names.get(key) or {}).get("name_zh" if zh else "name_en") or key
        if isinstance(values, dict):
            parts.append(f"{label} {values.get('part')} → {values.get('equivalent')}")
    if not parts:
        return say(zh, "部分等效", "partial match")
    return say(zh, f"部分等效（不同：{'；'.join(parts)}）",
               f"partial match (differs: {'; '.join(parts)})")  # fmt: skip


def _equivalent_line(item: Record, names: dict[str, Any], zh: bool) -> str:
    part = item.get("part") or {}
    line = f"- {part.get('sku')} {local_name(part, zh)}：" if zh else f"- {part.get('sku')} "
    if not zh:
        line += f"{local_name(part, zh)}: "
    line += _difference(item, names, zh)
    stock = item.get("stock") or {}
    line += say(zh, f"；可用库存 {stock.get('available', 0)}",
                f"; available stock {stock.get('available', 0)}")  # fmt: skip
    offers = [o for o in item.get("offers") or [] if isinstance(o, dict)]
    if offers:
        best = offers[0]
        supplier = best.get("supplier_name_zh") if zh else best.get("supplier_name_en")
        price = money(int(best.get("price_minor") or 0), best.get("currency"))
        days = best.get("lead_time_days")
        line += say(zh, f"；最低报价 {supplier} {price}，交期 {days} 天",
                    f"; best offer {supplier} {price}, {days} days")  # fmt: skip
    else:
        line += say(zh, "；ERP 中没有有效报价", "; no valid offer in the ERP")
    return line


def equivalents(view: View, zh: bool) -> Decision | None:
    """The equivalents of the one part the request names (None: it asks no such thing, names
    no part or several, has a BOM to work on, or this agent has no ``part_equivalents``)."""
    if not view.has_tool(_TOOL) or not asks_equivalents(view.request):
        return None
    tools = bom_tools(view.client_tools)
    if tools or bom_in_messages(view.messages, tools) is not None:
        return None
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    found = erp.ground(view.request)
    parts = {int(m.record["id"]): m.record for m in found.parts if m.record.get("id")}
    if len(parts) != 1:
        return None
    [part] = parts.values()
    own = str(part.get("sku", "")).split("-")[1:2]
    brands = [str(m.record.get("code")) for m in found.suppliers if m.record.get("code")]
    others = [b for b in brands if b not in own]
    args: dict[str, Any] = {"part": str(part.get("sku"))}
    if others:
        args["brand"] = others[0]
    done = [r for r in view.called(_TOOL) if r.args == args]
    if not done:
        return Decision(
            say(zh, f"在 ERP 的等效件对照表里查 {part.get('sku')}。",
                f"Looking up {part.get('sku')} in the ERP's cross-reference."),
            [(_TOOL, args)],
            note="equivalents-read",
        )  # fmt: skip
    result = done[-1]
    data = result.data() if result.ok else None
    head = f"{part.get('sku')} {local_name(part, zh)}"
    if not isinstance(data, dict):
        return Decision(
            say(zh, f"查不到 {head} 的等效件：{result.body}",
                f"I could not look up equivalents of {head}: {result.body}"),
            note="equivalents-error",
        )  # fmt: skip
    items = [e for e in data.get("equivalents") or [] if isinstance(e, dict)]
    brand = f"{args['brand']} " if "brand" in args else ""
    if not items:
        return Decision(
            say(zh, f"ERP 的对照表里没有 {head} 的 {brand}等效件。",
                f"The ERP's cross-reference has no {brand}equivalent of {head}."),
            note="equivalents-none",
        )  # fmt: skip
    names = data.get("attribute_names") or {}
    lines = [_equivalent_line(e, names, zh) for e in items[:_SHOWN]]
    more = len(items) - _SHOWN
    text = say(
        zh,
        f"{head} 的{brand}等效件（ERP 对照表，{len(items)} 个）：",
        f"{brand}Equivalents of {head} (the ERP's cross-reference, {len(items)}):",
    )
    text += "\n" + "\n".join(lines)
    if more > 0:
        text += say(zh, f"\n还有 {more} 个未列出。", f"\n{more} more not listed.")
    text += say(
        zh,
        "\n要比价、下单，或把 BOM 里的它换掉，告诉我。",
        "\nTell me if you want a price comparison, an order, or to swap it in a BOM.",
    )
    return Decision(text, note="equivalents")  # fmt: skip


def _supplier_text(supplier: Record, parts: int | None, zh: bool) -> str:
    kind = supplier.get("kind")
    kind_word = {"maker": ("厂家", "maker"), "distributor": ("经销商", "distributor")}.get(
        str(kind), (str(kind), str(kind))
    )
    status = supplier_status_word(str(supplier.get("status") or ""), "zh" if zh else "en")
    other = supplier.get("name_en") if zh else supplier.get("name_zh")
    text = say(
        zh,
        f"{supplier.get('name_zh')}（{other}，代码 {supplier.get('code')}）：{kind_word[0]}，"
        f"状态 {status}，评级 {supplier.get('rating')}，国家 {supplier.get('country')}，"
        f"结算币种 {supplier.get('currency')}，官网 {supplier.get('website') or '无'}。",
        f"{supplier.get('name_en')} ({other}, code {supplier.get('code')}): {kind_word[1]}, "
        f"status {status}, rating {supplier.get('rating')}, country {supplier.get('country')}, "
        f"currency {supplier.get('currency')}, website {supplier.get('website') or 'none'}.",
    )
    if parts is not None:
        text += say(zh, f"ERP 中有它 {parts} 个零件的报价。",
                    f" The ERP has its prices for {parts} parts.")  # fmt: skip
    return text


# What a supplier's status means for a new order ({name}: the supplier's name).
_ORDERABLE = {
    "active": ("{name} 正常合作，可以给它下单（每张订单提交前都要你审批）。",
               "{name} is active: we can order from it (every order needs your approval "
               "first)."),
    "on_hold": ("{name} 暂停合作，不接受新订单；请换一家正常合作的供应商。",
                "{name} is on hold and takes no new orders; choose an active supplier."),
    "blocked": ("{name} 已停用，不能给它下单；请换一家正常合作的供应商。",
                "{name} is blocked: no orders can be placed with it; choose an active "
                "supplier."),
}  # fmt: skip


def _orderable(supplier: Record, zh: bool) -> str:
    """Whether ``supplier`` takes new orders, from its status."""
    status = str(supplier.get("status") or "")
    word = supplier_status_word(status, "zh" if zh else "en")
    other = (f"{{name}} 的状态是“{word}”，下单前请先确认。",
             f'{{name}} has the status "{word}"; check it before ordering.')  # fmt: skip
    zh_text, en_text = _ORDERABLE.get(status, other)
    return (zh_text if zh else en_text).format(name=local_name(supplier, zh))


def supplier_question(view: View, reading: Reading, zh: bool) -> Decision | None:
    """A supplier's record asked for whatever else the words look like: "力帆还能下单吗" is
    not an order held back, "what currency do we pay Pirelli in?" not a quote. None unless
    the request asks one of those and names no order, part or quantity (and then a supplier,
    see ``supplier_info``)."""
    text = view.request
    if reading.order_no or has_quantity(text) or model_tokens(text):
        return None
    asked = lexicon.has(text, "can_order_from") or (
        lexicon.has(lexicon.strip_words(text, ("web_price",)), "supplier_attribute")
        and reading.intent in ("quote", "analysis", "inventory", "out_of_scope")
        and not lexicon.has(text, "analysis")
    )
    return supplier_info(view, zh) if asked else None


def supplier_info(view: View, zh: bool, *, asked: bool = False) -> Decision | None:
    """The record of each supplier the request asks about (None: it names no supplier, or
    asks nothing about one; ``asked``: the request is known to ask it, "and Dunlop?" after
    a supplier's record)."""
    if not asked and not lexicon.has(view.request, "supplier_info", "can_order_from"):
        return None
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    found = erp.ground(view.request)
    if not found.suppliers or found.parts:
        return None
    suppliers: list[Record] = []
    for m in found.suppliers:
        if m.record.get("id") not in {s.get("id") for s in suppliers}:
            suppliers.append(m.record)
    suppliers = suppliers[:3]
    counts: dict[int, int | None] = {}
    calls = []
    for supplier in suppliers:
        query = {"supplier_id": supplier["id"], "size": 1}
        read = view.latest("part_by_supplier", query)
        if read is not None:
            total = read.get("total") if isinstance(read, dict) else None
            counts[int(supplier["id"])] = int(total) if isinstance(total, int) else None
        elif view.has_tool("part_by_supplier") and not view.called("part_by_supplier"):
            calls.append(("part_by_supplier", query))
    if calls:
        return Decision(
            say(zh, "查询供应商的零件。", "Looking up the supplier's parts."),
            calls,
            note="supplier-read",
        )
    texts = [_supplier_text(s, counts.get(int(s["id"])), zh) for s in suppliers]
    if lexicon.has(view.request, "can_order_from"):  # "力帆还能下单吗": what its status means
        texts += [_orderable(s, zh) for s in suppliers]
    if _CONTACT.search(view.request):  # "NGK的联系电话": the ERP keeps no such field
        texts.append(say(zh, "ERP 的供应商档案里没有电话、联系人、邮箱或地址，只有官网（见上）。",
                         "The ERP's supplier records hold no phone, contact person, email or "
                         "address; only the website (above)."))  # fmt: skip
    if lexicon.QUALITY.search(view.request):  # "is Champion still a good supplier?"
        texts.append(quality_note(zh, ranked=False).strip())
    more = say(zh, "\n要查它的订单、报价或给它下单，告诉我。",
               "\nTell me if you want its orders, its prices or to place an order.")  # fmt: skip
    return Decision("\n".join(texts) + more, note="supplier-info")


def _one_supplier(view: View, zh: bool, group: str | None) -> Record | Decision | None:
    """The one supplier a request about ``group`` (None: whatever it asks) names (no part,
    no category), or the reads that ground it."""
    if group is not None and not lexicon.has(view.request, group):
        return None
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    found = erp.ground(view.request)
    ids = {m.record.get("id") for m in found.suppliers}
    if len(ids) != 1 or found.parts or found.categories:
        return None
    return found.suppliers[0].record


def supplier_parts(view: View, zh: bool, *, priced: bool = False) -> Decision | None:
    """The parts the one supplier named sells us, with prices, by category (None: the
    request asks no such thing, or names no supplier or several). ``priced``: the request
    asks this supplier's prices ("NGK 报价"), whatever its words."""
    if not view.has_tool("part_by_supplier"):
        return None
    supplier = _one_supplier(view, zh, None if priced else "supplier_parts")
    if supplier is None or isinstance(supplier, Decision):
        return supplier
    query = {"supplier_id": supplier["id"], "size": _PAGE}
    read = view.latest("part_by_supplier", query)
    if read is None:
        return Decision(
            say(zh, "查询供应商的零件。", "Looking up the supplier's parts."),
            [("part_by_supplier", query)],
            note="supplier-read",
        )
    data = read if isinstance(read, dict) else {}
    items = [i for i in data.get("items") or [] if isinstance(i, dict)]
    name = local_name(supplier, zh)
    total = int(data.get("total") or len(items))
    if not items:
        none = say(zh, f"ERP 中没有{name}的零件报价。", f"The ERP has no prices from {name}.")
        return Decision(none, note="supplier-parts")
    groups: dict[str, list[Record]] = {}
    for item in items:
        groups.setdefault(str(item.get("category_zh" if zh else "category_en")), []).append(item)
    lines = []
    for category, parts in groups.items():
        named = []
        for part in parts[:_PER_CATEGORY]:
            offer = part.get("offer") or {}
            price = money(int(offer.get("price_minor") or 0), offer.get("currency"))
            named.append(f"{part.get('model')} {price}")
        rest = len(parts) - _PER_CATEGORY
        tail = say(zh, f" 等 {len(parts)} 个", f" and {rest} more") if rest > 0 else ""
        lines.append(f"- {category}：{'；'.join(named)}{tail}" if zh
                     else f"- {category}: {'; '.join(named)}{tail}")  # fmt: skip
    text = say(
        zh,
        f"{name}（{supplier.get('code')}）在 ERP 中有 {total} 个零件的报价：",
        f"{name} ({supplier.get('code')}) has prices in the ERP for {total} parts:",
    )
    text += "\n" + "\n".join(lines)
    if total > len(items):
        text += say(zh, f"\n（列出了前 {len(items)} 个。）", f"\n(The first {len(items)} listed.)")
    text += say(
        zh,
        "\n要看某个零件各家的报价、比价或下单，告诉我。",
        "\nTell me if you want one part's prices from every supplier, a comparison or an order.",
    )
    return Decision(text, note="supplier-parts")  # fmt: skip
