"""Existing orders: change, cancel or look one up, by number or by description.

Without an order number the order is found through the ERP's order search ("上次给 NGK
的订单", "the last order to NGK": the supplier's newest order) and shown before anything is
proposed; no order, or several with nothing to choose between them, gets a question.
A change never becomes a new order.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta
from typing import Any

from graphs.offline import lexicon
from graphs.offline.entities import Grounding
from graphs.offline.intent import read
from graphs.offline.policies.base import Decision
from graphs.offline.policies.order import check
from graphs.offline.policies.order.dormant import unordered_parts
from graphs.offline.policies.order.facts import Facts, ask
from graphs.offline.policies.order.history import (
    category_history,
    extreme_order,
    named_period,
    spend,
    without_period,
)
from graphs.offline.policies.order.outcome import after_commit, order_summary
from graphs.offline.policies.order.people import Person, me, person
from graphs.offline.text import (
    en_number,
    find_date,
    find_order_no,
    find_shift,
    model_tokens,
    read_quantity,
    relative_quantity,
    zh_number,
)
from graphs.orders.words import status_word

__all__ = ["by_number", "change", "lookup"]

Record = dict[str, Any]
_RECENT = 5
_IN_PERIOD = 20  # the orders of a named period listed (a look-up) or chosen from
_NEW_NOTE = re.compile(
    r"(?:(?:备注|備註|備注|附言|附註)\s*(?:改成|改为|改為|写成|寫成|换成|換成|写上|寫上|加上|"
    r"加一句|加一條|加一条|补充|補充|追加|添加|写|寫|[:：])"
    # "add a note to my last NGK order: urgent": the note is what follows the colon
    r"|\b(?:note|remark|memo|comment)\b[^:：\n]{0,60}(?:[:：]|\s(?:saying|that\s+says|reading)\b)"
    r"|\b(?:note|remark)\b(?: on [\w-]+)?\s*(?:to\b|[:：]))\s*[:：]?\s*(\S.*)",
    re.I | re.S,
)
# A note added to rather than replaced ("备注加一句：…", "备注补充：…", "add to the note").
_ADDING = re.compile(r"加|添|补充|追加|\badd\b|\bappend\b", re.I)
# The statuses of an order still under way (docs/erp_api.md "Order states").
_OPEN = ("draft", "pending_approval", "approved", "partially_received")
# What the ERP still allows in each (docs/erp_api.md): a cancellation before any goods
# arrived; a new delivery date or note until the goods are in; new lines on a draft.
_CANCELLABLE = ("draft", "pending_approval", "approved")
# Not approved yet ("待审批的订单", "orders pending approval").
_AWAITING = ("draft", "pending_approval")


def by_number(facts: Facts, order_no: str) -> Record | Decision:
    for result in facts.view.called("order_search_details"):
        if result.args.get("order_no") == order_no:
            data = result.data() if result.ok else None
            items = [o for o in (data or {}).get("items") or [] if isinstance(o, dict)]
            exact = [o for o in items if str(o.get("order_no", "")).upper() == order_no.upper()]
            if exact:
                return exact[0]
            # The ERP's search also finds numbers that start with it ("PO2026110059", a digit
            # short, finds PO20261100590-599): never one of those as if it were the one asked.
            near = sorted(str(o.get("order_no")) for o in items)[:5]
            hint = (
                facts.say(
                    f"（以它开头的有：{'、'.join(near)}）",
                    f" (numbers starting with it: {', '.join(near)})",
                )
                if near
                else ""
            )
            return Decision(
                facts.say(f"ERP 中找不到订单 {order_no}{hint}，请核对订单号。",
                          f"Order {order_no} was not found in the ERP{hint}; please check the "
                          "number."),
                note="order-not-found",
            )  # fmt: skip
    return Decision(
        facts.say(f"查询订单 {order_no}。", f"Looking up order {order_no}."),
        [("order_search_details", {"order_no": order_no})],
        note="lookup",
    )


def _recent_query(found: Grounding) -> dict[str, Any]:
    """The order search for a description: by its supplier and / or its one part."""
    query: dict[str, Any] = {"size": _RECENT}
    if found.suppliers:
        query["supplier_id"] = found.suppliers[0].record["id"]
    ids = {m.record.get("id") for m in found.parts}
    if len(ids) == 1:
        query["part_id"] = ids.pop()
    return query


def _searches(
    facts: Facts, queries: list[dict[str, Any]], limit: int = _RECENT
) -> list[Record] | Decision:
    """The orders the ``queries`` find (newest first, at most ``limit``), or the step that
    runs them."""
    missing, items = [], []
    for query in queries:
        done = [r for r in facts.view.called("order_search_details") if r.args == query]
        if not done:
            missing.append(query)
            continue
        data = done[-1].data() if done[-1].ok else None
        items += [o for o in (data or {}).get("items") or [] if isinstance(o, dict)]
    if missing:
        return Decision(
            facts.say("在 ERP 中查找你说的订单。", "Finding that order in the ERP."),
            [("order_search_details", q) for q in missing],
            note="find-order",
        )
    if len(queries) > 1:
        items.sort(key=lambda o: (str(o.get("order_date")), str(o.get("order_no"))), reverse=True)
    return items[:limit]


# Where a change's new value starts ("改到1月20日", "push it to January 20"): the words
# after it are the new date, not the period the order was placed in.
_NEW_VALUE = re.compile(
    r"(?:改到|改成|改为|调到|调整到|推迟到|延后到|延期到|延到|提前到)"
    r"|\b(?:to|until)\s+(?=(?:the\s+)?(?:\d|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
    r"|next|end|mid|early|late))",
    re.I,
)


def _naming_words(body: str) -> str:
    """The words that name the order: the request up to the new value of a change."""
    m = _NEW_VALUE.search(body)
    return body[: m.start()] if m else body


# Each kind of order a question may ask for (no period named): the head of their list
# (Chinese, English), and the words for them when there are none (Chinese, English).
_KINDS = {
    "overdue": ("过了预计到货日期（{today}）还没到齐的订单：\n",
                "Open orders past their expected date ({today}):\n",
                "过了预计到货日期还没到齐的", "overdue (open, past their expected date) "),
    "awaiting": ("还没批准的订单（草稿、待审批）：\n",
                 "Orders not approved yet (drafts, pending approval):\n",
                 "等待审批（草稿、待审批）的", "unapproved (draft or pending approval) "),
    "open": ("未完成的订单：\n", "Open orders:\n", "未完成", "open "),
    "cancelled": ("已取消的订单：\n", "Cancelled orders:\n", "", ""),
    "": ("最近的订单：\n", "Recent orders:\n", "", ""),
}  # fmt: skip


def _by_description(facts: Facts, *, asking: bool = True) -> Record | Decision:
    """The order the buyer describes (their supplier's newest), or the step that finds it.
    A question about orders (``asking=False``) that names none lists the recent ones, or
    the open ones when it asks about those ("哪些订单还没到货"). A period named ("上周给博世
    的订单", "the order to NGK last month") limits the search to it: its one order, its
    newest when the newest is asked for, else the list (a look-up) or a question."""
    found, _suppliers, step = facts.master_data()
    if step is not None:
        return step
    window = named_period(_naming_words(facts.body), facts.today)
    several = not asking and lexicon.has(facts.body, "several_orders")
    latest = read(without_period(facts.body) if window else facts.body).latest and not several
    # "这周有什么货到", "IU7什么时候到": the open orders, a period naming when they arrive
    inbound = not asking and lexicon.has(facts.body, "inbound")
    awaiting = not asking and lexicon.has(facts.body, "awaiting_approval")
    overdue = not asking and not awaiting and lexicon.has(facts.body, "overdue")
    still_open = awaiting or overdue or inbound or (not latest and lexicon.has(facts.body, "open"))
    arriving, window = (window, None) if inbound else (None, window)
    # "did we cancel the Mann order?", "any cancelled orders with Mann?", "取消了哪些单"
    cancelled = not asking and lexicon.has(facts.body, "cancel")
    # "what did Zhang Wei order?"; "cancel my last order": the buyer's own
    who = person(facts, found) if not asking else me(facts)
    if isinstance(who, Decision):
        return who
    if not (found.suppliers or found.parts or latest or still_open or window or several
            or cancelled or who):  # fmt: skip
        return _ask_order(facts, [])
    base = _recent_query(found) | ({who.field: who.user} if who else {})
    count = _count(facts.body)
    if count:
        base["size"] = count
    if window is not None:
        dates = {"date_from": window[0].isoformat(), "date_to": window[1].isoformat()}
        base = {**base, **dates, "size": _IN_PERIOD}
    if cancelled and not still_open:
        base = {**base, "status": "cancelled"}
    statuses = _AWAITING if awaiting else _OPEN
    queries = [{**base, "status": s} for s in statuses] if still_open else [base]
    items = _searches(facts, queries, _IN_PERIOD if window else (count or _RECENT))
    if isinstance(items, Decision):
        return items
    if arriving is not None:
        return _arriving(facts, found, items, arriving)
    if overdue:  # due before today and not (all) in
        items = [o for o in items if str(o.get("expected_date") or "9") < facts.today.isoformat()]
    kind = "awaiting" if awaiting else "overdue" if overdue else "open" if still_open else ""
    if not items:
        return _none_found(facts, found, kind, window, asking, who)
    if latest or (len(items) == 1 and not still_open):
        return items[0]
    if not asking:  # a question about several orders is answered with the list
        lines = [order_summary(o, facts.zh).splitlines()[0] for o in items]
        if who:
            said = who.said(facts.zh)
            lines.insert(0, facts.say(f"{said}：", f"{said[0].upper()}{said[1:]}:"))
        if window is not None:
            span, total = _span(window), max(_total(facts, queries), len(items))
            more = total > len(items)
            head = facts.say(
                f"{span} {'已取消的' if cancelled else '的'}订单共 {total} 张"
                + (f"，以下是最新的 {len(items)} 张" if more else "")
                + "：\n",
                f"{'Cancelled orders' if cancelled else 'Orders'} {span}: {total}"
                + (f", the newest {len(items)} below" if more else "")
                + "\n",
            )
        else:
            zh, en, _, _ = _KINDS[kind or ("cancelled" if cancelled else "")]
            head = facts.say(zh.format(today=facts.today), en.format(today=facts.today))
        return Decision(head + "\n".join(lines), note="listed")
    lead = ""
    if window is not None:
        span = _span(window)
        lead = facts.say(f"{span} 有 {len(items)} 张订单。",
                         f"There are {len(items)} orders {span}. ")  # fmt: skip
    return _ask_order(facts, items[:_RECENT], lead)


_COUNT = re.compile(
    r"(?:最近|近|前)\s*(\d+|[一二两三四五六七八九十]+)\s*(?:张|个|笔)"
    r"|(?<![a-z])(?:last|latest|recent)\s+(\d+|two|three|four|five|six|seven|eight|nine|ten"
    r"|twenty)(?![a-z])",
    re.I,
)


def _count(text: str) -> int | None:
    """How many orders the buyer asks to see ("最近5张", "last 5 POs"), at most 20."""
    m = _COUNT.search(text)
    if not m:
        return None
    raw = m.group(1) or m.group(2)
    value = int(raw) if raw.isdigit() else zh_number(raw) or en_number(raw)
    return min(value, _IN_PERIOD) if value else None


def _total(facts: Facts, queries: list[dict[str, Any]]) -> int:
    """How many orders the ERP says the ``queries`` match (all pages)."""
    total = 0
    for result in facts.view.called("order_search_details"):
        if result.args in queries and result.ok:
            data = result.data()
            total += int(data.get("total") or 0) if isinstance(data, dict) else 0
    return total


def _span(window: tuple[date, date]) -> str:
    start, end = (d.isoformat() for d in window)
    return start if start == end else f"{start} – {end}"


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _natural_end(span: tuple[date, date], today: date) -> date:
    """The end of the week, month, quarter or year a period "up to today" belongs to."""
    start, end = span
    if end != today or start > today:
        return end
    if start.weekday() == 0 and (today - start).days < 7:
        return start + timedelta(days=6)  # this week
    if start.day != 1 or start.year != today.year:
        return end
    if start.month == today.month:
        return _month_end(today.year, today.month)  # this month
    if start.month == 1 and today.month > 3:
        return date(today.year, 12, 31)  # this year
    if start.month in (1, 4, 7, 10) and today.month - start.month < 3:
        return _month_end(today.year, start.month + 2)  # this quarter
    return end


def _arriving(
    facts: Facts, found: Grounding, items: list[Record], span: tuple[date, date]
) -> Decision:
    """The open orders expected in ``span`` ("这周有什么货到"), each with its date; a
    period running to today ("this week") runs to its end, as goods arrive later."""
    span = (span[0], _natural_end(span, facts.today))
    due = [o for o in items if span[0].isoformat() <= str(o.get("expected_date") or "")[:10]
           <= span[1].isoformat()]  # fmt: skip
    when = _span(span)
    if not due:
        later = (
            facts.say(
                f"（另有 {len(items)} 张未完成的订单在别的日期到货）",
                f" ({len(items)} open orders are due on other dates)",
            )
            if items
            else ""
        )
        return Decision(
            facts.say(f"{when} 没有预计到货的订单{later}。", f"No orders are due {when}{later}."),
            note="none-found",
        )
    lines = [order_summary(o, facts.zh).splitlines()[0] for o in due]
    head = facts.say(f"{when} 预计到货的订单：\n", f"Orders due {when}:\n")
    return Decision(head + "\n".join(lines), note="listed")  # fmt: skip


def _none_found(
    facts: Facts,
    found: Grounding,
    kind: str,
    window: tuple[date, date] | None,
    asking: bool,
    who: Person | None = None,
) -> Decision:
    """No order matches: said so (with the period and the person), and the newest one
    outside the period named. ``kind``: a key of :data:`_KINDS`, "" when any order was
    looked for."""
    key = "name_zh" if facts.zh else "name_en"
    named = [str(m.record.get(key)) for m in found.suppliers[:1]]
    named += [f"{m.record.get('sku')} {m.record.get(key)}" for m in found.parts[:1]]
    name = " ".join(named)
    of_zh, for_en = (name + "的" if name else ""), (" for " + name if name else "")
    if who is not None:  # "我上个月下了几张单": nobody else's orders shown instead
        of_zh, for_en = f"{of_zh}{who.said(True)} 的", f"{for_en} {who.said(False)}"
    _, _, zh_kind, en_kind = _KINDS[kind]
    if window is not None:
        span = _span(window)
        none = facts.say(
            f"{span} 没有{of_zh}{zh_kind}订单。", f"There were no {en_kind}orders{for_en} {span}. "
        )
        mine = {who.field: who.user} if who else {}
        newest = _searches(facts, [_recent_query(found) | mine])
        if isinstance(newest, Decision):
            return newest
        if newest and not asking:
            summary = order_summary(newest[0], facts.zh).splitlines()[0]
            return Decision(
                none + facts.say(f"最近的一张在这之外：\n{summary}",
                                 f"The newest one is outside that period:\n{summary}"),
                note="none-found",
            )  # fmt: skip
        return Decision(none, note="none-found") if not asking else _ask_order(facts, newest, none)
    none = facts.say(
        f"ERP 中没有找到{of_zh}{zh_kind}订单。", f"I found no {en_kind}orders{for_en} in the ERP. "
    )
    if not asking:  # a question about orders that do not exist has its answer
        return Decision(none, note="none-found")
    return _ask_order(facts, [], none)


def _ask_order(facts: Facts, items: list[Record], lead: str = "") -> Decision:
    options = [
        f"{o.get('order_no')} {o.get('order_date', '')} {status_word(o.get('status'), facts.lang)}"
        for o in items
    ]
    question = lead + facts.say(
        "是哪一张订单？请告诉我订单号", "Which order is it? Please give the order number"
    )
    if options:
        question += facts.say("（最近的有：" + "；".join(options) + "）",
                              " (recent ones: " + "; ".join(options) + ")")  # fmt: skip
    return ask(facts, ["order_no"], question + facts.say("。", "."), options or None)


def _target(facts: Facts, *, asking: bool = True) -> Record | Decision:
    named = facts.answer("order_no", "order", "订单号")
    order_no = find_order_no(str(named)) or str(named).strip() if named else find_order_no(
        facts.text)  # fmt: skip
    if order_no:
        return by_number(facts, order_no)
    return _by_description(facts, asking=asking)


def lookup(facts: Facts) -> Decision:
    """Show the order the buyer asks about, or what was bought of a category over a period."""
    if not (facts.answer("order_no", "order", "订单号") or find_order_no(facts.text)):
        found, _suppliers, step = facts.master_data()
        if step is not None:
            return step
        history = (unordered_parts(facts, found) or spend(facts, found)
                   or extreme_order(facts, found) or category_history(facts, found))  # fmt: skip
        if history is not None:
            return history
    order = _target(facts, asking=False)
    if isinstance(order, Decision):
        return order
    return Decision(order_summary(order, facts.zh) + _still_possible(facts, order),
                    note="looked-up")  # fmt: skip


def _still_possible(facts: Facts, order: Record) -> str:
    """For a question about cancelling or changing the order ("PO… 还能取消吗", "was it
    cancelled?", "should I push it back?"): whether the ERP still allows it, and how to ask
    for it; nothing is proposed. Empty for a plain look-up."""
    if not lexicon.has(facts.body, "asked_about"):
        return ""
    status, no = str(order.get("status") or ""), order.get("order_no")
    word = status_word(status, facts.lang)
    if lexicon.has(facts.body, "cancel"):
        if status == "cancelled":
            return facts.say("\n这张订单已经取消。", "\nThis order is cancelled.")
        if status in _CANCELLABLE:
            return facts.say(
                f"\n它现在是“{word}”，还可以取消。要取消的话请直接说“取消 {no}”，"
                "我让 ERP 核对后提交审批；现在什么都没有改。",
                f"\nIt is {word}, so it can still be cancelled. To cancel it, say "
                f'"cancel {no}": I have the ERP check it and put it up for approval. '
                "Nothing has been changed.",
            )
        return facts.say(
            f"\n它现在是“{word}”，不能再取消（只有草稿、待审批和已批准、还没到货的订单可以取消）。",
            f"\nIt is {word}, so it can no longer be cancelled (only draft, pending and "
            "approved orders with nothing received can be).",
        )
    if status in ("closed", "cancelled", "received"):
        return facts.say(
            f"\n它现在是“{word}”，不能再修改。",
            f"\nIt is {word}, so it can no longer be changed.",
        )
    return facts.say(
        f"\n它现在是“{word}”，还可以修改（到货日期、备注；草稿还能改数量）。要改的话请直接说，"
        f"比如“把 {no} 的到货日期改到 …”；现在什么都没有改。",
        f"\nIt is {word}, so it can still be changed (delivery date, note; quantities while "
        f'it is a draft). Tell me what to change, e.g. "move {no} to <date>". Nothing has been '
        "changed.",
    )


def _added_line(facts: Facts, order: Record, args: dict[str, Any], body: str) -> Decision | None:
    """A part the order does not hold, named with a count ("把这张单加上 BKR7E 100个", "再加
    BKR7E 100个"): a line added to a draft (``args["lines"]``), or the order's status said
    (only a draft takes new lines). None: no such part named."""
    found, _suppliers, step = facts.master_data()
    if step is not None:
        return step
    lines = [ln for ln in order.get("lines") or [] if isinstance(ln, dict)]
    held = {ln.get("part_id") for ln in lines}
    new = [m for m in found.parts if m.record.get("id") not in held]
    if not new:
        return None
    part = new[0].record
    count = read_quantity(body, exclude=[str(order.get("order_no")), *model_tokens(body)])
    no, sku = order.get("order_no"), part.get("sku")
    if order.get("status") != "draft":
        word = status_word(order.get("status"), facts.lang)
        return Decision(facts.say(
            f"订单 {no} 现在是“{word}”，只有草稿能加行，没有改动。要给 {sku} 另下一张单，"
            "请直接说供应商和数量。",
            f"Order {no} is {word}; only a draft takes new lines, so nothing was changed. To "
            f"order {sku} separately, say the supplier and the quantity."),
            note="refused")  # fmt: skip
    replaced = _named_lines(facts, lines) or lines if _REPLACING.search(body) else []
    if len(replaced) != 1:
        replaced = []  # "IU7换成IU9": the one line named (or the only one) gives way
    if (count is None or count.value is None) and replaced:
        count = read_quantity(str(replaced[0].get("quantity")))
    if count is None or count.value is None:
        return ask(facts, ["quantity"], facts.say(f"{sku} 加多少？", f"How many {sku}?"))
    kept = [{"part_id": ln.get("part_id"), "quantity": ln.get("quantity")}
            for ln in lines if ln not in replaced]  # fmt: skip
    args["lines"] = [*kept, {"part_id": part["id"], "quantity": count.value}]
    return None


# A part put in place of another ("IU7换成IU9", "swap the IU7 for IU9", "instead"), not added.
_REPLACING = re.compile(r"换成|替换|改成|换为|(?<![a-z])(?:instead|replace|swap)", re.I)


def _named_lines(facts: Facts, lines: list[Record]) -> list[Record]:
    """The order's lines the buyer names, by SKU or whole name (a brand every line shares
    names none)."""
    text = facts.text.lower()
    return [ln for ln in lines
            if any(str(ln.get(k) or "\0").lower() in text for k in ("sku", "name_zh", "name_en"))
            or _model_of(ln) in model_tokens(facts.text)]  # fmt: skip


# A line by its place on the order ("第二行", "第2条", "最后一行", "line 2", "the second line",
# "the last row"): its index from the start (-1: the last).
_LINE_PLACE = re.compile(
    r"第\s*(?P<zh>[一二两三四五六七八九十\d]{1,3})\s*(?:行|条|項|项|條)"
    r"|(?P<zhlast>最后|最後|末)\s*一?\s*(?:行|条|項|项|條)"
    r"|(?<![a-z])(?:line|row|item)\s*(?:no\.?\s*|#\s*)?(?P<en>\d{1,3})(?![\d.])"
    r"|(?<![a-z])(?P<word>first|second|third|fourth|fifth|last|1st|2nd|3rd|4th|5th)\s+"
    r"(?:line|row|item)s?(?![a-z])",
    re.I,
)
_PLACE_WORDS = {"first": 0, "second": 1, "third": 2, "fourth": 3, "fifth": 4, "last": -1,
                "1st": 0, "2nd": 1, "3rd": 2, "4th": 3, "5th": 4}  # fmt: skip


def _line_at(text: str, lines: list[Record]) -> list[Record] | None:
    """The line named by its place ("第二行改成300", "line 2 to 300"), [] for a place the
    order does not have, None when no place is named."""
    m = _LINE_PLACE.search(text)
    if m is None:
        return None
    if m.group("zh"):
        raw = m.group("zh")
        index = (int(raw) if raw.isdigit() else zh_number(raw) or 0) - 1
    elif m.group("en"):
        index = int(m.group("en")) - 1
    else:
        index = -1 if m.group("zhlast") else _PLACE_WORDS[m.group("word").lower()]
    if index < -1 or index >= len(lines):
        return []
    return [lines[index]]


def _model_of(line: Record) -> str:
    """The model in a line's SKU ("SP-NGK-IU9" → "IU9")."""
    return str(line.get("sku") or "").rsplit("-", 1)[-1].upper() or "\0"


# A line taken out, not the order cancelled ("IU9那行删掉", "drop the IU9 line", "把IU9去掉").
_A_LINE = re.compile(
    r"行|条目|删|去掉|拿掉|(?<![a-z])(?:line|row|item|drop|remove|take\s+out)s?(?![a-z])", re.I
)


def _dropped_line(facts: Facts, order: Record, args: dict[str, Any]) -> Decision | None:
    """For "drop the IU9 line" / "IU9那行删掉" on an order of several lines: the other lines
    kept (``args["lines"]``), or the refusal when it is no draft. None: the message names no
    line of it, or every line (then the whole order is cancelled)."""
    lines = [ln for ln in order.get("lines") or [] if isinstance(ln, dict)]
    named = _named_lines(facts, lines) or _line_at(facts.text, lines) or []
    if len(lines) < 2 or not named or len(named) == len(lines) or not _A_LINE.search(facts.text):
        return None  # "cancel the IU7 order": the order a part names, cancelled whole
    if order.get("status") != "draft":
        word = status_word(order.get("status"), facts.lang)
        return Decision(facts.say(
            f"订单 {order.get('order_no')} 现在是“{word}”，只有草稿能删行，没有改动。",
            f"Order {order.get('order_no')} is {word}; only a draft's lines can be removed, so "
            "nothing was changed."), note="refused")  # fmt: skip
    args["lines"] = [{"part_id": ln.get("part_id"), "quantity": ln.get("quantity")}
                     for ln in lines if ln not in named]  # fmt: skip
    return None


def _new_lines(facts: Facts, order: Record, args: dict[str, Any], body: str) -> Decision | None:
    """Set ``args["lines"]`` for a quantity change (None), or ask / refuse."""
    added = _added_line(facts, order, args, body)
    if added is not None or "lines" in args:
        return added
    lines = [ln for ln in order.get("lines") or [] if isinstance(ln, dict)]
    exclude = [str(ln.get("sku")) for ln in lines] + [str(order.get("order_no"))]
    exclude += model_tokens(body)
    answered = facts.answer("quantity", "qty", "数量")
    # "line 2 to 300": the place is no quantity
    quantity = read_quantity(str(answered) if answered else _LINE_PLACE.sub(" ", body),
                             exclude=exclude)  # fmt: skip
    # "再加50个", "砍掉一半": each line's own quantity changed by that, not set to it
    relative = not answered and relative_quantity(body, 1) is not None
    if quantity is None and not relative:
        return None
    if relative:
        quantity = None
    if quantity is not None and quantity.value is None:
        return Decision(
            facts.say(f"不能改：数量 {quantity.raw} 不是正整数，"
                      f"订单 {order.get('order_no')} 没有改动。",
                      f"I can't make that change: {quantity.raw} is not a whole positive "
                      f"quantity; order {order.get('order_no')} is unchanged."),
            note="refused",
        )  # fmt: skip
    target = lines
    if len(lines) > 1:
        # A line is named by its SKU or its whole name; a brand every line shares names none.
        target = [
            ln for ln in lines
            if any(str(ln.get(k) or "\0").lower() in facts.text.lower()
                   for k in ("sku", "name_zh", "name_en"))
        ] or _line_at(facts.text, lines) or []  # fmt: skip
    if not target:
        options = [f"{ln.get('sku')} × {ln.get('quantity')}" for ln in lines]
        return ask(
            facts,
            ["part"],
            facts.say(f"订单 {order.get('order_no')} 有 {len(lines)} 行，改哪一行："
                      f"{'；'.join(options)}？",
                      f"Order {order.get('order_no')} has {len(lines)} lines; which one: "
                      f"{'; '.join(options)}?"),
            options,
        )  # fmt: skip
    changed = {id(ln) for ln in target}
    args["lines"] = [
        {"part_id": ln.get("part_id"),
         "quantity": ln.get("quantity") if id(ln) not in changed
         else quantity.value if quantity is not None
         else relative_quantity(body, int(ln.get("quantity") or 0))}
        for ln in lines
    ]  # fmt: skip
    if any(int(ln["quantity"] or 0) <= 0 for ln in args["lines"]):
        return Decision(
            facts.say(f"不能改：这样数量会变成 0 或负数，订单 {order.get('order_no')} 没有改动。",
                      f"I can't make that change: the quantity would be zero or less; order "
                      f"{order.get('order_no')} is unchanged."),
            note="refused",
        )  # fmt: skip
    return None


def _new_date(order: Record, text: str, today: date) -> str | None:
    """The delivery date asked for: a date ("下周五"), or the order's date moved by an amount
    ("推迟一周", "push it back 3 days")."""
    expected = find_date(text, today)
    if expected is not None:
        return expected.isoformat()
    shift = find_shift(text)
    current = order.get("expected_date")
    if shift is None or not current:
        return None
    try:
        return (date.fromisoformat(str(current)) + timedelta(days=shift)).isoformat()
    except ValueError:
        return None


def change(facts: Facts, cancel: bool) -> Decision:
    """Propose the change (or cancellation) of the order the buyer means, for approval."""
    done = after_commit(facts, "order_update")
    if done is not None:
        return done
    if cancel and not find_order_no(facts.text) and lexicon.has(facts.body, "every_order"):
        # "取消所有订单", "cancel all orders": one order per approval, never one picked
        return _ask_order(facts, [], facts.say(
            "我一次只取消一张订单，每张都要单独审批，不会替你挑。",
            "I cancel one order at a time, each with its own approval, and never pick one "
            "for you. "))  # fmt: skip
    order = _target(facts)
    if isinstance(order, Decision):
        return order
    order_no = str(order.get("order_no"))
    args: dict[str, Any] = {"order_id": order_no, "expected_version": order.get("version")}
    dropped = _dropped_line(facts, order, args) if cancel else None
    if dropped is not None:
        return dropped
    if "lines" in args:  # "drop the IU9 line": the other lines kept, the order stays
        cancel = False
        action = facts.say(f"修改订单 {order_no}（删去所说的行）",
                           f"Change order {order_no} (the line named removed)")  # fmt: skip
    elif cancel:
        args["status"] = "cancelled"
        action = facts.say(f"取消订单 {order_no}", f"Cancel order {order_no}")
    else:
        # A new note is text, never read for a quantity or a date ("备注改成 第 2 批").
        note = _NEW_NOTE.search(facts.body)
        body = facts.body[: note.start()] if note else facts.body
        if note:
            # the note in the buyer's own characters ("備註寫：請分兩批送貨" stays Traditional)
            args["note"] = facts.as_written(*note.span(1)).strip()
            old_note = str(order.get("note") or "").strip()
            if old_note and _ADDING.search(facts.body[: note.start(1)]):
                # "备注加一句：已验收", "add to the note: …": added to the note, not over it
                args["note"] = old_note + facts.say("；", "; ") + args["note"]
        step = _new_lines(facts, order, args, body)
        if step is not None:
            return step
        expected = _new_date(order, body + "\n" + facts.answer_text, facts.today)
        if expected is not None:
            args["expected_date"] = expected
        if not {"lines", "expected_date", "note"} & set(args):
            question = facts.say(
                f"订单 {order_no} 要改成多少数量，或哪天到货？",
                f"What quantity or delivery date should {order_no} have?",
            )
            return ask(facts, ["quantity", "expected_date"], question)
        action = facts.say(f"修改订单 {order_no}", f"Change order {order_no}")
    return _propose(facts, order, args, action, "cancel" if cancel else "update")


def _changes(facts: Facts, order: Record, args: dict[str, Any]) -> str:
    """What the change does, before → after ("：到货日期 2026-12-04 → 2026-12-20")."""
    out = []
    before = {ln.get("part_id"): ln for ln in order.get("lines") or [] if isinstance(ln, dict)}
    for line in args.get("lines") or []:
        was = before.get(line.get("part_id"))
        if was is None:  # a line added
            named = {m.record.get("id"): m.record for m in facts.master_data()[0].parts}
            sku = (named.get(line.get("part_id")) or {}).get("sku") or line.get("part_id")
            out.append(facts.say(f"加一行 {sku} × {line['quantity']}",
                                 f"a new line: {sku} × {line['quantity']}"))  # fmt: skip
            continue
        if was.get("quantity") == line["quantity"]:
            continue
        out.append(facts.say(f"{was.get('sku')} 数量 {was.get('quantity')} → {line['quantity']}",
                             f"{was.get('sku')} quantity {was.get('quantity')} → "
                             f"{line['quantity']}"))  # fmt: skip
    if "expected_date" in args:
        before_date = order.get("expected_date") or "—"
        out.append(facts.say(f"到货日期 {before_date} → {args['expected_date']}",
                             f"delivery date {order.get('expected_date') or '—'} → "
                             f"{args['expected_date']}"))  # fmt: skip
    if "note" in args:
        out.append(facts.say(f"备注 → “{args['note']}”", f'note → "{args["note"]}"'))
    if not out:
        return ""
    return facts.say("：" + "；".join(out), ": " + "; ".join(out))


def _propose(facts: Facts, order: Record, args: dict[str, Any], action: str, note: str) -> Decision:
    """The change put up for approval once the ERP's dry run takes it (else its refusal)."""
    validation = check.validated(facts, "order_update", args)
    if isinstance(validation, Decision):
        return validation
    if validation is not None and not validation.get("ok"):
        return check.refusal(facts, "order_update", args, validation)
    status = status_word(order.get("status"), facts.lang)
    version = order.get("version")
    heads_up = ""
    if order.get("status") == "received" and "expected_date" in args:
        # The ERP allows it, but the approver should know it changes only the record.
        heads_up = facts.say(
            "注意：这张单已经全部到货，改到货日期只改记录，不会影响任何送货。",
            "Note: this order has been received in full; a new delivery date changes only the "
            "record, no delivery. ")  # fmt: skip
    return Decision(
        order_summary(order, facts.zh) + "\n\n" + heads_up + facts.say(
            f"{action}（当前状态 {status}，版本 {version}）{_changes(facts, order, args)}。"
            "提交前需要你批准。",
            f"{action} (now {status}, version {version}){_changes(facts, order, args)}. Needs "
            "your approval first."),
        [("order_update", args)],
        note=note,
    )  # fmt: skip
