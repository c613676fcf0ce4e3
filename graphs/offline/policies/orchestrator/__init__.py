"""Orchestrator policy: read the request's intent, ground it in the ERP, then act or ask.

- a task notification → how the background analysis ended (no report: not finished);
- a client-lent tool the request asks for → that tool; a SKILL.md or a skills request →
  ``assign_skill`` (:mod:`graphs.offline.policies.skills`);
- "is the analysis done" / "cancel the analysis" → ``check_async_task`` /
  ``cancel_async_task`` (or: no analysis runs here);
- an analysis → the categories it names, from the ERP (:mod:`.analysis`), then one
  ``start_async_task`` per category with its scope; none known → a question;
- a stock question → answered here with read-only ERP tools (:mod:`.inventory`);
- part substitution in a BOM → the BOM, ``plan_substitution``, then ``apply_substitution``
  under approval (:mod:`.substitution`);
- an order operation → ``task`` (procurement-order), a new order only once the request
  names something the ERP knows or uses the purchasing vocabulary;
- a price asked of named parts → their offers from the ERP, no order (:mod:`.quote`);
- a message naming ERP things but asking nothing clear ("NGK", "刹车片太贵了", a negated
  order) → what to do with them (:mod:`.unclear`); the answer is read with that message;
- small talk → a short greeting; anything else → one sentence on what this assistant does.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import replace

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.messages import is_notification, message_text
from graphs.offline import lexicon
from graphs.offline.client_tools import build_arguments, match_client_tool
from graphs.offline.entities import supplier_marked
from graphs.offline.history import ToolResult, View, strip_line_numbers
from graphs.offline.intent import (
    Intent,
    Reading,
    beyond_asked,
    beyond_orders,
    is_substitution,
    no_analysis,
    read,
)
from graphs.offline.policies import skills
from graphs.offline.policies.base import ADDED_SECTION, Decision, local_name, say
from graphs.offline.policies.orchestrator import (
    followups,
    lookups,
    replies,
    substitution,
    tasks,
)
from graphs.offline.policies.orchestrator.analysis import analysis, delegation
from graphs.offline.policies.orchestrator.conditions import held_order
from graphs.offline.policies.orchestrator.directory import supplier_directory
from graphs.offline.policies.orchestrator.erp import READS, read_erp
from graphs.offline.policies.orchestrator.inventory import inventory
from graphs.offline.policies.orchestrator.quote import QUOTED, best_asked, quote
from graphs.offline.policies.orchestrator.thread_orders import (
    ALL_OF_THEM,
    ORDER_NUMBER,
    thread_orders,
    which_orders,
)
from graphs.offline.policies.orchestrator.unclear import ASK_INTENT, unclear
from graphs.offline.policies.order.history import compared, named_periods
from graphs.offline.text import (
    find_date,
    find_order_no,
    find_quantity,
    find_window_months,
    has_quantity,
    model_tokens,
    read_quantity,
    relative_quantity,
    to_simplified,
    today_in,
    words_to_digits,
)
from graphs.orders.language import buyer_language

__all__ = ["decide"]

ORDER_AGENT = "procurement-order"


def _client_result(result: ToolResult, zh: bool) -> Decision:
    if result.ok:
        return Decision(
            say(zh, f"客户端工具 {result.name} 的结果：\n{result.body}",
                f"Result of your client tool {result.name}:\n{result.body}"),
            note="client-tool-answer",
        )  # fmt: skip
    return Decision(
        say(zh, f"客户端工具 {result.name} 调用失败：{result.body}",
            f"Your client tool {result.name} failed: {result.body}"),
        note="client-tool-error",
    )  # fmt: skip


def _client_call(view: View, zh: bool) -> Decision | None:
    """Call the client tool the request asks for (once per request), if one fits."""
    candidates = {n: s for n, s in view.client_tools.items() if not view.called(n)}
    found = match_client_tool(view.request, candidates)
    if found is None:
        return None
    args, missing = build_arguments(view.request, candidates[found.name]["parameters"])
    if missing:
        return Decision(
            say(zh, f"要调用你的工具 {found.name}，还需要：{'、'.join(missing)}。请补充。",
                f"To call your tool {found.name} I also need: {', '.join(missing)}."),
            note="client-tool-missing-args",
        )  # fmt: skip
    return Decision(
        say(zh, f"调用你的客户端工具 {found.name}。", f"Calling your client tool {found.name}."),
        [(found.name, args)],
        note="client-tool-call",
    )


def _after_tool(view: View, last: ToolResult, zh: bool) -> Decision | None:
    """The answer once a tool that ends a step came back (None: the flow goes on)."""
    if last.name == "start_async_task":
        return tasks.launched(view, zh)
    if last.name == "task":
        return _each_shown(view, zh) or Decision(last.content, note="relayed-subagent")
    if last.name == skills.TOOL:
        return skills.after_result(view, zh)
    if last.name in view.client_tools:
        return _client_result(last, zh)
    if last.name in ("cancel_async_task", "check_async_task", "list_async_tasks"):
        return tasks.after_task_tool(view, last, zh)
    if last.name in READS:
        return None
    if last.name == "read_file":
        return _file_read(last, zh)
    return Decision(last.content, note="relayed-tool")


def _file_read(last: ToolResult, zh: bool) -> Decision:
    """A file the buyer asked for (the report archive's index), without the file tool's
    status header; a missing file is said in words."""
    if not last.ok:
        return Decision(
            say(zh, "还没有找到你的报告存档：做完一次比价分析后，报告会出现在这里。",
                "No report archive yet: your reports appear here after your first analysis."),
            note="file-missing",
        )  # fmt: skip
    return Decision(strip_line_numbers(last.content), note="relayed-file")


def _to_order_agent(
    view: View, reading: Reading, zh: bool, *, body: str | None = None, added: str = ""
) -> Decision:
    if not view.has_tool("task"):
        return Decision(replies.out_of_scope(zh), note="no-order-agent")
    scope = json.dumps({"intent": reading.intent}, ensure_ascii=False)
    # The buyer's own words (Traditional characters kept): the order agent answers in them.
    # ``added``: what the buyer said since about the same order, newest first (it wins).
    description = delegation(view, analysis=False, scope=scope, body=body or view.written)
    if added:
        description += f"\n{ADDED_SECTION}{added}"
    args = {"description": description, "subagent_type": ORDER_AGENT}
    return Decision(
        say(
            zh, "这是订单操作，交给订单代理。", "An order operation: handing it to the order agent."
        ),
        [("task", args)],
        note="route-order",
    )


_EACH = re.compile(r"各|每家|分别|\beach\b|\bboth\b", re.I)


def _order_clauses(text: str) -> list[tuple[int, int]]:
    """The parts of an order message that can each be an order: its lines, sentences,
    numbered items and "另外 / and also" clauses (not every comma: "GZMT，IU7，200个")."""
    bounds = [0] + [m.end() for m in re.finditer(
        r"[；;。\n]|另外|此外|还有|然后|(?<![a-z])(?:and\s+also|also|then|plus)(?![a-z])|\d[.)）、]\s",
        text, re.I)] + [len(text)]  # fmt: skip
    return [(a, b) for a, b in itertools.pairwise(bounds) if b > a]


def _several_orders(view: View, zh: bool) -> Decision | None:
    """A new-order message that is several orders ("给 NGK 和博世各下 100 个", "300 IU7 from NGK
    and 200 C8HSA from Bosch"): the order agent places one order, with one supplier, per
    approval, so the buyer is told and asked to send them one by one, rather than one being
    placed and the other dropped. None: one supplier (a distributor selling a brand's part is
    one order)."""
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    found = erp.ground(view.request)
    marked = {str(m.record.get("code")): m.record for m in
              supplier_marked(view.request, found.suppliers)}  # fmt: skip
    named = {str(m.record.get("code")): m.record for m in found.suppliers}
    several = marked if len(marked) > 1 else named if _EACH.search(view.request) else {}
    if len(several) < 2:  # "GZMT 订 IU7 200个，另外 DENSO 订 BKR7E 300个": a clause each
        by_clause = {}
        for a, b in _order_clauses(view.request):
            here = [m for m in found.suppliers if a <= m.start < b]
            if len({m.record.get("id") for m in here}) == 1 and has_quantity(view.request[a:b]):
                by_clause[str(here[0].record.get("code"))] = here[0].record
        several = by_clause if len(by_clause) > 1 else several
    if len(several) < 2:
        return None
    key = "name_zh" if zh else "name_en"
    listed = [str(s.get(key) or code) for code, s in several.items()]
    names, first = ("、" if zh else ", ").join(listed), listed[0]
    return Decision(
        say(zh, f"这条消息里有 {len(several)} 张订单（{names}）。我一次下一张，每张单独审批："
            f"请一张一张发给我，比如先发“给{first}下 100 个 <型号>”，这张完成后再发下一张。",
            f"That is {len(several)} orders ({names}). I place one order at a time, each with "
            f"its own approval: send them one by one, for example \"order 100 <part> from "
            f"{first}\" first, then the next."),
        note="ask:one-order",
    )  # fmt: skip


def _new_order(view: View, reading: Reading, zh: bool) -> Decision:
    """Delegate a new order once it is about purchasing (else: out of scope, 订机票), one
    order per message."""
    several = _several_orders(view, zh)
    if several is not None:
        return several
    if not reading.domain:
        erp = read_erp(view, view.request, zh)
        if isinstance(erp, Decision):
            return erp
        found = erp.ground(view.request)
        if not found.anything and found.unknown:
            return Decision(replies.not_in_catalogue(zh), note="not-in-catalogue")
    return _to_order_agent(view, reading, zh)


# Words an order line carries besides names: urgency, politeness, a restock verb, a
# delivery verb, field labels ("qty:", "ETA"), units.
_FILLER = re.compile(
    r"(?:asap|urgent(?:ly)?|rush|please|pls|plz|thanks|thx|急用|加急|很急|急|尽快|紧急|马上|赶紧"
    r"|补货?|补充|要|谢谢|麻烦了?|速度|快|送|送来|过来|送过来|发过来|给我|到货|交货"
    r"|qty|quantity|date|eta|etd|due|deliver(?:y|ed)?|by|pcs|pc|units?|boxes|box|cases?|cartons?"
    r"|数量|日期|到货日期|交期)[!！。.,，:：]*",
    re.I,
)
# A count in words ("二十副", "二百五十", "壹佰伍拾个"): a quantity, not an unknown name.
_COUNT_WORD = re.compile(
    r"[零〇一二两三四五六七八九十百千万壹贰叁肆伍陆柒捌玖拾佰仟]+\s*(?:个|件|只|套|条|片|副|支|盒|箱|包|根|台|对)?"
)
# A line of a pasted order list: a model and a count ("IU7 100", "CPR8EA-9 x 50").
_LIST_LINE = re.compile(r"(?m)^\s*[A-Za-z0-9][\w.\-/]*(?:\s+|\s*[x×*]\s*)\d+\s*$")


def _terse_order(view: View, reading: Reading, zh: bool) -> Decision | None:
    """An order written as a line of an order list, with no verb ("G22 手把套，星辉，100 副",
    "Mikuni VM22 x 30", "IU7 200 GZMT asap", "GZMT IU7 qty:200 date:2026/12/20"): a count
    of a part the ERP knows, or of a category at a named supplier, and nothing else asked
    (a note after "备注：" / "note:" is the note's). None: not that (or the reads to make)."""
    if not re.search(r"\d|[一二两三四五六七八九十百千万壹贰叁肆伍陆柒捌玖拾佰仟]", view.request):
        return None
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    found = erp.ground(view.request)
    if not (found.parts or (found.categories and found.suppliers)):
        return None
    head = lexicon.before_note(view.request)
    tokens = model_tokens(head) + [m.term for m in found.suppliers]
    # several parts, each with a count read later ("IU7 两百 + BKR7E 一百"): a number of its own
    several = len({m.record.get("id") for m in found.parts}) > 1 and bool(
        re.search(r"(?<![\w.\-/])\d+(?![\w\-/])", words_to_digits(head))
    )
    counted = (has_quantity(head) or _LIST_LINE.search(head) or several
               or (found.suppliers and find_quantity(head, exclude=tokens)))  # fmt: skip
    today = today_in(view.system)
    unknown = [w for w in found.unknown  # 下周五前 is a date, "asap" / "急用" / "二十副" no name
               if w in head and find_date(w, today) is None and not _FILLER.fullmatch(w)
               and not _COUNT_WORD.fullmatch(w)]  # fmt: skip
    held = lexicon.has(head, "hold_off") or (  # "…，先别提交", "hold off for now": no order
        lexicon.mask(head, ("submit", "order_verb")) != head)  # fmt: skip
    if not counted or unknown or held:
        return None
    return _new_order(view, Reading("order_create", None, False, True), zh)


def _answering(view: View, step: str = "ask:category") -> str | None:
    """The earlier request (as written) when this message answers the orchestrator's
    question ``step``."""
    before = view.messages[: view.request_index]
    for i in range(len(before) - 1, -1, -1):
        m = before[i]
        if isinstance(m, AIMessage) and not m.tool_calls:
            if m.response_metadata.get("step") != step:
                return None
            asked = [
                h for h in before[:i] if isinstance(h, HumanMessage) and not is_notification(h)
            ]
            return message_text(asked[-1]) if asked else None
        if isinstance(m, HumanMessage):
            return None
    return None


def _answer_to_what_to_do(view: View, zh: bool) -> Decision | View | None:
    """When the last answer asked what to do with the things named (``ask:intent``) and this
    message names nothing of its own ("比个价吧", "库存呢", "show me the orders"): the view
    with both messages as one request. None: not an answer to that question."""
    earlier = _answering(view, ASK_INTENT)
    if earlier is None:
        return None
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    if erp.ground(view.request).anything:
        return None  # a request of its own
    written = f"{earlier}\n{view.written}"
    return replace(view, request=to_simplified(written), written=written)


_WHICH = re.compile(r"哪家|哪个|哪一家|谁家|的话|[?？]\s*$|(?<![a-z])(?:which|who)(?![a-z])", re.I)


def _asks_which(text: str) -> bool:
    """Whether ``text`` asks which supplier is cheapest or fastest, or for a quantity it
    supposes ("买500个的话哪家最划算", "which is cheapest for 500?"), not chooses one."""
    return bool(_WHICH.search(text)) or lexicon.has(text, "hypothetical")


# A follow-up asking more of what was just quoted ("那CQMP呢", "what about Bosch?", "哪个最快",
# "which one is cheapest?").
_MORE = re.compile(r"呢\s*[?？]?\s*$|(?<![a-z])(?:what|how)\s+about(?![a-z])|^\s*and\s", re.I)


# Words asking for a study, not a look at the quote ("做个比价分析", "compare them in a report").
_STUDY = re.compile(r"分析|比价|对比|比较|报告|(?<![a-z])(?:compar\w*|analy\w*|report|study)", re.I)


def _more_of_the_quote(view: View) -> bool:
    """Whether a message after a quote asks more of it: a supplier's offer, or which offer
    is cheapest or fastest (the quote again, the asked supplier or the answer first)."""
    return bool(_MORE.search(view.request)) or (
        _asks_which(view.request) and best_asked(view.request) is not None
    )


def _after_quote(view: View, zh: bool) -> Decision | View | None:
    """When the last answer quoted one part and this message acts on it without naming a part
    ("那就给 NGK 下 300 个", "ok, order 100 from Bosch"): the view with that part's SKU added
    to the request. None: no quote before, or the message names parts or a category itself."""
    earlier = _answering(view, QUOTED)
    if earlier is None:
        return None
    before = to_simplified(earlier)
    if lexicon.has(before, "web_price") and _YES.search(view.request):
        # "好的" to the quote's "shall I start a comparison for this part?" (the websites'
        # prices): that analysis, of the part quoted.
        text = f"{before}\n{view.request}"
        return analysis(view, Reading("analysis", None, False, True), zh, text=text)
    erp = read_erp(view, f"{before}\n{view.request}", zh)
    if isinstance(erp, Decision):
        return erp
    now = erp.ground(view.request)
    intent = read(view.request).intent
    # "CQMP那家交期几天", "换成200个呢总价多少": the part quoted, asked again
    asks = ("order_create", "inventory", "out_of_scope", "quote", "analysis")
    if now.parts or now.categories or intent not in asks:
        return None
    quoted = erp.ground(before).parts
    if len({m.record.get("id") for m in quoted}) != 1:
        return None  # several parts were quoted: the order agent asks which
    sku = str(quoted[0].record.get("sku"))
    asked = {m.record.get("id"): m.record for m in erp.ground(before).suppliers}
    if len(asked) == 1 and not now.suppliers and not lexicon.has(
            view.request, "cheapest", "fastest"):  # fmt: skip
        # "NGK 的 IU7 现在多少钱？" then "那就订 300 个": from NGK, the supplier asked about
        sku = f"{sku} {next(iter(asked.values())).get('code')}"
    written = f"{view.written}（{sku}）" if zh else f"{view.written} ({sku})"
    return replace(view, request=to_simplified(written), written=written)


# The order agent's spend answers ("2026-07-01 至 2026-09-30 采购：133 张订单，合计…", "Spent
# from … to …", "采购金额对比", "Spend compared").
_SPENT = re.compile(
    r"采购：\d+ 张订单|采购金额对比|(?<![a-z])Spent\b[^\n]*\bfrom \d{4}-\d\d-\d\d|"
    r"(?<![a-z])Spend\b[^\n]*\bcompared"
)


def _after_spend(view: View, zh: bool) -> Decision | None:
    """Right after a spend answer, a message naming only another period ("去年呢", "跟二季度比
    呢", "what about 2025?", "compare with Q2"): the same question over that period, or both
    side by side, handed to the order agent with the question it follows. None: not that."""
    shown = _shown_text(view)
    text = view.request
    if (
        not _SPENT.search(shown)
        or find_order_no(text)
        or not named_periods(text, today_in(view.system))
    ):
        return None
    if lexicon.has(text, "order_verb", "new_order", "cancel", "change", "inventory") or (
        lexicon.has(text, "analysis") and not compared(text)  # "compare with Q2" is this
    ):
        return None
    asked = [m for m in view.messages[: view.request_index]
             if isinstance(m, HumanMessage) and not is_notification(m)]  # fmt: skip
    if not asked:
        return None
    earlier = message_text(asked[-1])
    reading = Reading("order_lookup", None, False, True)
    return _to_order_agent(view, reading, zh, body=f"{earlier}；{view.written}")


def _about_launched(view: View, reading: Reading, zh: bool) -> Decision | None:
    """Right after an analysis started, a bare word about it ("取消", "算了不用了", "进度怎么样
    了", "is it done?"): that analysis stopped or checked. None: not after a start, or the
    message is about an order."""
    if _answering(view, tasks.LAUNCHED) is None or find_order_no(view.request):
        return None
    text = view.request
    if reading.intent not in ("out_of_scope", "small_talk", "order_cancel", "order_lookup"):
        return None
    if lexicon.has(text, "order_noun", "order_verb", "new_order"):
        return None
    if lexicon.has(text, "stop") or _DROP.search(text):
        return tasks.task_question(view, "analysis_cancel", zh)
    if lexicon.has(text, "status") or _HOW_LONG.search(text):
        return tasks.task_question(view, "analysis_status", zh)
    return None


# "how long will it take?", "要多久", "什么时候好": a question about the analysis just started
_HOW_LONG = re.compile(
    r"多久|多长时间|什么时候(?:好|出来|完成)|(?<![a-z])(?:how\s+long|when\s+will\s+it\s+be\s+"
    r"(?:done|ready|finished))(?![a-z])",
    re.I,
)


# A supplier added to the comparison, not the only one ("also include Bosch", "把博世也加上").
_ADDING = re.compile(
    r"也(?:加上|加进|算上|看|比|包括)|加上|加进|算上|还有|另外|(?<![a-z])(?:also|too|as well|"
    r"include|including|add)(?![a-z])",
    re.I,
)


def _narrowing(view: View, zh: bool) -> Decision | None:
    """Right after an analysis started, a message that only limits it ("只看 NGK 和博世的",
    "only the last 3 months"): the same request with the new limits, started again. None:
    not after a start, or the message names a category or a part of its own."""
    earlier = _answering(view, tasks.LAUNCHED)
    if earlier is None:
        return None
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    now = erp.ground(view.request)
    intent = read(view.request).intent
    if now.parts and not now.categories and lexicon.has(view.request, "substitute"):
        # "换成 BKR7E" right after "比价 IU7": the same comparison for that part
        return analysis(view, Reading("analysis", None, False, True), zh, text=view.request)
    if now.categories or now.parts or intent not in ("analysis", "out_of_scope", "substitution"):
        return None
    limits = lexicon.has(view.request, "exclusion", "domestic", "imported")
    if not (now.suppliers or find_window_months(view.request) or limits):
        if tasks.KIND_LIMIT.search(to_simplified(view.request)):  # "only distributors please"
            note = tasks.KIND_NOTE[0] + "。" if zh else tasks.KIND_NOTE[1].capitalize() + "."
            return Decision(note, note="scope-unsupported")
        return None
    before = erp.ground(to_simplified(earlier)).suppliers
    if _ADDING.search(view.request) and now.suppliers and not before:
        # "also include Bosch" when no brand was limited: already in, nothing restarted
        names = ("、" if zh else ", ").join(local_name(m.record, zh) for m in now.suppliers)
        return Decision(say(zh, f"{names}已经在这次比价里：它没有限定品牌，包括所有供应商的报价。",
                            f"{names} is already in: the comparison is not limited to any "
                            "brand and covers every supplier's prices."),
                        note="already-included")  # fmt: skip
    text = f"{to_simplified(earlier)}\n{view.request}"
    return analysis(view, Reading("analysis", None, False, True), zh, text=text)


# The order's request and what the buyer added to it since ("改成500个", "no, NGK"), in the
# order agent's delegation.
_BODY = re.compile(r"【(?:分析)?需求正文】(.*?)(?=【[^】]+】|\Z)", re.S)
_ADDED = re.compile(re.escape(ADDED_SECTION) + r"(.*?)(?=【[^】]+】|\Z)", re.S)
# "算了", "不要了", "never mind", "cancel that": the order being made is dropped.
_DROP = re.compile(
    r"^\s*(?:算了|不要了|不用了|不下了|先不下了?|别下了|不订了|取消吧|取消这张|那就不要了"
    r"|(?:never\s*mind|forget (?:it|that|about it)|cancel (?:that|it|this)|drop it"
    r"|scratch that|no,? (?:thanks|thank you)|don'?t bother)(?![a-z]))",
    re.I,
)
# "好的", "就这样", "yes, go ahead": the same order, put up for approval again.
_CONFIRM = re.compile(
    r"^(?:\s*(?:好的?|好吧|可以|行|确认|没问题|就这样|就这么办|对|是的|嗯|提交吧|下吧|吧|的|了|啊"
    r"|ok(?:ay)?|yes|yep|yeah|sure|go ahead|confirm(?:ed)?|sounds good|do it|please do"
    r"|place it|submit it|please|thanks?|thank you)[\s,.!。！，~]*)+$",
    re.I,
)


# "好的", "要", "yes please": yes to a question the last answer asked (not "thanks").
_YES = re.compile(
    r"^(?:\s*(?:好的?|好吧|好啊|可以|行|要|要的|需要|做吧|做一个|做一下|开始吧|是的|对|嗯|ok(?:ay)?"
    r"|yes|yep|yeah|sure|go ahead|please do|do it|start it|run it|sounds good|please)"
    r"[\s,.!。！，~]*)+$",
    re.I,
)


def _pending_order(view: View) -> tuple[str, str] | None:
    """The new order the turn before this one handed to the order agent and that was not
    created (a question left unanswered, a card not decided, a refusal): its request and
    what was added to it since, as the delegation says. None: no such order."""
    before = view.messages[: view.request_index]
    for i in range(len(before) - 1, -1, -1):
        m = before[i]
        if isinstance(m, HumanMessage) and not is_notification(m):
            return None
        if not isinstance(m, AIMessage):
            continue
        for call in m.tool_calls:
            args = call.get("args") or {}
            text = str(args.get("description") or "")
            if call["name"] != "task" or args.get("subagent_type") != ORDER_AGENT:
                continue
            if '"order_create"' not in text:
                return None
            answered = [t for t in before[i + 1 :] if isinstance(t, ToolMessage)
                        and t.tool_call_id == call.get("id")]  # fmt: skip
            if answered and re.search(r"已创建|已創建|Created", message_text(answered[0])):
                return None  # committed: a change now is a change of that order
            body, added = _BODY.search(text), _ADDED.search(text)
            return ((body.group(1).strip() if body else ""),
                    (added.group(1).strip() if added else ""))  # fmt: skip
    return None


def _order_correction(view: View, reading: Reading, zh: bool) -> Decision | None:
    """Right after a new order went to the order agent and was not created, a message that
    only drops it ("算了"), confirms it ("好的，就这样") or changes a detail of it ("改成500个",
    "不对，是博世的", "make it 500", "no, NGK", "下周五前到"): the same order with that, or
    an acknowledgement. None: not that (the message is a request of its own)."""
    pending = _pending_order(view)
    if pending is None:
        return None
    earlier, added = pending
    text = view.request
    if _DROP.search(text):
        return Decision(
            say(zh, "好的，这张订单不下了，没有提交任何东西。",
                "OK, that order is dropped; nothing was placed."),
            note="order-dropped",
        )  # fmt: skip
    if _CONFIRM.search(text):
        return _to_order_agent(view, Reading("order_create"), zh, body=earlier, added=added)
    asks = ("order_create", "order_change", "out_of_scope", "small_talk", "substitution")
    if reading.intent not in asks:  # "换成 LONCIN" on an open card: that supplier, no BOM
        return None
    erp = read_erp(view, text, zh)
    if isinstance(erp, Decision):
        return erp
    found = erp.ground(text)
    today = today_in(view.system)
    relative = _relative_to_pending(text, earlier, added, zh)
    if relative is not None:  # "追加50个", "砍掉一半": the new total, said as a change
        return _to_order_agent(view, Reading("order_create"), zh, body=earlier,
                               added=f"{relative}\n{view.written}\n{added}".strip())  # fmt: skip
    detail = (read_quantity(text) is not None or find_date(text, today) is not None
              or found.suppliers or found.parts or bool(re.search(r"备注|note|remark", text, re.I))
              # "不要IU9了": the part's name is negated, so the grounding leaves it out
              or bool(lexicon.TAKE_OUT.search(text) and model_tokens(text)))  # fmt: skip
    if not detail or (found.suppliers and found.parts and has_quantity(text)):
        return None  # nothing of an order, or a whole order of its own
    newest_first = f"{view.written}\n{added}".strip()
    return _to_order_agent(view, Reading("order_create"), zh, body=earlier, added=newest_first)


def _relative_to_pending(text: str, earlier: str, added: str, zh: bool) -> str | None:
    """For "追加50个" / "add 50 more" / "砍掉一半" about the order being made: the new
    quantity as a change ("数量改成 150"), from the newest quantity it was given; None: the
    text changes no quantity by an amount, or the order has none yet."""
    for said in (added, earlier):
        base = read_quantity(said, exclude=model_tokens(said)) if said else None
        if base is not None and base.value is not None:
            new = relative_quantity(text, base.value)
            if new is None:
                return None
            return say(zh, f"数量改成 {new}（原来 {base.value}）",
                       f"change the quantity to {new} (was {base.value})")  # fmt: skip
    return None


# Words pointing back at the order just shown ("cancel it", "把这张单的交期改到…").
_BACK = re.compile(
    r"这张|那张|这单|那单|这个单|该单|刚才(?:那|这)|刚下的|上面(?:那|这)|它"
    r"|(?<![a-z])(?:it|that|this|the)\s+(?:order|po)\b|(?<![a-z])(?:it|that one|this one)(?![a-z])",
    re.I,
)


def _shown_text(view: View) -> str:
    """The last answer's text (the one that showed the order)."""
    for m in reversed(view.messages[: view.request_index]):
        if isinstance(m, AIMessage) and not m.tool_calls:
            return message_text(m)
    return ""


def _shown_order(view: View) -> str | None:
    """The one order number the last answer showed (an order just created, looked up or
    changed), or None."""
    before = view.messages[: view.request_index]
    for m in reversed(before):
        if isinstance(m, AIMessage) and not m.tool_calls:
            found = set(ORDER_NUMBER.findall(message_text(m)))
            return found.pop() if len(found) == 1 else None
        if isinstance(m, HumanMessage) and not is_notification(m):
            return None
    return None


_ADDING_PART = re.compile(
    r"再加|加上|追加|加一(?:个|行)|添加|(?<![a-z])(?:add|also)(?![a-z])", re.I
)


def _names_other(view: View, shown: str, zh: bool) -> bool | Decision:
    """Whether the message names a supplier or a part the order just shown does not hold
    ("KMC 428-116L 30条" after a GZMT order: a new order, not a change of that one); or the
    reads that tell."""
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    found = erp.ground(view.request)
    other_supplier = any(
        not any(str(m.record.get(k) or "\0") in shown for k in ("code", "name_zh", "name_en"))
        for m in found.suppliers
    )
    other_part = any(str(m.record.get("sku") or "\0") not in shown for m in found.parts)
    return other_supplier or other_part


# One part put in place of another on the order shown ("IU7换成IU9", "swap IU7 for IU9").
_SWAP = re.compile(r"换成|换为|替换|(?<![a-z])(?:instead|replace|swap)", re.I)


def _swaps_shown_part(view: View) -> bool:
    """Whether the message puts a part in place of one the order just shown holds."""
    text = dict(thread_orders(view)).get(_shown_order(view) or "") or ""
    return bool(_SWAP.search(view.request)) and any(t in text for t in model_tokens(view.request))


def _order_words(view: View) -> tuple[str, bool, bool, bool]:
    """The message read for an order shown: its words (after its last correction, negated
    operations masked: "别取消，先放着" cancels nothing), and whether it changes something
    (a quantity, an operation), names a date, or a note."""
    # "取消吧。哦不对，别取消，数量改成80": what follows the correction
    text = lexicon.mask(
        lexicon.after_correction(view.request) or view.request, ("cancel", "change")
    )
    acting = (lexicon.has(text, "cancel", "change") or read_quantity(text) is not None
              or relative_quantity(text, 1) is not None
              or (_SWAP.search(text) is not None and bool(model_tokens(text))))  # fmt: skip
    dated = find_date(text, today_in(view.system)) is not None
    noted = bool(re.search(r"备注|\bnote\b|\bremark\b", text, re.I))
    return text, acting, dated, noted


def _shown_intent(view: View) -> Intent:
    """What the message does to an order shown: cancel it, change it, or look it up."""
    text, acting, dated, noted = _order_words(view)
    asking = lexicon.has(text, "asked_about")
    if lexicon.has(text, "cancel") and not asking:
        return "order_cancel"
    if asking or not (acting or dated or noted):
        return "order_lookup"
    return "order_change"


# New orders asked for ("再下两张单", "place two more orders"), never the orders shown.
_NEW_ORDERS = re.compile(
    r"再下|再订|再來|再来|再开|再開|下单|下單|订购|訂購|开(?:一|两|几)?张|(?<![a-z])(?:new|more|"
    r"another|place|raise)\s+(?:\w+\s+)?(?:orders?|pos?)(?![a-z])",
    re.I,
)
# A question about the orders meant ("这两张一共多少钱", "what do both come to?"), not thanks.
_ASKED = re.compile(
    r"[?？]|多少|几|吗|总共|一共|合计|(?<![a-z])(?:total|how|what|when|status)", re.I
)


def _picked(view: View, zh: bool) -> tuple[list[str], bool] | Decision | None:
    """Of two or more orders this conversation showed, the ones the message means ("第一张",
    "GZMT 那张", "这两张") and whether it points at them, or the ERP reads that name them
    first (None: not that)."""
    orders = thread_orders(view)
    words = _order_words(view)[0]
    if len(orders) < 2 or _NEW_ORDERS.search(words):
        return None  # "再下两张单：…": new orders, not the ones shown
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    return which_orders(orders, words, erp.ground(view.request))


def _repeat_shown(view: View, zh: bool) -> Decision | None:
    """ "再来一张一模一样的", "same order again" right after an order was shown: a new order
    with its supplier and lines, handed over with its number (None: no one order shown, or
    the message names a supplier or part it does not hold: "照上次的单再跟汤浅下一遍")."""
    order_no = _shown_order(view)
    if order_no is None:
        return None
    shown = dict(thread_orders(view)).get(order_no) or _shown_text(view)
    other = _names_other(view, shown, zh)
    if isinstance(other, Decision) or other:
        return other if isinstance(other, Decision) else None
    reading = Reading("order_create", order_no)
    return _to_order_agent(view, reading, zh, body=f"{order_no} {view.written}")


def _about_shown_order(view: View, reading: Reading, zh: bool) -> Decision | None:
    """Right after an answer that showed one order, a message about "it" ("cancel it", "make it
    150", "把这张单的交期改到下周五", "备注写上…"): that order, by its number; after several,
    the one(s) it points at ("第一张", "GZMT 那张", "这两张"). None: not that (a message naming
    another supplier or part with no word pointing back is its own)."""
    if find_order_no(view.request):
        return None
    if lexicon.has(view.request, "repeat_order"):
        return _repeat_shown(view, zh)
    picked = _picked(view, zh)
    if isinstance(picked, Decision):
        return picked
    order_no = picked[0][0] if picked else _shown_order(view)
    if order_no is None:
        return None
    text, acting, dated, noted = _order_words(view)
    pointed = bool(picked and picked[1])  # "第一张", "这两张一共多少钱", "GZMT 那张"
    back = _BACK.search(text) or pointed
    changing = reading.intent in ("order_change", "order_cancel") and (acting or dated or noted)
    swapped = _swaps_shown_part(view)  # "IU7换成IU9": a line of that order, not a BOM
    if not (
        back or changing or swapped or (reading.intent == "out_of_scope" and (acting or dated))
    ):
        return None  # "到货日期改成12月28号" right after the order: that order
    asked = pointed and _ASKED.search(text) is not None  # "both look good" asks nothing
    if not (acting or dated or noted or asked or reading.intent == "order_lookup"):
        return None
    if not (back or swapped or _ADDING_PART.search(text)):  # "再加 BKR7E 100个": a line
        shown = dict(thread_orders(view)).get(order_no) or _shown_text(view)
        other = _names_other(view, shown, zh)
        if isinstance(other, Decision) or other:
            return other if isinstance(other, Decision) else None
    written = f"{order_no} {view.written}"  # first: a note after a colon stays the note
    return _to_order_agent(view, Reading(_shown_intent(view), order_no), zh, body=written)


def _each_shown(view: View, zh: bool) -> Decision | None:
    """After the order agent answered about one of several orders the message meant
    ("这两张单都取消", "cancel both"): the next one handed over, or every answer together
    once all were (None: the message meant one order)."""
    orders = thread_orders(view)
    words = _order_words(view)[0]
    if len(orders) < 2 or not ALL_OF_THEM.search(words) or _NEW_ORDERS.search(words):
        return None
    handed = [r.args.get("description", "") for r in view.called("task")]
    if not handed or not any(no in str(handed[0]) for no, _ in orders):
        return None  # the first hand-over was not about the orders shown
    rest = [no for no, _ in orders if not any(no in str(d) for d in handed)]
    if rest:
        intent = _shown_intent(view)
        return _to_order_agent(view, Reading(intent, rest[0]), zh, body=f"{rest[0]} {view.written}")
    answers = [r.content.strip() for r in view.called("task")]
    total = _totals(answers, zh) if _shown_intent(view) == "order_lookup" else ""
    return Decision("\n\n".join(answers) + total, note="relayed-subagent")


_AMOUNT = re.compile(r"(?:金额|total)\s+([\d,]+\.\d{2})\s+([A-Z]{3})")


def _totals(answers: list[str], zh: bool) -> str:
    """The orders' amounts added up by currency, when each answer shows one."""
    found = [_AMOUNT.search(a) for a in answers]
    if not all(found):
        return ""
    sums: dict[str, float] = {}
    for m in found:
        assert m is not None
        sums[m.group(2)] = sums.get(m.group(2), 0.0) + float(m.group(1).replace(",", ""))
    listed = "；".join(f"{v:,.2f} {c}" for c, v in sums.items())
    return say(zh, f"\n\n{len(answers)} 张订单合计：{listed}",
               f"\n\n{len(answers)} orders in total: {listed.replace('；', '; ')}")  # fmt: skip


# What is only said, nothing done: a change of the ERP's records, a reminder for later,
# writing to or bargaining with a supplier, a budget.
_SAID = {
    "master_data": replies.master_data,
    "reminder": replies.reminder,
    "contact_supplier": replies.contact_supplier,
    "budget": replies.budget,
    "not_recorded": replies.not_recorded,
}


def _route(view: View, reading: Reading, zh: bool, *, follow_up: bool = True) -> Decision:
    if reading.intent == "beyond_orders":  # "帮我入库", "email it to GZMT": said, not done
        kind = beyond_orders(view.request) or ""
        order_no = reading.order_no or _shown_order(view)
        return Decision(replies.beyond_orders(kind, order_no, zh), note="beyond-orders")
    last = _shown_order(view) if reading.intent == "order_lookup" else None
    if last and reading.order_no is None and beyond_asked(view.request):  # "入库了吗"
        return _to_order_agent(
            view, Reading("order_lookup", last), zh, body=f"{last} {view.written}"
        )
    if follow_up:
        corrected = _order_correction(view, reading, zh)
        if corrected is not None:
            return corrected
        shown = _about_shown_order(view, reading, zh) or _about_launched(view, reading, zh)
        if shown is not None:
            return shown
        narrower = _narrowing(view, zh) or _after_spend(view, zh)
        if narrower is not None:
            return narrower
        quoted = _after_quote(view, zh)
        if isinstance(quoted, Decision):
            return quoted
        if quoted is not None:
            again = read(quoted.request)
            choosing = lexicon.has(view.request, "cheapest", "fastest") and not _asks_which(
                view.request
            )  # "买500个的话哪家最划算" asks, "就最便宜那家吧，100个" chooses
            if choosing and has_quantity(view.request) and again.intent != "order_create":
                again = Reading("order_create", None, False, True)  # "就最便宜那家吧，100个"
            elif (again.intent == "out_of_scope" and has_quantity(view.request)) or (
                _more_of_the_quote(view) and not _STUDY.search(view.request)
            ):  # "what about 500 pcs?", "那CQMP呢", "哪个最快", "哪家最便宜": of that quote
                again = Reading("quote", None, False, True)
            return _route(quoted, again, zh, follow_up=False)
        combined = _answer_to_what_to_do(view, zh)
        if isinstance(combined, Decision):
            return combined
        if combined is not None:
            return _route(combined, read(combined.request), zh, follow_up=False)
    earlier = _answering(view)
    if earlier is not None and reading.intent in ("analysis", "out_of_scope", "small_talk"):
        # The buyer named the category the last question asked for: the same analysis.
        return analysis(view, reading, zh, text=f"{to_simplified(earlier)}\n{view.request}")
    facts = (
        lookups.supplier_question(view, reading, zh)  # "力帆还能下单吗": its status
        or (held_order(view, reading, zh) if reading.held is not None else None)
        or supplier_directory(view, reading, zh)  # "哪些供应商停用了", "Japanese suppliers?"
    )
    if facts is not None:
        return facts
    match reading.intent:
        case "analysis_status" | "analysis_cancel":
            return tasks.task_question(view, reading.intent, zh)
        case "analysis" if no_analysis(view.request):  # "就问问，先不比价分析"
            return Decision(replies.no_analysis(zh), note="no-analysis")
        case "analysis":
            return analysis(view, reading, zh)
        case "inventory":
            return inventory(view, zh)
        case "quote":
            return quote(view, reading, zh)
        case "order_create":
            return _new_order(view, reading, zh)
        case "order_change" | "order_cancel" | "order_lookup":
            return _to_order_agent(view, reading, zh)
        case "small_talk":
            return Decision(replies.greeting(zh, view.request), note="greeting")
        case "master_data" | "reminder" | "contact_supplier" | "budget" | "not_recorded":
            return Decision(_SAID[reading.intent](zh), note=reading.intent.replace("_", "-"))
        case "out_of_scope" if lexicon.has(view.request, "fyi"):
            return Decision(replies.noted(zh), note="noted")
        case _:
            return (
                _terse_order(view, reading, zh)
                or lookups.supplier_parts(view, zh)
                or lookups.supplier_info(view, zh)
                or unclear(view, zh)
                or Decision(replies.out_of_scope(zh), note="out-of-scope")
            )


def decide(view: View) -> Decision:
    """Next step of the orchestrator."""
    # The buyer's language: a message that only names things ("NGK 200") is answered in
    # the conversation's.
    zh = buyer_language(view.messages) == "zh"
    event = view.notification()
    if event is not None:
        return tasks.on_notification(view, event, zh)
    launched = _answering(view, tasks.LAUNCHED) is not None  # "换成 BKR7E": that analysis
    answered = None if launched else lookups.equivalents(view, zh)  # "C8HSA 有哪些替代型号"
    if answered is not None:
        return answered
    # "换成 LONCIN" on an order being made, "换成只看国内供应商" right after a launch: a
    # change of that order or that analysis, not parts replaced in a BOM.
    about_last = (
        _pending_order(view) is not None
        or _answering(view, tasks.LAUNCHED)
        or _swaps_shown_part(view)  # "IU7换成IU9" right after an order of IU7
    )
    if is_substitution(view.request) and not about_last:
        # Its own flow: the client's BOM tool is read for it, not relayed.
        return substitution.step(view, zh)
    new_lines = substitution.applied_changes(view)
    if new_lines:  # "and order them" after an approved replacement table
        return substitution.order_step(view, new_lines, zh)
    last = view.last_result()
    if last is not None and getattr(view.last, "type", "") == "tool":
        answer = _after_tool(view, last, zh)
        if answer is not None:
            return answer
    client = _client_call(view, zh)
    if client is not None:
        return client
    # Before the intents: a skill's own text may hold analysis or order words.
    skill = skills.start(view, zh)
    if skill is not None:
        return skill
    # "为什么被拒了", "and Dunlop?", "帮我补一下", "就按推荐的下单": read against the answers given
    followed = followups.follow_up(view, zh)
    if isinstance(followed, View):  # an order as the report recommends, its supplier added
        order = Reading("order_create", None, False, True)
        followed = _route(followed, order, zh, follow_up=False)
    decision = followed or _route(view, read(view.request), zh)
    decision.note = decision.note or "orchestrator"
    return decision
