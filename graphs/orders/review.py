"""What the order agent knows about each order it proposes, kept in the agent's state.

The guard (:mod:`graphs.middleware.order_guard`) writes an :class:`OrderReview` per
proposed ``order_create`` / ``order_update`` call before any approval is asked; the
approval step (:mod:`graphs.middleware.order_approval`) reads it to build the card and
judge decisions, and writes a :class:`Decided` per call it let through. Both keys are
private to the order agent (never copied into the orchestrator's state).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired, TypedDict

from langchain.agents.middleware.human_in_the_loop import Action
from langchain.agents.middleware.types import AgentState, PrivateStateAttr

from graphs.orders.words import Lang

__all__ = [
    "CONTROL_ARGS",
    "EDITABLE",
    "IDENTITY_ARGS",
    "Decided",
    "OrderReview",
    "OrderReviewState",
    "content_of",
    "edit_problem",
    "edited_total",
    "same_lines",
]

IDENTITY_ARGS = ("requested_by", "approved_by", "actor")
"""Who asked, approved and acted: the graph fills these in; a model's values are dropped."""
CONFIRM_DUPLICATE = "confirm_duplicate"
CONTROL_ARGS = (CONFIRM_DUPLICATE,)
"""Arguments a reviewer adds to an edit to steer the approval; never sent to the ERP."""
EDITABLE = ("expected_date", "note")
"""Besides each line's quantity, what an approval's edit may change."""


class OrderReview(TypedDict):
    """The checks made on one proposed call, before anyone was asked to approve it."""

    tool: str
    message_id: str  # the AI message that proposed the call (a model may reuse call ids)
    args: dict[str, Any]  # the call as checked, without identity or control arguments
    lang: Lang
    requester: str  # the user the order is for (the run's user when it was proposed)
    check: dict[str, Any] | None  # the ERP's Validation answer; None when it gave none
    problem: str | None  # why the ERP could not check it (then the call is blocked)
    blocked: bool  # a hard violation or no check: never put up for approval
    duplicate: dict[str, Any] | None  # a recent order of the requester with the same lines
    replay_of: str | None  # the order this very call already created (same idempotency key)
    needs_approver: bool  # above the approval limit: someone other than the requester
    limit: str | None  # the limit that applies, as text (e.g. "50,000.00 CNY")


class Decided(TypedDict):
    """A decision the approval step accepted for one call."""

    decision: Literal["approve", "edit", "reject"]
    by: str  # the user id of who decided
    authenticated: bool  # their identity came from the server's auth, not a claim


def _merge(old: dict[str, Any] | None, new: dict[str, Any] | None) -> dict[str, Any]:
    return {**(old or {}), **(new or {})}


class OrderReviewState(AgentState[Any]):
    """The order agent's private state: reviews, accepted decisions, reviewer edits."""

    order_reviews: NotRequired[Annotated[dict[str, OrderReview], _merge, PrivateStateAttr]]
    order_decisions: NotRequired[Annotated[dict[str, Decided], _merge, PrivateStateAttr]]
    # HumanInTheLoopMiddleware's own key (its wrap_tool_call reads the reviewer's edits).
    hitl_edited_tool_calls: NotRequired[Annotated[dict[str, Action], PrivateStateAttr]]


def content_of(args: Mapping[str, Any]) -> dict[str, Any]:
    """A call's arguments without identity and control arguments (what the order says)."""
    return {k: v for k, v in args.items() if k not in IDENTITY_ARGS + CONTROL_ARGS}


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


def _quantities(lines: Any) -> dict[Any, Any]:
    if not isinstance(lines, list):
        return {}
    return {
        line.get("part_id"): line.get("quantity") for line in lines if isinstance(line, Mapping)
    }


def same_lines(a: Any, b: Any) -> bool:
    """Whether two line lists order the same quantities of the same parts."""
    qa, qb = _quantities(a), _quantities(b)
    return bool(qa) and {str(k): str(v) for k, v in qa.items()} == {
        str(k): str(v) for k, v in qb.items()
    }


def edit_problem(original: Mapping[str, Any], edited: Mapping[str, Any]) -> list[str]:
    """The arguments an edit changed that an approval's edit may not change (only each
    line's quantity, the delivery date and the note may change)."""
    before, after = content_of(original), content_of(edited)
    fixed = sorted((set(before) | set(after)) - {*EDITABLE, "lines"})
    changed = [k for k in fixed if _canonical(before.get(k)) != _canonical(after.get(k))]
    if "lines" in before or "lines" in after:
        old, new = _quantities(before.get("lines")), _quantities(after.get("lines"))
        if {str(k) for k in old} != {str(k) for k in new}:
            changed.append("lines (parts)")
    return changed


def edited_total(review: OrderReview, edited: Mapping[str, Any]) -> int | None:
    """The order total in minor units after an edit of quantities, priced as checked."""
    check = review.get("check") or {}
    order = check.get("order") or {}
    lines = order.get("lines") or []
    prices = {str(ln.get("part_id")): ln.get("unit_price_minor") for ln in lines}
    quantities = _quantities(edited.get("lines"))
    if not quantities:
        total = order.get("total_minor")
        return int(total) if isinstance(total, int) else None
    total_minor = 0
    for part_id, qty in quantities.items():
        price = prices.get(str(part_id))
        if not isinstance(price, int) or not isinstance(qty, int):
            return None
        total_minor += price * qty
    return total_minor
