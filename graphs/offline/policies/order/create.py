"""A new order: supplier, part and quantity resolved against the ERP, asked for when missing
or ambiguous, refused when impossible (bad quantity, a supplier that takes no orders, a part
the supplier does not sell), checked with the ERP's dry run (:mod:`.check`: MOQ, order step,
price list, reachable date), then ``order_create``, which pauses for the buyer's approval.

Reads stay small whatever the ERP's size (a large tool result is moved to a file the
planner does not read): a named part's offers (``part_query`` by id), a category's parts
at the supplier (``part_query`` by category), or one page of the supplier's catalogue.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any

from graphs.offline import lexicon
from graphs.offline.entities import (
    Grounding,
    Mention,
    find_parts,
    find_suppliers,
    not_negated,
    supplier_marked,
    token_spans,
)
from graphs.offline.policies.base import Decision
from graphs.offline.policies.order import check
from graphs.offline.policies.order.existing import by_number
from graphs.offline.policies.order.facts import Facts, ask
from graphs.offline.policies.order.outcome import after_commit
from graphs.offline.policies.order.people import me
from graphs.offline.text import (
    Quantity,
    find_date,
    find_order_no,
    model_tokens,
    quantities_written,
    read_quantity,
    unread_date,
)
from graphs.orders.issues import Facts as IssueFacts
from graphs.orders.issues import issue_text
from graphs.orders.words import status_word, unit_word

__all__ = ["create"]

Record = dict[str, Any]
_OPTIONS = 20
_POOL = 50  # parts of one category at one supplier, or of one supplier, read at once
_MOST_CANDIDATES = 4  # named parts whose offers are read (more: the buyer is asked which)
_READS = ("supplier-parts", "part-offers", "category-parts")
# The words between "给 / 从 / from" and the ordering verb name the supplier the buyer means.
_SUPPLIER_SLOT = re.compile(
    r"(?:给|从|向|跟|找|在)\s*([^\s，,。0-9]{2,12}?)\s*(?:下|订|买|采购|购买)"
    r"|\b(?:from|with)\s+([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3})"
)
_NOTE = re.compile(r"(?:备注|附言|说明|note|remark)s?\s*[:：]?\s*(.+)", re.I | re.S)


def _corrected(facts: Facts) -> str:
    """The words after the message's last correction ("" when it makes none)."""
    return lexicon.after_correction(lexicon.before_note(facts.body))


@dataclass
class _Choice:
    """The supplier and part a new order is for, as far as they are known."""

    supplier: Record | None = None
    part: Record | None = None
    missing: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    not_supplied: Record | None = None  # a named part the supplier does not sell
    why: str = ""  # how the supplier was chosen for the buyer ("the lowest price"), said first


def _sname(facts: Facts, supplier: Record) -> str:
    return str(supplier.get("name_zh") if facts.zh else supplier.get("name_en"))


def _pname(facts: Facts, part: Record) -> str:
    return f"{part.get('sku')} {part.get('name_zh') if facts.zh else part.get('name_en')}"


def _refuse(facts: Facts, zh: str, en: str) -> Decision:
    return Decision(facts.say(zh, en), note="refused")


def _bad_quantity(facts: Facts, found: Grounding) -> Quantity | None:
    """A zero, negative or fractional quantity the buyer wrote (never read as another one)."""
    exclude = model_tokens(facts.text) + [m.term for m in found.suppliers]
    quantity = read_quantity(lexicon.before_note(facts.body), exclude=exclude)
    return quantity if quantity is not None and quantity.problem is not None else None


def _quantity_refusal(facts: Facts, quantity: Quantity, choice: _Choice | None) -> Decision:
    named = []
    if choice is not None and choice.supplier:
        named.append(_sname(facts, choice.supplier))
    if choice is not None and choice.part:
        named.append(_pname(facts, choice.part))
    what = facts.say("（" + "，".join(named) + "）", " (" + ", ".join(named) + ")") if named else ""
    return _refuse(
        facts,
        f"不能下单：数量 {quantity.raw} 不是正整数{what}。订购数量必须是大于 0 的整数，"
        "没有创建任何订单。",
        f"I can't place that order: {quantity.raw} is not a whole positive quantity{what}. "
        "Order quantities must be whole numbers above zero; nothing was ordered.",
    )


# --- the supplier -------------------------------------------------------------------------


# A supplier ruled out in an answer ("=不是GZMT就行", "=anyone but GZMT", "=除了GZMT都行").
_RULED_OUT = re.compile(
    r"(?:不是|不要|不用|别用|别找|别|除了|除去|排除)\s*$|(?<![a-z])(?:not|no|but|except|other\s+than|"
    r"anyone\s+but|anything\s+but)\s*$",
    re.I,
)


def _ruled_out(facts: Facts, suppliers: list[Record]) -> set[Any]:
    """The ids of suppliers the buyer's answers rule out (the words right before the name)."""
    text = facts.answer_text or ""
    return {
        m.record.get("id")
        for m in find_suppliers(text, suppliers, skip=token_spans(text))
        if _RULED_OUT.search(text[: m.start])
    }


def _named_supplier(facts: Facts, found: Grounding, suppliers: list[Record]) -> list[Mention]:
    out = _ruled_out(facts, suppliers)
    return [
        m for m in _named_supplier_any(facts, found, suppliers) if m.record.get("id") not in out
    ]


def _named_supplier_any(facts: Facts, found: Grounding, suppliers: list[Record]) -> list[Mention]:
    named = facts.answer("supplier", "supplier_name", "supplier_id", "供应商")
    if named is not None:
        by_id = [s for s in suppliers if str(s.get("id")) == str(named).strip()]
        if by_id:
            return [Mention(by_id[0], 0, 0, str(named))]
        hits = find_suppliers(str(named), suppliers)
        if hits:
            return hits
    corrected = _corrected(facts)
    if corrected:  # "LONCIN, sorry I mean GZMT": the supplier named after the correction
        after = find_suppliers(corrected, suppliers, skip=token_spans(corrected))
        if len({m.record.get("id") for m in after}) == 1:
            return after[:1]
    if facts.answer_text:  # named since the request ("不对，是博世的", "no, NGK"): that one
        # (not a brand inside a SKU given as the answer: "BT-SAIL-YB5L-B" names no supplier)
        newest = find_suppliers(facts.answer_text, suppliers,
                                skip=token_spans(facts.answer_text))  # fmt: skip
        if len(newest) == 1:
            return newest
    mentions = _suppliers_not_brands(facts, found)
    if len(mentions) > 1:
        marked = supplier_marked(facts.text, mentions)
        if len(marked) == 1:
            return marked
    return mentions or _maker_by_brand(facts, found, suppliers)


def _suppliers_not_brands(facts: Facts, found: Grounding) -> list[Mention]:
    """The suppliers named, less a part's brand when the buyer asks for the cheapest or the
    fastest supplier, or leaves it open ("order 10 Regina 428H-116L from the cheapest
    supplier": Regina is the chain's brand, and its maker was carded at its own, higher
    price). A name the buyer orders *from* ("给瑞格下单…") stays the supplier."""
    mentions = found.suppliers
    if not lexicon.has(facts.body, "cheapest", "fastest", "any_supplier"):
        return mentions
    brands = {
        str(p.record.get(k) or "").casefold() for p in found.parts for k in ("brand", "brand_zh")
    }
    marked = supplier_marked(facts.text, mentions)
    return [m for m in mentions if m in marked or not (
        {str(m.record.get(k) or "").casefold() for k in ("code", "name_zh", "name_en")} & brands
        or m.term.casefold() in brands)]  # fmt: skip


def _maker_by_brand(facts: Facts, found: Grounding, suppliers: list[Record]) -> list[Mention]:
    """The maker the buyer names by its brand ("给火炬下U6FER9 200个": 火炬 is the brand of
    the part, 株洲湘火炬 the maker whose code is that brand), when no supplier name was."""
    for m in _SUPPLIER_SLOT.finditer(facts.body):
        name = (m.group(1) or m.group(2) or "").strip().casefold()
        for part in (p.record for p in found.parts):
            if name and name in (str(part.get("brand_zh") or "").casefold(),
                                 str(part.get("brand") or "").casefold()):  # fmt: skip
                brand = str(part.get("brand") or "").casefold()
                maker = [s for s in suppliers if str(s.get("code") or "").casefold() == brand]
                if len(maker) == 1:
                    return [Mention(maker[0], m.start(1 if m.group(1) else 2), m.end(), name)]
    return []


def _supplier(facts: Facts, found: Grounding, suppliers: list[Record]) -> Record | Decision | None:
    """The supplier, None when the buyer named none the ERP knows, or a question."""
    mentions = _named_supplier(facts, found, suppliers)
    if len(mentions) > 1:
        options = [f"{m.record.get('code')} {_sname(facts, m.record)}" for m in mentions]
        return ask(
            facts,
            ["supplier"],
            facts.say(f"从哪家供应商订：{'、'.join(options)}？",
                      f"Which supplier should I order from: {', '.join(options)}?"),
            options,
        )  # fmt: skip
    return mentions[0].record if mentions else None


def _not_taking_orders(facts: Facts, supplier: Record, choice: _Choice) -> Decision:
    """A supplier on hold or blocked, said as OrderGuard says it (the ERP's rule and fix)."""
    lang = facts.lang
    status = str(supplier.get("status"))
    code = "SUPPLIER_BLOCKED" if status == "blocked" else "SUPPLIER_ON_HOLD"
    who = f"{_sname(facts, supplier)}（{supplier.get('code')}）" if facts.zh else (
        f"{_sname(facts, supplier)} ({supplier.get('code')})")  # fmt: skip
    issue = {"code": code, "details": {"status": status}}
    sentence = issue_text(issue, lang, IssueFacts({"status": status}, supplier=who))
    part = facts.say(f"（{_pname(facts, choice.part)}）", f" ({_pname(facts, choice.part)})") if (
        choice.part) else ""  # fmt: skip
    return _refuse(
        facts, f"不能下单{part}：{sentence}", f"I can't place that order{part}: {sentence}"
    )


def _unknown_supplier(facts: Facts, suppliers: list[Record]) -> str:
    """The supplier the buyer named that the ERP does not know ("给 ABC 摩配下单"), said;
    a known one ruled out ("不要给冠军下单，给火炬下…") is not claimed unknown."""
    for m in _SUPPLIER_SLOT.finditer(facts.body):
        name = m.group(1) or m.group(2)
        if name and not find_suppliers(name, suppliers):
            return facts.say(f"ERP 里没有供应商“{name}”。", f"The ERP has no supplier {name!r}. ")
    return ""


# --- the part -----------------------------------------------------------------------------


def _items(data: Any) -> list[Record]:
    if isinstance(data, dict) and isinstance(data.get("items"), list):
        return [i for i in data["items"] if isinstance(i, dict)]
    return []


def _offers(facts: Facts, parts: list[Record]) -> dict[int, list[Record]] | Decision:
    """Each part's offers (``part_query`` by id), or the step that reads them."""
    out: dict[int, list[Record]] = {}
    calls = []
    for part in parts:
        data = facts.read("part_query", {"part_id": part["id"]})
        if data is None:
            calls.append(("part_query", {"part_id": part["id"]}))
        else:
            out[int(part["id"])] = [o for o in data.get("offers") or [] if isinstance(o, dict)]
    if calls:
        skus = ", ".join(str(p.get("sku")) for p in parts)
        return Decision(
            facts.say(f"查询 {skus} 的供应商和报价。", f"Looking up who sells {skus}."),
            calls,
            note="part-offers",
        )
    return out


def _answered_part(facts: Facts, pool: list[Record]) -> Record | None:
    named = facts.answer("part", "part_id", "sku", "model", "零件", "型号")
    if named is None:
        return None
    key = str(named).strip().lower()
    exact = [p for p in pool if key in {str(p.get("id")), str(p.get("sku", "")).lower(),
                                         str(p.get("model", "")).lower()}]  # fmt: skip
    return exact[0] if exact else None


def _from_pool(facts: Facts, pool: list[Record], choice: _Choice) -> None:
    """Pick the part among ``pool`` (what the buyer named in it, or its only part) or note
    the question."""
    chosen = _answered_part(facts, pool)
    if chosen is None:
        # A list names parts a search for model-like words cannot (a bare model "520").
        hits = not_negated(facts.text, find_parts(facts.text, pool, bare_numbers=True))
        ids = {int(m.record["id"]) for m in hits}
        if len(ids) == 1:
            chosen = hits[0].record
        elif len(pool) == 1 and not model_tokens(facts.body):
            chosen = pool[0]
        elif hits:
            pool = [m.record for m in hits]
    if chosen is not None:
        choice.part = chosen
        return
    choice.missing.append("part")
    unique = list({int(p["id"]): p for p in pool}.values())
    choice.options = [_pname(facts, p) for p in unique[:_OPTIONS]]


def _category_pool(
    facts: Facts, found: Grounding, supplier: Record | None
) -> list[Record] | Decision | None:
    """The parts of the named categories (at ``supplier``), or the step that lists them;
    None when the request names no category."""
    if not found.categories:
        return None
    pool: list[Record] = []
    calls = []
    for mention in found.categories:
        args: dict[str, Any] = {"category": mention.code, "size": _POOL}
        if supplier is not None:
            args["supplier_id"] = supplier["id"]
        data = facts.read("part_query", args)
        if data is None:
            calls.append(("part_query", args))
        else:
            pool += _items(data)
    if calls:
        return Decision(
            facts.say("查询这类零件。", "Looking up the parts of that kind."),
            calls,
            note="category-parts",
        )
    return pool


def _sold_by(facts: Facts, supplier: Record, named: list[Record]) -> list[Record] | Decision:
    """Which of the ``named`` parts ``supplier`` sells: its catalogue in their categories
    (one small read each), or each part's offers where that catalogue runs past one page."""
    sold: list[Record] = []
    unsure: list[Record] = []
    calls = []
    for code in dict.fromkeys(str(p.get("category_code")) for p in named):
        args = {"category": code, "supplier_id": supplier["id"], "size": _POOL}
        data = facts.read("part_query", args)
        if data is None:
            calls.append(("part_query", args))
            continue
        ids = {int(i["id"]) for i in _items(data) if "id" in i}
        complete = int(data.get("total") or 0) <= len(ids)
        for part in (p for p in named if str(p.get("category_code")) == code):
            if int(part["id"]) in ids:
                sold.append(part)
            elif not complete:
                unsure.append(part)
    if calls:
        return Decision(
            facts.say(f"查询 {_sname(facts, supplier)} 供应的这类零件。",
                      f"Looking up what {_sname(facts, supplier)} sells of that kind."),
            calls,
            note="category-parts",
        )  # fmt: skip
    if unsure:
        offers = _offers(facts, unsure)
        if isinstance(offers, Decision):
            return offers
        sold += [p for p in unsure if any(o.get("supplier_id") == supplier["id"]
                                          for o in offers.get(int(p["id"]), []))]  # fmt: skip
    return sold


def _with_supplier(facts: Facts, found: Grounding, supplier: Record) -> _Choice | Decision:
    choice = _Choice(supplier=supplier)
    named = list({int(m.record["id"]): m.record for m in found.parts}.values())
    if named and len(named) <= _MOST_CANDIDATES:
        sold = _sold_by(facts, supplier, named)
        if isinstance(sold, Decision):
            return sold
        if not sold:
            choice.not_supplied = named[0]
            return choice
        _from_pool(facts, sold, choice)
        return choice
    pool = _category_pool(facts, found, supplier)
    if isinstance(pool, Decision):
        return pool
    if pool is None:
        args = {"supplier_id": supplier["id"], "page": 1, "size": _POOL}
        data = facts.read("part_by_supplier", args)
        if data is None:
            return Decision(
                facts.say(f"查询 {_sname(facts, supplier)} 供应的零件。",
                          f"Looking up the parts {_sname(facts, supplier)} sells."),
                [("part_by_supplier", args)],
                note="supplier-parts",
            )  # fmt: skip
        pool = _items(data)
    _from_pool(facts, named or pool, choice)
    return choice


def _without_supplier(
    facts: Facts, found: Grounding, suppliers: list[Record]
) -> _Choice | Decision:
    """No supplier named: find the part first, then offer the suppliers that sell it."""
    choice = _Choice(missing=["supplier"])
    named = list({int(m.record["id"]): m.record for m in found.parts}.values())
    if not named:
        pool = _category_pool(facts, found, None)
        if isinstance(pool, Decision):
            return pool
        _from_pool(facts, pool or [], choice)
        if choice.part is None:
            return choice
        named = [choice.part]
    if len(named) > 1:
        choice.missing.append("part")
        choice.options = [_pname(facts, p) for p in named][:_OPTIONS]
        return choice
    part = choice.part = named[0]
    offers = _offers(facts, [part])
    if isinstance(offers, Decision):
        return offers
    name = "supplier_name_zh" if facts.zh else "supplier_name_en"
    # Only suppliers that take orders are offered (one on hold or blocked would be refused).
    taking = {s.get("id") for s in suppliers if s.get("status") == "active"}
    taking -= _ruled_out(facts, suppliers)  # "=不是GZMT就行": the others
    live = [o for o in offers.get(int(part["id"]), []) if o.get("supplier_id") in taking]
    choice.options = [
        f"{o.get('supplier_code')} {o.get(name)} @ {o.get('price')} {o.get('currency')}"
        for o in live
    ][:_OPTIONS]
    said = f"{facts.body}\n{facts.answer_text}"  # "=哪家便宜用哪家" as the answer too
    if live and lexicon.has(said, "cheapest") and len({o.get("currency") for o in live}) == 1:
        # "order 100 of the cheapest BKR6E": the lowest offer (one currency: comparable).
        _pick(facts, choice, suppliers, min(live, key=lambda o: int(o.get("price_minor") or 0)),
              "按最低价", "the lowest price")  # fmt: skip
    elif live and lexicon.has(said, "fastest"):
        # "找最快的那家", "whoever delivers fastest": the shortest lead time, then the price
        _pick(facts, choice, suppliers, _soonest(live), "按交期最短", "the shortest lead time")
    elif live and _left_to_me(facts, said):
        _pick_for_buyer(facts, choice, suppliers, live)
    elif live and _same_supplier(facts, said):
        last = _last_supplier(facts, part)
        if isinstance(last, Decision):
            return last
        offer = next((o for o in live if last and o.get("supplier_id") == last[0]), None)
        if offer is not None and last is not None:
            _pick(facts, choice, suppliers, offer, f"按上次订单 {last[1]} 的供应商",
                  f"the supplier of last order {last[1]}")  # fmt: skip
    return choice


def _soonest(offers: list[Record]) -> Record:
    """The offer with the shortest lead time (then the lowest price)."""
    return min(offers, key=lambda o: (int(o.get("lead_time_days") or 10**6),
                                      int(o.get("price_minor") or 0)))  # fmt: skip


def _left_to_me(facts: Facts, said: str) -> bool:
    """Whether the buyer leaves the supplier to the assistant ("=随便哪家", "=你定吧",
    "订100个IU7，哪家都行", "=up to you")."""
    return lexicon.has(said, "any_supplier") or lexicon.has(facts.answer_text, "any_answer")


def _pick_for_buyer(facts: Facts, choice: _Choice, suppliers: list[Record],
                    live: list[Record]) -> None:  # fmt: skip
    """The supplier chosen for a buyer who left it open: of the offers that arrive by the
    date asked (all when none is asked, or none does), the lowest price when they are in one
    currency (comparable), else the shortest lead time; the reason is said and the card
    still needs the buyer's approval."""
    expected = _expected_date(facts)
    zh, en = "你让我选，", "you left it to me: "
    if expected is not None:
        days = (date.fromisoformat(expected) - facts.today).days
        in_time = [o for o in live if int(o.get("lead_time_days") or 10**6) <= days]
        if in_time and len(in_time) < len(live):
            live = in_time
            zh, en = (
                f"你让我选，在能于 {expected} 前到货的报价里",
                f"you left it to me: of the offers arriving by {expected}, ",
            )
    if len({o.get("currency") for o in live}) == 1:
        best = min(live, key=lambda o: (int(o.get("price_minor") or 0),
                                        int(o.get("lead_time_days") or 10**6)))  # fmt: skip
        _pick(facts, choice, suppliers, best, zh + "按最低价", en + "the lowest price")
        return
    _pick(facts, choice, suppliers, _soonest(live),
          "你让我选，报价币种不同无法直接比价，按交期最短",
          "you left it to me; the offers are in different currencies, so by the shortest "
          "lead time")  # fmt: skip


def _same_supplier(facts: Facts, said: str) -> bool:
    """Whether the buyer asks for the supplier of the part's last order ("跟上次一样的供应商";
    "=跟上次一样" answering which supplier)."""
    answer = facts.answer_text or ""
    return lexicon.has(said, "same_supplier") or (
        bool(answer) and lexicon.has(answer, "same_as_last") and read_quantity(answer) is None
    )


def _last_supplier(facts: Facts, part: Record) -> tuple[int, str] | Decision | None:
    """The supplier id and order number of the part's newest order not cancelled (None: it
    has none); the read that finds it first."""
    query = {"part_id": part["id"], "size": 5}
    data = facts.read("order_search_details", query)
    if data is None:
        return Decision(facts.say("查找上次的订单。", "Finding the last order."),
                        [("order_search_details", query)], note="last-order")  # fmt: skip
    for order in _items(data):
        if order.get("status") != "cancelled" and isinstance(order.get("supplier_id"), int):
            return int(order["supplier_id"]), str(order.get("order_no"))
    return None


def _pick(facts: Facts, choice: _Choice, suppliers: list[Record], best: Record, zh: str,
          en: str) -> None:  # fmt: skip
    """The supplier of offer ``best``, chosen for the reason said (``zh`` / ``en``)."""
    chosen = next((s for s in suppliers if s.get("id") == best.get("supplier_id")), None)
    if chosen is None:
        return
    choice.supplier, choice.missing = chosen, []
    terms = f"{best.get('price')} {best.get('currency')}"
    days = best.get("lead_time_days")
    choice.why = facts.say(
        f"{zh}选了 {_sname(facts, chosen)}（{terms}，交期 {days} 天）。",
        f"Chose {_sname(facts, chosen)}, {en} ({terms}, lead time {days} days). ",
    )


def _newest_parts(facts: Facts, found: Grounding) -> Grounding:
    """The parts named since the request ("不对，是 C8HSA", "make it the CR5HSA"), when the
    buyer named any: they replace the ones of the request."""
    if not facts.answer_text or len({id(m.record) for m in found.parts}) < 2:
        return found
    newest = {id(m.record) for m in find_parts(facts.answer_text, [m.record for m in found.parts])}
    if not newest:
        return found
    return replace(found, parts=[m for m in found.parts if id(m.record) in newest])


def _choose(facts: Facts, found: Grounding, suppliers: list[Record]) -> _Choice | Decision:
    supplier = _supplier(facts, found, suppliers)
    if isinstance(supplier, Decision):
        return supplier
    if supplier:
        return _with_supplier(facts, found, supplier)
    return _without_supplier(facts, found, suppliers)


def _not_supplied(facts: Facts, supplier: Record, part: Record) -> Decision:
    return _refuse(
        facts,
        f"不能下单：ERP 中 {_sname(facts, supplier)} 不供应 {_pname(facts, part)}。"
        "请换一家供应这个零件的供应商，或换一个零件。",
        f"I can't place that order: in the ERP, {_sname(facts, supplier)} does not supply "
        f"{_pname(facts, part)}. Choose a supplier that sells it, or another part.",
    )


# --- asking, and the order itself -----------------------------------------------------------


def _known(facts: Facts, choice: _Choice, found: Grounding) -> str:
    """What is already settled, said back in the question (供应商 NGK，零件 SP-NGK-IU7)."""
    said = []
    if choice.supplier:
        said.append(facts.say(f"供应商 {_sname(facts, choice.supplier)}",
                              f"supplier {_sname(facts, choice.supplier)}"))  # fmt: skip
    if choice.part:
        said.append(facts.say(f"零件 {_pname(facts, choice.part)}",
                              f"part {_pname(facts, choice.part)}"))  # fmt: skip
    elif found.categories:
        key = "name_zh" if facts.zh else "name_en"
        names = "/".join(str(m.record.get(key)) for m in found.categories)
        said.append(facts.say(f"类别 {names}", f"category {names}"))
    if not said:
        return ""
    return facts.say("已确定：" + "，".join(said) + "。", "So far: " + ", ".join(said) + ". ")


_FIELD_NAMES = {"supplier": ("供应商", "supplier"), "part": ("零件型号", "part (model or SKU)"),
                "quantity": ("数量", "quantity")}  # fmt: skip


def _ask_missing(facts: Facts, choice: _Choice, quantity_missing: bool, lead: str) -> Decision:
    missing = choice.missing + (["quantity"] if quantity_missing else [])
    names = [_FIELD_NAMES[m] for m in missing]
    ruling = re.search(r"不是|不要|别用|除了|\b(?:but|except|not)\b", facts.answer_text or "", re.I)
    if facts.answered and missing == ["supplier"] and choice.options and ruling:
        lead = facts.say("好的，不用你排除的那家。", "OK, not the one you ruled out. ") + lead
    elif facts.answered:
        # The buyer answered already: say what could not be read from it, by name.
        lead = facts.say("没能从你的回答里读出" + "、".join(n[0] for n in names) + "。",
                         "I could not read the " + ", ".join(n[1] for n in names)
                         + " from your answer. ") + lead  # fmt: skip
    head = facts.say("请补充：" + "、".join(n[0] for n in names),
                     "Please tell me the " + ", ".join(n[1] for n in names))  # fmt: skip
    if choice.options:
        head += facts.say("（可选：" + "；".join(choice.options[:8]) + "）",
                          " (options: " + "; ".join(choice.options[:8]) + ")")  # fmt: skip
    return ask(facts, missing, lead + head + facts.say("。", "."), choice.options or None)


# A note the buyer wrote for the order itself: "备注：加急", "备注写 第二批", "注明：送二号仓",
# "note: urgent", "please mention on the PO that it's for the Q1 campaign".
_BODY_NOTE = re.compile(
    r"(?:备注|附言)\s*(?:(?:写上?|为|是)\s*[:：]?|[:：]|\s)\s*(?P<zh>[^\n。]+)"
    r"|(?:注明|写明|标明)\s*[:：]?\s*(?P<zh2>[^\n。]+)"
    r"|\b(?:note|remark|comment)s?\s*[:：]\s*(?P<en>[^\n]+)"
    r"|\b(?:mention|note|write|put|state|say)\s+(?:it\s+)?on\s+the\s+(?:po|p\.o\.|order)\s+"
    r"that\s+(?P<en2>[^.!\n]+)",
    re.I,
)


def _note(facts: Facts) -> str:
    """Who placed the order, and the note the buyer asked for (in the request or an answer).

    Only that: the order's note is printed on the purchase order the supplier receives, so
    the rest of the chat ("不过先别提交，我再看看") never goes into it."""
    note = facts.say("采购助理代下单", "Placed by the procurement assistant")
    added = facts.answer("note", "备注", "remark")
    if added is None:
        m = _NOTE.search(facts.answer_text)
        added = m.group(1).strip() if m else None
    if added is None:
        m = _BODY_NOTE.search(facts.body)
        group = next((g for g, v in m.groupdict().items() if v), None) if m else None
        added = facts.as_written(*m.span(group)) if m and group else None
    if added:
        note += facts.say("；备注：", "; note: ") + str(added).strip().rstrip("，,;；")
    return note[:500]


def _expected_date(facts: Facts) -> str | None:
    """The delivery date: from an answer first (answers come later, so they win)."""
    sources = [facts.answer("expected_date", "delivery_date", "date", "due", "到货日期", "交期"),
               *facts.answers.values(), facts.answer_text, _corrected(facts),
               lexicon.before_note(facts.body)]  # fmt: skip
    for source in sources:
        if source:
            found = find_date(str(source), facts.today)
            if found is not None:
                return found.isoformat()
    return None


# The size of a package: "每箱 24 个", "一箱100支", "24支/箱", "24 per box", "boxes of 24".
_PACK_SIZE = re.compile(
    r"(?:每|一)\s*(?:箱|盒|包|袋|桶|卷)\s*(?:是|有|装|=|:|：|[（(])?\s*(\d+)"
    r"|(\d+)\s*(?:个|件|只|套|条|片|副|支|根|pcs|pieces|units)?\s*(?:/|每|一)\s*(?:箱|盒|包|袋)"
    r"|(\d+)\s*(?:pcs|pieces|units|items)?\s*(?:per|a|each|/)\s*(?:box|case|carton|pack)"
    r"|(?:boxes|cases|cartons|packs) of (\d+)",
    re.I,
)


def _quantity(facts: Facts, choice: _Choice) -> int | Quantity | None:
    """The number of items to order; a count of packages whose size nobody gave ("5 箱" of a
    part sold by the piece) comes back as it was written, to be asked about."""
    answered = facts.answer("quantity", "qty", "数量")
    exclude = [str(v) for v in ((choice.part or {}).get("model"), (choice.part or {}).get("sku"),
                                (choice.supplier or {}).get("code")) if v]  # fmt: skip
    exclude += model_tokens(facts.text)
    own_unit = str((choice.part or {}).get("unit") or "")
    body = lexicon.before_note(facts.body)  # a note's words are the note's, never a count
    sources = (str(answered) if answered is not None else None, facts.answer_text,
               _corrected(facts), body)  # fmt: skip
    for text in sources:
        if text:
            found = read_quantity(_PACK_SIZE.sub(" ", text), exclude=exclude)
            if found is None or found.value is None:
                continue
            if not found.packs or found.unit == own_unit:
                return found.value
            size = next((_PACK_SIZE.search(t) for t in (facts.answer_text, facts.body)
                         if t and _PACK_SIZE.search(t)), None)  # fmt: skip
            if size is None:
                return found
            return found.value * int(next(g for g in size.groups() if g))
    return None


def _undecided(facts: Facts, chosen: _Choice, found: Grounding) -> Decision | None:
    """One part with two different counts ("GZMT 订IU7 100个 150个"): which one is asked,
    never the first taken (None: one count, an answer given, or several parts)."""
    if chosen.part is None or len(found.parts) > 1 or facts.answer_text:
        return None
    if facts.answer("quantity", "qty", "数量") is not None:
        return None
    if read_quantity(_corrected(facts)) is not None:
        return None  # "200个，不对，250个": corrected, not undecided
    exclude = [str(v) for v in (chosen.part.get("model"), chosen.part.get("sku"),
                                (chosen.supplier or {}).get("code")) if v]  # fmt: skip
    body = _PACK_SIZE.sub(" ", lexicon.before_note(facts.body))
    counts = quantities_written(body, exclude=exclude + model_tokens(facts.text))
    if len(counts) < 2:
        return None
    listed = ("、" if facts.zh else ", ").join(str(c) for c in counts)
    return ask(
        facts,
        ["quantity"],
        facts.say(f"{_pname(facts, chosen.part)} 你写了几个数量（{listed}），要订多少？",
                  f"You wrote several quantities for {_pname(facts, chosen.part)} ({listed}). "
                  "How many should I order?"),
    )  # fmt: skip


# An English package word said in a Chinese reply ("一箱有多少个", not "一boxes").
_PACK_ZH = {"box": "箱", "boxes": "箱", "case": "箱", "cases": "箱", "carton": "箱",
            "cartons": "箱", "pack": "包", "packs": "包", "pallet": "托",
            "pallets": "托"}  # fmt: skip


def _ask_pack_size(facts: Facts, choice: _Choice, packs: Quantity) -> Decision:
    """ "5 箱" of a part ordered by the piece: how many pieces that is."""
    part = choice.part or {}
    unit = unit_word(str(part.get("unit") or ""), facts.lang)
    if unit in ("pcs", "pc"):
        unit = "piece"  # "ordered by the piece", "the number of pieces"
    return ask(
        facts,
        ["quantity"],
        facts.say(
            f"你说的是 {packs.value} {packs.unit}，但 {_pname(facts, part)} 按“{unit}”下单。"
            f"一{_PACK_ZH.get(str(packs.unit), packs.unit)}有多少{unit}？请直接告诉我要多少{unit}"
            f"（比如“500 {unit}”）。",
            f"You said {packs.value} {packs.unit}, but {_pname(facts, part)} is ordered by the "
            f'{unit}. How many is that? Tell me the number of {unit}s (e.g. "500").',
        ),
    )


def _last_quantity(
    facts: Facts, supplier: Record, part: Record
) -> tuple[int, str] | Decision | None:
    """For "数量跟上次一样" / "same quantity as last time": the part's quantity on the newest
    order of this supplier that holds it, with the sentence saying so (None: there is none,
    or the buyer did not ask for it); the read that finds it first."""
    if not lexicon.has(facts.body, "same_as_last"):
        return None
    query = {"supplier_id": supplier["id"], "part_id": part["id"], "size": 1}
    data = facts.read("order_search_details", query)
    if data is None:
        return Decision(
            facts.say("查找上次的订单。", "Finding the last order."),
            [("order_search_details", query)],
            note="last-order",
        )
    for order in _items(data):
        for line in order.get("lines") or []:
            if isinstance(line, dict) and line.get("part_id") == part["id"]:
                quantity = int(line.get("quantity") or 0)
                if quantity > 0:
                    no, day = order.get("order_no"), order.get("order_date")
                    return quantity, facts.say(
                        f"数量按上次订单 {no}（{day}）：{quantity} {part.get('unit') or ''}。",
                        f"Quantity as on the last order, {no} ({day}): {quantity}. ",
                    )
    return None


# A price the buyer asks the order to be at ("单价按50算", "价格：48.5", "at 50 CNY each",
# "unit price 50"): the ERP prices an order from its price list, so the price asked is not
# used, and the buyer is told before approving.
_PRICE_ASKED = re.compile(
    r"(?:单价|价格|价钱)\s*(?:按|是|为|定为|定在|写|[:：=])?\s*[¥￥]?\s*(\d+(?:\.\d+)?)"
    r"|按\s*[¥￥]?\s*(\d+(?:\.\d+)?)\s*(?:元|块)?\s*(?:一个|每个|/个|一件|一只|一套)?\s*(?:算|的价)"
    r"|(?<![a-z])(?:at|@)\s*[$¥￥]?\s*(\d+(?:\.\d+)?)\s*(?:cny|rmb|yuan|usd|dollars?)?\s*"
    r"(?:each|apiece|per|a piece|/\s*pc|/\s*unit|a unit)"
    r"|(?<![a-z])(?:unit\s+)?price\s*(?:of|at|=|:)\s*[$¥￥]?\s*(\d+(?:\.\d+)?)",
    re.I,
)


def _price_note(facts: Facts, validation: Record | None) -> str:
    """What the buyer hears when the order asked for its own price (empty: it did not, or
    asked for the price the ERP charges)."""
    m = _PRICE_ASKED.search(lexicon.before_note(facts.body))
    if m is None:
        return ""
    asked = next(g for g in m.groups() if g)
    lines = ((validation or {}).get("order") or {}).get("lines") or [{}]
    if round(float(asked) * 100) == lines[0].get("unit_price_minor"):
        return ""
    return facts.say(
        f"\n注意：单价按 ERP 价格表计算，你说的 {asked} 没有用上。价格表是 ERP 的主数据，"
        "这里改不了；要按别的价格下单，请先让负责价格表的同事更新。",
        f"\nNote: the unit price comes from the ERP's price list; the {asked} you gave is not "
        "used. Price lists are ERP master data and are not changed here; to order at another "
        "price, have the price list updated first.",
    )


def _create_call(
    facts: Facts, supplier: Record, part: Record, quantity: int, lead: str = ""
) -> Decision:
    args = _order_args(facts, supplier, [{"part_id": part["id"], "quantity": quantity}])
    fallback = facts.say(
        f"准备下单：{_sname(facts, supplier)}，{_pname(facts, part)} × {quantity}，"
        f"预计到货 {args.get('expected_date', '按交期')}。提交前需要你批准。",
        f"Ready to order from {_sname(facts, supplier)}: {_pname(facts, part)} × {quantity}, "
        f"expected {args.get('expected_date', 'at the lead time')}. Needs your approval first.",
    )
    return _proposed(facts, args, lead, fallback)


def _order_args(facts: Facts, supplier: Record, lines: list[dict[str, Any]]) -> dict[str, Any]:
    """``order_create``'s arguments: the supplier, the lines, the note and the date asked."""
    args: dict[str, Any] = {"supplier_id": supplier["id"], "lines": lines, "note": _note(facts)}
    expected = _expected_date(facts)
    if expected is not None:
        args["expected_date"] = expected
    return args


def _proposed(facts: Facts, args: dict[str, Any], lead: str, fallback: str) -> Decision:
    """The new order ``args`` checked by the ERP's dry run and put up for approval (or the
    refusal); ``fallback``: the text when this agent has no dry run (OrderGuard checks)."""
    validation = check.validated(facts, "order_create", args)
    if isinstance(validation, Decision):
        return validation
    if validation is not None and not validation.get("ok"):
        return check.refusal(facts, "order_create", args, validation)
    text = check.preview(facts, validation) if validation is not None else fallback
    note = _price_note(facts, validation)
    return Decision(lead + text + note, [("order_create", args)], note="create")


def _repeat_of(facts: Facts, order_no: str, suppliers: list[Record]) -> Decision:
    """Order ``order_no`` placed again as a new order, line by line at today's prices ("再来
    一张一模一样的" after it was shown; "PO… 那张取消的，原样重新下一遍"): the order itself is
    untouched, whatever its status."""
    order = by_number(facts, order_no)
    if isinstance(order, Decision):
        return order
    supplier = next((s for s in suppliers if s.get("id") == order.get("supplier_id")), None)
    lines = [{"part_id": ln["part_id"], "quantity": ln["quantity"]}
             for ln in order.get("lines") or [] if isinstance(ln, dict)]  # fmt: skip
    if supplier is None or not lines:
        return Decision(facts.say(f"订单 {order_no} 没有可以照着重下的供应商或明细，没有下单。",
                                  f"Order {order_no} has no supplier or lines to place again; "
                                  "nothing was ordered."), note="refused")  # fmt: skip
    status = status_word(order.get("status"), facts.lang)
    lead = facts.say(
        f"照订单 {order_no}（{order.get('order_date')}，{status}）的明细下一张新单，按今天的价格，"
        f"原单不变：\n",
        f"A new order with the lines of {order_no} ({order.get('order_date')}, {status}), at "
        "today's prices; that order stays as it is:\n")  # fmt: skip
    return _proposed(facts, _order_args(facts, supplier, lines), lead, "")


def _repeat(facts: Facts, found: Grounding, suppliers: list[Record]) -> Decision | None:
    """The supplier's newest order (not cancelled), or the order named by its number,
    proposed again, line by line (None: not asked, or no single supplier named, or a part
    named: then it is a normal order)."""
    if not lexicon.has(facts.body, "repeat_order"):
        return None
    answered = f"{facts.answer('order_no', 'order', '订单号') or ''} {facts.answer_text}"
    order_no = find_order_no(facts.body) or find_order_no(answered)
    if order_no is not None:
        return _repeat_of(facts, order_no, suppliers)
    if found.parts or len(found.suppliers) > 1:
        return None
    mine = me(facts)  # "repeat my last order": the buyer's own newest
    if not found.suppliers and mine is None:  # "照上次的再下一单": whose? asked, never guessed
        return ask(facts, ["order_no"], facts.say(
            "照哪一张订单重下？请告诉我订单号（或者供应商，我找它最近的一张）。",
            "Which order should I place again? Give its number (or the supplier, and I'll "
            "take its newest order)."))  # fmt: skip
    query = ({"supplier_id": found.suppliers[0].record["id"]} if found.suppliers
             else {mine.field: mine.user} if mine else {}) | {"size": 5}  # fmt: skip
    data = facts.read("order_search_details", query)
    if data is None:
        return Decision(facts.say("查找上一张订单。", "Finding the last order."),
                        [("order_search_details", query)], note="last-order")  # fmt: skip
    last = next((o for o in _items(data) if o.get("status") != "cancelled"), None)
    if last is None:
        whose = (_sname(facts, found.suppliers[0].record) if found.suppliers
                 else mine.said(facts.zh) if mine else "")  # fmt: skip
        return ask(facts, ["part", "quantity"], facts.say(
            f"没有找到{whose}之前的订单。要订哪个零件、多少？",
            f"I found no earlier order ({whose}). Which part, and how many?"))  # fmt: skip
    supplier = next((s for s in suppliers if s.get("id") == last.get("supplier_id")), None)
    if supplier is None:
        return None
    lines = [{"part_id": ln["part_id"], "quantity": ln["quantity"]}
             for ln in last.get("lines") or [] if isinstance(ln, dict)]  # fmt: skip
    args = _order_args(facts, supplier, lines)
    lead = facts.say(f"照上一张订单 {last.get('order_no')}（{last.get('order_date')}）的明细重下，"
                     "按今天的价格：\n",
                     f"The last order {last.get('order_no')} ({last.get('order_date')}) again, "
                     "line by line, at today's prices:\n")  # fmt: skip
    return _proposed(facts, args, lead, "")


def _last_part(facts: Facts, found: Grounding, suppliers: list[Record]) -> Decision | None:
    """The part of the named supplier's newest order, at the quantity asked ("再从桂盟订20个
    上次那个", "order 20 more of what we ordered from KMC last time"); which part is asked
    when that order had several. None: not asked, or a part named (then it is that part)."""
    if not lexicon.has(facts.body, "last_part") or found.parts or len(found.suppliers) != 1:
        return None
    quantity = read_quantity(lexicon.before_note(facts.body))
    if quantity is None or quantity.value is None:
        return None  # no count, or a bad one: the usual path asks or refuses
    supplier = found.suppliers[0].record
    query = {"supplier_id": supplier["id"], "size": 5}
    data = facts.read("order_search_details", query)
    if data is None:
        return Decision(facts.say("查找上一张订单。", "Finding the last order."),
                        [("order_search_details", query)], note="last-order")  # fmt: skip
    last = next((o for o in _items(data) if o.get("status") != "cancelled"), None)
    lines = [ln for ln in (last or {}).get("lines") or [] if isinstance(ln, dict)]
    if last is None or len(lines) != 1:
        options = [f"{ln.get('sku')}" for ln in lines]
        return ask(facts, ["part"], facts.say(
            f"上一张给{_sname(facts, supplier)}的订单"
            + (f" {last.get('order_no')} 有 {len(lines)} 个零件：{'、'.join(options)}。要订哪个？"
               if last else "没有找到。要订哪个零件？"),
            f"The last order with {_sname(facts, supplier)} "
            + (f"{last.get('order_no')} has {len(lines)} parts: {', '.join(options)}. Which one?"
               if last else "was not found. Which part?")), options or None)  # fmt: skip
    line = lines[0]
    args = _order_args(facts, supplier, [{"part_id": line["part_id"], "quantity": quantity.value}])
    lead = facts.say(
        f"按上一张给{_sname(facts, supplier)}的订单 {last.get('order_no')}"
        f"（{last.get('order_date')}）里的 {line.get('sku')}，订 {quantity.value}，"
        "按今天的价格：\n",
        f"{line.get('sku')} as on the last order with {_sname(facts, supplier)}, "
        f"{last.get('order_no')} ({last.get('order_date')}), {quantity.value} of it at today's "
        "prices:\n",
    )
    return _proposed(facts, args, lead, "")


def _counts_by_part(facts: Facts, found: Grounding) -> list[tuple[Record, int]] | None:
    """Each part the text names with its own count ("IU7 100个和IU9 200个", a pasted list
    "IU7 100\nIU9 200", "100个IU7、200个IU9"), in order; None when a part has none."""
    mentions: list[Mention] = []
    for m in sorted(found.parts, key=lambda m: m.start):
        if all(m.record.get("id") != n.record.get("id") for n in mentions):
            mentions.append(m)
    text = facts.text
    exclude = [str(m.term) for m in mentions] + model_tokens(text)
    exclude += [str(m.term) for m in found.suppliers]
    # the count follows each part, or (when the text starts with one) precedes it
    before = read_quantity(text[: mentions[0].start], exclude=exclude)
    spans = [(mentions[i - 1].end if i else 0, m.start) for i, m in enumerate(mentions)] if (
        before is not None and before.value is not None) else [
        (m.end, mentions[i + 1].start if i + 1 < len(mentions) else len(text))
        for i, m in enumerate(mentions)]  # fmt: skip
    out = []
    for m, (a, b) in zip(mentions, spans, strict=True):
        count = read_quantity(_PACK_SIZE.sub(" ", text[a:b]), exclude=exclude)
        if count is None or count.value is None or count.packs:
            return None
        out.append((m.record, count.value))
    return out


def _several_lines(facts: Facts, found: Grounding) -> Decision | None:
    """One supplier and several parts, each with its count: one order with a line each
    (None: not that; the one-part flow asks what is missing)."""
    suppliers = {m.record.get("id"): m.record for m in found.suppliers}
    parts = {m.record.get("id") for m in found.parts}
    if len(suppliers) != 1 or len(parts) < 2 or facts.answer_text or facts.answers:
        return None
    counted = _counts_by_part(facts, found)
    if counted is None:
        return None
    [supplier] = suppliers.values()
    args = _order_args(facts, supplier, [{"part_id": p["id"], "quantity": q} for p, q in counted])
    listed = ("；" if facts.zh else "; ").join(f"{_pname(facts, p)} × {q}" for p, q in counted)
    fallback = facts.say(f"准备下单：{_sname(facts, supplier)}，{listed}。提交前需要你批准。",
                         f"Ready to order from {_sname(facts, supplier)}: {listed}. Needs your "
                         "approval first.")  # fmt: skip
    return _proposed(facts, args, "", fallback)


# The one part kept of the order being made ("only the IU9", "只要IU9").
_ONLY = re.compile(r"只要|只订|只留|只下|(?<![a-z])(?:only|just)(?![a-z])", re.I)


def _lines_taken_out(facts: Facts, found: Grounding) -> Decision | None:
    """For "drop the IU9 line" / "IU9那行删掉" said to the order being made of several parts
    ("order 100 IU7 and 200 IU9 from NGK"): the other parts at their own counts. The part
    named was taken for a replacement, and the card was for IU9 alone. None: not that."""
    if not facts.answer_text or not (lexicon.TAKE_OUT.search(facts.answer_text)
                                     or _ONLY.search(facts.answer_text)):  # fmt: skip
        return None
    asked = {int(m.record["id"]): m.record for m in found.parts}
    named = {int(p.record["id"]) for p in find_parts(facts.answer_text, list(asked.values()))}
    suppliers = {m.record.get("id"): m.record for m in found.suppliers}
    if len(asked) < 2 or not named or len(named) == len(asked) or len(suppliers) != 1:
        return None
    counted = _counts_by_part(facts, found)
    if counted is None:
        return None
    only = bool(_ONLY.search(facts.answer_text))  # "only the IU9", "只要IU9": the one named
    kept = [(part, q) for part, q in counted if (int(part["id"]) in named) == only]
    [supplier] = suppliers.values()
    args = _order_args(facts, supplier, [{"part_id": p["id"], "quantity": q} for p, q in kept])
    gone = ("、" if facts.zh else ", ").join(_pname(facts, p) for p, _q in counted
                                            if (p, _q) not in kept)  # fmt: skip
    lead = facts.say(f"去掉了 {gone}，其余照旧：\n", f"Without {gone}; the rest as asked:\n")
    return _proposed(facts, args, lead, "")


# An answer that drops the order being made ("算了不要了", "never mind", "cancel it").
_DROP_ANSWER = re.compile(
    r"^\s*(?:算了|不要了|不用了|不下了|不订了|取消吧?|那就不要了)"
    r"|^\s*(?:never\s*mind|forget\s+it|cancel(?:\s+it|\s+that)?|drop\s+it)\s*[.!。！]?\s*$",
    re.I,
)


def create(facts: Facts) -> Decision:
    """The next step of a new order."""
    done = after_commit(facts, "order_create")
    if done is not None:
        return done
    if facts.answer_text and _DROP_ANSWER.search(facts.answer_text):
        return Decision(facts.say("好的，这张订单不下了，没有提交任何东西。",
                                  "OK, that order is dropped; nothing was placed."),
                        note="order-dropped")  # fmt: skip
    found, suppliers, step = facts.master_data()
    if step is not None:
        return step
    taken_out = _lines_taken_out(facts, found)  # before the parts named since replace any
    found = _newest_parts(facts, found)
    repeated = taken_out or (
        _repeat(facts, found, suppliers)
        or _last_part(facts, found, suppliers)
        or _several_lines(facts, found)
    )
    if repeated is not None:
        return repeated
    bad = _bad_quantity(facts, found)
    chosen = _choose(facts, found, suppliers)
    if bad is not None:
        # Refused whatever else is missing; a read first only to name the part.
        if isinstance(chosen, Decision) and chosen.note in _READS:
            return chosen
        return _quantity_refusal(facts, bad, chosen if isinstance(chosen, _Choice) else None)
    if isinstance(chosen, Decision):
        return chosen
    supplier = chosen.supplier
    undecided = _undecided(facts, chosen, found)
    if undecided is not None:
        return undecided
    quantity = _quantity(facts, chosen)
    if isinstance(quantity, Quantity):
        if chosen.part is not None:
            return _ask_pack_size(facts, chosen, quantity)
        quantity = None
    if supplier is not None and chosen.not_supplied is not None:
        if quantity is None or not facts.view.has_tool(check.TOOL):
            return _not_supplied(facts, supplier, chosen.not_supplied)
        # The ERP's refusal names who does sell it, at what price.
        return _create_call(facts, supplier, chosen.not_supplied, quantity)
    if (
        supplier is not None
        and supplier.get("status") != "active"
        and (chosen.missing or quantity is None)
    ):
        return _not_taking_orders(facts, supplier, chosen)
    source = ""
    if quantity is None and supplier is not None and chosen.part is not None:
        last = _last_quantity(facts, supplier, chosen.part)
        if isinstance(last, Decision):
            return last
        if last is not None:
            quantity, source = last
    if chosen.missing or quantity is None:
        lead = (_unknown_supplier(facts, suppliers) if supplier is None else "") + _known(
            facts, chosen, found
        )
        if lexicon.has(facts.body, "same_as_last") and supplier is not None and chosen.part:
            lead = facts.say("没有找到上次的订单。", "I found no earlier order of it. ") + lead
        return _ask_missing(facts, chosen, quantity is None, lead)
    assert supplier is not None and chosen.part is not None
    unread = unread_date(facts.text, facts.today) if _expected_date(facts) is None else None
    if unread is not None:
        # A date asked for in words not understood is asked about, never dropped: the card
        # would otherwise show the standard lead time as if that were what was asked.
        return ask(
            facts,
            ["expected_date"],
            facts.say(
                f"到货日期“{unread}”我没法换算成具体日期。请告诉我哪天之前到（比如“1月20日前”），"
                "或者说“按交期”。",
                f'I cannot turn "{unread}" into a delivery date. Tell me the date it must arrive '
                'by (e.g. "by Jan 20"), or say "standard lead time".',
            ),
        )
    return _create_call(facts, supplier, chosen.part, quantity, chosen.why + source)
