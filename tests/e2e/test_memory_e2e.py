"""Per-user memory end to end: langgraph dev + the SDK + the real services, offline planner.

Small talk leaves no memory; a procurement request naming an ERP supplier is merged
into ``/memories/{user_id}/preferences.md`` in the Store (suppliers and query, the
user's own text kept); two users get two files; the context note that points at the file
reaches the model (unit-tested) but is never stored in the thread; a restart of
``langgraph dev`` keeps it.
"""

from __future__ import annotations

from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from graphs.memory.preferences import parse_block
from tests.e2e.agents_stack import Stack, langgraph_dev
from tests.e2e.memory import MEMORIES, preferences, wait_for_memory

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]


async def ask(client: LangGraphClient, thread_id: str, text: str, user: str) -> list[Any]:
    prompt: Any = {"messages": [{"role": "user", "content": text}]}
    await client.runs.wait(thread_id, "orchestrator", input=prompt, context={"user_id": user})
    state: Any = await client.threads.get_state(thread_id)
    return list(state["values"].get("messages") or [])


def two_suppliers(stack: Stack) -> tuple[str, str]:
    items = stack.erp_get("/suppliers/search", name="", size=20, status="active")["items"]
    names = [s["name_zh"] for s in items if s.get("name_zh")]
    return names[0], names[1]


async def test_memory_per_user_and_across_a_restart(stack: Stack) -> None:
    first, second = two_suppliers(stack)
    with langgraph_dev(stack) as agent:
        async with get_client(url=agent.url, timeout=120) as client:
            thread = (await client.threads.create())["thread_id"]
            for small_talk in ("你好", "在吗", "你是谁"):
                await ask(client, thread, small_talk, "alice")
            assert await preferences(client, "alice") is None

            # The user's own notes, written before any memory.
            mine = "# Alice\n\n- 只要含税价\n"
            await client.store.put_item(
                MEMORIES, key="/alice/preferences.md", value={"content": mine, "encoding": "utf-8"}
            )
            request = f"查一下{first}最近的订单状态"
            msgs = await ask(client, thread, request, "alice")
            text = await wait_for_memory(client, "alice", first)
            recent, span = parse_block(text)
            assert recent.suppliers[0] == first
            assert recent.queries[0] == request
            assert span is not None and text.startswith(mine)

            other = (await client.threads.create())["thread_id"]
            await ask(client, other, f"查一下{second}最近的订单状态", "bob")
            bob = await wait_for_memory(client, "bob", second)
            assert first not in bob
            alice = await preferences(client, "alice")
            assert alice is not None and second not in alice

            assert not [m for m in msgs if m.get("type") == "system"]

    with langgraph_dev(stack) as agent:
        async with get_client(url=agent.url, timeout=120) as client:
            kept = await preferences(client, "alice")
            assert kept is not None and first in kept
