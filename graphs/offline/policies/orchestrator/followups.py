"""Short follow-ups that only make sense after the answer just given, read against it.

- **Why** ("为什么被拒了", "why not?") after an order that did not go through: the ERP's
  reasons again, as the refusal listed them, or that the buyer rejected the card.
- **The same question about another supplier** ("and Dunlop?", "那邓禄普呢") right after a
  supplier's record: that supplier's record.
- **Restock these** ("帮我补一下", "reorder them") right after a stock answer, naming no part:
  which part, how many and from whom, the parts just listed offered; nothing is ordered
  until the buyer says.

None when the message is not such a follow-up: it is then read on its own.
"""

from __future__ import annotations

import re

from langchain_core.messages import AIMessage, HumanMessage

from graphs.messages import is_notification, message_text
from graphs.offline import lexicon
from graphs.offline.history import View
from graphs.offline.policies.base import Decision, say
from graphs.offline.policies.orchestrator import lookups
from graphs.offline.policies.order.outcome import REJECTED
from graphs.offline.text import has_quantity, model_tokens

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


def follow_up(view: View, zh: bool) -> Decision | None:
    """The answer to a follow-up of the last answer, or None (see the module's docstring)."""
    last = _last_answer(view)
    if last is None:
        return None
    text, step = message_text(last), str(last.response_metadata.get("step", ""))
    if _WHY.search(view.request):
        return _why(view, text, zh)
    if step == "supplier-info" and _AGAIN.search(view.request):  # "and Dunlop?"
        return lookups.supplier_info(view, zh, asked=True)
    if step == "inventory-answer":
        return _restock(view, text, zh)
    return None
