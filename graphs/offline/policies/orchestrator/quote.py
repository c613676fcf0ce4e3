"""A price asked of named parts ("IU7 多少钱", "what does NGK charge us for IU7", "如果给 NGK
下单 300 个 IU7 要多少钱"), answered by the orchestrator from the ERP's price lists.

Read-only: ``part_query`` for the parts named (one call), then every offer valid today,
cheapest first, with its minimum order and lead time; with a quantity, what that many cost
at each supplier (or that it is below the minimum). A supplier the buyer named that has no
offer for the part is said so. Nothing is ordered, and the answer says that. A price asked
of a whole category ("刹车片价格") is a comparison: the background analysis.
"""

from __future__ import annotations

import re
from datetime import date, timedelta
from typing import Any

from graphs.offline import lexicon
from graphs.offline.entities import Grounding
from graphs.offline.history import View
from graphs.offline.intent import Reading
from graphs.offline.policies.base import Decision, say
from graphs.offline.policies.orchestrator.analysis import analysis
from graphs.offline.policies.orchestrator.erp import read_erp
from graphs.offline.policies.orchestrator.inventory import parts_read, stock_line
from graphs.offline.policies.orchestrator.lookups import supplier_parts
from graphs.offline.text import find_date, find_quantity, model_tokens, today_in
from graphs.orders.words import supplier_status_word

__all__ = ["QUOTED", "current_offers", "quote"]

QUOTED = "quote-answer"
"""The note of a quote: a next message that orders without naming a part orders this one."""

Record = dict[str, Any]
_PARTS = 5  # parts quoted in one answer


def _money(minor: int) -> str:
    return f"{minor / 100:,.2f}"


def current_offers(part: Record, today: date) -> list[Record]:
    """The part's offers valid ``today``, cheapest first within each currency (CNY first;
    prices in different currencies are not converted, so not ranked against each other)."""
    day = today.isoformat()
    offers = [o for o in part.get("offers") or [] if isinstance(o, dict)]
    valid = [
        o for o in offers if str(o.get("valid_from", "")) <= day <= str(o.get("valid_to", day))
    ]
    return sorted(
        valid,
        key=lambda o: (o.get("currency") != "CNY", str(o.get("currency")), o.get("price_minor", 0)),
    )


def _arrival(offer: Record, today: date, by: date | None, zh: bool) -> str:
    """When an order placed today arrives at the earliest, and whether that makes ``by``."""
    if by is None or offer.get("lead_time_days") is None:
        return ""
    earliest = today + timedelta(days=int(offer["lead_time_days"]))
    if earliest <= by:
        return say(zh, f"，最早 {earliest} 到货，赶得上 {by}",
                   f", earliest {earliest}: makes {by}")  # fmt: skip
    return say(zh, f"，最早 {earliest} 到货，赶不上 {by}",
               f", earliest {earliest}: too late for {by}")  # fmt: skip


def _offer_line(offer: Record, unit: str, quantity: int | None, zh: bool) -> str:
    name = offer.get("supplier_name_zh") if zh else offer.get("supplier_name_en")
    price = int(offer.get("price_minor") or 0)
    currency = offer.get("currency") or "CNY"
    moq, lead = int(offer.get("min_order_qty") or 1), offer.get("lead_time_days")
    line = say(
        zh,
        f"- {name}（{offer.get('supplier_code')}）：{_money(price)} {currency}/{unit}，"
        f"起订 {moq}，交期 {lead} 天",
        f"- {name} ({offer.get('supplier_code')}): {_money(price)} {currency} each, "
        f"minimum {moq}, lead time {lead} days",
    )
    if quantity is None:
        return line
    if quantity < moq:
        return line + say(
            zh, f"；{quantity} {unit}低于起订量", f"; {quantity} is below its minimum"
        )
    return line + say(
        zh,
        f"；{quantity} {unit}合计 {_money(price * quantity)} {currency}",
        f"; {quantity} cost {_money(price * quantity)} {currency}",
    )


def _not_taking(offer: Record, statuses: dict[str, str], zh: bool) -> str:
    """ ", on hold: takes no orders" after an offer whose supplier is not active."""
    status = statuses.get(str(offer.get("supplier_code")), "active")
    if status == "active":
        return ""
    word = supplier_status_word(status, "zh" if zh else "en")
    return say(zh, f"（{word}，目前不能下单）", f" ({word}: takes no orders now)")


# Which offer is best, asked ("哪家最便宜", "哪个最快", "which one is cheapest?").
_CHEAPEST = re.compile(r"便宜|最低|划算|(?<![a-z])(?:cheap\w*|lowest|best\s+price)(?![a-z])", re.I)
_FASTEST = re.compile(
    r"最快|最早|交期最短|(?<![a-z])(?:fast\w*|quick\w*|soonest|earliest|shortest)(?![a-z])", re.I
)


def best_asked(text: str) -> str | None:
    """``"cheapest"`` or ``"fastest"`` when ``text`` asks which offer is (None: neither)."""
    if _CHEAPEST.search(text):
        return "cheapest"
    return "fastest" if _FASTEST.search(text) else None


def _best_line(offers: list[Record], statuses: dict[str, str], asked: str, zh: bool) -> str:
    """The answer to "which is cheapest / fastest" among the suppliers taking orders (the
    cheapest only within one currency: prices in two are not compared)."""
    taking = [o for o in offers if statuses.get(str(o.get("supplier_code")), "active") == "active"]
    if not taking:
        return ""
    if asked == "fastest":
        best = min(taking, key=lambda o: (int(o.get("lead_time_days") or 10**6),
                                          int(o.get("price_minor") or 0)))  # fmt: skip
        code, days = best.get("supplier_code"), best.get("lead_time_days")
        return say(
            zh, f"交期最短：{code}（{days} 天）。", f"Shortest lead time: {code} ({days} days)."
        )
    if len({o.get("currency") for o in taking}) > 1:
        return ""
    best = min(taking, key=lambda o: int(o.get("price_minor") or 0))
    price = f"{_money(int(best.get('price_minor') or 0))} {best.get('currency')}"
    return say(zh, f"最便宜：{best.get('supplier_code')}（{price}）。",
               f"Cheapest: {best.get('supplier_code')} ({price}).")  # fmt: skip


def _part_answer(part: Record, named: list[Record], quantity: int | None, today: date,
                 zh: bool, by: date | None = None, statuses: dict[str, str] | None = None,
                 which: str | None = None) -> str:  # fmt: skip
    statuses = statuses or {}
    offers = current_offers(part, today)
    unit = str(part.get("unit") or "个") if zh else "pcs"
    title = f"{part.get('sku')} {part.get('name_zh') if zh else part.get('name_en')}"
    if not offers:
        return say(zh, f"{title}：目前没有有效的报价。", f"{title}: no price list is valid today.")
    selling = {str(o.get("supplier_code")) for o in offers}
    mixed = len({o.get("currency") for o in offers}) > 1
    ranked = (
        say(
            zh,
            "各币种内低价在前，不同币种未折算",
            "cheapest first within each currency, not converted",
        )
        if mixed
        else say(zh, "低价在前", "cheapest first")
    )
    lines = [
        say(zh, f"{title} 的有效报价（{ranked}）：", f"{title}, prices valid today ({ranked}):")
    ]
    first = _best_line(offers, statuses, which, zh) if which else ""
    if first:  # "哪个最快": the answer first, then the offers it comes from
        lines.insert(0, first)
    for supplier in named:
        if str(supplier.get("code")) not in selling:
            who = supplier.get("name_zh") if zh else supplier.get("name_en")
            ended = [str(o.get("valid_to")) for o in part.get("offers") or []
                     if isinstance(o, dict) and o.get("supplier_code") == supplier.get("code")
                     and str(o.get("valid_to", "")) < today.isoformat()]  # fmt: skip
            if ended:  # it did sell it: its price list ran out
                lines.append(
                    say(
                        zh,
                        f"- {who} 的报价已于 {max(ended)} 到期，目前没有有效价格。",
                        f"- {who}'s price expired on {max(ended)}; no valid price now.",
                    )
                )
                continue
            lines.append(
                say(
                    zh,
                    f"- {who} 不供应这个零件（ERP 里没有它的有效报价）。",
                    f"- {who} does not sell this part (no valid price in the ERP).",
                )
            )
    asked = {str(s.get("code")) for s in named} & selling
    shown = [o for o in offers if str(o.get("supplier_code")) in asked] or offers
    lines += [_offer_line(o, unit, quantity, zh) + _arrival(o, today, by, zh)
              + _not_taking(o, statuses, zh) for o in shown]  # fmt: skip
    others = [o for o in offers if o not in shown]
    if others:  # the supplier asked about first; the others in one line
        taking = [o for o in others if not _not_taking(o, statuses, zh)]
        best = (taking or others)[0]
        low = f"{best.get('supplier_code')} {_money(int(best.get('price_minor') or 0))}"
        lines.append(say(
            zh, f"（另有 {len(others)} 家有效报价，最低 {low} {best.get('currency')}）",
            f"({len(others)} other suppliers have prices; the lowest is {low} "
            f"{best.get('currency')})",
        ))  # fmt: skip
    return "\n".join(lines)


def quote(
    view: View, reading: Reading, zh: bool, *, closing: str | None = None, with_stock: bool = False
) -> Decision:
    """The next step for a price question: the named parts' offers, or an analysis when it
    names a category and no part (``closing`` replaces the last sentence; ``with_stock``
    puts the parts' stock first even when it was not asked)."""
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    found: Grounding = erp.ground(view.request)
    if not found.parts and not found.categories and lexicon.has(view.request, "lead_time"):
        # "最小起订量是多少", "what's the lead time?": of which part
        return Decision(say(zh, "哪个零件的？请告诉我型号或 SKU（比如 IU7）。",
                            "For which part? Tell me its model or SKU (e.g. IU7)."),
                        note="ask:part")  # fmt: skip
    if not found.parts and not found.categories and found.suppliers:
        listed = supplier_parts(view, zh, priced=True)  # "NGK 报价": its price list
        if listed is not None:
            return listed
    if not found.parts:
        return analysis(view, Reading("analysis", None, False, reading.domain), zh)
    ids = [int(m.record["id"]) for m in found.parts if m.record.get("id") is not None][:_PARTS]
    read = parts_read(view)
    missing = [i for i in ids if i not in read]
    if missing:
        args: dict[str, Any] = (
            {"part_id": missing[0]} if len(missing) == 1 else {"part_ids": missing}
        )
        return Decision(say(zh, "查询报价。", "Reading the price lists."), [("part_query", args)],
                        note="quote-read")  # fmt: skip
    written = [m.term for m in found.parts] + model_tokens(view.request)
    quantity = find_quantity(view.request, exclude=written)
    named = [m.record for m in found.suppliers]
    today = today_in(view.system)
    by = find_date(view.request, today)  # "能不能12月20号到": whether each offer makes it
    statuses = {str(s.get("code")): str(s.get("status")) for s in erp.suppliers}
    which = best_asked(view.request) if not named else None  # "哪个最快"
    answers = [_part_answer(read[i], named, quantity, today, zh, by, statuses, which) for i in ids
               if isinstance(read.get(i), dict)]  # fmt: skip
    if with_stock or lexicon.has(view.request, "inventory"):  # "库存和价格": the stock first
        stock = [stock_line(read[i], zh) for i in ids if isinstance(read.get(i), dict)]
        answers.insert(0, say(zh, "库存：\n", "Stock:\n") + "\n".join(stock))
    if lexicon.has(view.request, "web_price"):  # "IU7 的官网价": not what the ERP holds
        answers.append(
            say(
                zh,
                "以上是 ERP 里的合同价，不是官网价。官网价要读各供应商的网页，由比价分析来读"
                "（官网价和合同价逐一对比，写进报告）：要我对这个零件做一次比价分析吗？",
                "These are the ERP's contract prices, not website prices. The suppliers' websites "
                "are read by a price comparison analysis (website against contract price, in a "
                "report): shall I start one for this part?",
            )
        )
    closing = closing or say(zh, "这只是询价，没有下单。要下单请告诉我供应商和数量。",
                  "This is a quote only: no order was placed. To order, tell me the supplier and "
                  "the quantity.")  # fmt: skip
    return Decision("\n\n".join([*answers, closing]), note=QUOTED)
