"""A message that names what the ERP holds but asks for nothing the planner can act on.

"NGK", "IU7", "brake pads", "刹车片太贵了", "is Brembo reliable?", "不要给博世下单": none of
these is outside purchasing, and none says what to do. Guessing (an analysis, an order) is
worse than a question, so the buyer is asked, with what can be done for the things named
(compare prices, stock, orders, a new order). The question is marked ``ask:intent``: the
buyer's answer ("比个价吧", "库存呢") is read together with this message (see
``orchestrator._route``). A negated action ("不要下单", "don't cancel it") is acknowledged
first. A message naming ERP things inside another request ("write me a poem about spark
plugs") stays out of scope.
"""

from __future__ import annotations

import re
from typing import Any

from graphs.offline import lexicon
from graphs.offline.entities import Grounding
from graphs.offline.history import View
from graphs.offline.policies.base import Decision, local_name, say
from graphs.offline.policies.orchestrator.catalogue import category_parts
from graphs.offline.policies.orchestrator.erp import read_erp
from graphs.offline.policies.orchestrator.replies import nothing_to_cancel

__all__ = ["ASK_INTENT", "unclear"]

ASK_INTENT = "ask:intent"
Record = dict[str, Any]

# A negated action and how it is acknowledged (Chinese, English).
_NEGATED = (
    (("order_verb", "placing", "new_order", "submit"), "好的，先不下单。", "OK, no order."),
    (("cancel",), "好的，不取消。", "OK, nothing is cancelled."),
    (("change",), "好的，不改。", "OK, nothing is changed."),
    (("analysis",), "好的，先不做分析。", "OK, no analysis."),
)


def _acknowledged(text: str, zh: bool) -> str:
    """The acknowledgement of the actions ``text`` rules out ("" when none)."""
    if lexicon.has(text, "hold_off"):  # "…，先别下，我再想想": an order held back
        return say(zh, "好的，先不下单，什么都没提交。", "OK, no order: nothing was submitted.")
    for groups, chinese, english in _NEGATED:
        said = lexicon.has(text, *groups)
        if said and not lexicon.has(lexicon.mask(text, groups), *groups):
            return say(zh, chinese, english)
    return ""


def _options(found: Grounding, zh: bool) -> list[str]:
    """What can be done for the first thing named: a part, a category, or a supplier."""
    if found.parts:
        part = found.parts[0].record
        p = f"{part.get('sku')} {local_name(part, zh)}"
        return [
            say(zh, f"看 {p} 各供应商的报价", f"show every supplier's price for {p}"),
            say(zh, f"查 {p} 的库存", f"check the stock of {p}"),
            say(zh, f"做一次 {local_name(part, zh)} 所在类别的供应商比价分析",
                "run a supplier price comparison for its category"),
            say(zh, "下单（告诉我供应商和数量）",
                "place an order (tell me the supplier and quantity)"),
        ]  # fmt: skip
    if found.categories:
        c = local_name(found.categories[0].record, zh)
        return [
            say(zh, f"对{c}做供应商比价分析", f"run a supplier price comparison for {c}"),
            say(zh, f"查{c}哪些低于安全库存", f"check which {c} parts are below safety stock"),
            say(zh, f"查最近的{c}订单", f"look up recent {c} orders"),
            say(zh, "下单（告诉我型号、供应商和数量）",
                "place an order (tell me the part, supplier and quantity)"),
        ]  # fmt: skip
    s = local_name(found.suppliers[0].record, zh)
    return [
        say(zh, f"查{s}最近的订单和到货情况", f"look up recent orders with {s} and their delivery"),
        say(zh, f"查{s}供应的零件哪些低于安全库存",
            f"check which parts {s} supplies are below safety stock"),
        say(zh, f"拿{s}和其他供应商比价（告诉我哪类零件）",
            f"compare {s}'s prices with other suppliers (tell me which parts)"),
        say(zh, f"给{s}下单（告诉我型号和数量）", f"place an order with {s} (part and quantity)"),
    ]  # fmt: skip


def _named(found: Grounding, zh: bool) -> str:
    names: list[str] = []
    for m in (*found.parts, *found.categories, *found.suppliers):
        record = m.record
        name = (f"{record.get('sku')} {local_name(record, zh)}" if m in found.parts
                else local_name(record, zh))  # fmt: skip
        if name not in names:
            names.append(name)
    return ("、" if zh else ", ").join(names[:3])


_ALL = re.compile(
    r"全部|所有|都|一切|统统|全都|(?<![a-z])(?:all|everything|every\s*thing|it|them|please|now)(?![a-z])",
    re.I,
)


def _only_stop(text: str) -> bool:
    """Whether ``text`` only asks to stop or cancel (and "all"), naming nothing to stop."""
    rest = _ALL.sub(" ", lexicon.strip_words(text, ("stop", "cancel", "filler")))
    return not re.search(r"\w", rest)


def unclear(view: View, zh: bool) -> Decision | None:
    """A question about what to do with what the request names (None: it names nothing the
    ERP knows, or asks for something else: out of scope)."""
    ack = _acknowledged(view.request, zh)
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    found = erp.ground(view.request)
    concern = lexicon.has(view.request, "concern")
    if not found.anything and lexicon.has(view.request, "stop") and _only_stop(view.request):
        # "Cancel everything", "全部取消" with nothing running here: said, nothing changed
        return Decision(nothing_to_cancel(zh), note="nothing-to-cancel")
    listed = category_parts(view, found, zh)  # "空气滤清器有哪些型号": its parts by brand
    if listed is not None:
        return listed
    if found.anything and (not found.unknown or concern):
        options = "\n".join(f"- {o}" for o in _options(found, zh))
        named = _named(found, zh)
        question = say(
            zh,
            f"关于{named}，要我做什么？可以：\n{options}",
            f"What would you like me to do about {named}? I can:\n{options}",
        )
        return Decision(f"{ack}{' ' if ack and not zh else ''}{question}", note=ASK_INTENT)
    if ack:
        more = say(
            zh,
            "还需要我做什么吗？比如比价分析、查库存或查订单。",
            " Anything else? I can compare prices, check stock or look up orders.",
        )
        return Decision(ack + more, note="acknowledged")
    return None
