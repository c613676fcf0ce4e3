"""What a buyer's message asks for, read from its words alone (the ERP grounds it later).

One intent per message, decided in an order that reflects how buyers talk:

1. skills; writing to or bargaining with a supplier ("给NGK写封邮件要求降价", "send an RFQ
   to GZMT": not done here, said so); a question about a background task ("分析做完了吗",
   "cancel the analysis"): a status or stop word with a task word outranks any order word;
2. an order number: cancel, change or look it up (a question about a cancellation or a
   change, "PO… 能取消吗" / "was PO… cancelled?", is a look-up: nothing is proposed);
3. part substitution ("把 BOM 里的博世火花塞换成 NGK 的", "replace every Brembo pad"):
   before stock and analysis words ("the cheapest equivalent" is still a substitution);
4. stock questions ("哪些零件低于安全库存", "how many IU7 do we have");
5. a price asked of named parts with no comparison word ("IU7 多少钱", "what would 300
   cost", "如果下单 300 个要多少钱": a quote, never an order);
   analysis words (compare, 哪家便宜, price trend), after negation is applied, so
   "不要下单，先比价" is an analysis;
6. order operations: cancel / change / look up an order named by description ("上次给 NGK
   的订单"), else a new order;
7. small talk; anything else is out of scope.

Whether an analysis or a new order is really about purchasing is settled against the
ERP (:mod:`graphs.offline.entities`): ``domain`` says whether the message uses the
purchasing vocabulary, so a request naming nothing the ERP knows can still be a
purchasing question ("头盔哪家便宜" → which category?) rather than out of scope
("分析一下这段代码").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from graphs.offline import lexicon
from graphs.offline.entities import unknown_words
from graphs.offline.text import find_order_no, find_window_months, has_quantity, model_tokens

__all__ = ["Intent", "Reading", "beyond_orders", "is_substitution", "no_analysis", "read"]

Intent = Literal[
    "analysis",
    "analysis_status",
    "analysis_cancel",
    "order_create",
    "order_change",
    "order_cancel",
    "order_lookup",
    "inventory",
    "quote",
    "substitution",
    "skills",
    "small_talk",
    "master_data",
    "reminder",
    "beyond_orders",
    "contact_supplier",
    "budget",
    "not_recorded",
    "out_of_scope",
]
ORDER_INTENTS: tuple[Intent, ...] = ("order_create", "order_change", "order_cancel", "order_lookup")

# Words a negator can take back ("不要下单", "don't compare").
_NEGATABLE = ("order_verb", "order_noun", "new_order", "analysis", "change", "cancel",
              "inventory", "substitute", "contact_supplier")  # fmt: skip
_ORDER_FIELDS = ("数量", "交期", "到货日期", "交货期", "交货日期", "到货时间", "quantity",
                 "qty", "delivery date", "due date", "delivery")  # fmt: skip


@dataclass(frozen=True)
class Reading:
    """The intent of one message and the facts about it that routing needs."""

    intent: Intent
    order_no: str | None = None
    latest: bool = False  # "the last / latest order (with X)"
    domain: bool = False  # uses the purchasing vocabulary
    # An order held back: made to wait on a condition ("if our stock is below 150"), or
    # proposed for an opinion ("小李说要订100个，你觉得呢", "GZMT 订IU7 100个吗？"). Answered
    # with the facts, nothing ordered.
    held: Literal["condition", "advice", "noted"] | None = None


# When a task is done, not whether it is ("email me the report when it's done"): a request
# with a time, not a status question ("做完发给我" is kept apart by the status words).
_WHEN_DONE = re.compile(
    r"(?<![a-z])(?:when|once|after|as\s+soon\s+as)\s+(?:it\s+is|it's|its|it\s+gets|that's|"
    r"you're|you\s+are|they\s+are|the\s+\w+\s+is|you\s+have|you've)?\s*(?:done|finished|"
    r"ready|complete)(?![a-z])",
    re.I,
)


def _task_question(text: str) -> Intent | None:
    text = _WHEN_DONE.sub(" ", text)
    if not lexicon.has(text, "task") or find_order_no(text):
        return None
    if lexicon.has(text, "stop"):
        return "analysis_cancel"
    if lexicon.has(text, "status"):
        return "analysis_status"
    return None


def _about_order_fields(text: str) -> bool:
    low = text.lower()
    return any(word in low for word in _ORDER_FIELDS)


def _by_order_no(masked: str) -> Intent:
    if lexicon.has(masked, "repeat_order"):
        return "order_create"  # "PO… 那张取消的，原样重新下一遍": a new order like it
    if lexicon.has(masked, "asked_about"):
        return "order_lookup"  # "PO… 能取消吗", "was PO… cancelled?": shown, not acted on
    if lexicon.has(masked, "cancel"):
        return "order_cancel"
    if lexicon.has(masked, "change") or _about_order_fields(masked):
        return "order_change"
    return "order_lookup"


def _order_operation(masked: str) -> Intent | None:
    """Cancel / change / look up an existing order, or a new order, from the order words."""
    if (
        lexicon.has(masked, "several_orders", "order_noun")
        and lexicon.has(masked, "order_noun")
        and re.search(r"(?:最近|近)\s*[\d一二两三四五六七八九十]+\s*(?:个|笔|张)", masked)
        and not lexicon.has(masked, "order_verb", "new_order", "cancel", "change")
    ):
        return "order_lookup"  # "最近10个订单": a count of orders, not of parts
    if lexicon.has(masked, "not_ordered") and not has_quantity(masked):
        return "order_lookup"  # "哪些型号一直没进货": the parts no order named, listed
    noun = lexicon.has(masked, "order_noun")
    verb = lexicon.has(masked, "order_verb")
    latest = lexicon.has(masked, "latest") and (noun or verb)
    acting = lexicon.has(masked, "cancel", "change")
    if acting and (noun or latest) and lexicon.has(masked, "asked_about"):
        return "order_lookup"  # "did we cancel the Mann order?", "要不要取消上次的单"
    if lexicon.has(masked, "cancel") and (noun or latest):
        return "order_cancel"
    if lexicon.has(masked, "change") and (noun or latest or _about_order_fields(masked)):
        return "order_change"
    if lexicon.has(masked, "new_order") and not lexicon.has(masked, "past_order"):
        return "order_create"  # "开一张采购单", "open a new PO": a new order document
    if (
        (noun or verb)
        and _ASKED_EN.search(masked)
        and re.search(r"[?？]\s*$", masked)
        and (not has_quantity(masked))
    ):
        return "order_lookup"  # "who asked for this order?", "when was it ordered?"
    if latest and lexicon.has(masked, "lookup"):
        return "order_lookup"
    if (
        lexicon.has(masked, "last_part")
        and has_quantity(masked)
        and not lexicon.has(masked, "lookup")
    ):  # "order 20 more of what we ordered from KMC last time": that part again
        return "order_create"
    if noun and lexicon.has(masked, "lookup", "latest", "open") and not has_quantity(masked):
        return "order_lookup"
    if lexicon.has(masked, "past_order") and (
        not has_quantity(masked) or lexicon.has(masked, "lookup", "latest")
    ):
        return "order_lookup"  # "what did we order from NGK recently", "上次下的 300 个到了吗"
    if noun and not verb and not has_quantity(masked):
        return "order_lookup"  # "my orders", "最近的订单": which orders there are
    if verb or noun:
        return "order_create"
    return None


def is_substitution(text: str) -> bool:
    """Whether ``text`` asks to replace parts by equivalents (in a BOM): a replacing verb
    with a BOM, an "equivalent" or a "discontinued" word, or with no order word at all
    ("把博世火花塞都换成 NGK 的"); "换个供应商下单" stays an order."""
    masked = lexicon.mask(text, _NEGATABLE)
    if not lexicon.has(masked, "substitute") or find_order_no(text):
        return False  # "把PO…的供应商换成GZMT": that order, not a BOM
    if lexicon.has(masked, "bom", "equivalent", "discontinued"):
        return True
    if lexicon.has(masked, "whether_switch"):
        return False  # "should we switch from NGK to Denso?": a comparison asked
    if find_window_months(masked) or has_quantity(masked) or lexicon.has(masked, "price"):
        return False  # "换成近6个月", "换成200个呢总价多少": a scope or a quantity changed
    return not lexicon.has(masked, "order_verb", "order_noun", "new_order")


def no_analysis(masked: str) -> bool:
    """Whether the buyer says no analysis is wanted ("不用做分析", "no report needed",
    "直接报价就行")."""
    return bool(re.search(
        r"(?:不用|不要|无需|不必|别|先不|先别|暂时不|不)(?:做|出|搞|跑|用|开|启动)?(?:比价)?(?:分析|报告)"
        r"|直接报(?:个)?价"
        r"|(?<![a-z])(?:no|without|skip\s+the)\s+(?:analysis|report)(?![a-z])|just\s+(?:the\s+)?"
        r"(?:prices?|quotes?)(?![a-z])", masked, re.I))  # fmt: skip


def _stock_or_price(masked: str, ordering: bool) -> Intent | None:
    """A stock question ("how many IU7 do we have", "should I order more FA352?"), a price or
    offer terms asked of named parts ("IU7 多少钱", "what does NGK charge for IU7", "如果下单
    300 个要多少钱", "IU7 交期多久"), or neither (None)."""
    if ordering and _every_short(masked):  # "reorder everything below safety stock": the list
        return "inventory"
    if lexicon.has(masked, "what_to_buy") and not ordering:  # "下个月需要采购什么": what is short
        return "inventory"
    if lexicon.has(masked, "advice"):
        return "inventory"  # "should I order more FA352?": its stock, and a verdict
    if lexicon.has(masked, "sellers") and model_tokens(masked) and not ordering:
        return "quote"  # "谁卖 HO-1650", "who supplies YB5L-B?": its offers
    if no_analysis(masked) and model_tokens(masked) and not ordering:
        return "quote"  # "IU7 哪家最便宜？直接报价就行，不用做分析": the offers, no study
    # "交期都 12/25" gives the order's date; it asks no lead time
    priced = lexicon.has(lexicon.strip_words(masked, ("date_field",)), "price", "lead_time")
    stock = [h.text.lower() for h in lexicon.find(masked, "inventory")]
    if lexicon.has(masked, "order_noun") and all(w.startswith("how many") for w in stock):
        stock = []  # "how many orders did we cancel": a count of orders, not of stock
    if stock and not ordering and not lexicon.has(masked, "past_order"):
        # "how many did we order" asks about orders, "how many do we have" about stock;
        # "MH292 的库存和价格" both: the quote says the stock too.
        if priced and model_tokens(masked) and not lexicon.has(masked, "analysis"):
            return "quote"
        return "inventory"
    # "what is NGK's minimum order for IU7": an offer's term, not an order
    termed = lexicon.strip_words(masked, ("lead_time",))
    if (
        priced
        and not lexicon.has(masked, "analysis", "paid", "past_order")
        and not lexicon.has(termed, "order_noun")
        and (not ordering or lexicon.has(masked, "hypothetical", "price_question"))
    ):
        # The named parts' offers (a price of a whole category is still a comparison).
        return "quote"
    return None


def _conditional(masked: str) -> bool:
    """Whether an order in ``masked`` waits on a condition ("if our stock is below 150",
    "等库存跌破100再订"), not a polite "if possible" nor a price asked ("如果下单300个要多少钱")."""
    plain = lexicon.strip_words(masked, ("polite_if",))
    return lexicon.has(plain, "condition") and not lexicon.has(plain, "price_question")


def _passed_on(masked: str) -> bool:
    """Somebody else's plan or word passed on ("老板打算下周跟GZMT订200个", "供应商说…能到",
    "my manager will order…, just fyi"), not an order given: said before any order verb,
    or marked as for information, and nothing asked of the assistant."""
    if lexicon.has(masked, "asks_me"):
        return False
    if lexicon.has(masked, "fyi"):
        return True
    plan = lexicon.first(masked, "others_plan")
    verb = lexicon.first(masked, "order_verb")
    return plan is not None and (verb is None or plan.start < verb.start)


def _held(masked: str, ordering: bool) -> Literal["condition", "advice", "noted"] | None:
    """Whether an order in ``masked`` is held back: on a condition, for an opinion, or
    passed on as somebody else's plan or word ("noted")."""
    mentioned = ordering or lexicon.has(masked, "order_verb", "restock", "new_order")
    if not (mentioned or has_quantity(masked)):
        return None
    if lexicon.has(masked, "advice"):
        return "advice"  # "小李说要订100个，你觉得呢": an opinion asked
    if _passed_on(masked):
        return "noted"  # "老板打算下周跟GZMT订200个，你先知道一下"
    if not mentioned or (not ordering and lexicon.has(masked, "past_order")):
        return None  # "汤浅的电瓶最近买过吗": whether we did, looked up
    if lexicon.has(masked, "advice") or (
        lexicon.has(masked, "yes_no") and not lexicon.has(masked, "asks_me")
    ):
        return "advice"  # "要是订300个会不会太多": an opinion, even with an "if"
    return "condition" if _conditional(masked) else None


def _aside(text: str, masked: str) -> Reading | None:
    """Messages that name an order but ask for none of it: a change of master data, a
    reminder, an order somebody else already placed (None: none of these)."""
    if (
        lexicon.has(masked, "master_data")
        and lexicon.has(masked, "set_value")
        and not (lexicon.has(masked, "order_noun"))
    ):
        # "把IU7的安全库存改成100", "set NGK's price for IU7 to 10": the ERP's own records
        return Reading("master_data", None, False, True)
    if lexicon.has(masked, "placed_already") and not lexicon.has(masked, "asks_me"):
        return Reading("order_lookup", None, False, True)  # "…昨天跟CQMP订了100个，记一下"
    mentioned = lexicon.has(masked, "order_verb", "new_order", "restock") or has_quantity(masked)
    if lexicon.has(masked, "fyi") and not (mentioned or lexicon.has(masked, "asks_me")):
        return Reading("out_of_scope", None, False, True)  # "fyi 听说刹车片要涨价": noted
    if lexicon.has(text, "reminder"):
        return Reading("reminder", None, False, True)  # no clock to act on later
    if lexicon.has(masked, "repeat_order"):
        return Reading("order_create", None, False, True)  # "照上次的单子再跟汤浅下一遍"
    paid = lexicon.has(masked, "prices_paid") and not lexicon.has(masked, "analysis")
    if paid or lexicon.has(masked, "placed_already", "bought_how_many"):
        # "老王已经跟NGK订了100个", "上个月从KMC进了多少条链条", "IU7 一年采购均价多少", "IU7 price
        # history"
        return Reading("order_lookup", None, False, True)
    if lexicon.has(masked, "inbound") and not lexicon.has(masked, "lead_time", "new_order"):
        return Reading("order_lookup", None, False, True)  # "这周有什么货到": open orders
    return None


# A question in English ("was it approved?", "did we pay for PO…?"), not a request.
_ASKED_EN = re.compile(
    r"^\s*(?:was|were|is|are|has|have|had|did|does|do|who|what|when|which)\b|谁", re.I
)


# A question about what was done ("上个月入库了多少IU7", "把审批通过的订单列出来", "show me the
# orders waiting for approval"), even with "帮我" in front: asked about, never asked for.
_INQUIRY = re.compile(
    r"查|多少|几[个条只件张次]|列出|列一下|统计|哪些|哪几|(?<![a-z])(?:show|list|how\s+many|"
    r"how\s+much|which)(?![a-z])",
    re.I,
)


def _beyond(text: str) -> tuple[list[str], str, str | None]:
    """The ``lexicon.BEYOND_ORDERS`` groups ``text`` names (negated ones left out), the text
    they were read in, and how it asks rather than asks for: ``"whether"`` it was done
    ("付款了吗", "was it approved?"), ``"inquiry"`` (how much, which: "入库了多少", read as
    any question), None (asked for)."""
    masked = lexicon.mask(lexicon.before_note(text), lexicon.BEYOND_ORDERS)  # "不用打印"
    kinds = [g for g in lexicon.BEYOND_ORDERS if lexicon.has(masked, g)]
    if _INQUIRY.search(masked):
        return kinds, masked, "inquiry"
    form = lexicon.has(masked, "yes_no") or re.search(r"[?？]\s*$", masked) is not None
    form = form or _ASKED_EN.search(masked) is not None
    return kinds, masked, "whether" if form and not lexicon.has(masked, "asks_me") else None


def beyond_orders(text: str) -> str | None:
    """The group (``lexicon.BEYOND_ORDERS``) of what ``text`` asks done to an order outside
    this assistant ("帮我入库", "email the PO to GZMT", "把这张单重新激活", "approve it",
    "pay the invoice"; a payment even asked about: it is not in the ERP); None when it asks
    none, only asks whether it was done ("入库了吗", "was it approved?": the order is looked
    up), or asks it with an order to place or change, which is done (a delivery recorded
    or a payment is never an order's quantity)."""
    kinds, masked, asked = _beyond(text)
    # said even when asked about, or with a quantity ("每个月自动下50个": no schedule exists)
    always = ("beyond_pay", "beyond_return", "beyond_supplier", "beyond_recurring")
    if asked == "inquiry" or (asked and kinds and kinds[0] not in always):
        return None
    if not kinds or lexicon.has(masked, "analysis"):
        return None  # "比价分析做完发邮件给我": the analysis (its report has the links)
    if kinds[0] == "beyond_supplier" and not (
        find_order_no(text) or lexicon.has(masked, "order_noun", "latest")
    ):
        return None  # "换个供应商" after a quote: another offer, no order to change
    if kinds[0] in ("beyond_receive", *always):
        return kinds[0]
    rest = lexicon.strip_words(masked, lexicon.BEYOND_ORDERS)
    acting = lexicon.has(rest, "cancel") or has_quantity(rest)  # "GZMT IU7 100个 提交"
    return None if acting else kinds[0]


def beyond_asked(text: str) -> bool:
    """Whether ``text`` asks whether an order was received, sent, approved or brought back
    ("入库了吗", "审批了没有", "was it approved?"): its status, looked up."""
    kinds, _, asked = _beyond(text)
    return bool(kinds) and asked == "whether"


_WHICH_BEST = re.compile(
    r"哪家|哪个供应商|谁家|(?<![a-z])(?:which|who)(?![a-z])|best\s+(?:price|deal|offer)", re.I
)
_SUPPOSED = re.compile(r"的话|(?<![a-z])if\s+(?:we|i)\s+(?:buy|order|get|need)", re.I)


def _best_for_quantity(masked: str) -> bool:
    """Which offer is best for a quantity supposed, of named parts ("买500个的话哪家最划算",
    "如果买500个IU9，哪家最便宜", "which supplier gives the best price on IU9 if we buy 500?"):
    a quote with each offer's total, never an order or a condition."""
    supposed = lexicon.has(masked, "hypothetical") or _SUPPOSED.search(masked) is not None
    return (
        supposed
        and has_quantity(masked)
        and bool(model_tokens(masked))
        and _WHICH_BEST.search(masked) is not None
        and (lexicon.has(masked, "cheapest", "price_question") or "best" in masked.lower())
    )


def _beyond_intent(text: str, masked: str) -> Intent | None:
    """``contact_supplier`` for writing to or bargaining with a supplier ("给NGK写封邮件要求降
    价"), ``budget`` for a budget (not in the ERP), ``beyond_orders`` for what this assistant
    does not do to an order; ``order_lookup``
    when it is asked whether that was done (not of stock: "IU7库存恢复了没")."""
    if lexicon.has(masked, "contact_supplier"):
        return "contact_supplier"
    if lexicon.has(masked, "budget") and not (
        has_quantity(masked) or lexicon.has(masked, "analysis")
    ):
        return "budget"  # "这个月预算还剩多少": not in the ERP
    if lexicon.has(masked, "not_recorded") and not has_quantity(masked):
        return "not_recorded"  # "哪个供应商交货最准时", "best payment terms": not in the ERP
    if beyond_orders(text):
        return "beyond_orders"
    if beyond_asked(text) and not lexicon.has(masked, "inventory"):
        return "order_lookup"
    return None


_EVERY = re.compile(r"(?<![a-z])(?:everything|all|whatever|anything)(?![a-z])", re.I)
_REORDER_WORD = re.compile(r"(?<![a-z])re-?order\w*", re.I)


def _every_short(masked: str) -> bool:
    """Whether an order asks for every part short of stock, with no count ("please reorder
    everything that is below safety stock"): which parts those are is answered first, as
    for "库存低于安全库存的都补一下"; nothing is ordered."""
    return (
        not has_quantity(masked)
        and _EVERY.search(masked) is not None
        and lexicon.has(_REORDER_WORD.sub(" ", masked), "inventory")  # not "reorder all of it"
    )


def _about_approval(text: str, masked: str) -> bool:
    """Whether ``text`` asks which orders wait for approval ("哪些订单还没批", "orders pending
    approval") or who approved them ("陈静批了哪些单"): a list. Asking me to approve them as
    well ("批准所有待审批的订单") is not."""
    if lexicon.has(masked, "approved_by") and not has_quantity(masked):
        return True  # "陈静上个月审批的订单": orders described by their approver
    if not lexicon.has(masked, "awaiting_approval") or has_quantity(masked):
        return False
    return beyond_orders(lexicon.strip_words(text, ("awaiting_approval",))) is None


def _history(masked: str) -> tuple[bool, bool]:
    """Whether ``masked`` asks what was bought or paid (a spend, the main supplier, who orders
    most, the largest order, a named part's prices paid: "IU7 price history", "IU7 最近半年的
    采购价格") rather than for an order or a quote, and whether it asks the last order ("上次买
    VM22 花了多少钱")."""
    paid = lexicon.has(masked, "paid")
    last = paid and lexicon.has(masked, "latest") and not find_window_months(masked)
    asked = lexicon.has(masked, "spend", "main_supplier", "top_requester", "order_superlative")
    return asked or (
        paid and bool(model_tokens(masked)) and not lexicon.has(masked, "analysis")
    ), last


def _masked(text: str) -> str:
    """``text`` with what asks for nothing blanked: negated operations; "数量跟上次一样" (the
    last order's quantity, not a question about that order); "…，哪家都行", "…，哪天到都行"
    (left open: "哪家", "到" ask nothing here)."""
    masked = lexicon.mask(text, _NEGATABLE)
    for hit in lexicon.find(masked, "same_as_last"):  # blanked, so positions stay valid
        masked = masked[: hit.start] + " " * (hit.end - hit.start) + masked[hit.end :]
    return lexicon.strip_words(masked, ("any_supplier", "any_date"))


def read(text: str) -> Reading:
    """The intent of ``text`` (a buyer's message) and what routing needs to know about it."""
    if not re.search(r"\w", text):  # "?", "...": nothing asked yet
        return Reading("small_talk")
    text = lexicon.without_note(text)  # a note's words ask for nothing
    masked = _masked(text)
    order_no = find_order_no(text)
    domain = lexicon.has(masked, "domain") or lexicon.has(text, "inventory")

    def reading(intent: Intent) -> Reading:
        latest = intent in ORDER_INTENTS and order_no is None and lexicon.has(masked, "latest")
        return Reading(intent, order_no, latest, domain or intent != "out_of_scope")

    skill = lexicon.first(text, "skills")
    analysis = lexicon.first(masked, "analysis")
    if skill and not order_no and not (analysis and analysis.start < skill.start):
        return reading("skills")
    if _about_approval(text, masked):  # "待审批的订单": listed, nothing approved
        return Reading("order_lookup", order_no, False, True)
    early = _task_question(text) or _beyond_intent(text, masked)
    if early is not None:  # "分析做完了吗"; "帮我入库", "写封邮件" (said); "审批了吗" (looked up)
        return Reading(early, order_no, early == "order_lookup" and order_no is None, True)
    if order_no:
        return reading(_by_order_no(masked))
    aside = _aside(text, masked)
    if aside is not None:
        return aside
    if lexicon.has(text, "hold_off") and not lexicon.has(
        masked, "asks_me", "analysis", "inventory", "price", "lead_time"
    ):  # "…，先别下，我再想想": acknowledged ("先不下单，看看电瓶哪家划算" is a comparison)
        return Reading("out_of_scope", None, False, True)
    if is_substitution(text):
        return reading("substitution")
    looked_up, paid_last = _history(masked)
    if paid_last or (looked_up and not has_quantity(masked)):
        return Reading("order_lookup", None, paid_last, True)  # the last price; a period's
    on_order = lexicon.has(masked, "on_order")
    masked = lexicon.strip_words(masked, ("on_order", "before_ordering"))
    ordering = lexicon.has(masked, "new_order") or (
        lexicon.has(masked, "order_verb")
        and (has_quantity(masked) or lexicon.has(masked, "placing"))
    )
    if _best_for_quantity(masked):  # "买500个的话哪家最划算": each offer's total, no order
        return Reading("quote", None, False, True)
    if ordering and has_quantity(masked):
        # "order 100 of the cheapest BKR6E": the lowest offer is the supplier, not a study.
        masked = lexicon.strip_words(masked, ("cheapest", "fastest"))
    asked = _stock_or_price(masked, ordering)
    held = _held(masked, ordering)
    if held is not None:  # "如果库存低于150就补200个": the facts, nothing ordered
        return Reading("quote" if asked == "quote" else "inventory", None, False, True, held=held)
    if asked == "inventory" or (on_order and not lexicon.has(masked, "order_noun")):
        return reading("inventory")  # "how many IU7 do we have on order?"
    if asked == "quote":
        return Reading("quote", None, False, True)
    if lexicon.has(masked, "analysis") or (
        lexicon.has(masked, "price") and not ordering and not lexicon.has(masked, "order_noun")
    ):
        return Reading("analysis", None, False, domain)
    operation = _order_operation(masked)
    if (
        operation == "order_lookup"
        and masked != text
        and not lexicon.has(masked, "lookup", "latest", "open", "past_order")
    ):
        # "别取消 NGK 的订单": what is left of a negated operation is the order's name, not a
        # question about it (acknowledged, see orchestrator.unclear).
        operation = None
    if operation is not None:
        return Reading(
            operation,
            None,
            operation != "order_create" and lexicon.has(masked, "latest"),
            domain or operation != "order_create",
        )
    if lexicon.has(text, "small_talk") and not unknown_words(text, []):
        # Only a greeting or thanks: "翻译一下这句话：good morning" asks for something else.
        return reading("small_talk")
    return Reading("out_of_scope", None, False, domain)
