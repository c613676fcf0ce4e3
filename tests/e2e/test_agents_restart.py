"""An order waiting for approval survives a restart of langgraph dev, and is placed once.

The in-memory runtime keeps its checkpoints in the server's folder; the idempotency
key is derived from the thread and the order, so a run repeated after the restart
replays the same ERP order instead of creating a second one.
"""

from __future__ import annotations

from typing import Any

import pytest
from langgraph_sdk import get_client

from runstack.threads import ended, interrupts
from tests.e2e.agents_stack import Stack, langgraph_dev

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

USER = {"user_id": "buyer-9"}
REQUEST = "给 NGK 下单 240 个火花塞 IU7"


async def ask(stack: Stack, thread_id: str, **kwargs: Any) -> dict[str, Any]:
    async with get_client(url=stack.url) as client:
        await client.runs.wait(thread_id, "orchestrator", context=USER, **kwargs)
        thread: Any = await client.threads.get(thread_id)
        return dict(thread)


def rows(stack: Stack, note: str) -> list[str]:
    found = stack.erp_get("/orders/search-details", sku="SP-NGK-IU7", size=100)["items"]
    return [o["order_no"] for o in found if o.get("note") == note]


async def test_approval_after_a_restart_places_the_order_once(stack: Stack) -> None:
    message = {"messages": [{"role": "user", "content": REQUEST}]}
    with langgraph_dev(stack) as first:
        stack.agent = first
        async with get_client(url=stack.url) as client:
            thread_id = str((await client.threads.create())["thread_id"])
        thread = await ask(stack, thread_id, input=message)
        found = interrupts(thread)
        assert len(found) == 1, f"{ended(thread)}\n{stack.complaints()}"
        [approval] = found
        note = approval["value"]["action_requests"][0]["args"]["note"]
    with langgraph_dev(stack) as second:  # same folder: same checkpoints
        stack.agent = second
        async with get_client(url=stack.url) as client:
            thread_after: Any = await client.threads.get(thread_id)
        assert thread_after["status"] == "interrupted"
        approve = {"resume": {"decisions": [{"type": "approve"}]}}
        thread = await ask(stack, thread_id, command=approve)
        assert thread["status"] == "idle"
        placed = rows(stack, note)
        assert len(placed) == 1
        # The whole request again on the same thread (a client retrying): same order.
        await ask(stack, thread_id, input=message)
        await ask(stack, thread_id, command=approve)
        assert rows(stack, note) == placed
