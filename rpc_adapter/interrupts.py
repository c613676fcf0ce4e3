"""Approvals and questions over JSON-RPC: ``agent.interrupt`` out, ``agent.resume`` back in.

When a run stops on a human-in-the-loop interrupt that is not a client-tool call, the
client gets one ``agent.interrupt`` notification per interrupt (DESIGN section 8)::

    {"interrupt_id": "...", "agent_id": "orchestrator", "thread_id": "...",
     "kind": "approval", "action": "order_create", "args": {...},
     "description": "<the approval card>", "allowed": ["approve", "edit", "reject"]}

    {"interrupt_id": "...", "kind": "question", "action": "request_order_info",
     "args": {"fields": ["quantity"], "question": "...", "options": [...]},
     "description": "<the question>", "allowed": ["answer"], "fields": [...]}

An approval with several actions (parallel calls) also lists them all in ``actions``.
The client answers with ``agent.resume``: ``{interrupt_id, decision: approve|edit|reject,
args?, message?}`` (or ``decisions: [...]``, one per action; ``respond`` with a
``message`` where the card allows it) for an approval, and
``{interrupt_id, answer}`` for a question (text, or an object of field → value).
Anything else the graph may raise is sent as ``kind: "other"`` with its ``value`` and
answered with ``{interrupt_id, resume}``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError

# pydantic validates it inside stored session records, and on 3.11 needs this TypedDict.
from typing_extensions import TypedDict

from core.interrupts import (
    ORDER_QUESTION,
    ApprovalDecision,
    ApprovalResume,
    is_approval_request,
    is_order_question,
    is_tool_approval,
)
from rpc_adapter.protocol import INVALID_PARAMS, RpcError, notification

__all__ = [
    "INTERRUPT_METHOD",
    "ActionCard",
    "DecisionParams",
    "PendingInterrupt",
    "ResumeParams",
    "parse_resume",
    "pending_interrupt",
]

INTERRUPT_METHOD = "agent.interrupt"

InterruptKind = Literal["approval", "question", "other"]
DecisionType = Literal["approve", "edit", "reject", "respond"]
_ALL_DECISIONS = ["approve", "edit", "reject", "respond"]


class ActionCard(TypedDict):
    """One thing the person decides on: the action, its arguments, the card text and the
    decisions allowed."""

    action: str
    args: dict[str, Any]
    description: str
    allowed: list[str]


class DecisionParams(BaseModel):
    """One decision on one action of an approval."""

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    decision: DecisionType = Field(
        validation_alias=AliasChoices("decision", "type"),
        description="approve, edit, reject or respond",
    )
    args: dict[str, Any] | None = Field(default=None, description="The edited arguments.")
    message: str | None = Field(
        default=None, description="Why it was rejected, or the answer that replaces the tool."
    )


class ResumeParams(BaseModel):
    """``agent.resume``'s params (see the module docstring)."""

    model_config = ConfigDict(extra="ignore")

    agent_id: str | None = None
    interrupt_id: str | None = Field(default=None, min_length=1)
    decision: DecisionType | None = None
    args: dict[str, Any] | None = None
    message: str | None = None
    decisions: list[DecisionParams] | None = None
    answer: Any = None
    resume: Any = Field(
        default=None,
        description="A raw resume value (for an interrupt of kind 'other', or the whole "
        "Command resume when no interrupt_id is given).",
    )


def _invalid(message: str, data: Any = None) -> RpcError:
    return RpcError(INVALID_PARAMS, f"Invalid params: {message}", data)


@dataclass
class PendingInterrupt:
    """An interrupt the agent's thread waits on, as the client sees it."""

    interrupt_id: str
    agent_id: str
    thread_id: str
    kind: InterruptKind
    actions: list[ActionCard]
    value: Any
    per_call: bool = False
    """langchain's ``per_call`` approval: answered with one decision, not a list."""

    def params(self) -> dict[str, Any]:
        """The ``agent.interrupt`` params."""
        params: dict[str, Any] = {
            "interrupt_id": self.interrupt_id,
            "agent_id": self.agent_id,
            "thread_id": self.thread_id,
            "kind": self.kind,
        }
        if self.actions:
            params.update(self.actions[0])
        if len(self.actions) > 1:
            params["actions"] = list(self.actions)
        if self.kind == "question":
            params["fields"] = list(self.value.get("fields") or [])
            if self.value.get("options"):
                params["options"] = list(self.value["options"])
        if self.kind == "other":
            params["value"] = self.value
        return params

    def notification(self, *, resent: bool = False) -> dict[str, Any]:
        """The ``agent.interrupt`` notification (``resent`` after a reconnect)."""
        params = self.params()
        if resent:
            params["resent"] = True
        return notification(INTERRUPT_METHOD, params)

    def resume_value(self, p: ResumeParams) -> Any:
        """The value that answers this interrupt; ``RpcError`` -32602 for a bad answer."""
        if self.kind == "question":
            if p.answer is None or (isinstance(p.answer, str) and not p.answer.strip()):
                raise _invalid("a question is answered with 'answer' (text or an object)")
            return p.answer
        if self.kind == "other":
            if p.resume is None:
                raise _invalid("this interrupt is answered with 'resume'")
            return p.resume
        return self._decisions(p)

    def _decisions(self, p: ResumeParams) -> ApprovalResume | ApprovalDecision:
        if p.decisions is not None:
            given = p.decisions
        elif p.decision is not None:
            if p.args is not None and len(self.actions) > 1:
                raise _invalid("several actions wait here: edit them with 'decisions'")
            given = [
                DecisionParams(decision=p.decision, args=p.args, message=p.message)
                for _ in self.actions
            ]
        else:
            raise _invalid("an approval is answered with 'decision' (approve, edit or reject)")
        if len(given) != len(self.actions):
            raise _invalid(
                f"{len(self.actions)} action(s) wait for a decision, {len(given)} given",
                {"actions": [a["action"] for a in self.actions]},
            )
        decisions = [_decision(d, a) for d, a in zip(given, self.actions, strict=True)]
        return decisions[0] if self.per_call else {"decisions": decisions}


def _decision(d: DecisionParams, card: ActionCard) -> ApprovalDecision:
    if d.decision not in card["allowed"]:
        raise _invalid(
            f"{d.decision!r} is not allowed for {card['action']}",
            {"allowed": card["allowed"]},
        )
    if d.decision == "approve":
        return {"type": "approve"}
    if d.decision == "edit":
        if not d.args:
            raise _invalid("an edit carries the new 'args' of the action")
        return {"type": "edit", "edited_action": {"name": card["action"], "args": d.args}}
    if d.decision == "respond":
        if not d.message:
            raise _invalid("a response carries the 'message' that replaces the tool's result")
        return {"type": "respond", "message": d.message}
    out: ApprovalDecision = {"type": "reject"}
    if d.message:
        out["message"] = d.message
    return out


def _approval_cards(value: Any) -> list[ActionCard]:
    configs = {c.get("action_name"): c for c in value.get("review_configs") or []}
    cards: list[ActionCard] = []
    for action in value["action_requests"]:
        name = str(action.get("name", ""))
        allowed = (configs.get(name) or {}).get("allowed_decisions") or _ALL_DECISIONS
        cards.append(
            {
                "action": name,
                "args": dict(action.get("args") or {}),
                "description": str(action.get("description") or ""),
                "allowed": [str(a) for a in allowed],
            }
        )
    return cards


def pending_interrupt(interrupt: dict[str, Any], agent_id: str, thread_id: str) -> PendingInterrupt:
    """The client's view of one interrupt of the Agent Server (``{"id", "value"}``)."""
    value = interrupt.get("value")
    iid = str(interrupt.get("id") or "")
    if is_approval_request(value):
        return PendingInterrupt(iid, agent_id, thread_id, "approval", _approval_cards(value), value)
    if is_tool_approval(value):
        one: ActionCard = {
            "action": str(value.get("name", "")),
            "args": dict(value.get("args") or {}),
            "description": str(value.get("description") or ""),
            "allowed": list(_ALL_DECISIONS),
        }
        return PendingInterrupt(iid, agent_id, thread_id, "approval", [one], value, per_call=True)
    if is_order_question(value):
        question = str(value.get("question") or "")
        args: dict[str, Any] = {
            k: value[k] for k in ("fields", "question", "options") if k in value
        }
        card: ActionCard = {
            "action": ORDER_QUESTION,
            "args": args,
            "description": question,
            "allowed": ["answer"],
        }
        return PendingInterrupt(iid, agent_id, thread_id, "question", [card], value)
    return PendingInterrupt(iid, agent_id, thread_id, "other", [], value)


def parse_resume(raw: Any) -> ResumeParams:
    """``agent.resume``'s params, validated; ``RpcError`` -32602 otherwise."""
    try:
        return ResumeParams.model_validate(raw)
    except ValidationError as exc:
        details = [
            {"field": ".".join(str(p) for p in e["loc"]), "error": e["msg"]} for e in exc.errors()
        ]
        raise RpcError(INVALID_PARAMS, "Invalid params", details) from None
