"""A new order: supplier, part and quantity resolved against the ERP, asked for when missing
or ambiguous, refused when impossible (bad quantity, blocked supplier, a part the supplier
does not sell), then ``order_create``, which pauses for the buyer's approval."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from graphs.offline.entities import Grounding, Mention, find_parts, not_negated, supplier_marked
from graphs.offline.policies.base import Decision
from graphs.offline.policies.order.facts import Facts, ask, paged
from graphs.offline.policies.order.outcome import after_commit
from graphs.offline.text import find_date, model_tokens, read_quantity

__all__ = ["create"]

Record = dict[str, Any]
_OPTIONS = 20
# The words between "给 / 从 / from" and the ordering verb name the supplier the buyer means.
_SUPPLIER_SLOT = re.compile(
    r"(?:给|从|向|跟|找|在)\s*([^\s，,。0-9]{2,12}?)\s*(?:下|订|买|采购|购买)"
    r"|\b(?:from|with)\s+([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3})"
)


@dataclass
class _Choice:
    """The supplier and part a new order is for, as far as they are known."""

    supplier: Record | None = None
    part: Record | None = None
    missing: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)
    note: str = ""


def _sname(facts: Facts, supplier: Record) -> str:
    return str(supplier.get("name_zh") if facts.zh else supplier.get("name_en"))


def _pname(facts: Facts, part: Record) -> str:
    return f"{part.get('sku')} {part.get('name_zh') if facts.zh else part.get('name_en')}"


def _refuse(facts: Facts, zh: str, en: str) -> Decision:
    return Decision(facts.say(zh, en), note="refused")


def _quantity_problem(facts: Facts, found: Grounding) -> Decision | None:
    exclude = model_tokens(facts.text) + [m.term for m in found.suppliers]
    quantity = read_quantity(facts.body, exclude=exclude)
    if quantity is None or quantity.problem is None:
        return None
    what = "，".join(
        [_sname(facts, m.record) for m in found.suppliers[:1]]
        + [_pname(facts, m.record) for m in found.parts[:1]]
    )
    return _refuse(
        facts,
        f"不能下单：数量 {quantity.raw} 不是正整数（{what}）。订购数量必须是大于 0 的整数，"
        "没有创建任何订单。",
        f"I can't place that order: {quantity.raw} is not a whole positive quantity ({what}). "
        "Order quantities must be whole numbers above zero; nothing was ordered.",
    )


def _named_supplier(facts: Facts, found: Grounding, suppliers: list[Record]) -> list[Mention]:
    named = facts.answer("supplier", "supplier_name", "供应商")
    if named is not None:
        by_id = [s for s in suppliers if str(s.get("id")) == str(named).strip()]
        if by_id:
            return [Mention(by_id[0], 0, 0, str(named))]
        from graphs.offline.entities import find_suppliers

        hits = find_suppliers(str(named), suppliers)
        if hits:
            return hits
    mentions = found.suppliers
    if len(mentions) > 1:
        marked = supplier_marked(facts.text, mentions)
        if len(marked) == 1:
            return marked
    return mentions


def _supplier(facts: Facts, found: Grounding, suppliers: list[Record]) -> Record | Decision | None:
    """The supplier, None when the buyer named none the ERP knows, or a question / refusal."""
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
    if not mentions:
        return None
    supplier = mentions[0].record
    if supplier.get("status") != "active":
        what = "".join(f"（{_pname(facts, m.record)}）" for m in found.parts[:1])
        return _refuse(
            facts,
            f"不能向 {_sname(facts, supplier)} 下单{what}：它在 ERP 中的状态是 "
            f"{supplier.get('status')}（不接受新订单）。请换一家供应商。",
            f"I can't order from {_sname(facts, supplier)}"
            f"{what.replace('（', ' (').replace('）', ')')}: its status in the ERP is "
            f"{supplier.get('status')}, so it takes no new orders. "
            "Choose another supplier.",
        )
    return supplier


def _unknown_supplier(facts: Facts) -> str:
    m = _SUPPLIER_SLOT.search(facts.body)
    name = (m.group(1) or m.group(2)) if m else None
    return facts.say(f"ERP 里没有供应商“{name}”。", f"The ERP has no supplier {name!r}. ") if (
        name) else ""  # fmt: skip


def _pick_part(facts: Facts, found: Grounding, sold: list[Record], choice: _Choice) -> None:
    """Choose among the parts the supplier sells (or note what to ask / refuse)."""
    sold_ids = {int(p["id"]): p for p in sold if "id" in p}
    named = facts.answer("part", "part_id", "sku", "model", "零件", "型号")
    if named is not None:
        key = str(named).strip().lower()
        exact = [p for p in sold if key in {str(p.get("id")), str(p.get("sku", "")).lower(),
                                             str(p.get("model", "")).lower()}]  # fmt: skip
        if exact:
            choice.part = exact[0]
            return
    # The supplier's own list names parts a search for model-like words cannot (model "520").
    hits = [*found.parts, *not_negated(facts.text, find_parts(facts.text, sold, bare_numbers=True))]
    mentioned = [sold_ids[int(m.record["id"])] for m in hits if int(m.record.get("id", -1))
                 in sold_ids]  # fmt: skip
    if len({p["id"] for p in mentioned}) == 1:
        choice.part = mentioned[0]
        return
    if found.parts and not mentioned:
        choice.note = "not-supplied"
        return
    pool = mentioned
    if not pool:
        codes = {m.code for m in found.categories}
        pool = [p for p in sold if p.get("category_code") in codes] if codes else sold
    if len(pool) == 1 and not model_tokens(facts.body):
        choice.part = pool[0]
        return
    choice.missing.append("part")
    unique = list({int(p["id"]): p for p in (pool or sold)}.values())
    choice.options = [_pname(facts, p) for p in unique[:_OPTIONS]]


def _not_supplied(facts: Facts, supplier: Record, found: Grounding) -> Decision:
    part = found.parts[0].record
    return _refuse(
        facts,
        f"不能下单：ERP 中 {_sname(facts, supplier)} 不供应 {_pname(facts, part)}。"
        "请换一家供应这个零件的供应商，或换一个零件。",
        f"I can't place that order: in the ERP, {_sname(facts, supplier)} does not supply "
        f"{_pname(facts, part)}. Choose a supplier that sells it, or another part.",
    )


def _with_supplier(facts: Facts, found: Grounding, supplier: Record) -> _Choice | Decision:
    sold, next_page = paged(facts.view, "part_by_supplier", supplier_id=supplier["id"])
    if next_page is not None:
        return Decision(
            facts.say(f"查询 {_sname(facts, supplier)} 供应的零件。",
                      f"Looking up the parts {_sname(facts, supplier)} sells."),
            [("part_by_supplier", next_page)],
            note="supplier-parts",
        )  # fmt: skip
    choice = _Choice(supplier=supplier)
    _pick_part(facts, found, sold, choice)
    if choice.note == "not-supplied":
        return _not_supplied(facts, supplier, found)
    return choice


def _without_supplier(facts: Facts, found: Grounding) -> _Choice | Decision:
    """No supplier named: find the part first, then offer the suppliers that sell it."""
    choice = _Choice(missing=["supplier"])
    parts = {int(m.record["id"]): m.record for m in found.parts if "id" in m.record}
    if len(parts) > 1:
        choice.missing = ["part"]
        choice.options = [_pname(facts, p) for p in parts.values()][:_OPTIONS]
        return choice
    if not parts:
        if "part" not in choice.missing:
            choice.missing.append("part")
        return choice
    part = next(iter(parts.values()))
    choice.part = part
    details = [d for r, d in facts.view.iter_data("part_query") if r.args.get("part_id") ==
               part["id"]]  # fmt: skip
    if not details:
        return Decision(
            facts.say(
                f"查询 {part.get('sku')} 的供应商。", f"Looking up who sells {part.get('sku')}."
            ),
            [("part_query", {"part_id": part["id"]})],
            note="part-offers",
        )
    offers = details[-1].get("offers") if isinstance(details[-1], dict) else []
    choice.options = [
        f"{o.get('supplier_code')} {o.get('supplier_name_zh' if facts.zh else 'supplier_name_en')}"
        f" @ {o.get('price')} {o.get('currency')}"
        for o in offers or []
    ][:_OPTIONS]
    return choice


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


def _ask_missing(facts: Facts, choice: _Choice, quantity_missing: bool, lead: str) -> Decision:
    names = {"supplier": ("供应商", "supplier"), "part": ("零件型号", "part (model or SKU)"),
             "quantity": ("数量", "quantity")}  # fmt: skip
    missing = choice.missing + (["quantity"] if quantity_missing else [])
    head = facts.say("请补充：" + "、".join(names[m][0] for m in missing),
                     "Please tell me the " + ", ".join(names[m][1] for m in missing))  # fmt: skip
    if choice.options:
        head += facts.say("（可选：" + "；".join(choice.options[:8]) + "）",
                          " (options: " + "; ".join(choice.options[:8]) + ")")  # fmt: skip
    return ask(facts, missing, lead + head + facts.say("。", "."), choice.options or None)


def _create_call(facts: Facts, supplier: Record, part: Record, quantity: int) -> Decision:
    args: dict[str, Any] = {
        "supplier_id": supplier["id"],
        "lines": [{"part_id": part["id"], "quantity": quantity}],
        "note": facts.say("采购助理代下单：", "Placed by the procurement assistant: ")
        + facts.body.strip()[:300],
    }
    when = facts.answer("expected_date", "delivery_date", "date", "到货日期")
    expected = find_date(str(when) if when else facts.body, facts.today)
    if expected is not None:
        args["expected_date"] = expected.isoformat()
    raw_offer = part.get("offer")
    offer: dict[str, Any] = raw_offer if isinstance(raw_offer, dict) else {}
    return Decision(
        facts.say(
            f"准备下单：{_sname(facts, supplier)}，{_pname(facts, part)} × {quantity}"
            f"（单价 {offer.get('price')}，起订量 {offer.get('min_order_qty')}），"
            f"预计到货 {args.get('expected_date', '未指定')}。提交前需要你批准。",
            f"Ready to order from {_sname(facts, supplier)}: {_pname(facts, part)} × {quantity} "
            f"(unit price {offer.get('price')}, MOQ {offer.get('min_order_qty')}), expected "
            f"{args.get('expected_date', 'not set')}. Needs your approval first.",
        ),
        [("order_create", args)],
        note="create",
    )


def _quantity(facts: Facts, choice: _Choice) -> int | None:
    answered = facts.answer("quantity", "qty", "数量")
    exclude = [str(v) for v in ((choice.part or {}).get("model"), (choice.part or {}).get("sku"),
                                (choice.supplier or {}).get("code")) if v]  # fmt: skip
    exclude += model_tokens(facts.body)
    for text in (str(answered) if answered is not None else None, facts.body, facts.answer_text):
        if text:
            found = read_quantity(text, exclude=exclude)
            if found is not None and found.value is not None:
                return found.value
    return None


def create(facts: Facts) -> Decision:
    """The next step of a new order."""
    done = after_commit(facts, "order_create")
    if done is not None:
        return done
    found, suppliers, step = facts.master_data()
    if step is not None:
        return step
    problem = _quantity_problem(facts, found)
    if problem is not None:
        return problem
    supplier = _supplier(facts, found, suppliers)
    if isinstance(supplier, Decision):
        return supplier
    chosen = _with_supplier(facts, found, supplier) if supplier else _without_supplier(facts, found)
    if isinstance(chosen, Decision):
        return chosen
    quantity = _quantity(facts, chosen)
    if chosen.missing or quantity is None:
        lead = (_unknown_supplier(facts) if supplier is None else "") + _known(facts, chosen, found)
        return _ask_missing(facts, chosen, quantity is None, lead)
    assert chosen.supplier is not None and chosen.part is not None
    return _create_call(facts, chosen.supplier, chosen.part, quantity)
