"""The approval card and the refusal, in the buyer's language, from an :class:`OrderReview`.

The card is the ``description`` of LangChain's standard human-in-the-loop request, so
Studio, Agent Chat UI and the SDK show it as it is: supplier name and code, each part's
name and SKU, quantity and unit, unit price, currency, line and order totals, the
requested and the earliest delivery date, the ERP's warnings, a likely duplicate, and
the approval rule that applies. A refused order gets the ERP's violations instead, each
with its fix, and is never put up for approval.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from graphs.orders.issues import Facts, issue_text
from graphs.orders.review import OrderReview
from graphs.orders.words import (
    ERROR_SENTENCES,
    Lang,
    explain_refusal,
    money,
    pick,
    status_word,
    unit_word,
)

__all__ = ["blocked_text", "card_text", "duplicate_text", "names_of"]


def names_of(check: Mapping[str, Any] | None, lang: Lang) -> tuple[str, dict[Any, str]]:
    """The supplier's display name and the parts' (by id and by SKU) from a Validation."""
    order = (check or {}).get("order") or {}
    supplier = order.get("supplier") or {}
    name = supplier.get("name_zh") if lang == "zh" else supplier.get("name_en")
    who = (
        f"{name}（{supplier.get('code')}）" if lang == "zh" else f"{name} ({supplier.get('code')})"
    )
    parts: dict[Any, str] = {}
    for line in order.get("lines") or []:
        label = line.get("name_zh") if lang == "zh" else line.get("name_en")
        text = f"{label}（{line.get('sku')}）" if lang == "zh" else f"{label} ({line.get('sku')})"
        parts[line.get("part_id")] = parts[line.get("sku")] = text
    return (who if supplier else ""), parts


def _facts(issue: Mapping[str, Any], check: Mapping[str, Any] | None, lang: Lang) -> Facts:
    who, parts = names_of(check, lang)
    details = issue.get("details") or {}
    unit = ""
    for line in ((check or {}).get("order") or {}).get("lines") or []:
        if line.get("part_id") == details.get("part_id") or line.get("sku") == details.get("sku"):
            unit = line.get("unit") or ""
    return Facts(
        details,
        issue.get("suggested") or {},
        tuple(issue.get("alternatives") or ()),
        who,
        parts,
        unit,
    )


def _issues(review: OrderReview, kind: str) -> list[str]:
    check = review.get("check") or {}
    return [
        "  - " + issue_text(issue, review["lang"], _facts(issue, check, review["lang"]))
        for issue in check.get(kind) or []
    ]


def _lines(order: Mapping[str, Any], lang: Lang) -> list[str]:
    out = []
    for n, line in enumerate(order.get("lines") or [], start=1):
        name = line.get("name_zh") if lang == "zh" else line.get("name_en")
        currency = line.get("currency") or order.get("currency")
        unit = unit_word(line.get("unit"), lang)
        price = money(line.get("unit_price_minor"), currency)
        amount = money(line.get("amount_minor"), currency)
        sku = line.get("sku")
        head = f"{name}（{sku}）" if lang == "zh" else f"{name} ({sku})"
        colon = "：" if lang == "zh" else ": "  # a full-width colon carries its own space
        out.append(f"  {n}. {head}{colon}{line.get('quantity')} {unit} × {price} = {amount}")
    return out


def duplicate_text(review: OrderReview) -> str | None:
    """The likely-duplicate (or already-placed) note of the card, if any."""
    lang, found = review["lang"], review.get("duplicate")
    if not found:
        return None
    order_no, status = found.get("order_no"), status_word(found.get("status"), lang)
    if review.get("replay_of"):
        return pick(
            lang,
            f"这张订单已经在 ERP 中：{order_no}（{status}）。批准只会取回它，不会重复下单。",
            f"This order is already in the ERP as {order_no} ({status}); approving returns it "
            "and places nothing new.",
        )
    when = str(found.get("created_at", "")).replace("T", " ").removesuffix("Z")
    total = money(found.get("total_minor"), found.get("currency"))
    return pick(
        lang,
        f"可能重复：{review['requester']} 在 {when}（UTC）已向同一供应商下过明细相同的订单 "
        f"{order_no}（{status}，{total}）。确实要再下一单，请用“编辑”并加上 "
        "confirm_duplicate: true；否则请拒绝。",
        f"Likely duplicate: {review['requester']} placed {order_no} with the same supplier and "
        f"lines at {when} UTC ({status}, {total}). To place another one anyway, edit and add "
        "confirm_duplicate: true; otherwise reject.",
    )


def _dates(review: OrderReview, order: Mapping[str, Any]) -> str:
    lang = review["lang"]
    current = (review.get("check") or {}).get("current") or {}
    wanted = review["args"].get("expected_date") or order.get("expected_date")
    if review["tool"] == "order_update" and "expected_date" in review["args"]:
        wanted = f"{current.get('expected_date') or '—'} → {review['args'].get('expected_date')}"
    earliest = order.get("earliest_date")
    lead = max((ln.get("lead_time_days") or 0 for ln in order.get("lines") or []), default=0)
    if lang == "zh":
        asked = f"要求 {wanted}" if wanted else "未指定日期（按交期）"
        return f"到货日期：{asked}；最早可到 {earliest or '—'}（交期 {lead} 天）"
    asked = f"requested {wanted}" if wanted else "no date requested (standard lead time)"
    return f"Delivery: {asked}; earliest {earliest or '—'} ({lead} days' lead time)"


def _head(review: OrderReview) -> list[str]:
    lang, args = review["lang"], review["args"]
    check = review.get("check") or {}
    who, _parts = names_of(check, lang)
    if review["tool"] != "order_update":
        return [pick(lang, "请审批：新建采购订单", "Approve: new purchase order"),
                pick(lang, f"供应商：{who}", f"Supplier: {who}")]  # fmt: skip
    current = check.get("current") or {}
    status = status_word(current.get("status"), lang)
    head = pick(
        lang,
        f"请审批：修改订单 {current.get('order_no')}"
        f"（现在：{status}，第 {current.get('version')} 版）",
        f"Approve: change to order {current.get('order_no')} (now {status}, version "
        f"{current.get('version')})",
    )
    changes = []
    if args.get("status"):
        new = status_word(args["status"], lang)
        changes.append(pick(lang, f"状态 {status} → {new}", f"status {status} → {new}"))
    if args.get("lines"):
        # Each line's quantity, before → after (the part by SKU): what the approver decides on.
        before = {
            ln.get("part_id"): ln for ln in current.get("lines") or [] if isinstance(ln, dict)
        }
        for line in args["lines"]:
            was = before.get(line.get("part_id"), {})
            sku = was.get("sku") or line.get("part_id")
            changes.append(
                pick(
                    lang,
                    f"{sku} 数量 {was.get('quantity', '—')} → {line.get('quantity')}",
                    f"{sku} quantity {was.get('quantity', '—')} → {line.get('quantity')}",
                )
            )
    if "expected_date" in args:
        changes.append(
            pick(
                lang,
                f"到货日期 {current.get('expected_date') or '—'} → "
                f"{args.get('expected_date') or '按交期'}",
                f"delivery date {current.get('expected_date') or '—'} → "
                f"{args.get('expected_date') or 'standard lead time'}",
            )
        )
    if "note" in args:
        changes.append(
            pick(lang, f"备注 → “{args.get('note') or ''}”", f'note → "{args.get("note") or ""}"')
        )
    return [head, pick(lang, f"供应商：{who}", f"Supplier: {who}"),
            pick(lang, "改动：", "Changes: ") + pick(lang, "；", "; ").join(changes)]  # fmt: skip


def card_text(review: OrderReview, *, refusal: str | None = None) -> str:
    """The approval card; ``refusal``: why the last decision did not stand (shown first)."""
    lang = review["lang"]
    order = (review.get("check") or {}).get("order") or {}
    after = review["tool"] == "order_update"
    out: list[str] = []
    if refusal:
        stop = pick(lang, "⚠ 上一次的决定没有生效：", "⚠ The last decision did not stand: ")
        out += [stop + refusal, ""]
    out += _head(review)
    out.append(
        pick(
            lang, "明细（修改后）：" if after else "明细：", "Lines (after):" if after else "Lines:"
        )
    )
    out += _lines(order, lang)
    total = money(order.get("total_minor"), order.get("currency"))
    out.append(pick(lang, f"订单总额：{total}", f"Order total: {total}"))
    out.append(_dates(review, order))
    if review["args"].get("note"):
        out.append(pick(lang, "备注：", "Note: ") + str(review["args"]["note"]))
    out.append(pick(lang, f"申请人：{review['requester']}", f"Requested by: {review['requester']}"))
    warnings = _issues(review, "warnings")
    if warnings:
        out += [pick(lang, "提醒：", "Warnings:"), *warnings]
    duplicate = duplicate_text(review)
    if duplicate:
        out.append(duplicate)
    if review.get("needs_approver"):
        limit = review.get("limit") or pick(lang, "审批限额", "the approval limit")
        out.append(
            pick(
                lang,
                f"审批规则：金额超过 {limit}，"
                "须由申请人以外、有审批权限（orders:approve）的人批准。",
                f"Approval rule: above {limit}, someone other than the requester with approval "
                "rights (orders:approve) must approve.",
            )
        )
    out.append(
        pick(
            lang,
            "可以：批准 / 编辑（只能改数量、到货日期、备注）/ 拒绝",
            "You can: approve / edit (quantity, delivery date, note only) / reject",
        )
    )
    return "\n".join(out)


def blocked_text(review: OrderReview) -> str:
    """Why the order was not put up for approval, each problem with its fix."""
    lang = review["lang"]
    if review.get("problem"):
        sentence, code = explain_refusal(str(review["problem"]), lang)
        if code == "VALIDATION" and sentence != pick(lang, *ERROR_SENTENCES["VALIDATION"]):
            # The ERP read the order and named what it does not take ("数量不能超过 1000000"):
            # that, with what was asked for, not "could not be checked".
            asked = [f"{ln['quantity']:,}" for ln in review["args"].get("lines") or []
                     if isinstance(ln, dict) and isinstance(ln.get("quantity"), int)]  # fmt: skip
            zh_asked = f"这张单的数量：{'、'.join(asked)}；" if asked else ""
            en_asked = f"quantity asked for: {', '.join(asked)}; " if asked else ""
            return pick(
                lang,
                f"没有提交审批：{sentence}（{zh_asked}代码 {code}）",
                f"Not put up for approval: {sentence} ({en_asked}code {code})",
            )
        return pick(
            lang,
            f"没有提交审批：无法向 ERP 核对这张订单。{sentence}（代码 {code}）"
            "为安全起见，未经核对的订单不会请求批准。",
            f"Not put up for approval: the order could not be checked with the ERP. {sentence} "
            f"(code {code}) An order that was not checked is never put up for approval.",
        )
    lines = _issues(review, "violations")
    if review["tool"] == "order_update":  # a change to an order, not an order to place
        head = pick(
            lang,
            "没有提交审批：ERP 预检发现这项修改做不了，原因和改法如下：",
            "Not put up for approval: the ERP's check found this change cannot be made. What is "
            "wrong, and how to fix it:",
        )
    else:
        head = pick(
            lang,
            "没有提交审批：ERP 预检发现这张订单不能下，原因和改法如下：",
            "Not put up for approval: the ERP's check found this order cannot be placed. What "
            "is wrong, and how to fix it:",
        )
    return "\n".join([head, *lines])
