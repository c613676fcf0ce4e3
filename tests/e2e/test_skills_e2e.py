"""Skills and artifacts end to end: langgraph dev + the SDK, offline planner, real sandbox.

SkillsSync puts the checkout's skills and ``/AGENTS.md`` into the sandboxes' seed (every
workspace, made on a thread's first write, starts as a copy of it); a
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

from graphs.storage import SEED_FOLDER
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
        async with get_client(url=agent.url, timeout=120) as client:
            thread = await hello(client, "alice")
            # A greeting makes no workspace (they are lazy): SkillsSync keeps the shared
            # seed current, which every workspace starts as a copy of.
            ws = stack.workspace(thread)
            assert not ws.exists()
            seed = stack.data_dir / "sandboxes" / SEED_FOLDER
            assert (seed / "skills/main/skill-management/SKILL.md").is_file()
            assert (seed / "AGENTS.md").read_text(encoding="utf-8").startswith("# 全局工作准则")

            await client.store.put_item(
                ["files", "persisted-skills"],
                key="/alice/procurement/moq-checker/SKILL.md",
                value={"content": SKILL, "encoding": "utf-8"},
            )
            restored = await hello(client, "alice")
            path = "skills/procurement/moq-checker/SKILL.md"
            assert (stack.workspace(restored) / path).read_text(encoding="utf-8") == SKILL
            assert not (stack.workspace(await hello(client, "bob")) / path).exists()

            # The restored skill was a write: that thread's workspace exists, seeded.
            made = stack.workspace(restored)
            assert (made / "skills/main/skill-management/SKILL.md").is_file()
            assert (made / "AGENTS.md").read_text(encoding="utf-8").startswith("# 全局工作准则")
            ws.mkdir(parents=True)  # as the first write of the greeted thread would
            (ws / "analysis").mkdir(exist_ok=True)
            (ws / "analysis" / "report_20260101.md").write_text("# report\n", encoding="utf-8")
            async with httpx.AsyncClient(base_url=agent.url, timeout=30) as http:
                ok = await http.get(f"/artifacts/{thread}/analysis/report_20260101.md")
                assert ok.status_code == 200 and ok.text == "# report\n"
                for bad in ("analysis/../../x", ".skills-sync.json", "skills/main/x"):
                    refused = await http.get(f"/artifacts/{thread}/{bad}")
                    assert refused.status_code in (400, 404), (bad, refused.text)

    with langgraph_dev(stack) as agent:
        async with get_client(url=agent.url, timeout=120) as client:
            again = await hello(client, "alice")
            assert (stack.workspace(again) / path).read_text(encoding="utf-8") == SKILL


async def say(client: LangGraphClient, thread_id: str, text: str, user: str) -> str:
    """One user message to the orchestrator; its final answer."""
    prompt: Any = {"messages": [{"role": "user", "content": text}]}
    await client.runs.wait(thread_id, "orchestrator", input=prompt, context={"user_id": user})
    state: Any = await client.threads.get_state(thread_id)
    last = state["values"]["messages"][-1]
    content = last["content"]
    return content if isinstance(content, str) else str(content)


async def test_a_skill_sent_in_chat_is_assigned_restored_and_removed(stack: Stack) -> None:
    # The whole assign_skill cycle driven by chat (the offline planner's skill policy):
    # create → test → assign to the analyst, kept in the Store, back in a new thread's
    # sandbox for the same user only, listed, then removed by naming it.
    skill = SKILL.replace("moq-checker", "lead-time-guard").replace(
        "minimum order quantity", "promised lead time"
    )
    path = "skills/procurement/lead-time-guard/SKILL.md"
    with langgraph_dev(stack) as agent:
        async with get_client(url=agent.url, timeout=120) as client:
            first = (await client.threads.create())["thread_id"]
            done = await say(client, first, f"请把这个技能分配给分析师：\n```\n{skill}```", "carol")
            assert "assigned to analyst" in done, done
            assert (stack.workspace(first) / path).read_text(encoding="utf-8") == skill
            item = await client.store.get_item(
                ["files", "persisted-skills"], key="/carol/procurement/lead-time-guard/SKILL.md"
            )
            assert item is not None and item["value"]["content"] == skill

            second = (await client.threads.create())["thread_id"]
            listing = await say(client, second, "列出我的技能", "carol")
            assert "- lead-time-guard → analyst" in listing
            assert (stack.workspace(second) / path).read_text(encoding="utf-8") == skill
            assert not (stack.workspace(await hello(client, "dave")) / path).exists()

            removed = await say(client, second, "删除 lead-time-guard 技能", "carol")
            assert "removed from analyst" in removed, removed
            found = await client.store.search_items(["files", "persisted-skills"], limit=50)
            assert not [i for i in found["items"] if "lead-time-guard" in i["key"]]
            assert not (stack.workspace(second) / path).exists()
