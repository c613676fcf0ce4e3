"""Approvals and questions as the JSON-RPC client sees them, and the resume values its
answers become (rpc_adapter/interrupts.py); the graph side's shapes are core/interrupts.py."""

from __future__ import annotations

from typing import Any

import pytest

from rpc_adapter.interrupts import parse_resume, pending_interrupt
from rpc_adapter.protocol import RpcError

LINES = [{"part_id": 7, "quantity": 300}]
CARD = "供应商 NGK · 火花塞 IU7 × 200 · 单价 ¥38.50 · 合计 ¥7,700.00"
APPROVAL: dict[str, Any] = {
    "id": "i-approval",
    "value": {
        "action_requests": [
            {
                "name": "order_create",
                "args": {"supplier_id": 3, "lines": [{"part_id": 7, "quantity": 200}]},
                "description": CARD,
            }
        ],
        "review_configs": [
            {"action_name": "order_create", "allowed_decisions": ["approve", "edit", "reject"]}
        ],
    },
}
QUESTION: dict[str, Any] = {
    "id": "i-question",
    "value": {
        "type": "request_order_info",
        "fields": ["quantity"],
        "question": "要订多少个？",
        "options": ["100", "200"],
    },
}


def test_approval_notification_carries_the_card() -> None:
    pending = pending_interrupt(APPROVAL, "orchestrator", "t-1")
    frame = pending.notification()
    assert frame["method"] == "agent.interrupt" and "id" not in frame
    params = frame["params"]
    assert params == {
        "interrupt_id": "i-approval",
        "agent_id": "orchestrator",
        "thread_id": "t-1",
        "kind": "approval",
        "action": "order_create",
        "args": {"supplier_id": 3, "lines": [{"part_id": 7, "quantity": 200}]},
        "description": CARD,
        "allowed": ["approve", "edit", "reject"],
    }
    assert pending.notification(resent=True)["params"]["resent"] is True


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"decision": "approve"}, {"decisions": [{"type": "approve"}]}),
        (
            {"decision": "reject", "message": "太贵了"},
            {"decisions": [{"type": "reject", "message": "太贵了"}]},
        ),
        (
            {"decision": "edit", "args": {"supplier_id": 3, "lines": LINES}},
            {
                "decisions": [
                    {
                        "type": "edit",
                        "edited_action": {
                            "name": "order_create",
                            "args": {"supplier_id": 3, "lines": LINES},
                        },
                    }
                ]
            },
        ),
        ({"decisions": [{"type": "approve"}]}, {"decisions": [{"type": "approve"}]}),
    ],
)  # fmt: skip
def test_approval_answers_become_langchain_decisions(
    params: dict[str, Any], expected: dict[str, Any]
) -> None:
    pending = pending_interrupt(APPROVAL, "orchestrator", "t-1")
    assert pending.resume_value(parse_resume({"interrupt_id": "i-approval", **params})) == expected


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({}, "decision"),
        ({"decision": "edit"}, "args"),
        ({"decisions": [{"type": "approve"}, {"type": "approve"}]}, "2 given"),
        ({"decision": "maybe"}, "Invalid params"),
    ],
)
def test_bad_approval_answers_are_refused(params: dict[str, Any], says: str) -> None:
    pending = pending_interrupt(APPROVAL, "orchestrator", "t-1")
    with pytest.raises(RpcError) as err:
        pending.resume_value(parse_resume({"interrupt_id": "i-approval", **params}))
    assert err.value.code == -32602
    assert says in err.value.message or says in str(err.value.data)


def test_a_decision_the_card_does_not_allow_is_refused() -> None:
    value = {**APPROVAL["value"], "review_configs": [
        {"action_name": "order_create", "allowed_decisions": ["approve", "reject"]}
    ]}  # fmt: skip
    pending = pending_interrupt({"id": "x", "value": value}, "orchestrator", "t")
    with pytest.raises(RpcError) as err:
        pending.resume_value(parse_resume({"decision": "edit", "args": {"supplier_id": 4}}))
    assert err.value.data == {"allowed": ["approve", "reject"]}


def test_question_notification_and_answers() -> None:
    pending = pending_interrupt(QUESTION, "orchestrator", "t-2")
    params = pending.notification()["params"]
    assert params["kind"] == "question" and params["action"] == "request_order_info"
    assert params["description"] == "要订多少个？" and params["allowed"] == ["answer"]
    assert params["fields"] == ["quantity"] and params["options"] == ["100", "200"]
    assert pending.resume_value(parse_resume({"answer": {"quantity": 200}})) == {"quantity": 200}
    assert pending.resume_value(parse_resume({"answer": "两百个"})) == "两百个"
    with pytest.raises(RpcError):
        pending.resume_value(parse_resume({"answer": "  "}))


def test_unknown_interrupts_pass_through() -> None:
    pending = pending_interrupt({"id": "o", "value": {"ask": "anything"}}, "a", "t")
    assert pending.notification()["params"]["value"] == {"ask": "anything"}
    assert pending.resume_value(parse_resume({"resume": [1, 2]})) == [1, 2]


def test_per_call_approvals_and_respond() -> None:
    value = {
        "type": "tool_approval",
        "tool_call_id": "c1",
        "name": "order_update",
        "args": {"order_id": "PO1", "status": "cancelled"},
        "description": "取消订单 PO1",
    }
    pending = pending_interrupt({"id": "pc", "value": value}, "orchestrator", "t")
    params = pending.notification()["params"]
    assert params["kind"] == "approval" and params["description"] == "取消订单 PO1"
    # one decision, not a list, answers a per-call approval
    assert pending.resume_value(parse_resume({"decision": "approve"})) == {"type": "approve"}
    answered = pending.resume_value(parse_resume({"decision": "respond", "message": "已手工取消"}))
    assert answered == {"type": "respond", "message": "已手工取消"}
    with pytest.raises(RpcError):
        pending.resume_value(parse_resume({"decision": "respond"}))
