"""Words, not codes: the ERP's statuses and refusals in the buyer's language.

One table per kind of code, Chinese and English side by side, used by every message the
order agent's own code writes (approval cards, refusals, tool results) and open to the
offline planner and any other writer. The ERP keeps its codes; the buyer reads a
sentence, with the code kept in brackets for support.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal

__all__ = [
    "ERROR_SENTENCES",
    "STATUS_WORDS",
    "Lang",
    "alternatives_text",
    "explain_refusal",
    "money",
    "pick",
    "status_word",
    "supplier_status_word",
    "unit_word",
]

Lang = Literal["zh", "en"]

STATUS_WORDS: dict[str, tuple[str, str]] = {
    "draft": ("草稿", "draft"),
    "pending_approval": ("待审批", "awaiting approval"),
    "approved": ("已批准", "approved"),
    "partially_received": ("部分到货", "partially received"),
    "received": ("已到货", "received"),
    "closed": ("已关闭", "closed"),
    "cancelled": ("已取消", "cancelled"),
}
"""Every ERP order status (docs/erp_api.md "Order states") as (Chinese, English) words."""

_SUPPLIER_STATUS: dict[str, tuple[str, str]] = {
    "active": ("正常合作", "active"),
    "on_hold": ("暂停合作", "on hold"),
    "blocked": ("已停用", "blocked"),
}
_UNITS_EN = {"个": "pcs", "支": "pcs", "条": "pcs", "片": "pcs", "副": "pairs", "套": "sets"}

ERROR_SENTENCES: dict[str, tuple[str, str]] = {
    "VALIDATION": (
        "ERP 认为这个请求不符合它的规则，没有执行。",
        "The ERP found the request against its rules and did not carry it out.",
    ),
    "NOT_FOUND": (
        "ERP 里找不到请求里的订单、供应商或零件。",
        "The ERP has no such order, supplier or part.",
    ),
    "INVALID_TRANSITION": (
        "订单现在的状态不允许这样修改。",
        "The order's current status does not allow this change.",
    ),
    "IDEMPOTENCY_CONFLICT": (
        "这个下单请求的编号已经用于另一份内容不同的订单，ERP 没有再建新单。",
        "This order request's key was already used for a different order; no new order was made.",
    ),
    "VERSION_CONFLICT": (
        "订单在你查看之后被别人改过，请重新查询后再决定。",
        "Someone changed the order after you looked at it; look it up again before deciding.",
    ),
    "APPROVAL_REQUIRED": (
        "批准订单必须记录批准人。",
        "Approving an order needs the approver recorded.",
    ),
    "ERP_UNREACHABLE": (
        "暂时连不上 ERP，什么都没有提交；请稍后再试。",
        "The ERP cannot be reached right now; nothing was submitted. Try again shortly.",
    ),
    "ERP_TIMEOUT": (
        "ERP 没有及时回应，操作可能已经生效也可能没有；请先查询订单再决定是否重试。",
        "The ERP did not answer in time; the change may or may not have happened. Look the "
        "order up before trying again.",
    ),
    "ERP_ERROR": (
        "ERP 出了故障，什么都没有提交；请稍后再试，或联系 ERP 管理员。",
        "The ERP failed; nothing was submitted. Try again later or tell the ERP administrator.",
    ),
    "MCP_UNREACHABLE": (
        "连不上 ERP 服务（MCP 服务器），什么都没有提交；请运维启动它后再试。",
        "The ERP service (its MCP server) cannot be reached; nothing was submitted. Ask "
        "operations to start it, then try again.",
    ),
}
"""One sentence per ERP / tool error code, (Chinese, English)."""


def pick(lang: Lang, chinese: str, english: str) -> str:
    """The sentence in ``lang``."""
    return chinese if lang == "zh" else english


def status_word(status: str | None, lang: Lang) -> str:
    """An order status as a word in ``lang`` (an unknown code is shown as it is)."""
    words = STATUS_WORDS.get(status or "")
    return (words[0] if lang == "zh" else words[1]) if words else str(status or "")


def supplier_status_word(status: str | None, lang: Lang) -> str:
    """A supplier status (active / on_hold / blocked) as a word in ``lang``."""
    words = _SUPPLIER_STATUS.get(status or "")
    return (words[0] if lang == "zh" else words[1]) if words else str(status or "")


def unit_word(unit: str | None, lang: Lang) -> str:
    """The ERP's unit (``个``, ``套``, ...) in ``lang``."""
    if not unit:
        return ""
    return unit if lang == "zh" else _UNITS_EN.get(unit, unit)


def money(minor: int | None, currency: str | None) -> str:
    """``1086000, "CNY"`` → ``"10,860.00 CNY"`` (2 decimals: the ERP's currencies)."""
    if minor is None:
        return "?"
    sign = "-" if minor < 0 else ""
    whole, frac = divmod(abs(int(minor)), 100)
    return f"{sign}{whole:,}.{frac:02d} {currency or ''}".rstrip()


def alternatives_text(alts: Sequence[Mapping[str, Any]], lang: Lang, limit: int = 3) -> str:
    """Other suppliers with their offer, e.g. ``GZMT 广州…（54.85 CNY，起订 20，交期 6 天）``."""
    out: list[str] = []
    for a in alts[:limit]:
        name = a.get("supplier_name_zh") if lang == "zh" else a.get("supplier_name_en")
        price = f"{a.get('price')} {a.get('currency')}"
        if lang == "zh":
            out.append(
                f"{a.get('supplier_code')} {name}（单价 {price}，起订 {a.get('min_order_qty')}，"
                f"交期 {a.get('lead_time_days')} 天）"
            )
        else:
            out.append(
                f"{a.get('supplier_code')} {name} ({price} each, minimum "
                f"{a.get('min_order_qty')}, {a.get('lead_time_days')} days' lead time)"
            )
    return pick(lang, "；", "; ").join(out)


_CODE = re.compile(r"^(?:Error from [\w.-]+: |Error: )?([A-Z][A-Z_]+): (.*)$", re.S)
_DETAILS = re.compile(r" Details: (\{.*\})\s*$", re.S)


def _parse_refusal(text: str) -> tuple[str, str, dict[str, Any]]:
    """(code, ERP sentence, details) of a tool's error text."""
    text = text.strip()
    if text.startswith("Error: MCP server"):
        return "MCP_UNREACHABLE", text, {}
    m = _CODE.match(text)
    if m is None:
        return "", text, {}
    code, rest = m.group(1), m.group(2)
    details: dict[str, Any] = {}
    d = _DETAILS.search(rest)
    if d:
        try:
            parsed = json.loads(d.group(1))
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            details = parsed
        rest = rest[: d.start()]
    return code, rest.strip(), details


def explain_refusal(text: str, lang: Lang, *, issue_sentence: Any = None) -> tuple[str, str]:
    """``(sentence for the buyer, code for support)`` of an ERP tool's error text.

    ``issue_sentence(code, details, lang)`` (optional) words a broken order rule named in
    the ERP's details (``violation``) better than the general sentence of the error code.
    """
    code, _erp_sentence, details = _parse_refusal(text)
    violation = details.get("violation") if isinstance(details, dict) else None
    if violation and issue_sentence is not None:
        sentence = issue_sentence(str(violation), details, lang)
        if sentence:
            return sentence, f"{code}/{violation}"
    words = ERROR_SENTENCES.get(code)
    if words is None:
        return pick(lang, "ERP 没有执行这个操作。", "The ERP did not carry this out."), code or "?"
    fields = _field_problems(details, lang)
    if code == "VALIDATION" and fields:
        return pick(lang, f"ERP 不接受：{fields}。", f"The ERP does not accept it: {fields}."), code
    return pick(lang, *words), code


_FIELD_WORDS = {"quantity": ("数量", "quantity"), "expected_date": ("到货日期", "delivery date"),
                "note": ("备注", "note"), "supplier_id": ("供应商", "supplier"),
                "part_id": ("零件", "part"), "lines": ("订单明细", "order lines")}  # fmt: skip
_PROBLEMS_ZH = ((re.compile(r"must be at most (\S+)"), "不能超过 {}"),
                (re.compile(r"must be at least (\S+)"), "不能少于 {}"),
                (re.compile(r"must be (?:greater|more) than (\S+)"), "必须大于 {}"))  # fmt: skip


def _field_problems(details: dict[str, Any], lang: Lang) -> str:
    """The fields a VALIDATION error names, in the buyer's words ("数量不能超过 1000000";
    "quantity must be at most 1000000"); empty when it names none."""
    out: list[str] = []
    for error in details.get("errors") or []:
        if not isinstance(error, dict) or not error.get("problem"):
            continue
        field = str(error.get("field") or "").rsplit(".", 1)[-1]
        field = re.sub(r"\[\d+\]$", "", field)
        name = _FIELD_WORDS.get(field, (field, field))[0 if lang == "zh" else 1]
        problem = str(error["problem"])
        if lang == "zh":
            for pattern, words in _PROBLEMS_ZH:
                m = pattern.search(problem)
                if m:
                    problem = words.format(m.group(1))
                    break
            out.append(f"{name}{problem}")
        else:
            out.append(f"{name} {problem}")
    return ("；" if lang == "zh" else "; ").join(out)
