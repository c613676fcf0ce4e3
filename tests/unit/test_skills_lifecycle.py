"""The skill lifecycle: create → test → assign → persist → restore in a new sandbox → remove."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepagents.backends.protocol import BackendProtocol
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage

from graphs.context import Context
from graphs.middleware.user_skills_restore import UserSkillsRestore
from graphs.sandbox import check_bubblewrap
from graphs.tools.skills import check_skill_md, make_assign_skill
from tests.unit.test_mw_support import Boom, Env, agent, call, make_env, recording, scripted, thread

# scripts/setup installs bubblewrap; its absence is a failure here, never a skip.
check_bubblewrap()

SKILL = """---
name: moq-checker
description: Check that an order quantity meets the supplier's minimum order quantity.
---
# MOQ checker
Run scripts/check.py with the quantity and the MOQ.
"""
CHECK = "import sys\nq, moq = map(int, sys.argv[1:3])\nprint('ok' if q >= moq else 'below MOQ')\n"
PASSING = "import subprocess, sys\nout = subprocess.run([sys.executable, 'scripts/check.py', '5', '3'], capture_output=True, text=True).stdout\nassert out.strip() == 'ok', out\nprint('passed')\n"  # noqa: E501
FAILING = "raise SystemExit('boom: expected failure')\n"


def _tool_texts(result: dict[str, Any]) -> list[str]:
    return [m.text for m in result["messages"] if isinstance(m, ToolMessage)]


async def _run(env: Env, user: str, *calls: dict[str, Any], config: Any = None) -> list[str]:
    tool = make_assign_skill(sandbox=env.sandbox, files=env.scoped())
    turns = [[dict(c, id=f"call_{i}")] for i, c in enumerate(calls)]
    mw = UserSkillsRestore(files=env.scoped(), sandbox=env.sandbox)
    graph = agent(env, scripted(*turns, "done"), [mw], backend=env.scoped(), tools=[tool])
    result = await graph.ainvoke(
        {"messages": [HumanMessage("skills")]}, config or thread(), context=Context(user_id=user)
    )
    return _tool_texts(result)


def _ws(env: Env, config: dict[str, Any]) -> Path:
    return Path(env.sandbox.for_thread(config["configurable"]["thread_id"]).root)  # type: ignore[attr-defined]


async def test_full_lifecycle(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    first = thread()
    texts = await _run(
        env,
        "u1",
        call("assign_skill", {"action": "create", "name": "moq-checker", "content": SKILL}),
        call(
            "write_file",
            {"file_path": "/skills/drafts/moq-checker/scripts/check.py", "content": CHECK},
        ),
        call(
            "write_file",
            {"file_path": "/skills/drafts/moq-checker/tests/test_check.py", "content": PASSING},
        ),
        call("assign_skill", {"action": "test", "name": "moq-checker"}),
        call("assign_skill", {"action": "assign", "name": "moq-checker", "agent": "analyst"}),
        call("assign_skill", {"action": "list"}),
        config=first,
    )
    assert "Draft skill 'moq-checker' written" in texts[0]
    assert "tests/test_check.py: passed" in texts[3] and "Result: passed" in texts[3]
    assert "assigned to analyst" in texts[4]
    assert "moq-checker → analyst" in texts[5]
    ws = _ws(env, first)
    assert (ws / "skills/procurement/moq-checker/scripts/check.py").read_text() == CHECK
    keys = sorted(i.key for i in env.store.search(("files", "persisted-skills")))
    assert keys == [
        "/u1/procurement/moq-checker/SKILL.md",
        "/u1/procurement/moq-checker/scripts/check.py",
        "/u1/procurement/moq-checker/tests/test_check.py",
    ]

    # A new thread is a new, empty sandbox: UserSkillsRestore brings the skill back.
    second = thread()
    tool = make_assign_skill(sandbox=env.sandbox, files=env.scoped())
    model = recording("hi", "hi again")
    graph = agent(
        env,
        model,
        [UserSkillsRestore(files=env.scoped(), sandbox=env.sandbox)],
        backend=env.scoped(),
        tools=[tool],
    )
    result = await graph.ainvoke(
        {"messages": [HumanMessage("hi")]}, second, context=Context(user_id="u1")
    )
    assert "Restored" in model.seen[0]
    assert "/skills/procurement/moq-checker/SKILL.md" in model.seen[0]
    assert (_ws(env, second) / "skills/procurement/moq-checker/SKILL.md").read_text() == SKILL
    assert not [m for m in result["messages"] if isinstance(m, SystemMessage)]
    # Already there: the next run restores nothing and says nothing.
    await graph.ainvoke({"messages": [HumanMessage("hi")]}, second, context=Context(user_id="u1"))
    assert "Restored" not in model.seen[1]

    # Another user has none of it.
    other = thread()
    texts = await _run(env, "u2", call("assign_skill", {"action": "list"}), config=other)
    assert "moq-checker" not in texts[0]
    assert not (_ws(env, other) / "skills/procurement/moq-checker").exists()

    texts = await _run(
        env,
        "u1",
        call("assign_skill", {"action": "remove", "name": "moq-checker", "agent": "analyst"}),
        config=second,
    )
    assert "removed from analyst" in texts[0]
    assert env.store.search(("files", "persisted-skills")) == []
    assert not (_ws(env, second) / "skills/procurement/moq-checker").exists()


async def test_failing_test_is_reported(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    texts = await _run(
        env,
        "u1",
        call("assign_skill", {"action": "create", "name": "moq-checker", "content": SKILL}),
        call(
            "write_file",
            {"file_path": "/skills/drafts/moq-checker/tests/test_x.py", "content": FAILING},
        ),
        call("assign_skill", {"action": "test", "name": "moq-checker"}),
    )
    assert "tests/test_x.py: FAILED" in texts[2] and "boom: expected failure" in texts[2]
    assert "Result: FAILED" in texts[2]


async def test_bad_input_comes_back_as_errors(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    texts = await _run(
        env,
        "u1",
        call("assign_skill", {"action": "create", "name": "Bad Name", "content": SKILL}),
        call("assign_skill", {"action": "create", "name": "other", "content": SKILL}),
        call("assign_skill", {"action": "assign", "name": "nothing-here", "agent": "analyst"}),
        call("assign_skill", {"action": "assign", "name": "moq-checker"}),
        call("assign_skill", {"action": "remove", "name": "moq-checker", "agent": "analyst"}),
    )
    assert texts[0].startswith("Error: name must be")
    assert "front matter name must be 'other'" in texts[1]
    assert "no draft" in texts[2]
    assert "needs agent" in texts[3]
    assert "no skill 'moq-checker' of yours" in texts[4]


async def test_builtin_skill_is_not_overwritten(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    config = thread()
    builtin = SKILL.replace("moq-checker", "web-content-fetcher")
    env.sandbox.for_thread(config["configurable"]["thread_id"]).upload_files(
        [("/skills/procurement/web-content-fetcher/SKILL.md", b"built-in")]
    )
    texts = await _run(
        env,
        "u1",
        call(
            "assign_skill", {"action": "create", "name": "web-content-fetcher", "content": builtin}
        ),
        call(
            "assign_skill", {"action": "assign", "name": "web-content-fetcher", "agent": "analyst"}
        ),
        config=config,
    )
    assert "built-in skill" in texts[1]
    assert (
        _ws(env, config) / "skills/procurement/web-content-fetcher/SKILL.md"
    ).read_text() == "built-in"


async def test_download_goes_through_the_fetcher(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    seen: list[str] = []

    async def fetch(url: str) -> tuple[str | None, str | None]:
        seen.append(url)
        return (SKILL, None) if url.endswith("ok.md") else (None, "HTTP 404")

    tool = make_assign_skill(sandbox=env.sandbox, files=env.scoped(), fetch=fetch)
    turns = [
        [
            call(
                "assign_skill",
                {"action": "download", "name": "moq-checker", "url": "https://x.test/ok.md"},
                0,
            )
        ],
        [
            call(
                "assign_skill",
                {"action": "download", "name": "moq-checker", "url": "https://x.test/no.md"},
                1,
            )
        ],
    ]
    graph = agent(env, scripted(*turns, "done"), [], backend=env.scoped(), tools=[tool])
    result = await graph.ainvoke(
        {"messages": [HumanMessage("dl")]}, thread(), context=Context(user_id="u1")
    )
    texts = _tool_texts(result)
    assert "written" in texts[0] and "HTTP 404" in texts[1]
    assert seen == ["https://x.test/ok.md", "https://x.test/no.md"]


def test_check_skill_md() -> None:
    assert check_skill_md(SKILL, "moq-checker") == []
    assert check_skill_md("no front matter", "x")[0].startswith("SKILL.md must start")
    assert any("description" in p for p in check_skill_md("---\nname: x\n---\nbody", "x"))
    assert any(
        "instructions" in p for p in check_skill_md("---\nname: x\ndescription: d\n---\n", "x")
    )


async def test_restore_fails_soft(tmp_path: Path) -> None:
    env = make_env(tmp_path)

    def broken() -> BackendProtocol:
        raise Boom("sandbox down")

    env.store.put(
        ("files", "persisted-skills"), "/u1/main/x/SKILL.md", {"content": "x", "encoding": "utf-8"}
    )
    graph = agent(env, scripted("fine"), [UserSkillsRestore(files=env.backend, sandbox=broken)])
    result = await graph.ainvoke(
        {"messages": [HumanMessage("hi")]}, thread(), context=Context(user_id="u1")
    )
    assert result["messages"][-1].text == "fine"


async def test_assigned_skill_is_visible_in_the_same_thread(tmp_path: Path) -> None:
    from deepagents import create_deep_agent
    from langgraph.checkpoint.memory import InMemorySaver

    from graphs.context import Context as Ctx

    env = make_env(tmp_path)
    skill = SKILL.replace("moq-checker", "order-notes")
    tool = make_assign_skill(sandbox=env.sandbox, files=env.scoped())
    model = scripted(
        [call("assign_skill", {"action": "create", "name": "order-notes", "content": skill}, 0)],
        [
            call(
                "assign_skill",
                {"action": "assign", "name": "order-notes", "agent": "orchestrator"},
                1,
            )
        ],
        "assigned",
        "next run",
    )
    graph: Any = create_deep_agent(
        model=model,
        tools=[tool],
        backend=env.scoped(),
        middleware=[UserSkillsRestore(files=env.scoped(), sandbox=env.sandbox)],
        skills=["/skills/main/"],
        context_schema=Ctx,
        store=env.store,
        checkpointer=InMemorySaver(),
        subagents=[],
    )
    config = thread()
    ctx = Ctx(user_id="u1")
    await graph.ainvoke({"messages": [HumanMessage("make it")]}, config, context=ctx)
    await graph.ainvoke({"messages": [HumanMessage("again")]}, config, context=ctx)
    state = (await graph.aget_state(config)).values
    assert [s["name"] for s in state["skills_metadata"]] == ["order-notes"]
