"""What was bought of a part category over a period ("上个月买了多少火花塞", "how many brake
pads did we order in the last 3 months?"), read from the ERP's orders.

The category's parts come from ``part_query(category=...)``; the period's orders from
``order_search_details(date_from, date_to)``, newest first, page by page. The answer
states the period, the orders with lines of that category (cancelled ones left out) and
the totals. A period with more orders than :data:`MAX_ORDERS` is answered for its newest
orders, and says from which date on. Nothing is written.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from graphs.offline import lexicon
from graphs.offline.entities import Grounding
from graphs.offline.policies.base import Decision
from graphs.offline.policies.order.facts import Facts, paged
from graphs.offline.policies.order.outcome import order_summary
from graphs.offline.policies.order.people import Person, person
from graphs.offline.text import find_window_months, zh_number
from graphs.orders.words import status_word

__all__ = [
    "MAX_ORDERS", "category_history", "extreme_order", "named_period", "period", "spend",
    "without_period",
]  # fmt: skip

Record = dict[str, Any]
_ORDER_PAGE = 30  # orders with their lines: about 27,000 characters a page, kept in the thread
MAX_ORDERS = 240  # eight pages: the order agent's model calls are counted (20 a run)
_SHOWN = 10
_DEFAULT_MONTHS = 3


def _months_back(day: date, months: int) -> date:
    month = day.month - months
    year = day.year + (month - 1) // 12
    month = (month - 1) % 12 + 1
    for d in (day.day, 30, 29, 28):
        try:
            return date(year, month, d)
        except ValueError:
            continue
    return date(year, month, 28)


def _quarter(day: date, shift: int) -> tuple[date, date]:
    """The calendar quarter ``shift`` quarters from the one holding ``day``."""
    index = (day.month - 1) // 3 + shift
    year, q = day.year + index // 4, index % 4
    start = date(year, 3 * q + 1, 1)
    end = _months_back(start, -3) - timedelta(days=1)
    return start, end


# The periods a buyer names an order or a purchase by, each with the dates it covers.
_PERIODS: tuple[tuple[str, Callable[[date], tuple[date, date]]], ...] = (
    (r"上个?月|上一个?月|last month|previous month",
     lambda t: ((t.replace(day=1) - timedelta(days=1)).replace(day=1),
                t.replace(day=1) - timedelta(days=1))),
    (r"本月|这个月|this month", lambda t: (t.replace(day=1), t)),
    (r"去年|last year|previous year",
     lambda t: (date(t.year - 1, 1, 1), date(t.year - 1, 12, 31))),
    (r"今年|本年|this year|year to date", lambda t: (date(t.year, 1, 1), t)),
    (r"上个?(?:周|星期|礼拜)|上一个?(?:周|星期|礼拜)|last week|previous week",
     lambda t: (t - timedelta(days=t.weekday() + 7), t - timedelta(days=t.weekday() + 1))),
    (r"本周|这周|这个?星期|这个?礼拜|this week",
     lambda t: (t - timedelta(days=t.weekday()), t)),
    (r"昨天|yesterday", lambda t: (t - timedelta(days=1), t - timedelta(days=1))),
    (r"今天|today|刚才|刚刚|今早|this morning|earlier today|just now", lambda t: (t, t)),
    (r"上个?季度|上一季度|last quarter|previous quarter",
     lambda t: _quarter(t, -1)),
    (r"本季度|这个?季度|this quarter|quarter to date", lambda t: (_quarter(t, 0)[0], t)),
)  # fmt: skip
_YEAR_MONTH = re.compile(r"(?<!\d)(20\d\d)\s*年\s*(1[0-2]|0?[1-9])\s*月(?:份)?(?!\s*\d)")
# A calendar year named ("2026年的采购金额", "in 2025"), not a date in it ("2026年1月").
_YEAR = re.compile(
    r"(?<!\d)(20\d\d)\s*年(?!\s*\d{1,2}\s*月)(?:度)?|\b(?:in|for|during)\s+(20\d\d)\b", re.I
)
# A window in months ("近 3 个月", "last 3 months"), as find_window_months reads it.
_WINDOW = (
    r"(?:近|最近|过去|前|这)\s*[\d零〇一二两三四五六七八九十]+\s*个?月|半年|上个?季度|本季度"
    r"|近一个季度|近一年|过去一年"
    r"|\b(?:last|past|previous|over the last|over the past)\s+(?:\d+|\w+)\s+months?\b"
    r"|half a year|six months|last quarter|past quarter|previous quarter|past year"
)


# A month named alone ("10月份的单", "十一月", "orders in October"), not a day of it
# ("12月20日"): the latest such month up to today.
_ZH_MONTH = (
    r"(?<![\d年-])(1[0-2]|0?[1-9]|十[一二]?|[一二三四五六七八九])\s*月份?"
    r"(?!\s*(?:\d|[一二三四五六七八九十]+\s*[日号]))"
)
_EN_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
              "september", "october", "november", "december")  # fmt: skip
_EN_MONTH = (
    r"\b(?:in|during|for|of|from|since|over)\s+(?:the\s+month\s+of\s+)?("
    + "|".join(_EN_MONTHS)
    + "|sept|"
    + "|".join(m[:3] for m in _EN_MONTHS if m != "may")
    + r")\b\.?(?!\s*\d)"
)


def _month_period(text: str, today: date) -> tuple[date, date] | None:
    m = re.search(_ZH_MONTH, text)
    month: int | None = None
    if m:
        raw = m.group(1)
        month = int(raw) if raw.isdigit() else zh_number(raw)
    else:
        e = re.search(_EN_MONTH, text, re.I)
        if e:
            word = e.group(1).lower()
            month = next(i for i, n in enumerate(_EN_MONTHS, 1) if n.startswith(word[:3]))
    if not month or not 1 <= month <= 12:
        return None
    year = today.year if month <= today.month else today.year - 1
    end = date(year + (month == 12), month % 12 + 1, 1) - timedelta(days=1)
    return date(year, month, 1), min(end, today)


# A quarter by its number ("2026年三季度", "第一季度", "Q2", "Q3 2025"): its dates.
_NAMED_QUARTER = re.compile(
    r"(?:(?P<year>20\d\d)\s*年?\s*)?(?:第?\s*(?P<q>[一二三四1-4])\s*季度|(?<![a-z])q(?P<q2>[1-4])"
    r"(?:\s+(?P<year2>20\d\d))?(?![a-z0-9]))",
    re.I,
)


def named_period(text: str, today: date) -> tuple[date, date] | None:
    """The dates (inclusive) of the period ``text`` names, or None when it names none."""
    for pattern, dates in _PERIODS:
        if re.search(pattern, text, re.I):
            return dates(today)
    quarter = _NAMED_QUARTER.search(text)
    if quarter:  # "2026年三季度", "Q2", "第一季度": that quarter (this year's by default)
        in_year = int(quarter.group("year") or quarter.group("year2") or today.year)
        q = quarter.group("q") or quarter.group("q2")
        n = "一二三四".find(q) + 1 or int(q)
        start, end = _quarter(date(in_year, 3 * n - 2, 1), 0)
        return start, min(end, today)
    month_of_year = _YEAR_MONTH.search(text)
    if month_of_year:  # "2026年1月的单": that month of that year
        y, m = int(month_of_year.group(1)), int(month_of_year.group(2))
        start = date(y, m, 1)
        return start, min(_months_back(start, -1) - timedelta(days=1), today)
    year = _YEAR.search(text)
    if year:
        named = int(year.group(1) or year.group(2))
        return date(named, 1, 1), min(date(named, 12, 31), today)
    month = _month_period(text, today)
    if month is not None:
        return month
    months = find_window_months(text)
    if months:
        return _months_back(today, months) + timedelta(days=1), today
    days = _days_window(text)
    if days:  # "最近一周", "the past 2 weeks", "last 10 days": up to today
        return today - timedelta(days=days - 1), today
    return None


# A rolling window in days or weeks ("最近一周", "近10天", "过去两周", "the past week", "last 7
# days"); "上周" / "last week" are the calendar week before (``_PERIODS``).
_DAYS_WINDOW = re.compile(
    r"(?:近|最近|过去|这)\s*(?P<zn>[\d零〇一二两三四五六七八九十]+)\s*(?P<zu>天|日|周|个?星期|个?礼拜)"
    r"|(?<![a-z])(?:last|past|previous|over\s+the\s+(?:last|past))\s+(?:(?P<en>\d+|two|three|"
    r"four|five|six|seven|ten|fourteen|thirty)\s+)?(?P<eu>days?|weeks?)(?![a-z])",
    re.I,
)
_EN_NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10,
               "fourteen": 14, "thirty": 30}  # fmt: skip


def _days_window(text: str) -> int | None:
    """How many days back a rolling window reaches, today included (None: none named)."""
    m = _DAYS_WINDOW.search(text)
    if m is None:
        return None
    if m.group("zn"):
        raw = m.group("zn")
        n, week = (int(raw) if raw.isdigit() else zh_number(raw)), m.group("zu") not in "天日"
    else:
        raw = (m.group("en") or "1").lower()
        if raw == "1" and m.group("eu").lower().startswith("day"):
            return None  # "the last day": not a window anybody means
        n, week = int(raw) if raw.isdigit() else _EN_NUMBERS[raw], m.group("eu").lower()[0] == "w"
    if not n:
        return None
    return n * 7 if week else n


# Where one period ends and another starts ("Q3 vs Q2", "今年和去年比", "2026年三季度；跟二季度
# 比呢"), and the words that ask for the periods side by side.
_BETWEEN = re.compile(
    r"[，,；;。\n]|对比|相比|比较|和|跟|与|同|比|(?<![a-z])(?:vs\.?|versus|compared\s+(?:to|with)|"
    r"against|and|than)(?![a-z])",
    re.I,
)
_COMPARED = re.compile(
    r"对比|相比|比较|比一下|(?:和|跟|与|同)[^，,。？?]{0,12}比|同比|环比"
    # "比去年多还是少", "比上个月涨了吗": this period against the one named after "比"
    r"|比[^，,。？?]{1,8}?(?:多|少|高|低|增|减|涨|降)|多还是少|(?:涨|增)了还是(?:降|减)了"
    r"|(?<![a-z])(?:vs\.?|versus|compar\w*|against|difference|change\s+from|more\s+or\s+less"
    r"|up\s+or\s+down|higher\s+or\s+lower|(?:more|less|higher|lower)\b[^.?!]{0,40}?\bthan)(?![a-z])",
    re.I,
)


def named_periods(text: str, today: date) -> list[tuple[date, date]]:
    """Every period ``text`` names, in the order named ("2026年三季度和二季度": both, the
    second in the first's year), without repeats."""
    found: list[tuple[date, date]] = []
    year = ""
    for piece in _BETWEEN.split(text):
        said = re.search(r"(?<!\d)(20\d\d)(?!\d)", piece)
        quarter = _NAMED_QUARTER.search(piece)
        if said:
            year = said.group(1)
        elif quarter and year:  # "二季度" after "2026年三季度": the same year's
            piece = f"{year}年{quarter.group(0)}"
        dates = named_period(piece, today)
        if dates is None and said and not quarter:  # "… in 2026 compared to 2025": a year
            named = int(said.group(1))
            dates = date(named, 1, 1), min(date(named, 12, 31), today)
        if dates is not None and dates not in found:
            found.append(dates)
    return found


def compared(text: str) -> bool:
    """Whether ``text`` asks for periods side by side ("跟二季度比呢", "Q3 vs Q2")."""
    return _COMPARED.search(text) is not None


def without_period(text: str) -> str:
    """``text`` with the period it names taken out ("the last order last week" → "the last
    order"): what is left says whether the newest order is meant."""
    for pattern, _dates in _PERIODS:
        text = re.sub(pattern, " ", text, flags=re.I)
    text = _YEAR.sub(" ", _YEAR_MONTH.sub(" ", _NAMED_QUARTER.sub(" ", text)))
    text = re.sub(_EN_MONTH, " ", re.sub(_ZH_MONTH, " ", text), flags=re.I)
    return _DAYS_WINDOW.sub(" ", re.sub(_WINDOW, " ", text, flags=re.I))


def period(text: str, today: date, months: int = _DEFAULT_MONTHS) -> tuple[date, date]:
    """The dates a history question covers (inclusive); the last 3 months when it names none."""
    return named_period(text, today) or (
        _months_back(today, months) + timedelta(days=1),
        today,
    )


def _orders(
    facts: Facts, start: date, end: date, **narrow: Any
) -> tuple[list[Record], dict[str, Any] | None]:
    """The period's orders read so far (newest first) and the next page to read (None: done,
    or :data:`MAX_ORDERS` reached); ``narrow``: more search fields (a supplier)."""
    match = {"date_from": start.isoformat(), "date_to": end.isoformat(), **narrow}
    pages: dict[int, Any] = {}
    for result, data in facts.view.iter_data("order_search_details"):
        args = result.args
        if set(args) - set(match) - {"page", "size"} or any(
            args.get(k) != v for k, v in match.items()
        ):
            continue
        pages[int(args.get("page", 1) or 1)] = data
    items = [o for p in sorted(pages) for o in (pages[p] or {}).get("items") or []
             if isinstance(o, dict)]  # fmt: skip
    last = pages[max(pages)] if pages else None
    if not pages:
        return [], {**match, "page": 1, "size": _ORDER_PAGE}
    if isinstance(last, dict) and last.get("has_more") and len(items) < MAX_ORDERS:
        return items, {**match, "page": max(pages) + 1, "size": _ORDER_PAGE}
    return items, None


_SMALLEST = re.compile(r"最(?:小|少|便宜)|smallest|lowest", re.I)


def extreme_order(facts: Facts, found: Grounding) -> Decision | None:
    """The order with the largest (or smallest) total of a period ("largest order this year",
    "今年金额最大的一张订单"; the last 12 months when no period is named), of a supplier or a
    part when one is named, in the period's most used currency; None: not such a question
    (or a category named, which :func:`category_history` answers)."""
    if not lexicon.has(facts.body, "order_superlative") or found.categories:
        return None
    start, end = period(facts.body, facts.today, months=12)
    narrow: Record = {"supplier_id": found.suppliers[0].record["id"]} if found.suppliers else {}
    ids = {m.record.get("id") for m in found.parts}
    if len(ids) == 1:
        narrow["part_id"] = ids.pop()
    orders, more = _orders(facts, start, end, **narrow)
    if more:
        return Decision(facts.say(f"查询 {start} 至 {end} 的采购订单。",
                                  f"Reading the orders from {start} to {end}."),
                        [("order_search_details", more)], note="history-read")  # fmt: skip
    placed = [o for o in orders if o.get("status") != "cancelled"]
    if not placed:
        return Decision(facts.say(f"{start} 至 {end} 没有订单。",
                                  f"There are no orders from {start} to {end}."),
                        note="history")  # fmt: skip
    currencies = [str(o.get("currency") or "CNY") for o in placed]
    main = max(set(currencies), key=currencies.count)
    pool = [o for o in placed if str(o.get("currency") or "CNY") == main]
    smallest = _SMALLEST.search(facts.body) is not None
    pick = (min if smallest else max)(pool, key=lambda o: int(o.get("total_minor") or 0))
    partial = (facts.say(f"，只看了最新的 {len(orders)} 张", f", only the newest {len(orders)}")
               if len(orders) >= MAX_ORDERS else "")  # fmt: skip
    which = facts.say("最小" if smallest else "最大", "smallest" if smallest else "largest")
    head = facts.say(
        f"{start} 至 {end} 金额{which}的订单（{len(pool)} 张 {main} 订单中，不含已取消的"
        f"{partial}）：\n",
        f"The {which} order from {start} to {end} (of {len(pool)} {main} orders, cancelled ones "
        f"left out{partial}):\n",
    )
    return Decision(head + order_summary(pick, facts.zh), note="history")


def _money(minor: int) -> str:
    return f"{minor / 100:,.2f}"


def _part_scope(facts: Facts, found: Grounding) -> tuple[set[int], str, Record] | None:
    """The parts named in a "how many did we buy" question ("我们今年买了多少IU7", "how
    many C8HSA did we order from Bosch last month?"): their ids, their names and the
    supplier narrowing (None: not such a question)."""
    if (
        not found.parts
        or found.categories
        or not lexicon.has(facts.body, "bought_how_many", "prices_paid")
    ):
        return None
    narrow: Record = {"supplier_id": found.suppliers[0].record["id"]} if found.suppliers else {}
    ids = {int(m.record["id"]) for m in found.parts if m.record.get("id") is not None}
    if len(ids) == 1:  # the ERP's own part filter: one part's orders, however many others
        narrow["part_id"] = next(iter(ids))
    name = "、".join(str(m.record.get("sku")) for m in found.parts)
    if found.suppliers:
        who = found.suppliers[0].record.get("name_zh" if facts.zh else "name_en")
        name = facts.say(f"{who}的{name}", f"{name} from {who}")
    return ids, (name if facts.zh else name.replace("、", ", ")), narrow


def _rows(orders: list[Record], ids: set[int]) -> list[tuple[Record, list[Record]]]:
    """The orders (not cancelled) with lines of the parts ``ids``, and those lines."""
    rows = []
    for order in orders:
        if order.get("status") == "cancelled":
            continue
        lines = [ln for ln in order.get("lines") or [] if int(ln.get("part_id", -1)) in ids]
        if lines:
            rows.append((order, lines))
    return rows


def category_history(facts: Facts, found: Grounding) -> Decision | None:
    """The answer to "how much of this category (or these parts) did we buy" (None: the
    question names a supplier or no category, so it is about particular orders)."""
    start, end = period(facts.body, facts.today)
    scope = _part_scope(facts, found)
    if scope is not None:
        ids, name, narrow = scope
        orders, orders_next = _orders(facts, start, end, **narrow)
        calls = [("order_search_details", orders_next)] if orders_next else []
    else:
        one_supplier = len({m.record.get("id") for m in found.suppliers}) == 1
        if not found.categories or found.parts or (found.suppliers and not (
                one_supplier and lexicon.has(facts.body, "bought_how_many"))):  # fmt: skip
            return None
        category = found.categories[0].record
        code = str(category.get("code"))
        parts, parts_next = paged(facts.view, "part_query", category=code)
        # "上个月从 KMC 进了多少条链条": that supplier's orders only
        narrow = {"supplier_id": found.suppliers[0].record["id"]} if found.suppliers else {}
        orders, orders_next = _orders(facts, start, end, **narrow)
        name = str(category.get("name_zh" if facts.zh else "name_en") or code)
        if found.suppliers:
            who = found.suppliers[0].record.get("name_zh" if facts.zh else "name_en")
            name = facts.say(f"{who}的{name}", f"{name} from {who}")
        calls = [("part_query", parts_next)] if parts_next else []
        calls += [("order_search_details", orders_next)] if orders_next else []
        ids = {int(p["id"]) for p in parts if p.get("id") is not None}
    if calls:
        return Decision(
            facts.say(f"查询 {start} 至 {end} 的{name}采购订单。",
                      f"Reading the {name} orders from {start} to {end}."),
            calls,
            note="history-read",
        )  # fmt: skip
    rows = _rows(orders, ids)
    covered = start
    if len(orders) >= MAX_ORDERS and orders:
        covered = date.fromisoformat(str(orders[-1].get("order_date"))[:10])
    partial = (
        facts.say(f"（订单较多，只统计了 {covered} 以后的最新 {len(orders)} 张订单）",
                  f" (many orders: only the newest {len(orders)}, from {covered} on, are counted)")
        if covered != start else ""
    )  # fmt: skip
    if not rows:
        return Decision(
            facts.say(f"{start} 至 {end} 没有{name}的采购订单{partial}。",
                      f"No {name} was ordered from {start} to {end}{partial}."),
            note="history",
        )  # fmt: skip
    quantity = sum(int(ln.get("quantity") or 0) for _, ls in rows for ln in ls)
    amount = sum(int(ln.get("amount_minor") or 0) for _, ls in rows for ln in ls)
    currency = str(rows[0][0].get("currency") or "CNY")
    key = "name_zh" if facts.zh else "name_en"
    shown = []
    for order, lines in rows[:_SHOWN]:
        who = order.get(f"supplier_{key}") or order.get("supplier_code")
        items = "; ".join(f"{ln.get('sku')} × {ln.get('quantity')}" for ln in lines)
        status = status_word(order.get("status"), facts.lang)
        head = f"- {order.get('order_no')} {order.get('order_date')} {who}"
        shown.append(facts.say(f"{head}（{status}）：{items}", f"{head} ({status}): {items}"))
    more = len(rows) - _SHOWN
    tail = facts.say(f"\n……另有 {more} 张。", f"\n... and {more} more.") if more > 0 else ""
    average = ""
    if scope is not None and len(scope[0]) == 1 and quantity:  # one part: what it cost a piece
        each = _money(round(amount / quantity))
        average = facts.say(
            f"，平均单价 {each} {currency}", f", {each} {currency} a piece on average"
        )
    head = facts.say(
        f"{start} 至 {end} 的{name}采购{partial}：{len(rows)} 张订单，共 {quantity} 件，"
        f"金额 {_money(amount)} {currency}{average}（不含已取消的订单）：\n",
        f"{name} ordered from {start} to {end}{partial}: {len(rows)} orders, {quantity} "
        f"pieces, {_money(amount)} {currency}{average} (cancelled orders left out):\n",
    )
    return Decision(head + "\n".join(shown) + tail, note="history")


def _cancelled(facts: Facts, n: int) -> str:
    if not n:
        return ""
    return facts.say(f"（不含已取消的 {n} 张）", f" ({n} cancelled left out)")


# A year's spend with no year named ("我们在 NGK 一年花多少钱", "annual spend with NGK"): the
# last 12 months.
_A_YEAR = re.compile(r"一年|每年|(?<![a-z])(?:a|per|one)\s+year(?![a-z])|annual|yearly", re.I)


def spend(facts: Facts, found: Grounding) -> Decision | None:
    """What was spent over a period ("11月份采购总额是多少", "how much did we spend with Mahle
    last month"): the orders' totals by currency, cancelled ones left out, and the number
    of orders; with a supplier named, its orders only (None: not a spend question)."""
    if not lexicon.has(facts.body, "spend", "main_supplier", "top_requester") or found.parts:
        return None
    if lexicon.has(facts.body, "paid") and lexicon.has(without_period(facts.body), "latest"):
        return None  # "上次买 VM22 花了多少钱": one order, the last ("上个月" is a period)
    # "一年花多少", "主要从哪家买": a year when no period is named
    yearly = lexicon.has(facts.body, "main_supplier", "top_requester") or _A_YEAR.search(facts.body)
    start, end = period(facts.body, facts.today, months=12 if yearly else _DEFAULT_MONTHS)
    supplier = found.suppliers[0].record if found.suppliers else None
    narrow = {"supplier_id": supplier["id"]} if supplier else {}
    if facts.view.has_tool("order_summary"):
        named = person(facts, found)  # "how much did Wang Qiang spend this year?"
        if isinstance(named, Decision):
            return named
        scope = _Scope(supplier, found.categories[0].record if len(found.categories) == 1
                       else None, named)  # fmt: skip
        periods = named_periods(facts.body, facts.today)
        if len(periods) > 1 and compared(facts.body):  # "Q3 vs Q2": side by side
            return _side_by_side(facts, periods[:2], scope)
        if periods:  # "2026年三季度花了多少钱；去年呢": the period said last
            start, end = periods[-1]
        return _summed(facts, start, end, scope)
    orders, more = _orders(facts, start, end, **narrow)
    who = str(supplier.get("name_zh" if facts.zh else "name_en")) if supplier else ""
    if more:
        return Decision(
            facts.say(f"查询 {start} 至 {end} 的采购订单。",
                      f"Reading the orders from {start} to {end}."),
            [("order_search_details", more)],
            note="history-read",
        )  # fmt: skip
    placed = [o for o in orders if o.get("status") != "cancelled"]
    totals: dict[str, int] = {}
    for order in placed:
        currency = str(order.get("currency") or "CNY")
        totals[currency] = totals.get(currency, 0) + int(order.get("total_minor") or 0)
    sums = [f"{_money(v)} {c}" for c, v in sorted(totals.items())]
    money = ("；" if facts.zh else "; ").join(sums)
    n = len(orders)
    partial = (facts.say(f"（只统计了最新的 {n} 张）", f" (only the newest {n})")
               if n >= MAX_ORDERS else "")  # fmt: skip
    whose = facts.say(f"向{who} ", f" with {who}") if who else ""
    cancelled = _cancelled(facts, len(orders) - len(placed))
    return Decision(
        facts.say(
            f"{start} 至 {end} {whose}采购：{len(placed)} 张订单，合计 {money or '0'}"
            f"{cancelled}{partial}。",
            f"Spent{whose} from {start} to {end}: {money or '0'} on {len(placed)} orders"
            f"{cancelled}{partial}.",
        ),
        note="history",
    )


# "our biggest supplier by spend", "按供应商分一下", "各供应商花费排名": each supplier's share;
# "monthly spend", "每个月": each month's.
_BY_SUPPLIER = re.compile(
    r"按供应商|各(?:个|家)?供应商|每(?:个|家)供应商|哪家供应商|供应商排名|排名|分供应商|按厂家"
    r"|(?<![a-z])(?:by|per|each)\s+(?:supplier|vendor)|(?:biggest|largest|top)\s+(?:\d+\s+)?"
    r"(?:supplier|vendor)s?|which\s+(?:supplier|vendor)|ranking|rank\b",
    re.I,
)
_BY_MONTH = re.compile(
    r"每个?月|按月|各月|逐月|月度|(?<![a-z])(?:monthly|per\s+month|by\s+month|each\s+month|"
    r"month\s+by\s+month)(?![a-z])",
    re.I,
)


def _summed(facts: Facts, start: date, end: date, scope: _Scope) -> Decision:
    """The spend of the period as the ERP adds it up (``order_summary``): every order, not a
    page of them; a category's own lines when one is named; by supplier or month when asked."""
    args = scope.args(start, end)
    main = lexicon.has(facts.body, "main_supplier") and scope.supplier is None
    by_person = lexicon.has(facts.body, "top_requester") and scope.person is None
    if by_person:  # "谁下单最多": by requester
        args["group_by"] = "requester"
    elif (main or _BY_SUPPLIER.search(facts.body)) and scope.supplier is None:
        args["group_by"] = "supplier"
    elif _BY_MONTH.search(facts.body):
        args["group_by"] = "month"
    data = facts.read("order_summary", args)
    if data is None:
        return Decision(facts.say(f"汇总 {start} 至 {end} 的采购金额。",
                                  f"Adding up the spend from {start} to {end}."),
                        [("order_summary", args)], note="history-read")  # fmt: skip
    data = data if isinstance(data, dict) else {}
    what = scope.said(facts)
    money = _sums(facts, data.get("totals") or [])
    n, gone = int(data.get("orders") or 0), int(data.get("cancelled_orders") or 0)
    cancelled = _cancelled(facts, gone)
    head = facts.say(
        f"{start} 至 {end} {what}采购：{n} 张订单，合计 {money}{cancelled}。",
        f"Spent {what}from {start} to {end}: {money} on {n} orders{cancelled}.",
    )
    groups = [g for g in data.get("groups") or [] if isinstance(g, dict)]
    if main and groups:  # the answer first: the supplier bought from most (largest first)
        top = groups[0]
        name = top.get("name_zh") if facts.zh else top.get("name_en")
        who, count = f"{top.get('code')} {name}", top.get("orders")
        head = facts.say(f"采购金额最多的供应商：{who}（{count} 张订单）。\n",
                         f"Bought from most: {who} ({count} orders).\n") + head  # fmt: skip
    elif by_person and groups:  # the requester who spent most, first
        user, count = groups[0].get("key"), groups[0].get("orders")
        head = facts.say(f"下单金额最多的申请人：{user}（{count} 张订单）。\n",
                         f"Ordered most: {user} ({count} orders).\n") + head  # fmt: skip
    return Decision(head + _groups(facts, groups), note="history")


@dataclass(frozen=True)
class _Scope:
    """What a spend question is narrowed to: a supplier, a category, a requester or an
    approver."""

    supplier: Record | None
    category: Record | None
    person: Person | None

    def args(self, start: date, end: date) -> dict[str, Any]:
        """``order_summary``'s arguments for a period."""
        args: dict[str, Any] = {"date_from": start.isoformat(), "date_to": end.isoformat()}
        if self.supplier is not None:
            args["supplier_id"] = self.supplier["id"]
        if self.category is not None:
            args["category"] = self.category.get("code")
        if self.person is not None:
            args[self.person.field] = self.person.user
        return args

    def said(self, facts: Facts) -> str:
        """The narrowing in words, before the figures ("NGK 火花塞 申请人 zhang.wei ", "on
        Battery requested by zhang.wei "), or ""."""
        name = "name_zh" if facts.zh else "name_en"
        things = " ".join(str(r.get(name)) for r in (self.supplier, self.category) if r)
        who = self.person.said(facts.zh) if self.person else ""
        if facts.zh:
            return "".join(f"{w} " for w in (things, who) if w)
        return ("on " + things + " " if things else "") + (f"{who} " if who else "")


def _side_by_side(facts: Facts, periods: list[tuple[date, date]], scope: _Scope) -> Decision:
    """Two periods' spend, each as the ERP adds it up, and the change from the second to the
    first in each currency both have ("2026年三季度跟二季度比": Q3, Q2, Q3 − Q2)."""
    asked = [scope.args(a, b) for a, b in periods]
    read = [facts.read("order_summary", a) for a in asked]
    todo = [a for a, d in zip(asked, read, strict=True) if d is None]
    if todo:
        reading = facts.say("汇总两个时期的采购金额。", "Adding up the spend of both periods.")
        return Decision(reading, [("order_summary", a) for a in todo], note="history-read")
    data = [d if isinstance(d, dict) else {} for d in read]
    lines = []
    for (start, end), d in zip(periods, data, strict=True):
        n = int(d.get("orders") or 0)
        money = _sums(facts, d.get("totals") or [])
        lines.append(facts.say(f"- {start} 至 {end}：{n} 张订单，合计 {money}",
                               f"- {start} to {end}: {money} on {n} orders"))  # fmt: skip
    totals = [{str(t.get("currency")): int(t.get("amount_minor") or 0)
               for t in d.get("totals") or [] if isinstance(t, dict)} for d in data]  # fmt: skip
    changes = []
    for currency in [c for c in totals[0] if c in totals[1]]:
        now, before = totals[0][currency], totals[1][currency]
        sign = "+" if now >= before else "-"
        pct = f" ({sign}{abs(now - before) / before:.1%})" if before else ""
        changes.append(f"{sign}{_money(abs(now - before))} {currency}{pct}")
    what = scope.said(facts)
    head = facts.say(f"{what}采购金额对比（不含已取消的订单）：",
                     f"Spend {what}compared (cancelled orders left out):")  # fmt: skip
    change = ""
    if changes:
        (_, _), (b0, b1) = periods
        change = "\n" + facts.say(f"前者相比 {b0} 至 {b1}：{'；'.join(changes)}",
                                  f"Change against {b0} to {b1}: {'; '.join(changes)}")  # fmt: skip
    return Decision(head + "\n" + "\n".join(lines) + change, note="history")


def _sums(facts: Facts, totals: list[Any]) -> str:
    """The ERP's totals by currency ("12,413,750.71 CNY；162,775.20 USD")."""
    sums = [f"{_money(int(t.get('amount_minor') or 0))} {t.get('currency')}"
            for t in totals if isinstance(t, dict)]  # fmt: skip
    return ("；" if facts.zh else "; ").join(sums) or "0"


def _groups(facts: Facts, groups: list[Any]) -> str:
    """Each supplier's (largest first, the first ten) or each month's spend, one a line."""
    rows = []
    for g in [g for g in groups if isinstance(g, dict)][: _SHOWN * 2]:
        label = g.get("key") if g.get("code") is None else (
            f"{g.get('code')} {g.get('name_zh') if facts.zh else g.get('name_en')}")  # fmt: skip
        rows.append(
            f"- {label}：{_sums(facts, g.get('totals') or [])}（{g.get('orders')} 张）"
            if facts.zh
            else f"- {label}: {_sums(facts, g.get('totals') or [])} ({g.get('orders')} orders)"
        )
    if not rows:
        return ""
    suppliers = any(isinstance(g, dict) and g.get("code") for g in groups)
    cut = _SHOWN if suppliers else _SHOWN * 2
    more = len(groups) - cut
    tail = facts.say(f"\n（另有 {more} 家）", f"\n({more} more)") if suppliers and more > 0 else ""
    return "\n" + "\n".join(rows[:cut]) + tail
