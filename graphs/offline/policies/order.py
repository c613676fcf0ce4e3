"""procurement-order policy: understand the operation → ERP tools → verify → confirm.

Names are resolved against the ERP's answers: suppliers from ``supplier_query``, parts
from ``part_by_supplier``, orders from ``order_search_details``. Missing fields are
asked for with ``request_order_info``; ``order_create`` / ``order_update`` then pause
for the human's approval (the graph's HITL middleware), and the result is verified
by looking the order up again before confirming.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal

from graphs.names import match_names
from graphs.offline.history import ToolResult, View
from graphs.offline.policies.base import Decision, blocked, request_body, say
from graphs.offline.text import find_date, find_order_no, find_quantity, is_chinese

__all__ = ["decide"]

Operation = Literal["create", "update", "cancel", "lookup"]
_PAGE = 100
_MAX_ASKS = 2

_SUPPLIER_MARK = re.compile(r"(?:\bfrom|\bvia|向|给|找|跟|从|供应商[:：]?)\s*$", re.I)
_READS = {"supplier_query", "part_by_supplier", "part_query", "part_search"}
_CANCEL = re.compile(r"取消|撤销|作废|\bcancel", re.I)
_UPDATE = re.compile(
    r"修改|更新|改成|改为|调整|变更|\bchange\b|\bupdate\b|\bmodify\b|\bamend\b", re.I
)
_LOOKUP = re.compile(
    r"订单状态|状态|查询|查一下|查看|进度|到哪|\bstatus\b|\blook ?up\b|\bfind\b|\bshow\b|\bwhere\b",
    re.I,
)
_CREATE = re.compile(r"下单|创建订单|订购|采购|\bplace\b|\bbuy\b|\bpurchase\b|\border\s+\d", re.I)


def _operation(text: str) -> Operation:
    if _CANCEL.search(text):
        return "cancel"
    if _UPDATE.search(text) and find_order_no(text):
        return "update"
    if find_order_no(text) or (_LOOKUP.search(text) and not _CREATE.search(text)):
        return "lookup"
    return "create"


class _Facts:
    """What the conversation has established so far."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.body = request_body(view.request)
        self.zh = is_chinese(self.body)
        self.answers: dict[str, Any] = {}
        answer_texts: list[str] = []
        for result in view.called("request_order_info"):
            data = result.data()
            if isinstance(data, dict) and isinstance(data.get("answers"), dict):
                self.answers.update({str(k).lower(): v for k, v in data["answers"].items()})
            elif isinstance(data, dict) and "answer" in data:
                answer_texts.append(str(data["answer"]))
            else:
                answer_texts.append(result.content)
        self.answer_text = "\n".join(answer_texts)
        # Answers come after the request, so they win over it.
        self.text = (
            self.body
            + "\n"
            + self.answer_text
            + "\n"
            + " ".join(str(v) for v in self.answers.values())
        )
        self.today = date.today()

    def say(self, chinese: str, english: str) -> str:
        return say(self.zh, chinese, english)

    def answer(self, *keys: str) -> Any:
        for key in keys:
            if key in self.answers and self.answers[key] not in (None, ""):
                return self.answers[key]
        return None

    # --- paged ERP lists --------------------------------------------------------------

    def pages(self, tool: str, **match: Any) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """Items of every page of ``tool`` fetched with ``match`` args, and the next page's args."""
        items: list[dict[str, Any]] = []
        seen_pages: set[int] = set()
        more = True
        extra: dict[str, Any] = {}
        for result, data in self.view.iter_data(tool):
            if any(result.args.get(k) != v for k, v in match.items()):
                continue
            if not isinstance(data, dict):
                continue
            page = int(result.args.get("page", 1) or 1)
            if page in seen_pages:
                continue
            seen_pages.add(page)
            items.extend(i for i in data.get("items") or [] if isinstance(i, dict))
            more = bool(data.get("has_more"))
            for key in ("supplier",):
                if key in data:
                    extra[key] = data[key]
        if not seen_pages:
            return items, {**match, "page": 1, "size": _PAGE}
        if more:
            return items, {**match, "page": max(seen_pages) + 1, "size": _PAGE}
        return items, None


def _ask(
    facts: _Facts, fields: list[str], question: str, options: list[str] | None = None
) -> Decision:
    asked = [r for r in facts.view.called("request_order_info") if r.args.get("fields") == fields]
    if len(asked) >= _MAX_ASKS:
        return Decision(
            facts.say(
                f"仍然缺少：{', '.join(fields)}。订单没有创建；请补全信息后再说一次。",
                f"Still missing: {', '.join(fields)}. No order was placed; please ask again "
                "with these details.",
            ),
            note="gave-up",
        )
    args: dict[str, Any] = {"fields": fields, "question": question}
    if options:
        args["options"] = options
    return Decision(
        facts.say(
            f"需要补充信息：{', '.join(fields)}。", f"Need more details: {', '.join(fields)}."
        ),
        [("request_order_info", args)],
        note="ask:" + ",".join(fields),
    )


def _order_summary(order: dict[str, Any], zh: bool) -> str:
    lines = order.get("lines") or []
    line_text = "\n".join(
        f"  - {ln.get('sku')} {ln.get('name_zh') if zh else ln.get('name_en')} × "
        f"{ln.get('quantity')} @ {ln.get('unit_price')} = {ln.get('amount', '')}"
        for ln in lines
        if isinstance(ln, dict)
    )
    supplier = order.get("supplier_name_zh") if zh else order.get("supplier_name_en")
    head = say(
        zh,
        f"订单 {order.get('order_no')}（{supplier}）状态：{order.get('status')}，"
        f"金额 {order.get('total')} {order.get('currency')}，"
        f"预计到货 {order.get('expected_date') or '未指定'}，版本 {order.get('version')}",
        f"Order {order.get('order_no')} ({supplier}) status: {order.get('status')}, total "
        f"{order.get('total')} {order.get('currency')}, "
        f"expected {order.get('expected_date') or 'not set'}, version {order.get('version')}",
    )
    return head + ("\n" + line_text if line_text else "")


def _first_order(result: ToolResult | None) -> dict[str, Any] | None:
    if result is None or not result.ok:
        return None
    data = result.data()
    if isinstance(data, dict):
        if isinstance(data.get("items"), list):
            items = [i for i in data["items"] if isinstance(i, dict)]
            return items[0] if items else None
        if "order_no" in data:
            return data
    return None


def _after_commit(facts: _Facts, tool: str) -> Decision | None:
    """Once a committing call came back: verify it, then confirm (or explain the refusal)."""
    committed = facts.view.last_result(tool)
    if committed is None:
        return None
    if not committed.ok:
        if "rejected" in committed.content.lower():
            return Decision(
                facts.say(
                    "你拒绝了这次操作，ERP 中没有做任何改动。",
                    "You rejected the operation; nothing was changed in the ERP.",
                ),
                note="rejected",
            )
        return Decision(
            facts.say(
                f"ERP 拒绝了这次操作：{committed.content}",
                f"The ERP refused the operation: {committed.content}",
            ),
            note="erp-error",
        )
    order = committed.data() if isinstance(committed.data(), dict) else {}
    order_no = order.get("order_no") if isinstance(order, dict) else None
    verified = [
        r
        for r in facts.view.called("order_search_details")
        if r.args.get("order_no") == order_no
        and facts.view.results.index(r) > facts.view.results.index(committed)
    ]
    if order_no and not verified:
        return Decision(
            facts.say(f"核对订单 {order_no}。", f"Verifying order {order_no}."),
            [("order_search_details", {"order_no": order_no})],
            note="verify",
        )
    final = _first_order(verified[-1]) if verified else None
    final = final or (order if isinstance(order, dict) else {})
    done = {"order_create": ("已创建", "Created"), "order_update": ("已更新", "Updated")}[tool]
    return Decision(
        facts.say(f"{done[0]}并核对：\n", f"{done[1]} and verified:\n")
        + _order_summary(final, facts.zh),
        note="confirmed",
    )


def _suppliers(facts: _Facts) -> tuple[list[dict[str, Any]], Decision | None]:
    suppliers, next_args = facts.pages("supplier_query", name="")
    if next_args is not None:
        return suppliers, Decision(
            facts.say("查询 ERP 供应商名录。", "Looking up the ERP's suppliers."),
            [("supplier_query", next_args)],
            note="suppliers",
        )
    return suppliers, None


def _pick_supplier(facts: _Facts, suppliers: list[dict[str, Any]]) -> dict[str, Any] | None:
    named = facts.answer("supplier", "supplier_name", "供应商")
    if named is not None:
        by_id = [s for s in suppliers if str(s.get("id")) == str(named).strip()]
        if by_id:
            return by_id[0]
        hits = match_names(str(named), suppliers, ("code", "name_zh", "name_en"))
        if hits:
            return hits[0].record
    hits = match_names(facts.text, suppliers, ("code", "name_zh", "name_en"))
    if len(hits) > 1:
        # A brand can also be a supplier (NGK); the one the buyer orders *from* wins.
        marked = [h for h in hits if _SUPPLIER_MARK.search(facts.text[: h.start])]
        if marked:
            return marked[0].record
    return hits[0].record if hits else None


def _pick_part(
    facts: _Facts, parts: list[dict[str, Any]]
) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The part meant, or ``None`` with the candidates to choose from."""
    named = facts.answer("part", "part_id", "sku", "model", "零件", "型号")
    if named is not None:
        exact = [
            p
            for p in parts
            if str(named).strip().lower()
            in {str(p.get("id")), str(p.get("sku", "")).lower(), str(p.get("model", "")).lower()}
        ]
        if exact:
            return exact[0], []
        hits = match_names(str(named), parts, ("sku", "model", "name_zh", "name_en"))
        if hits:
            return hits[0].record, []
    specific = match_names(facts.text, parts, ("sku", "model", "name_zh", "name_en"))
    if specific:
        best = specific[0].strength
        top = [m.record for m in specific if m.strength == best]
        if len(top) == 1:
            return top[0], []
    by_category = match_names(facts.text, parts, ("category_zh", "category_en"))
    if by_category:
        best = by_category[0].strength
        candidates = [m.record for m in by_category if m.strength == best]
        if len(candidates) == 1:
            return candidates[0], []
        return None, candidates
    return None, parts


@dataclass
class _Choice:
    """The supplier and part a new order is for, as far as they are known, and what is not."""

    supplier: dict[str, Any] | None = None
    part: dict[str, Any] | None = None
    missing: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)


def _choose(facts: _Facts, suppliers: list[dict[str, Any]]) -> _Choice | Decision:
    """The supplier and part the buyer means, or the next ERP lookup (or dead end) first."""
    choice = _Choice(supplier=_pick_supplier(facts, suppliers))
    supplier = choice.supplier
    if supplier is None:
        choice.missing.append("supplier")
        active = [s for s in suppliers if s.get("status") == "active"]
        choice.options = [
            f"{s.get('code')} {s.get('name_zh')} / {s.get('name_en')}" for s in active[:20]
        ]
        return choice
    parts, next_args = facts.pages("part_by_supplier", supplier_id=supplier.get("id"))
    if next_args is not None:
        return Decision(
            facts.say(
                f"查询 {supplier.get('name_zh')} 供应的零件。",
                f"Looking up the parts {supplier.get('name_en')} sells.",
            ),
            [("part_by_supplier", next_args)],
            note="supplier-parts",
        )
    if not parts:
        return Decision(
            facts.say(
                f"ERP 中 {supplier.get('name_zh')} 没有可订购的零件。",
                f"{supplier.get('name_en')} sells no parts in the ERP.",
            ),
            note="no-parts",
        )
    choice.part, candidates = _pick_part(facts, parts)
    if choice.part is None:
        choice.missing.append("part")
        choice.options = [
            f"{p.get('sku')} {p.get('name_zh') if facts.zh else p.get('name_en')}"
            for p in candidates[:20]
        ]
    return choice


def _quantity(facts: _Facts, choice: _Choice) -> int | None:
    """The quantity asked for, ignoring numbers that are the part's model or SKU."""
    exclude = [
        str(v)
        for v in (
            (choice.part or {}).get("model"),
            (choice.part or {}).get("sku"),
            (choice.supplier or {}).get("code"),
        )
        if v
    ]
    quantity = facts.answer("quantity", "qty", "数量")
    if quantity is None:
        quantity = find_quantity(facts.body, exclude=exclude)
        if quantity is None and facts.answer_text:
            quantity = find_quantity(facts.answer_text, exclude=exclude)
    try:
        return int(str(quantity).replace(",", "")) if quantity is not None else None
    except ValueError:
        return find_quantity(str(quantity))


def _ask_missing(facts: _Facts, choice: _Choice) -> Decision:
    names = {
        "supplier": ("供应商", "supplier"),
        "part": ("零件型号", "part (model or SKU)"),
        "quantity": ("数量", "quantity"),
    }
    question = facts.say(
        "请补充：" + "、".join(names[m][0] for m in choice.missing) + "。",
        "Please tell me the " + ", ".join(names[m][1] for m in choice.missing) + ".",
    )
    return _ask(facts, choice.missing, question, choice.options or None)


def _create_call(
    facts: _Facts, supplier: dict[str, Any], part: dict[str, Any], quantity: int
) -> Decision:
    """``order_create`` for the chosen line (the approval step pauses it for the human)."""
    args: dict[str, Any] = {
        "supplier_id": supplier["id"],
        "lines": [{"part_id": part["id"], "quantity": quantity}],
        "note": facts.say("采购助理代下单：", "Placed by the procurement assistant: ")
        + facts.body.strip()[:300],
    }
    when = facts.answer("expected_date", "delivery_date", "date", "到货日期")
    expected = find_date(str(when), facts.today) if when else find_date(facts.body, facts.today)
    if expected is not None:
        args["expected_date"] = expected.isoformat()
    raw_offer = part.get("offer")
    offer: dict[str, Any] = raw_offer if isinstance(raw_offer, dict) else {}
    moq = offer.get("min_order_qty")
    price = offer.get("price")
    return Decision(
        facts.say(
            f"准备下单：{supplier.get('name_zh')}，{part.get('sku')} {part.get('name_zh')}"
            f" × {quantity}（单价 {price}，起订量 {moq}），"
            f"预计到货 {args.get('expected_date', '未指定')}。提交前需要你批准。",
            f"Ready to order from {supplier.get('name_en')}: {part.get('sku')} "
            f"{part.get('name_en')} × {quantity} (unit price {price}, MOQ {moq}), expected "
            f"{args.get('expected_date', 'not set')}. Needs your approval first.",
        ),
        [("order_create", args)],
        note="create",
    )


def _create(facts: _Facts) -> Decision:
    done = _after_commit(facts, "order_create")
    if done is not None:
        return done
    suppliers, step = _suppliers(facts)
    if step is not None:
        return step
    choice = _choose(facts, suppliers)
    if isinstance(choice, Decision):
        return choice
    quantity = _quantity(facts, choice)
    if quantity is None:
        choice.missing.append("quantity")
    if choice.missing:
        return _ask_missing(facts, choice)
    assert choice.supplier is not None and choice.part is not None and quantity is not None
    return _create_call(facts, choice.supplier, choice.part, quantity)


def _order_no(facts: _Facts) -> str | None:
    named = facts.answer("order_no", "order", "订单号")
    if named is not None:
        return find_order_no(str(named)) or str(named).strip()
    return find_order_no(facts.text)


def _existing_order(facts: _Facts, order_no: str) -> tuple[dict[str, Any] | None, Decision | None]:
    for result in facts.view.called("order_search_details"):
        if result.args.get("order_no") == order_no:
            order = _first_order(result)
            if order is None:
                return None, Decision(
                    facts.say(
                        f"ERP 中找不到订单 {order_no}。{'' if result.ok else result.content}",
                        f"Order {order_no} was not found in the ERP.",
                    ),
                    note="order-not-found",
                )
            return order, None
    return None, Decision(
        facts.say(f"查询订单 {order_no}。", f"Looking up order {order_no}."),
        [("order_search_details", {"order_no": order_no})],
        note="lookup",
    )


def _change(facts: _Facts, op: Operation) -> Decision:
    done = _after_commit(facts, "order_update")
    if done is not None:
        return done
    order_no = _order_no(facts)
    if not order_no:
        return _ask(facts, ["order_no"], facts.say("请提供订单号。", "Which order (order number)?"))
    order, step = _existing_order(facts, order_no)
    if step is not None or order is None:
        return step or Decision("", note="unreachable")
    args: dict[str, Any] = {"order_id": order_no, "expected_version": order.get("version")}
    if op == "cancel":
        args["status"] = "cancelled"
        action = facts.say(f"取消订单 {order_no}", f"Cancel order {order_no}")
    else:
        lines = [ln for ln in order.get("lines") or [] if isinstance(ln, dict)]
        exclude = [str(ln.get("sku")) for ln in lines] + [order_no]
        quantity = facts.answer("quantity", "qty", "数量") or find_quantity(
            facts.text, exclude=exclude
        )
        expected = find_date(facts.text, facts.today)
        if quantity is not None and lines:
            target = lines
            if len(lines) > 1:
                named = match_names(facts.text, lines, ("sku", "name_zh", "name_en"))
                target = [named[0].record] if named else []
            if not target:
                return _ask(
                    facts,
                    ["part"],
                    facts.say("要修改哪一行（SKU）？", "Which line (SKU)?"),
                    [str(ln.get("sku")) for ln in lines],
                )
            changed = {id(ln) for ln in target}
            args["lines"] = [
                {
                    "part_id": ln.get("part_id"),
                    "quantity": int(quantity) if id(ln) in changed else ln.get("quantity"),
                }
                for ln in lines
            ]
        if expected is not None:
            args["expected_date"] = expected.isoformat()
        if "lines" not in args and "expected_date" not in args:
            return _ask(
                facts,
                ["quantity", "expected_date"],
                facts.say(
                    "要改成多少数量，或哪天到货？", "What quantity or delivery date should it have?"
                ),
            )
        action = facts.say(f"修改订单 {order_no}", f"Change order {order_no}")
    return Decision(
        facts.say(
            f"{action}（当前状态 {order.get('status')}，版本 {order.get('version')}）。"
            "提交前需要你批准。",
            f"{action} (now {order.get('status')}, version {order.get('version')}). "
            "Needs your approval first.",
        ),
        [("order_update", args)],
        note=op,
    )


def _lookup(facts: _Facts) -> Decision:
    order_no = _order_no(facts)
    if order_no:
        order, step = _existing_order(facts, order_no)
        if step is not None or order is None:
            return step or Decision("", note="unreachable")
        return Decision(_order_summary(order, facts.zh), note="looked-up")
    suppliers, step = _suppliers(facts)
    if step is not None:
        return step
    supplier = _pick_supplier(facts, suppliers)
    query: dict[str, Any] = {"size": 10}
    if supplier is not None:
        query["supplier_id"] = supplier["id"]
    found = [r for r in facts.view.called("order_search_details") if r.args == query]
    if not found:
        return Decision(
            facts.say("查询最近的订单。", "Looking up recent orders."),
            [("order_search_details", query)],
            note="search",
        )
    data = found[-1].data() if found[-1].ok else None
    items = data.get("items") if isinstance(data, dict) else None
    if not items:
        return Decision(facts.say("没有找到符合条件的订单。", "No matching orders."), note="none")
    return Decision(
        facts.say("最近的订单：\n", "Recent orders:\n")
        + "\n".join(
            _order_summary(o, facts.zh).splitlines()[0] for o in items if isinstance(o, dict)
        ),
        note="listed",
    )


def decide(view: View) -> Decision:
    """Next step of the order agent."""
    facts = _Facts(view)
    # Committing calls and questions have their own outcomes; a failed read is a dead end.
    reads = [r for r in view.last_turn() if r.name in _READS]
    stop = blocked(reads, facts.zh)
    if stop is not None:
        return stop
    op = _operation(facts.body)
    if op == "create":
        return _create(facts)
    if op in ("update", "cancel"):
        return _change(facts, op)
    return _lookup(facts)
