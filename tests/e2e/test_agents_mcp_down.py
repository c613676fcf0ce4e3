"""An ERP MCP server that is down gives a tool error naming it, not a broken graph; once it
is started the same graph picks its tools up without a restart."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from langgraph_sdk import get_client

from runstack.processes import HOST, free_port, start_service
from runstack.threads import interrupts
from tests.e2e.agents_stack import Stack, langgraph_dev

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

REQUEST = "给 NGK 下单 60 个火花塞 IU7"


async def ask(url: str, thread_id: str, **kwargs: Any) -> dict[str, Any]:
    async with get_client(url=url) as client:
        await client.runs.wait(thread_id, "orchestrator", context={"user_id": "u"}, **kwargs)
        thread: Any = await client.threads.get(thread_id)
        state: Any = await client.threads.get_state(thread_id)
        return {"thread": thread, "last": state["values"]["messages"][-1]}


async def test_down_then_back(stack: Stack) -> None:
    port = free_port()  # nothing listens here yet
    stack.env["ERP_MCP_URL"] = f"http://{HOST}:{port}/mcp"
    message = {"messages": [{"role": "user", "content": REQUEST}]}
    with langgraph_dev(stack) as agent:
        async with get_client(url=agent.url) as client:
            thread_id = str((await client.threads.create())["thread_id"])
        first = await ask(agent.url, thread_id, input=message)
        assert first["thread"]["status"] == "idle"  # the graph ran to an answer
        text = str(first["last"]["content"])
        assert "MCP server 'erp'" in text and "python -m mcp_erp" in text

        env = {**stack.env, "ERP_MCP_PORT": str(port), "ERP_BASE_URL": stack.erp.url}
        with start_service("mcp_erp", env, port, timeout=30):
            await asyncio.sleep(3.5)  # the registry retries a down server after 3 s
            second = await ask(agent.url, thread_id, input=message)
            [approval] = interrupts(second["thread"])
            assert approval["value"]["action_requests"][0]["name"] == "order_create"
