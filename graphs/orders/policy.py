"""The approval policy (segregation of duties) and the duplicate guard's window.

Settings (env, ``.env``; documented in ``.env.example``):

- ``ORDER_APPROVER_ABOVE`` (default ``"CNY 50000, USD 7000"``): an order whose total is
  above its currency's amount needs an approver other than the requester, holding the
  :data:`graphs.context.APPROVE_PERMISSION` permission (``orders:approve``, granted by
  the shipped auth handler to ``AGENT_AUTH_APPROVERS``). A currency not listed always
  needs one (the policy fails closed). ``off`` turns the rule off.
- ``ORDER_DUPLICATE_WINDOW_HOURS`` (default 24): how far back an order of the same
  requester with the same supplier and lines counts as a likely duplicate.

With auth on, who decides is the authenticated caller and the rule is enforced: a
decision by the requester or by someone without the permission is refused and the
approval stays pending. Without auth nobody's identity can be checked, so the rule is
not enforced; who approved (the resuming run's user) is still recorded.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache
from typing import Any

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphs.context import APPROVE_PERMISSION, user_of
from graphs.orders.review import (
    CONFIRM_DUPLICATE,
    OrderReview,
    edit_problem,
    edited_total,
)
from graphs.orders.words import money, pick

__all__ = ["ApprovalPolicy", "Decider", "decider_of", "get_policy", "judge"]

_LIMIT = re.compile(r"^\s*([A-Za-z]{3})\s+([0-9][0-9_]*(?:\.[0-9]{1,2})?)\s*$")


def _parse_limits(text: str) -> dict[str, int]:
    """``"CNY 50000, USD 7000"`` → ``{"CNY": 5000000, "USD": 700000}`` (minor units).

    Entries are separated by ``,`` or ``;``; an amount may group digits with ``_``.
    """
    limits: dict[str, int] = {}
    for n, part in enumerate((p for p in re.split(r"[,;]", text) if p.strip()), start=1):
        m = _LIMIT.match(part)
        if m is None:
            msg = (
                f"ORDER_APPROVER_ABOVE: {part.strip()!r} (entry {n}) is not "
                "'CURRENCY AMOUNT', e.g. 'CNY 50000, USD 7000' (or 'off')"
            )
            raise ValueError(msg)
        try:
            amount = Decimal(m.group(2).replace("_", ""))
        except InvalidOperation as e:
            raise ValueError(f"ORDER_APPROVER_ABOVE: bad amount in {part!r}") from e
        limits[m.group(1).upper()] = int(amount * 100)
    return limits


class ApprovalPolicy(BaseSettings):
    """Who may approve what, and what counts as a duplicate (env, see the module doc)."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    approver_above: str = Field(
        default="CNY 50000, USD 7000",
        validation_alias=AliasChoices("ORDER_APPROVER_ABOVE", "approver_above"),
        description="Totals above which an approver other than the requester is needed.",
    )
    duplicate_window_hours: float = Field(
        default=24.0,
        ge=0,
        le=24 * 90,
        validation_alias=AliasChoices("ORDER_DUPLICATE_WINDOW_HOURS", "duplicate_window_hours"),
        description="An order with the same supplier and lines this recent is a likely duplicate.",
    )

    @field_validator("approver_above")
    @classmethod
    def _valid_limits(cls, value: str) -> str:
        if value.strip().lower() not in ("off", "none", ""):
            _parse_limits(value)
        return value

    @property
    def limits(self) -> dict[str, int] | None:
        """Minor units per currency; None when the rule is off."""
        if self.approver_above.strip().lower() in ("off", "none", ""):
            return None
        return _parse_limits(self.approver_above)

    def needs_approver(self, total_minor: int | None, currency: str | None) -> bool:
        """Whether an order of this total needs an approver other than its requester (an
        unknown total or an unlisted currency does: the rule fails closed)."""
        limits = self.limits
        if limits is None:
            return False
        limit = limits.get((currency or "").upper())
        return total_minor is None or limit is None or total_minor > limit

    def limit_text(self, currency: str | None) -> str | None:
        """The limit for ``currency`` as text, or None when there is none."""
        limits = self.limits or {}
        limit = limits.get((currency or "").upper())
        return money(limit, currency) if limit is not None else None


@lru_cache(maxsize=1)
def get_policy() -> ApprovalPolicy:
    """The process-wide policy, read once (tests build their own)."""
    return ApprovalPolicy()


@dataclass(frozen=True)
class Decider:
    """Who is deciding on an approval right now."""

    user_id: str
    authenticated: bool
    can_approve: bool


def decider_of(config: Mapping[str, Any], context: object) -> Decider:
    """The user of the run that carries a decision: with auth on, the authenticated caller
    (or the user a trusted service acts for) and their permissions; else the run's user."""
    configurable = config.get("configurable") or {}
    user_id, _name = user_of(context)
    permissions = configurable.get("langgraph_auth_permissions") or ()
    # Without an auth handler the server stores no user (and an empty identity).
    authenticated = configurable.get("langgraph_auth_user") is not None and bool(
        configurable.get("langgraph_auth_user_id")
    )
    return Decider(user_id, authenticated, APPROVE_PERMISSION in permissions)


def judge(
    decision: Mapping[str, Any],
    review: OrderReview,
    decider: Decider,
    policy: ApprovalPolicy,
) -> str | None:
    """Why ``decision`` on ``review`` cannot stand (a sentence in the buyer's language), or
    None when it may: a reject always may; an edit only changes quantities, the date and
    the note; a likely duplicate needs the edit's ``confirm_duplicate: true``; above the
    limit (after the edit), with auth on, the decider must not be the requester and must
    hold ``orders:approve``."""
    kind = decision.get("type")
    lang = review["lang"]
    if kind == "reject":
        return None
    args: Mapping[str, Any] = review["args"]
    if kind == "edit":
        action = decision.get("edited_action") or {}
        args = action.get("args") or {}
        bad = edit_problem(review["args"], args)
        if bad:
            return pick(
                lang,
                f"编辑只能改数量、到货日期和备注，不能改：{', '.join(bad)}。",
                f"An edit may change only quantities, the delivery date and the note, not: "
                f"{', '.join(bad)}.",
            )
    if (
        review.get("duplicate")
        and not review.get("replay_of")
        and args.get(CONFIRM_DUPLICATE) is not True
    ):
        return pick(
            lang,
            "这很可能是重复订单。确实要再下一单，请用“编辑”并加上 confirm_duplicate: true；"
            "否则请拒绝。",
            "This is likely a duplicate order. To place another one anyway, edit it and add "
            "confirm_duplicate: true; otherwise reject it.",
        )
    currency = ((review.get("check") or {}).get("order") or {}).get("currency")
    needed = policy.needs_approver(edited_total(review, args), currency)
    if not (needed and decider.authenticated):
        return None
    if decider.user_id == review["requester"]:
        return pick(
            lang,
            f"{decider.user_id} 是这张订单的申请人，不能自己批准超过审批限额的订单；"
            "需要另一位有审批权限（orders:approve）的人批准。",
            f"{decider.user_id} asked for this order and cannot approve it above the approval "
            "limit; another person with approval rights (orders:approve) must.",
        )
    if not decider.can_approve:
        return pick(
            lang,
            f"{decider.user_id} 没有审批权限（orders:approve），不能批准超过审批限额的订单。",
            f"{decider.user_id} lacks approval rights (orders:approve) for orders above the "
            "approval limit.",
        )
    return None
