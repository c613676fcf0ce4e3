"""Lazy workspaces: a thread gets a workspace only when it writes or runs something; until
then its reads (skills, /AGENTS.md) come from the seed SkillsSync keeps current. Workspaces
go with their thread, or once idle past the retention.

Real bubblewrap sandboxes on a temporary data folder; real SkillsSync; real agents.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from langchain_core.messages import HumanMessage

from graphs.context import Context
from graphs.middleware.skills_sync import SkillsSync
from graphs.sandbox import SandboxSettings, ThreadSandboxBackend, check_bubblewrap
from graphs.storage import SEED_FOLDER
from tests.unit.test_mw_support import agent, call, scripted, thread

check_bubblewrap()  # scripts/setup installs it: a failure here, never a skip


def _skills(root: Path) -> Path:
    skills = root / "skills"
    (skills / "main" / "alpha").mkdir(parents=True)
    (skills / "main" / "alpha" / "SKILL.md").write_text(
        "---\nname: alpha\ndescription: A\n---\nA\n"
    )
    (skills / "order").mkdir()
    (skills / "order" / "README.md").write_text("the order agent's skills\n")
    return skills


def _router(tmp_path: Path) -> ThreadSandboxBackend:
    settings = SandboxSettings(data_dir=tmp_path / "data")
    return ThreadSandboxBackend(settings=settings, seed=settings.sandboxes_dir / SEED_FOLDER)


def _workspaces(tmp_path: Path) -> list[str]:
    base = tmp_path / "data" / "sandboxes"
    return (
        sorted(p.name for p in base.iterdir() if not p.name.startswith("."))
        if base.exists()
        else []
    )


async def test_a_chat_that_only_reads_creates_no_workspace(tmp_path: Path) -> None:
    from deepagents.backends import CompositeBackend

    router = _router(tmp_path)
    sync = SkillsSync(sandbox=router, skills_dir=_skills(tmp_path), agents_md=None)
    backend = CompositeBackend(default=router, routes={})
    env = type("E", (), {"backend": backend, "store": None})()
    graph = agent(env, scripted([call("ls", {"path": "/skills/main/"})], "hello"), [sync])  # type: ignore[arg-type]
    config = thread()
    result = await graph.ainvoke(
        {"messages": [HumanMessage("你好")]}, config, context=Context(user_id="u1")
    )
    assert result["messages"][-1].text == "hello"
    listing = next(m for m in result["messages"] if m.type == "tool").text
    assert "/skills/main/alpha" in listing  # read from the seed
    assert _workspaces(tmp_path) == []  # nothing made for a greeting
    assert (tmp_path / "data" / "sandboxes" / SEED_FOLDER / "skills" / "main" / "alpha").is_dir()


async def test_the_first_write_creates_the_workspace_with_the_seed_in_it(tmp_path: Path) -> None:
    router = _router(tmp_path)
    sync = SkillsSync(sandbox=router, skills_dir=_skills(tmp_path), agents_md=None)
    config = thread()
    tid = config["configurable"]["thread_id"]
    env = type("E", (), {"backend": router, "store": None})()
    turns = scripted(
        [call("write_file", {"file_path": "/data/x.txt", "content": "x"})],
        [call("execute", {"command": "cat /skills/main/alpha/SKILL.md /data/x.txt"}, 1)],
        "done",
        "done again",
    )
    graph = agent(env, turns, [sync])  # type: ignore[arg-type]
    result = await graph.ainvoke(
        {"messages": [HumanMessage("go")]}, config, context=Context(user_id="u1")
    )
    executed = [m for m in result["messages"] if m.type == "tool"][-1].text
    assert "name: alpha" in executed and "A\nx\n" in executed
    assert _workspaces(tmp_path) == [tid]
    root = tmp_path / "data" / "sandboxes" / tid
    assert (root / "skills" / "main" / "alpha" / "SKILL.md").is_file()  # the seed, copied
    assert (root / ".skills-sync.json").is_file()  # so the next sync uploads nothing
    # The next run of the same thread syncs into its own workspace and changes nothing.
    before = (root / "skills" / "main" / "alpha" / "SKILL.md").stat().st_mtime_ns
    again = await graph.ainvoke(
        {"messages": [HumanMessage("again")]}, config, context=Context(user_id="u1")
    )
    assert again["messages"]
    assert (root / "skills" / "main" / "alpha" / "SKILL.md").stat().st_mtime_ns == before


def test_a_workspace_goes_with_its_thread(tmp_path: Path) -> None:
    router = _router(tmp_path)
    router.for_thread("t-gone").upload_files([("/data/a.txt", b"a")])
    router.for_thread("t-kept").upload_files([("/data/b.txt", b"b")])
    assert router.remove("t-gone") is True
    assert router.remove("t-gone") is False  # nothing left to remove
    assert _workspaces(tmp_path) == ["t-kept"]
    # The thread's backend is not a stale one: reading finds nothing, writing starts afresh.
    assert router.for_thread("t-gone").download_files(["/data/a.txt"])[0].error is not None


def test_idle_workspaces_are_swept_busy_and_recent_ones_kept(tmp_path: Path) -> None:
    router = _router(tmp_path)
    for tid in ("old", "recent"):
        router.for_thread(tid).upload_files([("/data/f.txt", b"f")])
    old = tmp_path / "data" / "sandboxes" / "old"
    past = time.time() - 3600
    os.utime(old, (past, past))
    assert router.sweep(max_idle_s=600) == ["old"]
    assert _workspaces(tmp_path) == ["recent"]
    # The seed is never swept.
    assert (tmp_path / "data" / "sandboxes" / SEED_FOLDER).is_dir()
