"""The ERP's dry run (``order_validate``) before the order agent proposes anything.

OrderGuard checks every committing call again before approval, whatever the model did;
the offline order policy asks first so that what it says never contradicts the ERP (its
preview quotes the ERP's price, total and earliest date, not a guess), and an order the
ERP would refuse is answered with the problem and its fix, in the buyer's language, with
the very sentences OrderGuard uses (:func:`graphs.orders.card.blocked_text`), and no
approval is asked for it.
"""

from __future__ import annotations

from typing import Any

from graphs.offline.policies.base import Decision
from graphs.offline.policies.order.facts import Facts
from graphs.orders.card import blocked_text, names_of
from graphs.orders.issues import Facts as IssueFacts
from graphs.orders.issues import issue_text
from graphs.orders.review import OrderReview
from graphs.orders.words import money, pick, unit_word

__all__ = ["TOOL", "checked_args", "preview", "refusal", "validated"]

TOOL = "order_validate"
Record = dict[str, Any]
# What the ERP's dry run takes of each committing call (the rest is identity and control).
_CHECKED = {
    "order_create": ("supplier_id", "lines", "expected_date", "note"),
    "order_update": ("order_id", "expected_version", "status", "lines", "expected_date", "note"),
}


def checked_args(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The part of a committing call's arguments the dry run checks."""
    return {k: args[k] for k in _CHECKED[tool] if args.get(k) is not None}


def validated(facts: Facts, tool: str, args: dict[str, Any]) -> Record | Decision | None:
    """The ERP's Validation of ``tool(args)``; the step that asks for it; or None when the
    agent has no ``order_validate`` (OrderGuard still checks the call itself)."""
    if not facts.view.has_tool(TOOL):
        return None
    checked = checked_args(tool, args)
    done = [r for r in facts.view.called(TOOL) if r.args == checked]
    if not done:
        return Decision(
            facts.say("先让 ERP 预检这张订单。", "Checking the order with the ERP first."),
            [(TOOL, checked)],
            note="validate",
        )
    data = done[-1].data() if done[-1].ok else None
    if isinstance(data, dict) and "ok" in data:
        return data
    review = _review(facts, tool, args, None)
    review["problem"] = done[-1].body
    return Decision(blocked_text(review), note="refused")


def _review(facts: Facts, tool: str, args: dict[str, Any], check: Record | None) -> OrderReview:
    return OrderReview(
        tool=tool, message_id="", args=checked_args(tool, args), lang=facts.lang,
        requester="", check=check, problem=None, blocked=True, duplicate=None,
        replay_of=None, needs_approver=False, limit=None,
    )  # fmt: skip


def refusal(facts: Facts, tool: str, args: dict[str, Any], check: Record) -> Decision:
    """The final answer for an order the ERP would refuse: each problem with its fix, then
    the order as understood (so the buyer sees what was checked)."""
    text = blocked_text(_review(facts, tool, args, check))
    if tool == "order_create" and (check.get("order") or {}).get("lines"):
        text += (
            "\n"
            + pick(facts.lang, "核对的订单：", "The order checked: ")
            + _order_line(facts, check)
        )
    return Decision(text, note="refused")


def _line(facts: Facts, line: Record) -> str:
    """One line of the ERP's preview: part name, SKU, quantity and unit."""
    name = line.get("name_zh") if facts.zh else line.get("name_en")
    unit = unit_word(line.get("unit"), facts.lang)
    sku, quantity = line.get("sku"), line.get("quantity")
    return (
        f"{name}（{sku}）× {quantity} {unit}" if facts.zh else f"{name} ({sku}) × {quantity} {unit}"
    )


def _order_line(facts: Facts, check: Record) -> str:
    who, _parts = names_of(check, facts.lang)
    lines = [_line(facts, ln) for ln in (check.get("order") or {}).get("lines") or []]
    return pick(facts.lang, f"{who}，{'；'.join(lines)}。", f"{who}: {'; '.join(lines)}.")


def _warnings(facts: Facts, check: Record) -> list[str]:
    lang = facts.lang
    who, parts = names_of(check, lang)
    out = []
    for issue in check.get("warnings") or []:
        if isinstance(issue, dict):
            issue_facts = IssueFacts(
                issue.get("details") or {}, issue.get("suggested") or {},
                tuple(issue.get("alternatives") or ()), who, parts,
            )  # fmt: skip
            out.append(issue_text(issue, lang, issue_facts))
    return out


def preview(facts: Facts, check: Record) -> str:
    """The proposed new order in a few words, from the ERP's priced preview."""
    lang = facts.lang
    order = check.get("order") or {}
    who, _parts = names_of(check, lang)
    lines = []
    for line in order.get("lines") or []:
        price = money(line.get("unit_price_minor"), line.get("currency") or order.get("currency"))
        lines.append(_line(facts, line) + pick(facts.lang, f"，单价 {price}", f" at {price}"))
    total = money(order.get("total_minor"), order.get("currency"))
    wanted, earliest = order.get("expected_date"), order.get("earliest_date")
    when = pick(
        lang,
        f"要求到货 {wanted}" if wanted else f"按交期最早 {earliest} 到货",
        f"wanted by {wanted}" if wanted else f"earliest delivery {earliest}",
    )
    text = pick(
        lang,
        f"准备下单：{who}，{'；'.join(lines)}，合计 {total}，{when}。",
        f"Ready to order from {who}: {'; '.join(lines)}, total {total}, {when}.",
    )
    warnings = _warnings(facts, check)
    if warnings:
        text += pick(lang, "提醒：", " Note: ") + pick(lang, "", " ").join(warnings)
    return text + pick(lang, "提交前需要你批准。", " Needs your approval first.")
