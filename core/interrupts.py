"""The human-in-the-loop interrupts a person answers, as both sides of the process boundary
read them (DESIGN sections 4 and 8).

The graphs raise them; the JSON-RPC adapter (``rpc_adapter/interrupts.py``) turns each into
an ``agent.interrupt`` notification and an ``agent.resume`` back into a resume value; SDK
clients read the same shapes from ``thread["interrupts"]``.

- **Approval**: langchain's ``HumanInTheLoopMiddleware`` pauses before a committing tool
  with an :class:`ApprovalRequest` (one or more actions, each with its card text and the
  decisions allowed) and is resumed with an :class:`ApprovalResume`, one decision per
  action, in order. In its ``per_call`` mode it pauses once per call with a
  :class:`ToolApproval` instead, answered with one :class:`ApprovalDecision`.
- **Question**: ``request_order_info`` pauses with an :class:`OrderQuestion` (the fields
  missing, the question in the buyer's language, choices) and is resumed with the answer:
  a mapping of field to value, or plain text.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, TypeGuard

__all__ = [
    "ORDER_QUESTION",
    "ActionRequest",
    "ApprovalDecision",
    "ApprovalRequest",
    "ApprovalResume",
    "OrderQuestion",
    "ReviewConfig",
    "ToolApproval",
    "is_approval_request",
    "is_order_question",
    "is_tool_approval",
]

ORDER_QUESTION: Literal["request_order_info"] = "request_order_info"
"""``type`` of the question interrupt ``request_order_info`` raises."""


class OrderQuestion(TypedDict):
    """What ``request_order_info`` asks: the missing fields and the question to show."""

    type: Literal["request_order_info"]
    fields: list[str]
    question: str
    options: NotRequired[list[str]]


class ActionRequest(TypedDict):
    """One tool call waiting for approval, with the card text shown to the person."""

    name: str
    args: dict[str, Any]
    description: NotRequired[str]


class ReviewConfig(TypedDict):
    """The decisions a person may take on one action."""

    action_name: str
    allowed_decisions: list[str]


class ApprovalRequest(TypedDict):
    """The interrupt value of langchain's human-in-the-loop middleware."""

    action_requests: list[ActionRequest]
    review_configs: list[ReviewConfig]


class ToolApproval(TypedDict):
    """The ``per_call`` approval interrupt: one tool call."""

    type: Literal["tool_approval"]
    tool_call_id: str
    name: str
    args: dict[str, Any]
    description: str


class ApprovalDecision(TypedDict):
    """One decision: ``approve``; ``edit`` with ``edited_action`` (name and new args);
    ``reject`` with an optional ``message`` for the agent; ``respond`` with the ``message``
    that stands in for the tool's result."""

    type: Literal["approve", "edit", "reject", "respond"]
    edited_action: NotRequired[dict[str, Any]]
    message: NotRequired[str]


class ApprovalResume(TypedDict):
    """The resume value of an approval: one decision per action, in order."""

    decisions: list[ApprovalDecision]


def is_order_question(value: object) -> TypeGuard[OrderQuestion]:
    """Whether an interrupt's value is a ``request_order_info`` question."""
    return isinstance(value, dict) and value.get("type") == ORDER_QUESTION


def is_approval_request(value: object) -> TypeGuard[ApprovalRequest]:
    """Whether an interrupt's value is a human-in-the-loop approval request."""
    return (
        isinstance(value, dict)
        and isinstance(value.get("action_requests"), list)
        and bool(value["action_requests"])
    )


def is_tool_approval(value: object) -> TypeGuard[ToolApproval]:
    """Whether an interrupt's value is a ``per_call`` approval of one tool call."""
    return isinstance(value, dict) and value.get("type") == "tool_approval"
