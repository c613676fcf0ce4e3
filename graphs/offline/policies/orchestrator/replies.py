"""The orchestrator's own short answers: what this assistant does, greetings, questions."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from graphs.names import CJK
from graphs.offline import lexicon
from graphs.offline.policies.base import say

__all__ = [
    "ask_category",
    "beyond_orders",
    "greeting",
    "no_analysis",
    "no_task",
    "noted",
    "out_of_scope",
]


def out_of_scope(zh: bool) -> str:
    """One sentence saying what this assistant does (not the capability menu)."""
    return say(
        zh,
        "这超出了我的范围：我是采购助理，负责供应商比价分析、采购订单（下单、改单、取消、查询）"
        "和库存查询。",
        "That is outside what I do: I'm the purchasing assistant for supplier price "
        "comparisons, purchase orders (place, change, cancel, look up) and stock questions.",
    )


def not_in_catalogue(zh: bool) -> str:
    """An order of something the ERP's catalogue does not hold ("订两箱机油", "order me a
    pizza"): nothing ordered, and what to say instead, in one sentence."""
    return say(
        zh,
        "ERP 的零件目录里找不到你要订的东西，没有下单：我是采购助理，只采购 ERP 里的零件，"
        "请告诉我型号或类别（比如“给 NGK 订 100 个 IU7”）。",
        "I can't find what you want ordered in the ERP's parts catalogue, so nothing was "
        "ordered: I'm the purchasing assistant and buy only the ERP's parts; tell me the model "
        'or category (e.g. "order 100 IU7 from NGK").',
    )


def greeting(zh: bool, text: str) -> str:
    """A short reply to small talk."""
    thanks = any(w in text.lower() for w in ("谢", "辛苦", "thank", "thx"))
    thanks = thanks and not re.search(r"(?<![a-z])no,?\s+thank", text, re.I)  # "no thanks"
    if thanks:
        return say(zh, "不客气，采购上的事随时找我。", "You're welcome; ask me any time.")
    if lexicon.has(text, "closing"):
        return say(zh, "好的，有需要随时找我。", "OK; ask me any time.")
    return say(
        zh,
        "你好！我是采购助理，可以帮你做供应商比价、下单改单和查库存。",
        "Hello! I'm the purchasing assistant: supplier price comparisons, purchase orders "
        "and stock questions.",
    )


def no_task(zh: bool) -> str:
    """The answer to a status or cancel question when no analysis runs in this conversation."""
    return say(
        zh,
        "这个对话里没有正在运行的后台分析。需要的话告诉我要分析哪类零件。",
        "There is no background analysis in this conversation. Tell me which parts to "
        "analyse if you want one.",
    )


def nothing_to_cancel(zh: bool) -> str:
    """A bare "cancel everything" with no background analysis in this conversation: nothing
    to stop, nothing changed, and how an order is cancelled (one at a time, approved)."""
    return say(
        zh,
        "这个对话里没有正在运行的后台分析，所以没有可停的，我也没有改动任何东西。"
        "要取消订单，请告诉我订单号：我一次取消一张，每张都要先审批。",
        "There is no background analysis running in this conversation, so there is nothing "
        "to stop, and nothing was changed. To cancel an order, tell me its number: I cancel "
        "one order at a time, each after your approval.",
    )


def _names(categories: Sequence[dict[str, Any]], zh: bool) -> str:
    key = "name_zh" if zh else "name_en"
    return ("、" if zh else ", ").join(str(c.get(key) or c.get("code")) for c in categories)


def ask_category(
    zh: bool,
    unknown: Sequence[str],
    candidates: Sequence[dict[str, Any]],
    every: Sequence[dict[str, Any]],
) -> str:
    """Which category to analyse: the candidates when some fit, else the ERP's list. Only
    words that look like a name are quoted back ("挡风玻璃", "Helmets"), never the rest of
    the sentence the planner did not need ("did", "month")."""
    named = [w for w in unknown if CJK.search(w) or any(c.isupper() or c.isdigit() for c in w)]
    thing = ("“" + "、".join(named[:2]) + "”") if named else ""
    if candidates:
        return say(
            zh,
            f"你指的是哪一类：{_names(candidates, zh)}？",
            f"Which one do you mean: {_names(candidates, zh)}?",
        )
    if thing:
        return say(
            zh,
            f"ERP 里没有{thing}这个零件类别。要分析哪一类？ERP 的类别有：{_names(every, zh)}。",
            f"The ERP has no part category {thing.strip('“”')}. Which category should I "
            f"analyse? The ERP has: {_names(every, zh)}.",
        )
    return say(
        zh,
        f"要分析哪一类零件？ERP 的类别有：{_names(every, zh)}。",
        f"Which part category should I analyse? The ERP has: {_names(every, zh)}.",
    )


def master_data(zh: bool) -> str:
    """Why a price, a safety stock or a supplier's record is not changed here."""
    return say(
        zh,
        "这个我改不了：价格、安全库存、起订量和供应商资料是 ERP 的主数据，"
        "要由 ERP 里负责主数据的同事修改，我这里只读。需要的话我可以查它现在的值"
        "（比如“IU7 的库存”“IU7 多少钱”），或者帮你下单、改单。",
        "I can't change that: prices, safety stock, minimum orders and supplier records are "
        "the ERP's master data, changed in the ERP by whoever owns it; I only read them. I can "
        'show the current values (e.g. "IU7 stock", "IU7 price"), or place or change an order.',
    )


def reminder(zh: bool) -> str:
    """A reminder asked for: no clock to act on later, and nothing ordered now."""
    return say(
        zh,
        "我没法设提醒：我只在你发消息时工作，到时候不会主动找你。这次没有下单。"
        "到时候直接告诉我要下的单（供应商、零件、数量），我会先给你审批卡片；"
        "要现在就下，也可以现在告诉我。",
        "I can't set reminders: I only act when you send a message, so I won't come back to "
        "you later. No order was placed. When it's time, tell me the order (supplier, part, "
        "quantity) and I'll prepare the approval card; or tell me now if you want it placed now.",
    )


_BEYOND: dict[str, tuple[str, str]] = {
    "beyond_receive": (
        "收货入库我做不了：到货要由仓库在 ERP 里登记（实收数量和日期），我不能代为登记。",
        "I can't record a delivery: goods receipts are booked in the ERP by the warehouse "
        "(quantity received and date); I can't book them.",
    ),
    "beyond_send": (
        "发送、邮件、传真或打印我做不了：我不能往外发东西，也不能打印。订单在 ERP 里，"
        "可以从 ERP 导出或打印后发给供应商；分析报告带 PDF 下载链接，可以直接打印或转发。",
        "I can't send, email, fax or print: I have no way to send anything out or print. An "
        "order is in the ERP; export or print it there and send it to the supplier. An "
        "analysis report comes with a PDF download link to print or forward.",
    ),
    "beyond_reopen": (
        "订单没法重新激活：ERP 里已取消或已关闭的订单不能改回去，草稿和审批中的订单本来就有效。"
        "要再订同样的东西，告诉我供应商、零件和数量，我给你准备新单的审批卡片。",
        "I can't reactivate an order: the ERP never brings a cancelled or closed order back, "
        "and a draft or pending order is still live. To order the same again, tell me the "
        "supplier, part and quantity and I'll prepare a new order for your approval.",
    ),
    "beyond_approve": (
        "订单不能由我批准或提交：批准只在审批卡片上由有权限的人点“批准”（批准人记入 ERP）。"
        "我准备的每张订单在提交 ERP 前都会给你一张审批卡片；我不会自己批准。",
        "I can't approve or submit an order myself: an order is approved only on the approval "
        "card, by someone allowed to (the ERP records who). Every order I prepare comes to you "
        "as an approval card before it reaches the ERP; I never approve one on my own.",
    ),
    "beyond_return": (
        "退货、换货和退款我这里办不了：要走 ERP 的退货流程或直接和供应商处理，我只处理采购订单。",
        "Returns, exchanges and refunds are not mine: they go through the ERP's returns "
        "process or the supplier; I handle purchase orders only.",
    ),
    "beyond_supplier": (
        "订单的供应商改不了：订单建好后供应商就固定了。要换供应商，可以取消这张（还没到货的话），"
        "再给新供应商下一张，两张各自审批。",
        "An order's supplier can't be changed: it is fixed once the order exists. To switch, "
        "cancel this one (if nothing has arrived yet) and place a new one with the other "
        "supplier, each with its own approval.",
    ),
    "beyond_recurring": (
        "定期或自动下单我做不了：ERP 里没有定期订单，我也只在你发消息时工作，不会到时自动下单，"
        "所以这次什么都没有下。要下这一次的单，告诉我供应商、零件和数量"
        "（比如“IU7 50 个，找 NGK”），我先给你审批卡片；之后每次需要时再说一声就行。",
        "I can't set up recurring or automatic orders: the ERP has no schedules and I only act "
        "when you write to me, so no order was placed. To place this one order now, tell me "
        'the supplier, part and quantity (e.g. "50 IU7 from NGK") and you get an approval '
        "card first; ask again each time you need the next one.",
    ),
    "beyond_pay": (
        "付款、发票和对账不在我这里：它们在财务系统里，我查不到也办不了，只处理采购订单。",
        "Payments, invoices and reconciliation are not mine: they are in the finance system, "
        "which I can neither read nor act in; I handle purchase orders only.",
    ),
}


def beyond_orders(kind: str, order_no: str | None, zh: bool) -> str:
    """What this assistant cannot do to an order (``kind``: a ``lexicon.BEYOND_ORDERS``
    group), that nothing was changed, and what it can do."""
    zh_text, en_text = _BEYOND.get(kind, _BEYOND["beyond_send"])
    untouched = say(
        zh,
        f"订单 {order_no} 没有改动。" if order_no else "没有做任何改动。",
        f"Order {order_no} is unchanged." if order_no else "Nothing was changed.",
    )
    offer = say(
        zh,
        "我能做的订单操作：下单、改草稿的数量/到货日期/备注、取消、查询状态和到货情况。",
        "What I can do with orders: place one, change a draft's quantity, date or note, "
        "cancel, and look up status and deliveries.",
    )
    return (zh_text if zh else en_text + " ") + untouched + ("" if zh else " ") + offer


def contact_supplier(zh: bool) -> str:
    """Writing to or bargaining with a supplier, asked ("给NGK写封邮件要求降价", "send an RFQ
    to GZMT"): not done here, nothing sent, and what can be brought to the talk instead."""
    return say(
        zh,
        "我不能替你联系供应商：不写也不发邮件、询价单，不催货，不谈价，所以什么都没有发出去。"
        "我能给你准备谈价的依据：对这类零件做比价分析（各家官网价和合同价对比、近 12 个月成交价），"
        "报某个型号各家的价格，或查和这家供应商的订单与采购额。",
        "I can't contact suppliers for you: I don't write or send emails or RFQs, chase "
        "deliveries or negotiate, so nothing was sent. What I can give you for the talk: a "
        "price comparison "
        "of the parts (each supplier's website prices against contract prices, the last 12 "
        "months' prices), the offers for a named part, or our orders and spend with that "
        "supplier.",
    )


def budget(zh: bool) -> str:
    """A budget asked about ("这个月预算还剩多少"): not in the ERP, and what can be said."""
    return say(
        zh,
        "预算不在 ERP 里（它只有订单、报价和库存），我查不到预算还剩多少，也没有做任何改动。"
        "要看某段时间已经花了多少，可以问我，比如“这个月花了多少钱”“今年在 NGK 花了多少”。",
        "Budgets are not in the ERP (it holds orders, prices and stock), so I can't tell how "
        "much budget is left; nothing was changed. I can tell you what was spent over a "
        'period, e.g. "how much did we spend this month?" or "spend with NGK this year".',
    )


def not_recorded(zh: bool) -> str:
    """On-time delivery or payment terms asked of suppliers ("哪个供应商交货最准时"): not
    recorded in the ERP, said, with what it does hold to judge by."""
    return say(
        zh,
        "ERP 里没有准时交货率或付款条件（账期）的记录：它只有每张订单的预计到货日期和到货状态、"
        "每家报价的交期和起订量、供应商的评级和结算币种。我可以列出某个零件各家的交期"
        "（比如“IU7 的交期”），列出评级最高的供应商，或做一类零件的比价分析（含交期）。",
        "The ERP keeps no on-time delivery rates or payment terms: it has each order's "
        "expected date and status, each offer's lead time and minimum, and each supplier's "
        "rating and currency. I can list each supplier's lead time for a part (e.g. \"lead "
        "time for IU7\"), list the best rated suppliers, or compare a category's "
        "suppliers (lead times included).",
    )


def no_analysis(zh: bool) -> str:
    """A comparison asked for with no analysis: none started, and what can be answered."""
    return say(
        zh,
        "好的，不做比价分析，也没有启动。不跑分析我可以直接报具体型号的价格和交期"
        "（比如“IU7 多少钱”“IU7 哪家最便宜”），或查库存；要全面比较一类零件时再告诉我做分析。",
        "OK, no comparison analysis; none was started. Without one I can quote named parts "
        'directly (e.g. "IU7 price", "cheapest IU7") or check stock; ask for an analysis when '
        "you want a whole category compared.",
    )


def noted(zh: bool) -> str:
    """Something passed on for information ("fyi 听说刹车片下个月要涨价"): noted, nothing done."""
    return say(
        zh,
        "知道了，谢谢告知；我没有做任何操作。需要的话我可以做这一类的比价分析、查报价或库存。",
        "Noted, thanks; I haven't done anything. If useful, I can compare that category's "
        "suppliers, quote parts or check stock.",
    )


def quality_note(zh: bool, *, ranked: bool) -> str:
    """What the ERP can say of a supplier's quality: its rating and status, nothing else
    (``ranked``: a list was ranked by rating for it)."""
    none = say(zh, "\nERP 里没有质量记录（退货、投诉、不良率）", "\nThe ERP keeps no quality "
               "records (returns, complaints, defect rates)")  # fmt: skip
    return none + say(
        zh,
        "，上面按 ERP 的供应商评级从高到低排列。"
        if ranked
        else "；能参考的是上面的供应商评级和合作状态。",
        "; the list is ranked by the ERP's supplier rating, highest first."
        if ranked
        else "; what it has is the supplier's rating and status above.",
    )
