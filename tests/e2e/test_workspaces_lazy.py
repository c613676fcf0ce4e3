"""Through langgraph dev: a greeting and an order thread make no sandbox workspace (their
reads come from the seed); an analysis makes one for its own thread only; no run logs
"Cannot load skills"."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph_sdk.client import LangGraphClient

from runstack.threads import FLAGSHIP_REQUEST, interrupts, poll, start_analysis, woken_answer
from tests.e2e.agents_stack import Stack

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

USER = {"user_id": "lazy-buyer"}


async def ask(client: LangGraphClient, text: str) -> dict[str, Any]:
    thread: Any = await client.threads.create()
    message: Any = {"messages": [{"role": "user", "content": text}]}
    await client.runs.wait(thread["thread_id"], "orchestrator", input=message, context=USER)
    return dict(await client.threads.get(thread["thread_id"]))


def workspaces(stack: Stack) -> set[str]:
    base = stack.data_dir / "sandboxes"
    return (
        {p.name for p in base.iterdir() if not p.name.startswith(".")} if base.exists() else set()
    )


async def test_only_threads_that_need_a_workspace_get_one(
    served: Stack, client: LangGraphClient
) -> None:
    before = workspaces(served)
    greeting = await ask(client, "你好")
    assert greeting["status"] == "idle"
    order = await ask(client, "给 NGK 下单 60 个火花塞 IU7")
    [approval] = interrupts(order)  # the order agent ran up to its approval
    assert approval["value"]["action_requests"][0]["name"] == "order_create"
    assert workspaces(served) == before  # neither made a workspace
    assert (served.data_dir / "sandboxes" / ".seed" / "skills" / "main").is_dir()

    analysis = await start_analysis(client, FLAGSHIP_REQUEST, USER)
    await poll(lambda: woken_answer(client, analysis.thread_id), 300, "the analysis", every=1)
    assert workspaces(served) == before | {analysis.task_id}  # the analyst's thread only
    assert served.agent is not None
    assert "Cannot load skills" not in served.agent.log_tail(100_000)
