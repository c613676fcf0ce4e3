"""Skills and artifacts end to end: langgraph dev + the SDK, offline planner, real sandbox.

SkillsSync puts the checkout's skills and ``/AGENTS.md`` into a thread's sandbox; a
skill persisted in the Store under one user is restored into that user's new
threads only, and still after a restart of ``langgraph dev``; the artifacts route
serves a thread's report and refuses paths outside the workspace.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from tests.e2e.agents_stack import Stack, langgraph_dev, services

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

SKILL = """---
name: moq-checker
description: Check an order quantity against the supplier's minimum order quantity.
---
# MOQ checker
Compare the quantity with the MOQ from part_by_supplier.
"""


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with services() as running:
        # Development only: lets the loopback test client use the artifacts route
        # without an auth handler (the owner check is unit-tested with one).
        running.env["ARTIFACTS_ALLOW_LOOPBACK_WITHOUT_AUTH"] = "true"
        yield running


async def hello(client: LangGraphClient, user: str) -> str:
    thread_id: str = (await client.threads.create(metadata={"owner": user}))["thread_id"]
    prompt: Any = {"messages": [{"role": "user", "content": "你好"}]}
    await client.runs.wait(thread_id, "orchestrator", input=prompt, context={"user_id": user})
    return thread_id


async def test_sync_restore_restart_and_artifacts(stack: Stack) -> None:
    with langgraph_dev(stack) as agent:
        client = get_client(url=agent.url, timeout=120)
        try:
            thread = await hello(client, "alice")
            ws = stack.workspace(thread)
            assert (ws / "skills/main/skill-management/SKILL.md").is_file()
            assert (ws / "AGENTS.md").read_text(encoding="utf-8").startswith("# 全局工作准则")

            await client.store.put_item(
                ["files", "persisted-skills"],
                key="/alice/procurement/moq-checker/SKILL.md",
                value={"content": SKILL, "encoding": "utf-8"},
            )
            restored = await hello(client, "alice")
            path = "skills/procurement/moq-checker/SKILL.md"
            assert (stack.workspace(restored) / path).read_text(encoding="utf-8") == SKILL
            assert not (stack.workspace(await hello(client, "bob")) / path).exists()

            (ws / "analysis").mkdir(exist_ok=True)
            (ws / "analysis" / "report_20260101.md").write_text("# report\n", encoding="utf-8")
            async with httpx.AsyncClient(base_url=agent.url, timeout=30) as http:
                ok = await http.get(f"/artifacts/{thread}/analysis/report_20260101.md")
                assert ok.status_code == 200 and ok.text == "# report\n"
                for bad in ("analysis/../../x", ".skills-sync.json", "skills/main/x"):
                    refused = await http.get(f"/artifacts/{thread}/{bad}")
                    assert refused.status_code in (400, 404), (bad, refused.text)
        finally:
            await client.aclose()

    with langgraph_dev(stack) as agent:
        client = get_client(url=agent.url, timeout=120)
        try:
            again = await hello(client, "alice")
            assert (stack.workspace(again) / path).read_text(encoding="utf-8") == SKILL
        finally:
            await client.aclose()
