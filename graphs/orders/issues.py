"""The ERP's order rules (docs/erp_api.md "Order rules") said to a buyer: the problem and
the fix, in Chinese or English, from the rule's code and its facts.

The ERP's own message is English and stays in the tool result's data; these sentences
are what a buyer reads, built from ``details``, ``suggested`` and ``alternatives``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from graphs.orders.words import Lang, alternatives_text, pick, status_word, unit_word

__all__ = ["Facts", "issue_sentence", "issue_text"]


@dataclass(frozen=True)
class Facts:
    """One issue's data, with the names of what it talks about."""

    details: Mapping[str, Any]
    suggested: Mapping[str, Any] = field(default_factory=dict)
    alternatives: tuple[Mapping[str, Any], ...] = ()
    supplier: str = ""
    parts: Mapping[Any, str] = field(default_factory=dict)  # part id / sku -> display name
    unit: str = ""

    def get(self, key: str, default: Any = "?") -> Any:
        value = self.details.get(key)
        return default if value is None else value

    def part(self) -> str:
        for key in (self.details.get("part_id"), self.details.get("sku")):
            if key is not None and key in self.parts:
                return self.parts[key]
        return str(self.details.get("sku") or self.details.get("part_id") or "?")

    def who(self, lang: Lang) -> str:
        return self.supplier or pick(lang, "该供应商", "the supplier")

    def others(self, lang: Lang, zh_lead: str, en_lead: str) -> str:
        if not self.alternatives:
            return ""
        return pick(lang, zh_lead, en_lead) + alternatives_text(self.alternatives, lang)


Rule = Callable[[Facts, Lang], tuple[str, str]]


def _held(f: Facts, lang: Lang) -> tuple[str, str]:
    state = pick(lang, "暂停合作", "on hold")
    if f.details.get("status") == "blocked":
        state = pick(lang, "已停用", "blocked")
    return (
        pick(lang, f"{f.who(lang)} 目前{state}，不接受新订单。",
             f"{f.who(lang)} is {state} and takes no new orders."),
        f.others(lang, "可改向这些供应商订购：", "Order from ")
        or pick(lang, "请换一家正常合作的供应商。", "Choose another active supplier."),
    )  # fmt: skip


def _below_moq(f: Facts, lang: Lang) -> tuple[str, str]:
    unit = unit_word(f.unit, lang)
    qty, moq = f.get("quantity"), f.get("min_order_qty")
    raise_to = f.suggested.get("quantity", moq)
    return (
        pick(lang, f"{f.who(lang)} 的 {f.part()} 起订量是 {moq} {unit}，{qty} {unit}不够。",
             f"{f.who(lang)} sells {f.part()} from {moq} {unit}; {qty} is below that minimum."),
        pick(lang, f"把数量提高到 {raise_to} {unit}", f"Raise the quantity to {raise_to} {unit}")
        + f.others(lang, "，或改向能按这个数量供货的供应商订购：",
                   ", or order that quantity from ")
        + pick(lang, "。", "."),
    )  # fmt: skip


def _step(f: Facts, lang: Lang) -> tuple[str, str]:
    unit = unit_word(f.unit, lang)
    step, moq, qty = f.get("order_step"), f.get("min_order_qty"), f.get("quantity")
    to = f.suggested.get("quantity", "?")
    return (
        pick(lang, f"{f.part()} 起订 {moq} {unit}，之后按每 {step} {unit}递增；{qty} 不是整数倍。",
             f"{f.part()} comes in steps of {step} {unit} above the minimum of {moq}; "
             f"{qty} is not a whole number of steps."),
        pick(lang, f"改为 {to} {unit}。", f"Order {to} {unit} instead."),
    )  # fmt: skip


def _unreachable(f: Facts, lang: Lang) -> tuple[str, str]:
    wanted, lead = f.get("expected_date"), f.get("lead_time_days")
    earliest, fast = f.get("earliest_date"), f.get("expedited_date")
    return (
        pick(lang, f"{wanted} 到货来不及：{f.who(lang)} 的 {f.part()} 交期 {lead} 天，最早 "
                   f"{earliest} 到货（加急最早 {fast}）。",
             f"Delivery by {wanted} cannot be reached: {f.who(lang)} needs {lead} days for "
             f"{f.part()}, so the earliest is {earliest} ({fast} if expedited)."),
        pick(lang, f"把到货日期改为 {earliest} 或之后", f"Choose {earliest} or later")
        + f.others(lang, "，或改向能按时到货的供应商订购：", ", or order from ")
        + pick(lang, "。", "."),
    )  # fmt: skip


def _inside_lead(f: Facts, lang: Lang) -> tuple[str, str]:
    wanted, lead, earliest = f.get("expected_date"), f.get("lead_time_days"), f.get("earliest_date")
    return (
        pick(lang, f"{wanted} 在 {f.who(lang)} 的交期（{lead} 天）之内，只有供应商加急才能到货。",
             f"{wanted} is inside {f.who(lang)}'s lead time of {lead} days: it arrives by then "
             "only if the supplier expedites."),
        pick(lang, f"请先与供应商确认加急，或接受 {earliest} 到货。",
             f"Confirm expediting with the supplier, or accept {earliest}."),
    )  # fmt: skip


def _price(f: Facts, lang: Lang) -> tuple[str, str]:
    price = int(f.get("unit_price_minor", 0) or 0)
    price_text = f"{price // 100}.{price % 100:02d}"
    avg, pct = f.get("average_price"), f.get("percent_above")
    return (
        pick(lang, f"{f.part()} 单价 {price_text} 比近 12 个月的平均采购价 {avg} 高 {pct}%。",
             f"{f.part()} at {price_text} is {pct}% above the last 12 months' average of {avg}."),
        pick(lang, "请与供应商核实价格", "Check the price with the supplier")
        + f.others(lang, "，或考虑更便宜的供应商：", ", or consider ")
        + pick(lang, "。", "."),
    )  # fmt: skip


def _number(value: Any) -> str:
    """``33.3`` → ``"33.3"``, ``10.0`` → ``"10"``; anything else as it is."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def _quantity(f: Facts, lang: Lang) -> tuple[str, str]:
    unit = unit_word(f.unit, lang)
    qty = f"{f.get('quantity')} {unit}".strip()
    times, largest = _number(f.get("times")), f.get("largest_order_qty")
    on_hand, safety = f.get("on_hand"), f.get("safety_stock")
    return (
        pick(lang, f"{f.part()} 订 {qty}，是平时用量（近 12 个月单张订单最多 {largest}，"
                   f"在库 {on_hand}，安全库存 {safety}）的 {times} 倍。",
             f"{f.part()}: {qty} is {times} times the usual amount (at most {largest} on one "
             f"order in the last 12 months, {on_hand} in stock, safety stock {safety})."),
        pick(lang, "请确认数量没有多打零。", "Check that no extra zero was typed."),
    )  # fmt: skip


def _simple(zh: str, en: str, zh_fix: str, en_fix: str) -> Rule:
    def rule(f: Facts, lang: Lang) -> tuple[str, str]:
        values = {k: f.get(k) for k in ("supplier_id", "part_id", "sku", "order_no", "valid_from",
                                          "valid_to", "price_currency", "current_version",
                                          "expected_date", "order_date")}  # fmt: skip
        values |= {"supplier": f.who(lang), "part": f.part(),
                   "status": status_word(f.details.get("status"), lang),
                   "to": status_word(f.details.get("to"), lang),
                   "currency": f.suggested.get("currency", "?")}  # fmt: skip
        fix = pick(lang, zh_fix, en_fix).format(**values)
        alts = f.others(lang, "可改向这些供应商订购：", "Order from ")
        if alts:
            fix = (fix + pick(lang, "", " ") if fix else "") + alts + pick(lang, "。", ".")
        return pick(lang, zh, en).format(**values), fix

    return rule


_RULES: dict[str, Rule] = {
    "SUPPLIER_ON_HOLD": _held,
    "SUPPLIER_BLOCKED": _held,
    "BELOW_MOQ": _below_moq,
    "NOT_ORDER_STEP": _step,
    "DATE_UNREACHABLE": _unreachable,
    "DATE_INSIDE_LEAD_TIME": _inside_lead,
    "PRICE_ABOVE_AVERAGE": _price,
    "QUANTITY_UNUSUAL": _quantity,
    "SUPPLIER_NOT_FOUND": _simple(
        "ERP 里没有这个供应商（编号 {supplier_id}）。", "The ERP has no supplier {supplier_id}.",
        "请重新选择供应商。", "Pick the supplier again.",
    ),
    "PART_NOT_FOUND": _simple(
        "ERP 里没有这个零件（编号 {part_id}）。", "The ERP has no part {part_id}.",
        "请重新选择零件。", "Pick the part again.",
    ),
    "PART_INACTIVE": _simple(
        "零件 {part} 已停用。", "Part {part} is no longer active.",
        "请换一个在用的同类零件。", "Choose a current part of the same kind.",
    ),
    "PART_NOT_SUPPLIED": _simple(
        "{supplier} 不供应 {part}。", "{supplier} does not sell {part}.", "", "",
    ),
    "NO_VALID_PRICE": _simple(
        "{supplier} 的 {part} 价格表已失效（有效期 {valid_from} 至 {valid_to}）。",
        "{supplier}'s price list for {part} is not valid today (it ran {valid_from} to "
        "{valid_to}).",
        "请采购部续签价格。", "Ask purchasing to renew the price list.",
    ),
    "CURRENCY_MISMATCH": _simple(
        "{part} 以 {price_currency} 计价，一张订单只能用一种币种。",
        "{part} is priced in {price_currency}; one order takes one currency.",
        "请改用 {currency} 下单，或把这个零件单独下单。",
        "Place the order in {currency}, or order this part separately.",
    ),
    "DATE_BEFORE_ORDER_DATE": _simple(
        "要求到货日期 {expected_date} 早于下单日期 {order_date}。",
        "The delivery date {expected_date} is before the order date {order_date}.",
        "请选择下单日期之后的日期。", "Choose a date after the order date.",
    ),
    "ORDER_NOT_FOUND": _simple(
        "ERP 里找不到这个订单。", "The ERP has no such order.",
        "请核对订单号。", "Check the order number.",
    ),
    "ORDER_LOCKED": _simple(
        "订单 {order_no} {status}，不能再修改。", "Order {order_no} is {status} and cannot change.",
        "需要的话请重新下单。", "Place a new order if you still need the goods.",
    ),
    "VERSION_STALE": _simple(
        "订单 {order_no} 在你查看之后被改过（现在是第 {current_version} 版）。",
        "Order {order_no} changed after you looked at it (it is now version {current_version}).",
        "请重新查询订单后再决定。", "Look the order up again before deciding.",
    ),
    "TRANSITION_NOT_ALLOWED": _simple(
        "订单 {order_no} 现在是“{status}”，不能改成“{to}”。",
        "Order {order_no} is {status}; it cannot become {to}.",
        "", "",
    ),
    "LINES_LOCKED": _simple(
        "订单 {order_no} 现在是“{status}”，只有草稿才能改明细。",
        "Order {order_no} is {status}; only a draft's lines can change.",
        "还没有到货的订单可以取消后重新下单。",
        "An order with nothing received yet can be cancelled and placed again.",
    ),
    "NOTHING_TO_CHANGE": _simple(
        "没有需要修改的内容。", "There is nothing to change.",
        "请说明要改什么。", "Say what should change.",
    ),
}  # fmt: skip


def issue_sentence(code: str, details: Mapping[str, Any], lang: Lang) -> str | None:
    """The problem and its fix for a rule the ERP named in a refusal's details, or None
    for a code this table does not know."""
    rule = _RULES.get(code)
    if rule is None:
        return None
    suggested = details.get("suggested")
    facts = Facts(details, suggested if isinstance(suggested, Mapping) else {})
    problem, fix = rule(facts, lang)
    return f"{problem}{pick(lang, '', ' ')}{fix}".strip()


def issue_text(issue: Mapping[str, Any], lang: Lang, facts: Facts) -> str:
    """One issue of the ERP's Validation answer as ``problem fix (CODE)``; an unknown code
    keeps the ERP's own sentences."""
    code = str(issue.get("code"))
    rule = _RULES.get(code)
    if rule is None:
        problem, fix = str(issue.get("message", "")), str(issue.get("fix", ""))
    else:
        problem, fix = rule(facts, lang)
    gap = pick(lang, "", " ")
    return f"{problem}{gap}{fix}（{code}）" if lang == "zh" else f"{problem} {fix} ({code})"
