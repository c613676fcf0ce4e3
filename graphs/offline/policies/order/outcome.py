"""After a committing call: verify the order in the ERP, then confirm (or say why not)."""

from __future__ import annotations

from typing import Any

from graphs.offline.history import ToolResult
from graphs.offline.policies.base import Decision, say
from graphs.offline.policies.order.facts import Facts
from graphs.orders.issues import issue_sentence
from graphs.orders.words import Lang, explain_refusal, pick, status_word

__all__ = ["REJECTED", "after_commit", "first_order", "order_summary"]


def order_summary(order: dict[str, Any], zh: bool) -> str:
    """One order in a few lines: number, supplier, status, total, date, version, lines."""
    lines = order.get("lines") or []
    line_text = "\n".join(
        f"  - {ln.get('sku')} {ln.get('name_zh') if zh else ln.get('name_en')} × "
        f"{ln.get('quantity')} @ {ln.get('unit_price')} = {ln.get('amount', '')}"
        + _received(ln, zh)
        for ln in lines
        if isinstance(ln, dict)
    )
    supplier = order.get("supplier_name_zh") if zh else order.get("supplier_name_en")
    status = status_word(str(order.get("status") or ""), "zh" if zh else "en")
    head = say(
        zh,
        f"订单 {order.get('order_no')}（{supplier}）状态：{status}，"
        f"下单日期 {order.get('order_date', '')}，"
        f"金额 {order.get('total')} {order.get('currency')}，"
        f"预计到货 {order.get('expected_date') or '未指定'}，版本 {order.get('version')}",
        f"Order {order.get('order_no')} ({supplier}) status: {status}, ordered "
        f"{order.get('order_date', '')}, total {order.get('total')} {order.get('currency')}, "
        f"expected {order.get('expected_date') or 'not set'}, version {order.get('version')}",
    )
    return head + _people(order, zh) + ("\n" + line_text if line_text else "")


def _received(line: dict[str, Any], zh: bool) -> str:
    """What of a line has arrived ("（已收 40）"), when any has."""
    got = line.get("received_qty")
    if not isinstance(got, int) or got <= 0:
        return ""
    return say(zh, f"（已收 {got}）", f" (received {got})")


def _people(order: dict[str, Any], zh: bool) -> str:
    """Who asked for the order, who approved it and its note, as far as the ERP has them
    ("这个单是谁批的" is answered by the order itself)."""
    said = []
    for key, zh_word, en_word in (("requested_by", "申请人", "requested by"),
                                  ("approved_by", "批准人", "approved by")):  # fmt: skip
        if order.get(key):
            said.append(say(zh, f"{zh_word} {order[key]}", f"{en_word} {order[key]}"))
    if order.get("note"):
        said.append(say(zh, f"备注：{order['note']}", f"note: {order['note']}"))
    return ("\n" + ("；" if zh else "; ").join(said)) if said else ""


def first_order(result: ToolResult | None) -> dict[str, Any] | None:
    """The first order in an ``order_search_details`` (or create / update) result."""
    if result is None or not result.ok:
        return None
    data = result.data()
    if isinstance(data, dict):
        if isinstance(data.get("items"), list):
            items = [i for i in data["items"] if isinstance(i, dict)]
            return items[0] if items else None
        if "order_no" in data:
            return data
    return None


def _refused(result: ToolResult, lang: Lang) -> str:
    """Why a committing call did not run, in one clean sentence in the buyer's language.

    OrderGuard's refusals (not put up for approval; the ERP's refusal of an approved call)
    are already written for the buyer and are relayed as they are; a raw tool error
    (``Error ...``, English) is said through the order controls' own words, code kept.
    """
    body = result.body.strip()
    if not body.lower().startswith("error"):
        return body
    sentence, code = explain_refusal(body, lang, issue_sentence=issue_sentence)
    return pick(lang, f"ERP 没有执行：{sentence}（代码 {code}）",
                f"The ERP did not carry this out: {sentence} (code {code})")  # fmt: skip


# What the buyer is told when they rejected the approval card (the orchestrator relays it,
# and answers "为什么被拒了" from it).
REJECTED = ("你拒绝了这次操作，ERP 中没有做任何改动。",
            "You rejected the operation; nothing was changed in the ERP.")  # fmt: skip


def after_commit(facts: Facts, tool: str) -> Decision | None:
    """Once a committing call came back: verify it, then confirm (or explain the refusal)."""
    committed = facts.view.last_result(tool)
    if committed is None:
        return None
    if not committed.ok:
        if "rejected" in committed.content.lower():
            return Decision(facts.say(*REJECTED), note="rejected")
        return Decision(_refused(committed, facts.lang), note="erp-error")
    data = committed.data()
    order = data if isinstance(data, dict) else {}
    order_no = order.get("order_no")
    results = facts.view.results
    verified = [
        r
        for r in facts.view.called("order_search_details")
        if r.args.get("order_no") == order_no and results.index(r) > results.index(committed)
    ]
    if order_no and not verified:
        return Decision(
            facts.say(f"核对订单 {order_no}。", f"Verifying order {order_no}."),
            [("order_search_details", {"order_no": order_no})],
            note="verify",
        )
    final = (first_order(verified[-1]) if verified else None) or order
    done = {"order_create": ("已创建", "Created"), "order_update": ("已更新", "Updated")}[tool]
    return Decision(
        facts.say(f"{done[0]}并核对：\n", f"{done[1]} and verified:\n")
        + order_summary(final, facts.zh),
        note="confirmed",
    )
