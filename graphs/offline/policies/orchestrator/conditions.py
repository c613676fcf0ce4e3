"""An order held back: made to wait on a condition ("order 200 IU7 from NGK if our stock is
below 150", "如果IU7库存低于150就给NGK下200个", "如果有零件低于安全库存，就帮我补货"), or
proposed for an opinion ("小李说要跟GZMT订100个IU7，你觉得呢", "we should probably order
100 IU7 from GZMT", "GZMT 订IU7 100个吗？"), or passed on as somebody else's plan or a
supplier's word ("老板打算下周跟GZMT订200个IU7，你先知道一下", "my manager will order 200 IU7
next friday, just fyi").

The planner does not judge the condition, nor decide for the buyer, and an approval card
for an order that may not be wanted is one careless click from a wrong order. So nothing is
ordered: the answer gives the facts (the named parts' stock, whether they need reordering,
and their prices; or the parts below safety stock when none is named) and says how to
order.
"""

from __future__ import annotations

import re

from graphs.offline.history import View
from graphs.offline.intent import Reading
from graphs.offline.policies.base import Decision, say
from graphs.offline.policies.orchestrator.erp import read_erp
from graphs.offline.policies.orchestrator.inventory import inventory, parts_read, verdict
from graphs.offline.policies.orchestrator.quote import quote
from graphs.offline.text import has_quantity

__all__ = ["held_order"]


def _opening(reading: Reading, zh: bool) -> str:
    if reading.held == "noted":
        return say(
            zh,
            "知道了。这是别人的安排或供应商的说法，不是让我下单，所以我没有下单。相关的库存和报价如下：",
            "Noted. That is somebody else's plan or a supplier's word, not an order for me to "
            "place, so no order was placed. Here are the stock and prices it concerns:",
        )
    if reading.held == "condition":
        return say(
            zh,
            "这个下单带有条件，条件是否满足要由你判断，所以我没有下单。相关的库存和报价如下：",
            "This order depends on a condition, and whether it holds is yours to judge, so no "
            "order was placed. Here are the stock and prices it depends on:",
        )
    return say(
        zh,
        "下不下这张单由你决定，我没有下单。供你参考的库存和报价如下：",
        "Whether to place this order is your call, so no order was placed. Here are the "
        "stock and prices to decide on:",
    )


def _closing(reading: Reading, zh: bool) -> str:
    if reading.held == "condition":
        return say(
            zh,
            "这次没有下单。条件满足时，去掉条件再发一次要下的单（供应商、零件、数量），"
            "我会先给你审批卡片。",
            "No order was placed. When the condition holds, send the order again without it "
            "(supplier, part, quantity) and I will prepare the approval card first.",
        )
    return say(
        zh,
        "这次没有下单。决定要下的话，直接说「给某供应商下某零件多少个」，我会先给你审批卡片。",
        "No order was placed. If you decide to order, say so with the supplier, part and "
        "quantity, and I will prepare the approval card first.",
    )


def held_order(view: View, reading: Reading, zh: bool) -> Decision:
    """The next step: read the ERP, then the facts and no order."""
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    found = erp.ground(view.request)
    counted = has_quantity(view.request) and re.search(r"\d", view.request) is not None
    if not (found.parts or found.categories or found.suppliers) and counted:
        # "200个够不够用一个月": a count of no part named, so nothing to judge it by
        return Decision(say(zh, "哪个零件的？请告诉我型号或 SKU（比如 IU7），我查它的库存和报价。",
                            "Of which part? Tell me its model or SKU (e.g. IU7) and I'll check "
                            "its stock and prices."), note="ask:part")  # fmt: skip
    if found.parts:
        decision = quote(view, reading, zh, closing=_closing(reading, zh), with_stock=True)
        if not decision.calls and reading.held == "advice":
            read = parts_read(view)
            verdicts = [verdict(read[int(m.record["id"])], zh) for m in found.parts[:5]
                        if isinstance(read.get(int(m.record["id"])), dict)]  # fmt: skip
            decision.text = "\n".join(verdicts) + "\n\n" + decision.text
    else:
        decision = inventory(view, zh)
        if not decision.calls:
            decision = Decision(f"{decision.text}\n\n{_closing(reading, zh)}", note=decision.note)
    if decision.calls:
        return decision  # still reading the ERP
    return Decision(f"{_opening(reading, zh)}\n\n{decision.text}", note="held-order")
