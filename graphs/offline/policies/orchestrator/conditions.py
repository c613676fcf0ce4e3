"""An order made to wait on a condition ("order 200 IU7 from NGK if our stock is below 150",
"如果IU7库存低于150就给NGK下200个", "如果有零件低于安全库存，就帮我补货").

The planner does not judge the condition for the buyer, and an approval card for an order
that may not be wanted is one careless click from a wrong order. So nothing is ordered:
the answer gives the facts such conditions are about (the named parts' stock and prices,
or the parts below safety stock when none is named) and says how to order when it holds.
"""

from __future__ import annotations

from graphs.offline.history import View
from graphs.offline.intent import Reading
from graphs.offline.policies.base import Decision, say
from graphs.offline.policies.orchestrator.erp import read_erp
from graphs.offline.policies.orchestrator.inventory import inventory
from graphs.offline.policies.orchestrator.quote import quote

__all__ = ["conditional_order"]


def _opening(zh: bool) -> str:
    return say(
        zh,
        "这个下单带有条件，条件是否满足要由你判断，所以我没有下单。相关的库存和报价如下：",
        "This order depends on a condition, and whether it holds is yours to judge, so no "
        "order was placed. Here are the stock and prices it depends on:",
    )


def _closing(zh: bool) -> str:
    return say(
        zh,
        "这次没有下单。条件满足时，去掉条件再发一次要下的单（供应商、零件、数量），我会先给你审批卡片。",
        "No order was placed. When the condition holds, send the order again without it "
        "(supplier, part, quantity) and I will prepare the approval card first.",
    )


def conditional_order(view: View, reading: Reading, zh: bool) -> Decision:
    """The next step: read the ERP, then the facts and no order."""
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    if erp.ground(view.request).parts:
        decision = quote(view, reading, zh, closing=_closing(zh), with_stock=True)
    else:
        decision = inventory(view, zh)
        if not decision.calls:
            decision = Decision(f"{decision.text}\n\n{_closing(zh)}", note=decision.note)
    if decision.calls:
        return decision  # still reading the ERP
    return Decision(f"{_opening(zh)}\n\n{decision.text}", note="conditional-order")
