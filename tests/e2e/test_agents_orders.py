"""Orders end to end: langgraph dev + the LangGraph SDK + the real ERP, on the offline planner.

missing quantity → interrupt → resume → approval → exactly one order row; a repeated
run on the thread does not order twice; reject → no row; edit → the edited quantity.
"""

from __future__ import annotations

from typing import Any

import pytest
from langgraph_sdk.client import LangGraphClient

from runstack.threads import interrupts
from tests.e2e.agents_stack import Stack

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

USER = {"user_id": "buyer-1", "username": "Li Lei"}


async def run(client: LangGraphClient, thread_id: str, **kwargs: Any) -> dict[str, Any]:
    await client.runs.wait(thread_id, "orchestrator", context=USER, **kwargs)
    return await client.threads.get(thread_id)  # type: ignore[return-value]


async def last_message(client: LangGraphClient, thread_id: str) -> dict[str, Any]:
    state: Any = await client.threads.get_state(thread_id)
    return dict(state["values"]["messages"][-1])


def orders_noted(stack: Stack, note: str) -> list[dict[str, Any]]:
    """ERP orders whose note is ``note`` (the order agent copies the request into it)."""
    found = stack.erp_get("/orders/search-details", sku="SP-NGK-IU7", size=100)["items"]
    return [o for o in found if o.get("note") == note]


async def new_thread(client: LangGraphClient) -> str:
    return str((await client.threads.create())["thread_id"])


async def approval_for(client: LangGraphClient, request: str) -> tuple[str, dict[str, Any]]:
    """A new thread asked ``request``, and the approval its order waits for."""
    thread_id = await new_thread(client)
    thread = await run(
        client, thread_id, input={"messages": [{"role": "user", "content": request}]}
    )
    [approval] = interrupts(thread)
    return thread_id, approval


async def test_missing_quantity_interrupt_resume_approve_one_row(
    stack: Stack, client: LangGraphClient
) -> None:
    request = "给 NGK 下单火花塞 IU7，下周五前到货"
    thread_id = await new_thread(client)
    thread = await run(
        client, thread_id, input={"messages": [{"role": "user", "content": request}]}
    )
    [asked] = interrupts(thread)
    assert asked["value"]["type"] == "request_order_info"
    assert asked["value"]["fields"] == ["quantity"]

    thread = await run(client, thread_id, command={"resume": {"quantity": 200}})
    [approval] = interrupts(thread)
    action = approval["value"]["action_requests"][0]
    assert action["name"] == "order_create"
    assert action["args"]["lines"][0]["quantity"] == 200
    assert "idempotency_key" not in action["args"]  # the graph derives it, not the model
    note = action["args"]["note"]
    assert orders_noted(stack, note) == []  # nothing committed before approval

    thread = await run(client, thread_id, command={"resume": {"decisions": [{"type": "approve"}]}})
    assert thread["status"] == "idle"
    [order] = orders_noted(stack, note)
    assert order["supplier_code"] == "NGK" and order["status"] == "draft"
    assert [(ln["sku"], ln["quantity"]) for ln in order["lines"]] == [("SP-NGK-IU7", 200)]
    assert order["expected_date"]  # 下周五 was understood
    final = await last_message(client, thread_id)
    assert order["order_no"] in str(final["content"])
    assert final["response_metadata"]["offline_planner"] is True

    # The same order asked for again on this thread (a retry) replays, never duplicates.
    thread = await run(
        client, thread_id, input={"messages": [{"role": "user", "content": request}]}
    )
    thread = await run(client, thread_id, command={"resume": {"quantity": 200}})
    thread = await run(client, thread_id, command={"resume": {"decisions": [{"type": "approve"}]}})
    assert [o["order_no"] for o in orders_noted(stack, note)] == [order["order_no"]]


async def test_reject_leaves_no_row(stack: Stack, client: LangGraphClient) -> None:
    thread_id, approval = await approval_for(client, "Order 120 NGK spark plugs IU7 from NGK")
    note = approval["value"]["action_requests"][0]["args"]["note"]
    thread = await run(
        client, thread_id,
        command={"resume": {"decisions": [{"type": "reject", "message": "not now"}]}},
    )  # fmt: skip
    assert thread["status"] == "idle"
    assert orders_noted(stack, note) == []
    assert "reject" in str((await last_message(client, thread_id))["content"]).lower()


async def test_edit_commits_the_edited_quantity(stack: Stack, client: LangGraphClient) -> None:
    thread_id, approval = await approval_for(client, "Order 130 NGK spark plugs IU7 from NGK")
    args = dict(approval["value"]["action_requests"][0]["args"])
    args["lines"] = [{**args["lines"][0], "quantity": 350}]
    edit = {"type": "edit", "edited_action": {"name": "order_create", "args": args}}
    thread = await run(client, thread_id, command={"resume": {"decisions": [edit]}})
    assert thread["status"] == "idle"
    [order] = orders_noted(stack, args["note"])
    assert [ln["quantity"] for ln in order["lines"]] == [350]
