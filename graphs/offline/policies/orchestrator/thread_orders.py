"""The orders this conversation has shown, and which of them a message means.

After two orders in a row ("GZMT 订IU7 100个", then "LONCIN 订BKR7E 50个"), "第一张改成120个",
"把GZMT那张取消", "IU7那张改到12月18号到" and "这两张单都取消" are about orders shown earlier,
not only the last one. Each order counts once, in the order it was first shown, from the
assistant's answers that showed that one order (a created, changed or looked-up order; a list
of recent orders is not "the orders we talked about").
"""

from __future__ import annotations

import re

from langchain_core.messages import AIMessage

from graphs.messages import message_text
from graphs.offline.entities import Grounding
from graphs.offline.history import View

__all__ = ["ALL_OF_THEM", "ORDER_NUMBER", "thread_orders", "which_orders"]

ORDER_NUMBER = re.compile(r"PO\d{11}")

# Every order shown ("这两张单都取消", "cancel both", "两张都取消", "all of them").
ALL_OF_THEM = re.compile(
    r"(?:这|那|刚才的?|刚刚的?|上面的?)?(?:两|二|2|三|3|几)\s*(?:张|笔|份|个单)\s*(?:单|订单|po)?"
    r"|(?<![a-z])both(?![a-z])|(?<![a-z])all\s+(?:of\s+)?(?:them|these|those|the\s+orders|"
    r"(?:the\s+)?(?:two|three))(?![a-z])|(?:所有|全部)(?:的)?(?:单|订单)|都(?=取消|撤|删|改|推|延)",
    re.I,
)
# One of them by its place ("第一张", "the first one", "the latter"), not a line ("第二行").
_ORDINALS = (
    (re.compile(r"第一|头一|(?<![a-z])(?:first|former)(?![a-z])", re.I), 0),
    (re.compile(r"第二|(?<![a-z])(?:second|latter)(?![a-z])", re.I), 1),
    (re.compile(r"第三|(?<![a-z])third(?![a-z])", re.I), 2),
)
_LINE = re.compile(r"\s*(?:行|条|(?:line|row)(?![a-z]))", re.I)


def thread_orders(view: View) -> list[tuple[str, str]]:
    """``(order number, the newest answer that showed it)`` for every order the assistant's
    answers showed alone before this message, in the order first shown."""
    seen: dict[str, str] = {}
    for m in view.messages[: view.request_index]:
        if isinstance(m, AIMessage) and not m.tool_calls:
            text = message_text(m)
            found = set(ORDER_NUMBER.findall(text))
            if len(found) == 1:
                seen[found.pop()] = text  # a key keeps its first place
    return list(seen.items())


# A word pointing at one of the orders by a name ("GZMT 那张", "the GZMT one", "IU7的单"):
# without one, a name with an order is a new order ("GZMT 再订IU7 100个").
_POINTING = re.compile(
    r"那张|这张|那单|那个单|的单|的订单|(?<![a-z])(?:one|order|po)(?![a-z])", re.I
)


def which_orders(
    orders: list[tuple[str, str]], text: str, found: Grounding
) -> tuple[list[str], bool] | None:
    """The numbers of the ``orders`` that ``text`` means, and whether it points at them
    ("这两张", "第一张", "GZMT 那张"; not a name alone): all of them, one by its place, or
    the ones whose answer names every supplier and part ``found`` in the text (None: none
    of these, or every order fits the names)."""
    if ALL_OF_THEM.search(text):
        return [no for no, _ in orders], True
    for pattern, place in _ORDINALS:
        m = pattern.search(text)
        if m and not _LINE.match(text, m.end()) and place < len(orders):
            return [orders[place][0]], True
    # A supplier by its name as the order shows it (its code may be a brand in part names)
    names = [
        [str(m.record.get(k)) for k in ("name_zh", "name_en") if m.record.get(k)]
        for m in found.suppliers
    ] + [[str(m.record.get("sku"))] for m in found.parts if m.record.get("sku")]
    if not names:
        return None
    hits = [no for no, shown in orders if all(any(n in shown for n in keys) for keys in names)]
    if not hits or len(hits) == len(orders):
        return None
    return hits, _POINTING.search(text) is not None
