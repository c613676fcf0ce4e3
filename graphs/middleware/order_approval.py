"""Human approval of orders, in LangChain's standard shape, under the approval policy.

A :class:`~langchain.agents.middleware.HumanInTheLoopMiddleware` (batched mode: one
interrupt per model turn with ``action_requests`` + ``review_configs``, decisions
approve / edit / reject), so Studio, Agent Chat UI and the SDK show it unchanged, with
three differences:

- the ``description`` of each action is the order's card
  (:func:`graphs.orders.card.card_text`) from the review the guard wrote just before
  (:mod:`graphs.middleware.order_guard`, listed after this layer: ``after_model`` hooks
  run last-listed first, so the ERP's check always comes before the question);
- a call the guard already refused is not asked about;
- a decision that breaks the policy (:func:`graphs.orders.policy.judge`: the requester or
  a non-approver approving above the limit with auth on; a likely duplicate approved
  without ``confirm_duplicate``; an edit of anything but quantities, date and note) does
  not stand: the approval is asked again, pending, with the reason on top of the card.

Resuming replays every earlier answer of the same approval first; their verdicts are
kept in the Store (:mod:`graphs.orders.ledger`) so each is judged once, under the
identity of the run that sent it. Who decided is kept in the state for the guard to
record as ``approved_by``. While an approval waits for an approver, the thread is
flagged so approvers can find it (:mod:`graphs.orders.thread_flag`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain.agents.middleware import HumanInTheLoopMiddleware, InterruptOnConfig
from langchain.agents.middleware.human_in_the_loop import (
    Action,
    ActionRequest,
    HITLRequest,
    ReviewConfig,
)
from langchain.agents.middleware.types import AgentState
from langchain_core.messages import AIMessage, ToolCall, ToolMessage
from langgraph.config import get_config
from langgraph.errors import GraphInterrupt
from langgraph.runtime import Runtime
from langgraph.types import interrupt

from graphs.orders.card import card_text
from graphs.orders.ledger import ApprovalLedger, Verdict
from graphs.orders.policy import ApprovalPolicy, Decider, decider_of, get_policy, judge
from graphs.orders.review import Decided, OrderReview, OrderReviewState, content_of
from graphs.orders.thread_flag import AWAITING_APPROVER, DECIDED, ServerThreadFlag, ThreadFlag
from graphs.orders.words import Lang, pick

__all__ = ["ALLOWED_DECISIONS", "OrderApproval", "describe"]

logger = logging.getLogger(__name__)

ALLOWED_DECISIONS: list[Any] = ["approve", "edit", "reject"]
_GENERIC = "Committing an order change to the ERP needs your approval"


def describe(tool_call: ToolCall, state: Any, runtime: Any) -> str:
    """The ``description`` callable of the tools' ``InterruptOnConfig``: the order's card
    from the review the guard left in the state (LangChain's own request builder, used in
    its per-call mode, calls it; the batched path here builds the same card)."""
    review = (state.get("order_reviews") or {}).get(str(tool_call["id"]))
    return card_text(review) if review else _GENERIC


@dataclass(frozen=True)
class _Pending:
    """The calls of the newest model turn that wait for a human, with their reviews."""

    ai: AIMessage
    calls: list[ToolCall]
    reviews: dict[str, OrderReview]

    @property
    def key(self) -> str:
        # The message id too: a model may reuse a call id in a later turn.
        return f"{self.ai.id}/{self.calls[0]['id']}"

    def needs_approver(self) -> bool:
        return any(r.get("needs_approver") for r in self.reviews.values())


def _lang_of(review: OrderReview | None) -> Lang:
    return review["lang"] if review else "en"


def _thread_id() -> str:
    try:
        return str((get_config().get("configurable") or {}).get("thread_id") or "")
    except RuntimeError:
        return ""


class OrderApproval(HumanInTheLoopMiddleware[OrderReviewState, Any, Any]):
    """Approve / edit / reject each committing order call, with its card, under the policy."""

    state_schema = OrderReviewState

    def __init__(
        self,
        tools: Sequence[str],
        *,
        policy: ApprovalPolicy | None = None,
        flag: ThreadFlag | None = None,
    ) -> None:
        config = InterruptOnConfig(allowed_decisions=ALLOWED_DECISIONS, description=describe)
        super().__init__(interrupt_on={tool: config for tool in tools})
        # Read at graph build (off the event loop: settings read .env); a bad setting stops
        # the start-up with its name.
        self._policy = policy or get_policy()
        self._flag: ThreadFlag = flag or ServerThreadFlag()

    @property
    def policy(self) -> ApprovalPolicy:
        """The approval policy."""
        return self._policy

    # ---- what to ask ----------------------------------------------------------------------

    def _pending(self, state: Mapping[str, Any]) -> _Pending | None:
        messages = state.get("messages") or []
        answered: set[str] = set()
        for message in reversed(messages):
            if isinstance(message, ToolMessage):
                answered.add(str(message.tool_call_id))
            elif isinstance(message, AIMessage):
                reviews = state.get("order_reviews") or {}
                calls = [
                    c
                    for c in message.tool_calls
                    if c["name"] in self.interrupt_on
                    and str(c["id"]) not in answered
                    and not (reviews.get(str(c["id"])) or {}).get("blocked")
                ]
                if not calls:
                    return None
                mine = {
                    str(c["id"]): reviews[str(c["id"])]
                    for c in calls
                    if (reviews.get(str(c["id"])) or {}).get("message_id") == message.id
                }
                return _Pending(message, calls, mine)
        return None

    def _request(self, pending: _Pending, refusal: str | None) -> HITLRequest:
        actions: list[ActionRequest] = []
        configs: list[ReviewConfig] = []
        for call in pending.calls:
            review = pending.reviews.get(str(call["id"]))
            description = card_text(review, refusal=refusal) if review else _GENERIC
            if review is None and refusal:
                description = f"{refusal}\n\n{description}"
            actions.append(
                ActionRequest(
                    name=call["name"], args=content_of(call["args"]), description=description
                )
            )
            configs.append(
                ReviewConfig(action_name=call["name"], allowed_decisions=list(ALLOWED_DECISIONS))
            )
        return HITLRequest(action_requests=actions, review_configs=configs)

    # ---- judging answers ------------------------------------------------------------------

    def _refusal(
        self, pending: _Pending, decisions: Sequence[Mapping[str, Any]], decider: Decider
    ) -> str | None:
        """Why this set of decisions cannot stand, or None."""
        for call, decision in zip(pending.calls, decisions, strict=True):
            review = pending.reviews.get(str(call["id"]))
            lang = review["lang"] if review else "en"
            kind = decision.get("type") if isinstance(decision, Mapping) else None
            if kind not in ALLOWED_DECISIONS:
                return pick(lang, "只能选择批准、编辑或拒绝。", "Decide approve, edit or reject.")
            action = decision.get("edited_action") or {}
            if kind == "edit" and action.get("name") != call["name"]:
                return pick(
                    lang, "编辑不能换成别的操作。", "An edit cannot switch to another action."
                )
            if review is not None:
                refusal = judge(decision, review, decider, self.policy)
                if refusal:
                    return refusal
        return None

    @staticmethod
    def _decisions(response: Any, pending: _Pending) -> list[Mapping[str, Any]]:
        decisions = response.get("decisions") if isinstance(response, Mapping) else None
        if not isinstance(decisions, list) or len(decisions) != len(pending.calls):
            got = len(decisions) if isinstance(decisions, list) else 0
            msg = (
                f"Number of human decisions ({got}) does not match number of hanging tool "
                f"calls ({len(pending.calls)})."
            )
            raise ValueError(msg)
        return decisions

    def _settle(
        self, pending: _Pending, decisions: Sequence[Mapping[str, Any]], verdict: Verdict
    ) -> dict[str, Any]:
        """The state update of accepted decisions, as HumanInTheLoopMiddleware makes it,
        plus who decided."""
        answers: list[ToolMessage] = []
        edited: dict[str, Action] = {}
        decided: dict[str, Decided] = {}
        for call, decision in zip(pending.calls, decisions, strict=True):
            config = self.interrupt_on[call["name"]]
            _call, answer = self._process_decision(decision, call, config)  # type: ignore[arg-type]
            if answer is not None:
                answers.append(answer)
            if decision["type"] == "edit":
                edited[str(call["id"])] = decision["edited_action"]
            decided[str(call["id"])] = Decided(
                decision=decision["type"], by=verdict["by"], authenticated=verdict["authenticated"]
            )
        return {"messages": answers, "hitl_edited_tool_calls": edited, "order_decisions": decided}

    def _refused_for_good(self, pending: _Pending, refusal: str) -> dict[str, Any]:
        """Without a Store a refused decision cannot be asked again safely: the calls are
        answered as not approved (failing closed) instead."""
        logger.warning("order approval refused and no Store to keep it pending: %s", refusal)
        answers = [
            ToolMessage(
                pick(
                    _lang_of(pending.reviews.get(str(c["id"]))),
                    f"未获批准：{refusal}",
                    f"Not approved: {refusal}",
                ),
                name=c["name"],
                tool_call_id=c["id"],
                status="error",
            )
            for c in pending.calls
        ]
        return {"messages": answers}

    def _begin(
        self, state: AgentState[Any], runtime: Runtime[Any]
    ) -> tuple[_Pending, str, ApprovalLedger | None] | None:
        """What this turn asks approval for, its thread, and the ledger of verdicts (None
        without a Store); None when nothing needs approval."""
        pending = self._pending(state)
        if pending is None:
            return None
        store = getattr(runtime, "store", None)
        return pending, _thread_id(), ApprovalLedger(store) if store is not None else None

    # ---- the hooks ------------------------------------------------------------------------

    async def aafter_model(
        self, state: AgentState[Any], runtime: Runtime[Any]
    ) -> dict[str, Any] | None:
        """Ask for the decision (again while one breaks the policy); settle it."""
        begun = self._begin(state, runtime)
        if begun is None:
            return None
        pending, thread_id, ledger = begun
        attempt, refusal = 0, None
        while True:
            try:
                response = interrupt(self._request(pending, refusal))
            except GraphInterrupt:
                if pending.needs_approver():
                    await self._flag.mark(thread_id, AWAITING_APPROVER)
                raise
            decisions = self._decisions(response, pending)
            verdict = await ledger.aget(thread_id, pending.key, attempt) if ledger else None
            if verdict is None:
                verdict = self._judge(pending, decisions, runtime)
                if ledger is None and verdict["refusal"]:
                    return self._refused_for_good(pending, verdict["refusal"])
                if ledger is not None:
                    await ledger.aput(thread_id, pending.key, attempt, verdict)
            if verdict["refusal"] is None:
                break
            refusal, attempt = verdict["refusal"], attempt + 1
        if pending.needs_approver():
            await self._flag.mark(thread_id, DECIDED, decided_by=verdict["by"])
        return self._settle(pending, decisions, verdict)

    def after_model(self, state: AgentState[Any], runtime: Runtime[Any]) -> dict[str, Any] | None:
        """Sync twin of :meth:`aafter_model` (the thread is not flagged for approvers)."""
        begun = self._begin(state, runtime)
        if begun is None:
            return None
        pending, thread_id, ledger = begun
        attempt, refusal = 0, None
        while True:
            decisions = self._decisions(interrupt(self._request(pending, refusal)), pending)
            verdict = ledger.get(thread_id, pending.key, attempt) if ledger else None
            if verdict is None:
                verdict = self._judge(pending, decisions, runtime)
                if ledger is None and verdict["refusal"]:
                    return self._refused_for_good(pending, verdict["refusal"])
                if ledger is not None:
                    ledger.put(thread_id, pending.key, attempt, verdict)
            if verdict["refusal"] is None:
                break
            refusal, attempt = verdict["refusal"], attempt + 1
        return self._settle(pending, decisions, verdict)

    def _judge(
        self, pending: _Pending, decisions: Sequence[Mapping[str, Any]], runtime: Runtime[Any]
    ) -> Verdict:
        """The verdict on decisions arriving now, under the identity of this run."""
        try:
            config: Mapping[str, Any] = get_config()
        except RuntimeError:
            config = {}
        decider = decider_of(config, getattr(runtime, "context", None))
        refusal = self._refusal(pending, decisions, decider)
        if refusal:
            logger.info("approval by %s refused: %s", decider.user_id, refusal)
        return ApprovalLedger.verdict(refusal, decider.user_id, decider.authenticated)
