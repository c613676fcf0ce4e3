"""The orchestrator's offline skill-management policy.

Step by step against stand-in tools (what it calls, with which arguments, when it stops),
then the whole cycle with the real ``assign_skill`` tool, a real sandbox and a Store:
a SKILL.md in a chat message ends up assigned and persisted, comes back in a new
thread's sandbox, is listed, and is removed again by naming it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.context import Context
from graphs.middleware.user_skills_restore import UserSkillsRestore
from graphs.offline import OfflinePlanner
from graphs.offline.policies.skills import named_agents, skill_document
from graphs.sandbox import check_bubblewrap
from graphs.tools.skills import make_assign_skill
from tests.unit.test_mw_support import agent, make_env, thread
from tests.unit.test_offline_world import TOOL_NAMES, World, converse, tools

check_bubblewrap()  # scripts/setup installs it; its absence is a failure, never a skip

# Its own text holds analysis and order words: they must not route the request.
SKILL = """---
name: tier-price-check
description: 比价分析时核对阶梯报价与订单数量，下单前确认 MOQ。
---
# Tier price check
For each supplier, pick the price tier that covers the order quantity.
"""


def step(messages: list[Any]) -> AIMessage:
    model = OfflinePlanner(policy="orchestrator").bind_tools(tools([*TOOL_NAMES, "assign_skill"]))
    reply = model.invoke(messages)
    assert isinstance(reply, AIMessage)
    return reply


def answer(messages: list[Any], reply: AIMessage, *texts: str) -> list[Any]:
    """``messages`` + the reply + one tool answer per call, in order."""
    out = [*messages, reply]
    for call, text in zip(reply.tool_calls, texts, strict=True):
        out.append(ToolMessage(text, tool_call_id=call["id"], name=call["name"]))
    return out


@pytest.mark.parametrize(
    ("request_text", "agent"),
    [
        (f"请把这个技能加给分析师：\n```markdown\n{SKILL}```", "analyst"),
        (f"Add this skill to the procurement-order agent:\n\n{SKILL}", "procurement-order"),
        (f"记住这个技能\n{SKILL}", "orchestrator"),  # no agent named: the orchestrator's
    ],
)
def test_a_skill_document_is_created_tested_and_assigned(request_text: str, agent: str) -> None:
    messages: list[Any] = [HumanMessage(request_text)]
    create = step(messages)
    [call] = create.tool_calls
    assert call["name"] == "assign_skill" and call["args"]["action"] == "create"
    assert call["args"]["name"] == "tier-price-check"
    assert call["args"]["content"] == SKILL

    messages = answer(messages, create, "Draft skill 'tier-price-check' written to ...")
    test = step(messages)
    assert [c["args"] for c in test.tool_calls] == [{"action": "test", "name": "tier-price-check"}]

    messages = answer(messages, test, "Skill 'tier-price-check': 1 file(s).\nResult: passed.")
    assign = step(messages)
    assert [c["args"] for c in assign.tool_calls] == [
        {"action": "assign", "name": "tier-price-check", "agent": agent}
    ]

    done = f"Skill 'tier-price-check' assigned to {agent}: ..."
    final = step(answer(messages, assign, done))
    assert not final.tool_calls and done in str(final.content)


def test_a_failing_step_ends_the_chain() -> None:
    messages: list[Any] = [HumanMessage(SKILL)]
    create = step(messages)
    messages = answer(messages, create, "Draft skill written.")
    test = step(messages)
    failed = "Skill 'tier-price-check': 2 file(s).\ntests/t.py: FAILED (exit 1)\nResult: FAILED"
    final = step(answer(messages, test, failed))
    assert not final.tool_calls
    assert "tests/t.py: FAILED" in str(final.content) and "未做后续步骤" in str(final.content)

    refused = step(answer([HumanMessage(SKILL)], create, "Error: SKILL.md not accepted: ..."))
    assert not refused.tool_calls and "not accepted" in str(refused.content)


LISTING = (
    "Assigned (kept across sessions):\n- moq-checker → analyst\n- tier-price-check → orchestrator\n"
    "Drafts in /skills/drafts/: tier-price-check"
)


def test_removing_a_named_skill_goes_through_the_listing() -> None:
    messages: list[Any] = [HumanMessage("把 moq-checker 技能删除")]
    lookup = step(messages)
    assert [c["args"] for c in lookup.tool_calls] == [{"action": "list"}]
    messages = answer(messages, lookup, LISTING)
    remove = step(messages)
    assert [c["args"] for c in remove.tool_calls] == [
        {"action": "remove", "name": "moq-checker", "agent": "analyst"}
    ]
    final = step(answer(messages, remove, "Skill 'moq-checker' removed from analyst."))
    assert "removed from analyst" in str(final.content)


def test_a_removal_naming_no_assigned_skill_changes_nothing() -> None:
    for text in ("remove the skill price-helper", "从订单代理删除 moq-checker 技能"):
        messages: list[Any] = [HumanMessage(text)]
        lookup = step(messages)
        final = step(answer(messages, lookup, LISTING))
        assert not final.tool_calls, text  # moq-checker is the analyst's, not the order agent's
        assert "moq-checker → analyst" in str(final.content)


def test_listing_skills_and_leaving_other_requests_alone() -> None:
    messages: list[Any] = [HumanMessage("列出我的技能")]
    lookup = step(messages)
    assert [c["args"] for c in lookup.tool_calls] == [{"action": "list"}]
    final = step(answer(messages, lookup, LISTING))
    assert LISTING in str(final.content)
    # Skills mentioned after an analysis word: still an analysis; before it, about skills.
    for text in (
        "用比价技能帮我对链轮做供应商比价分析",
        "Show me a sprocket price comparison using skills",
    ):
        world = World()
        converse("orchestrator", text, world, tools_extra=["assign_skill"])
        assert [n for n, _ in world.calls if n == "start_async_task"], text
    [call] = step([HumanMessage("把 moq-checker 技能从分析师移除")]).tool_calls
    assert call["args"] == {"action": "list"}
    # Front matter without a description is not a skill document.
    assert skill_document("---\nname: x-y\n---\nbody") is None
    assert named_agents("给 analyst 和订单代理") == ["procurement-order", "analyst"]


async def test_the_whole_cycle_with_the_real_tool(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    files = env.scoped()
    tool = make_assign_skill(sandbox=env.sandbox, files=files)

    async def chat(text: str, config: dict[str, Any]) -> dict[str, Any]:
        graph = agent(
            env,
            OfflinePlanner(policy="orchestrator"),  # type: ignore[arg-type]
            [UserSkillsRestore(files=files, sandbox=env.sandbox)],
            backend=files,
            tools=[tool],
        )
        return await graph.ainvoke(
            {"messages": [HumanMessage(text)]}, config, context=Context(user_id="u1")
        )

    def workspace(config: dict[str, Any]) -> Path:
        return Path(env.sandbox.for_thread(config["configurable"]["thread_id"]).root)  # type: ignore[attr-defined]

    first = thread()
    result = await chat(f"请把这个技能加给分析师：\n```markdown\n{SKILL}```", first)
    assert "assigned to analyst" in result["messages"][-1].text
    assigned = workspace(first) / "skills/procurement/tier-price-check/SKILL.md"
    assert assigned.read_text(encoding="utf-8") == SKILL
    stored = env.store.search(("files", "persisted-skills"))
    assert [i.key for i in stored] == ["/u1/procurement/tier-price-check/SKILL.md"]

    second = thread()  # a new thread, a new sandbox: restored from the Store
    result = await chat("列出我的技能", second)
    assert "- tier-price-check → analyst" in result["messages"][-1].text
    restored = workspace(second) / "skills/procurement/tier-price-check/SKILL.md"
    assert restored.read_text(encoding="utf-8") == SKILL

    result = await chat("remove the tier-price-check skill", second)
    assert "removed from analyst" in result["messages"][-1].text
    assert env.store.search(("files", "persisted-skills")) == []
    assert not restored.exists()
