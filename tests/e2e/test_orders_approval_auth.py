"""Segregation of duties on a real ``langgraph dev`` with the shipped auth handler.

Accounts: alice asks for orders, bob is an approver (``AGENT_AUTH_APPROVERS``), carol is
neither; orders above ``CNY 5000`` need an approver other than the requester. With two
tokens, through the SDK and ``scripts/approvals``:

- alice's own approval of her big order is refused, and the order stays pending;
- carol cannot see or answer alice's thread at all; bob cannot write to it, only answer;
- bob finds the pending approval among his thread search (``scripts/approvals list``),
  approves it, and the ERP holds exactly one order: requested by alice, approved by
  bob, its audit row's actor bob.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.errors import NotFoundError

from runstack.processes import ROOT
from runstack.threads import interrupts
from tests.e2e.agents_stack import Stack
from tests.e2e.auth_stack import authed_agent, authed_services, sdk_client

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

TOKENS = {
    "alice": "alice-token-0123456789abcdef",
    "bob": "bob-token-0123456789abcdef",
    "carol": "carol-token-0123456789abcdef",
}
SERVICE = ("ops-probe", "service-token-0123456789abcdef")
REQUEST = "给 NGK 下单 200 个火花塞 IU7"  # 200 × 54.30 = 10,860 CNY: above the limit


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    limits = {"AGENT_AUTH_APPROVERS": "bob", "ORDER_APPROVER_ABOVE": "CNY 5000"}
    with authed_services(TOKENS, SERVICE, **limits) as running:
        yield running


@pytest.fixture(scope="module")
def agent(stack: Stack) -> Iterator[Any]:
    with authed_agent(stack, SERVICE) as handle:
        yield handle


def client_for(agent: Any, who: str) -> LangGraphClient:
    return sdk_client(agent, TOKENS[who])


def approvals(agent: Any, who: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scripts.approvals", "--url", agent.url, "--token", TOKENS[who],
         *args],
        cwd=ROOT, text=True, capture_output=True, timeout=300, check=False,
    )  # fmt: skip


def alices_orders(stack: Stack) -> list[dict[str, Any]]:
    return stack.erp_get("/orders/search-details", requested_by="alice", size=100)["items"]


async def test_only_another_approver_can_approve_a_big_order(stack: Stack, agent: Any) -> None:
    alice, carol = client_for(agent, "alice"), client_for(agent, "carol")
    try:
        thread_id = str((await alice.threads.create())["thread_id"])
        message = {"messages": [{"role": "user", "content": REQUEST}]}
        await alice.runs.wait(thread_id, "orchestrator", input=message, context={})
        thread: Any = await alice.threads.get(thread_id)
        [pending] = interrupts(thread)
        card = pending["value"]["action_requests"][0]["description"]
        assert "审批规则：金额超过 5,000.00 CNY" in card and "申请人：alice" in card
        assert thread["metadata"].get("approval") == "awaiting_approver"

        approve = {"resume": {"decisions": [{"type": "approve"}]}}
        await alice.runs.wait(thread_id, "orchestrator", command=approve, context={})
        thread = await alice.threads.get(thread_id)
        assert thread["status"] == "interrupted"
        [pending] = interrupts(thread)
        card = pending["value"]["action_requests"][0]["description"]
        assert card.startswith("⚠ 上一次的决定没有生效：alice 是这张订单的申请人")
        assert alices_orders(stack) == []

        # carol holds no approval rights: alice's thread does not exist for her.
        with pytest.raises(NotFoundError):
            await carol.threads.get(thread_id)
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await carol.runs.wait(thread_id, "orchestrator", command=approve, context={})
        assert refused.value.response.status_code == 404
        assert interrupts(await alice.threads.get(thread_id))  # still pending
    finally:
        await alice.aclose()
        await carol.aclose()

    # bob may answer the approval, and nothing else on alice's thread.
    bob = client_for(agent, "bob")
    try:
        with pytest.raises(httpx.HTTPStatusError) as refused:
            await bob.runs.wait(thread_id, "orchestrator", input=message, context={})
        assert refused.value.response.status_code == 404
    finally:
        await bob.aclose()
    listed = approvals(agent, "bob", "list")
    assert listed.returncode == 0, listed.stderr
    assert thread_id in listed.stdout and "awaiting_approver" in listed.stdout
    assert thread_id not in approvals(agent, "carol", "list").stdout

    done = approvals(agent, "bob", "approve", thread_id)
    assert done.returncode == 0, done.stdout + done.stderr
    [order] = alices_orders(stack)
    assert (order["requested_by"], order["approved_by"], order["status"]) == (
        "alice",
        "bob",
        "approved",
    )
    audit = stack.erp_get("/audit", entity_id=order["id"])["items"]
    assert [(e["action"], e["actor"]) for e in audit] == [("order.create", "bob")]
    assert order["order_no"] in done.stdout  # the agent's confirmation, printed
    alice = client_for(agent, "alice")
    try:
        thread = await alice.threads.get(thread_id)
        assert thread["status"] == "idle" and thread["metadata"]["approval"] == "decided"
    finally:
        await alice.aclose()
    assert thread_id not in approvals(agent, "bob", "list").stdout
