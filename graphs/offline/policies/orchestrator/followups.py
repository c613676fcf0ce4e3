"""Short follow-ups that only make sense after an answer given before, read against it.

- **Why** ("为什么被拒了", "why not?") after an order that did not go through: the ERP's
  reasons again, as the refusal listed them, or that the buyer rejected the card.
- **The same question about another supplier** ("and Dunlop?", "那邓禄普呢") right after a
  supplier's record: that supplier's record.
- **Restock these** ("帮我补一下", "reorder them") right after a stock answer, naming no part:
  which part, how many and from whom, the parts just listed offered; nothing is ordered
  until the buyer says.
- **An order as the report recommends** ("就按推荐的下单，IU7 200个", "order 200 IU7 from the
  recommended supplier") after an analysis summary in this conversation: the order, from
  the supplier the summary recommends for that part (which part, asked when it names none
  and the summary has several; several orders listed to send one by one).
- **Why it recommends a supplier** ("为什么推荐广州摩托配件"): the summary's line for it, what
  its score is, and where the report is.
- **Send the report on** ("把报告发给我老板", "email the report to my boss"): not done here;
  the report's download links to pass on.
- **The same for another category** ("再做一份刹车片的", "same for brake pads") right after
  an analysis: that category's comparison.

None when the message is not such a follow-up: it is then read on its own.
"""

from __future__ import annotations

import re
from dataclasses import replace

from langchain_core.messages import AIMessage, HumanMessage

from graphs.messages import is_notification, message_text
from graphs.offline import lexicon
from graphs.offline.history import View
from graphs.offline.intent import Reading
from graphs.offline.policies.base import Decision, local_name, say
from graphs.offline.policies.orchestrator import lookups
from graphs.offline.policies.orchestrator.analysis import analysis
from graphs.offline.policies.orchestrator.erp import read_erp
from graphs.offline.policies.orchestrator.tasks import LAUNCHED
from graphs.offline.policies.order.outcome import REJECTED
from graphs.offline.text import has_quantity, model_tokens, to_simplified

__all__ = ["follow_up"]

_WHY = re.compile(
    r"^\s*(?:(?:那|可是|但)?(?:为什么|为啥|为何|怎么回事|咋回事|什么原因|啥原因|原因呢|怎么会)"
    r"|(?:but\s+)?(?:why|how\s+come|what\s+happened|what\s+went\s+wrong|what'?s\s+wrong))"
    r"[^。.!！]{0,16}[?？]?\s*$",
    re.I,
)
# A line of an ERP refusal: a reason with its code ("... (TRANSITION_NOT_ALLOWED)").
_REASON = re.compile(r"^\s*-\s.*[（(][A-Z][A-Z_]{3,}[)）]\s*$")
_AGAIN = re.compile(r"呢\s*[?？]?\s*$|^\s*(?:and|what\s+about|how\s+about)(?![a-z])", re.I)
_SKU = re.compile(r"^- ([A-Z]{2}-[A-Z0-9]+-\S+)", re.M)
_SHOWN_PARTS = 8


def _last_answer(view: View) -> AIMessage | None:
    """The answer this message follows (None: another message came between)."""
    for m in reversed(view.messages[: view.request_index]):
        if isinstance(m, AIMessage) and not m.tool_calls:
            return m
        if isinstance(m, HumanMessage) and not is_notification(m):
            return None
    return None


def _why(view: View, last: str, zh: bool) -> Decision | None:
    reasons = [line.strip() for line in last.splitlines() if _REASON.match(line)]
    if reasons:
        return Decision(
            say(zh, "ERP 核对时没有通过，原因是：\n", "The ERP's check did not let it through:\n")
            + "\n".join(reasons)
            + say(zh, "\n上面写了改法的，照着改了我再提交审批。",
                  "\nWhere it says how to fix it, do that and I will put it up for approval "
                  "again."),
            note="why",
        )  # fmt: skip
    if REJECTED[0] in last or REJECTED[1] in last:
        return Decision(
            say(zh, "是你在审批卡片上拒绝的，所以 ERP 里什么都没有改。"
                    "还要下这张单的话，再跟我说一次。",
                "You rejected it on the approval card, so nothing was changed in the ERP. If "
                "you do want it, ask me again."),
            note="why",
        )  # fmt: skip
    return None


def _restock(view: View, last: str, zh: bool) -> Decision | None:
    """ "帮我补一下" after a stock answer: which of the parts just listed, how many, from whom."""
    text = view.request
    asked = lexicon.has(text, "restock") or (
        lexicon.has(text, "order_verb") and not lexicon.has(text, "order_noun")
    )
    if not asked or has_quantity(text) or model_tokens(text):
        return None
    skus = _SKU.findall(last)[:_SHOWN_PARTS]
    listed = ("、" if zh else ", ").join(skus)
    return Decision(
        say(zh, f"补哪个零件、补多少、从哪家订？刚才列出的有：{listed}。告诉我型号、数量和供应商"
                "（比如“{sku} 100 个，找最便宜的”），我先给你审批卡片，没批准前什么都不会下。",
            f"Which part, how many and from which supplier? Just listed: {listed}. Tell me the "
            "model, quantity and supplier (e.g. \"{sku} 100, cheapest supplier\"); you get an "
            "approval card first and nothing is ordered before you approve it.")
        .replace("{sku}", skus[0] if skus else "IU7"),
        note="ask:restock",
    )  # fmt: skip


# An analysis summary's recommendation: "- NGK 火花塞 IU7（SP-NGK-IU7）：推荐 广州摩托配件贸易有限
# 公司（合同价 …" / "- NGK Spark Plug IU7 (SP-NGK-IU7): recommend Guangzhou … (contract …"
# (graphs.offline.policies.analyst.summary).
_RECOMMENDATION = re.compile(
    r"^- .*?[（(]([A-Z]{2,3}-[A-Z0-9][\w.-]*)[）)][：:]\s*(?:推荐|recommend)\s+(.+?)\s*[（(].*$",
    re.M,
)
_AS_RECOMMENDED = re.compile(
    r"推荐的|按推荐|照推荐|推荐那家|按(?:报告|分析)(?:的)?(?:推荐|建议)"
    r"|(?<![a-z])(?:recommended|as\s+recommended|suggested|the\s+recommendation)(?![a-z])",
    re.I,
)
_EACH = re.compile(r"各|每个|每一个|都|全部|(?<![a-z])(?:each|all|every)(?![a-z])", re.I)
_REPORT_LINE = re.compile(r"^(?:报告：|Report: )([^\s（(]+)", re.M)
_DOWNLOADS = re.compile(r"^(?:下载：|Download: )(.+)$", re.M)
_SHARE = re.compile(
    r"(?:发|转|传|分享|抄送)(?:给|到)|转发|(?<![a-z])(?:send|forward|share|email|e-mail|mail)(?![a-z])",
    re.I,
)
_WHERE = re.compile(
    r"报告[^，,。？?]{0,4}在哪|(?<![a-z])(?:where|link)\b.{0,20}\breport"
    r"|report\b.{0,12}\b(?:link|where)",
    re.I,
)
_SAME_FOR = re.compile(
    r"(?:再|也)(?:做|出|来)一(?:份|个)|也(?:做|比|分析)|同样|照样"
    r"|(?<![a-z])(?:same\s+for|do\s+the\s+same|also\s+for|as\s+well|too)(?![a-z])",
    re.I,
)


def _summary(view: View) -> tuple[str, list[tuple[str, str]]] | None:
    """The newest analysis summary in this conversation and its recommendations (sku,
    supplier as named)."""
    for m in reversed(view.messages[: view.request_index]):
        if isinstance(m, AIMessage) and not m.tool_calls:
            text = to_simplified(message_text(m))  # answered in Traditional: read in Simplified
            found = _RECOMMENDATION.findall(text)
            if found:
                return text, found
    return None


def _as_recommended(view: View, zh: bool) -> Decision | View | None:
    """An order "as recommended" (see the module's docstring): the view with the part and
    the recommended supplier added, a question, or None."""
    text = view.request
    ordering = lexicon.has(text, "order_verb", "new_order") or has_quantity(text)
    summary = _summary(view) if _AS_RECOMMENDED.search(text) and ordering else None
    if summary is None:
        return None
    erp = read_erp(view, text, zh)
    if isinstance(erp, Decision):
        return erp
    recommended = summary[1]
    named = {str(m.record.get("sku")) for m in erp.ground(text).parts}
    chosen = [r for r in recommended if r[0] in named]
    if not named:
        chosen = recommended if len(recommended) == 1 or _EACH.search(text) else []
    picks = [(sku, erp.ground(name).suppliers) for sku, name in chosen]
    pairs = [(sku, found[0].record) for sku, found in picks if found]
    listed = ("；" if zh else "; ").join(f"{sku} → {name}" for sku, name in recommended)
    if not pairs:
        return Decision(say(zh, f"按推荐下单：是哪个零件？报告推荐的是：{listed}。",
                            f"Which part, as recommended? The report recommends: {listed}."),
                        note="ask:part")  # fmt: skip
    if len(pairs) > 1:
        orders = ("；" if zh else "; ").join(f"{sku} ← {s.get('code')}" for sku, s in pairs)
        return Decision(say(zh, f"按推荐是 {len(pairs)} 张订单（{orders}）。我一次下一张，每张单独"
                                f"审批：请一张一张发给我，比如“给{pairs[0][1].get('code')}订 100 个"
                                f" {pairs[0][0]}”。",
                            f"As recommended that is {len(pairs)} orders ({orders}). I place one "
                            "at a time, each with its own approval: send them one by one, e.g. "
                            f"\"order 100 {pairs[0][0]} from {pairs[0][1].get('code')}\"."),
                        note="ask:one-order")  # fmt: skip
    sku, supplier = pairs[0]
    added = say(zh, f"（报告推荐：{sku} 从 {supplier.get('code')} 订）",
                f" (the report recommends {sku} from {supplier.get('code')})")  # fmt: skip
    written = _AS_RECOMMENDED.sub(" ", view.written) + added
    return replace(view, request=to_simplified(written), written=written)


def _why_recommended(view: View, zh: bool) -> Decision | None:
    """ "为什么推荐广州摩托配件": the summary's line for that supplier, and where the report is."""
    summary = _summary(view)
    if summary is None or not re.search(r"推荐|recommend", view.request, re.I):
        return None
    text, _ = summary
    lines = [m.group(0) for m in _RECOMMENDATION.finditer(text)]
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    names = [local_name(m.record, zh) for m in erp.ground(view.request).suppliers]
    about = "\n".join([line for line in lines if any(n and n in line for n in names)] or lines)
    report = _REPORT_LINE.search(text)
    where = report.group(1) if report else ""
    return Decision(
        say(zh, f"报告里的推荐是：\n{about}\n评分是每个零件的总成本评分（合同价加上交期、起订量等"
                f"折算的成本，越低越好），推荐的是评分最低的一家。各家的对比表和计算依据在报告里：{where}",
            f"The report's recommendation:\n{about}\nThe score is each part's total-cost score "
            "(the contract price plus what lead time, minimum order and the like cost; lower is "
            "better), and the supplier with the lowest score is recommended. The comparison "
            f"table and how it was worked out are in the report: {where}"),
        note="why-recommended",
    )  # fmt: skip


def _after_report(view: View, zh: bool) -> Decision | View | None:
    """Follow-ups of an analysis summary anywhere before: an order as recommended, why a
    supplier is recommended, the report sent on."""
    ordered = _as_recommended(view, zh)
    if ordered is not None:
        return ordered
    if _WHY.search(view.request) or re.search(r"为什么|为啥|why", view.request, re.I):
        why = _why_recommended(view, zh)
        if why is not None:
            return why
    summary = _summary(view)
    if summary is None or not re.search(r"报告|report", view.request, re.I):
        return None
    links, named = _DOWNLOADS.search(summary[0]), _REPORT_LINE.search(summary[0])
    where = links.group(1) if links else named.group(1) if named else ""
    if _WHERE.search(view.request):  # "报告在哪": the one just made
        return Decision(say(zh, f"刚完成的报告：{where}", f"The report just made: {where}"),
                        note="report-where")  # fmt: skip
    if not _SHARE.search(view.request):
        return None
    return Decision(
        say(zh, f"我不能替你发邮件或转给别人，什么都没有发出去。报告可以直接下载转给他：{where}",
            f"I can't email or forward it for you; nothing was sent. The report can be "
            f"downloaded and passed on: {where}"),
        note="share-report",
    )  # fmt: skip


def _same_for(view: View, step: str, zh: bool) -> Decision | None:
    """ "再做一份刹车片的" right after an analysis: that category's comparison."""
    if step not in ("notified-success", LAUNCHED) or not _SAME_FOR.search(view.request):
        return None
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    if not erp.ground(view.request).categories:
        return None
    return analysis(view, Reading("analysis", None, False, True), zh, text=view.request)


def follow_up(view: View, zh: bool) -> Decision | View | None:
    """The answer to a follow-up of the last answer, or None (see the module's docstring);
    a View: the request to route as a new order (an order as the report recommends)."""
    after = _after_report(view, zh)
    if after is not None:
        return after
    last = _last_answer(view)
    if last is None:
        return None
    text, step = to_simplified(message_text(last)), str(last.response_metadata.get("step", ""))
    same = _same_for(view, step, zh)
    if same is not None:
        return same
    if _WHY.search(view.request):
        return _why(view, text, zh)
    if step == "supplier-info" and _AGAIN.search(view.request):  # "and Dunlop?"
        return lookups.supplier_info(view, zh, asked=True)
    if step == "inventory-answer":
        return _restock(view, text, zh)
    return None
