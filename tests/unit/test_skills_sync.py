"""SkillsSync against the real bubblewrap sandbox: incremental by content hash, one message."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from deepagents.backends.protocol import BackendProtocol, FileUploadResponse
from langchain_core.messages import HumanMessage, SystemMessage

from graphs.context import Context
from graphs.middleware.skills_sync import (
    AGENTS_MD,
    MANIFEST_PATH,
    LocalTree,
    SkillsSync,
    sync_tree,
)
from graphs.sandbox import check_bubblewrap, make_bubblewrap_sandbox
from graphs.sandbox.settings import SandboxSettings
from tests.unit.test_mw_support import Boom, agent, make_env, recording, scripted, thread

# scripts/setup installs bubblewrap; its absence is a failure here, never a skip.
check_bubblewrap()


class Spy(BackendProtocol):
    """A sandbox backend that records what is uploaded."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.uploaded: list[str] = []

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        self.uploaded.extend(p for p, _ in files if p != MANIFEST_PATH)
        return self.inner.upload_files(files)

    def download_files(self, paths: list[str]) -> Any:
        return self.inner.download_files(paths)

    def delete(self, file_path: str) -> Any:
        return self.inner.delete(file_path)


def _tree(root: Path) -> Path:
    skills = root / "skills"
    (skills / "main" / "alpha").mkdir(parents=True)
    (skills / "procurement" / "beta" / "scripts").mkdir(parents=True)
    (skills / "main" / "alpha" / "SKILL.md").write_text("---\nname: alpha\n---\nA\n")
    (skills / "procurement" / "beta" / "SKILL.md").write_text("---\nname: beta\n---\nB\n")
    (skills / "procurement" / "beta" / "scripts" / "run.py").write_text("print(1)\n")
    (skills / "procurement" / "beta" / "__pycache__").mkdir()
    (skills / "procurement" / "beta" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    return skills


def _touch_changed(path: Path, text: str) -> None:
    path.write_text(text)
    # A distinct mtime even on coarse-timestamp filesystems.
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


@pytest.fixture
def sandbox(tmp_path: Path) -> Spy:
    settings = SandboxSettings(data_dir=tmp_path / "data")
    return Spy(make_bubblewrap_sandbox("sync-thread", settings=settings))


def test_first_sync_uploads_all_then_nothing(tmp_path: Path, sandbox: Spy) -> None:
    tree = LocalTree(_tree(tmp_path), extra={"/AGENTS.md": AGENTS_MD})
    first = sync_tree(tree, sandbox)
    assert sorted(first.added) == [
        "/AGENTS.md",
        "/skills/main/alpha/SKILL.md",
        "/skills/procurement/beta/SKILL.md",
        "/skills/procurement/beta/scripts/run.py",
    ]
    root = sandbox.inner.root
    assert (root / "skills/procurement/beta/scripts/run.py").read_text() == "print(1)\n"
    assert (root / "AGENTS.md").read_text() == AGENTS_MD.read_text()
    assert not (root / "skills/procurement/beta/__pycache__").exists()
    sandbox.uploaded.clear()
    second = sync_tree(tree, sandbox)
    assert not second.changed and second.unchanged == 4
    assert sandbox.uploaded == []


def test_one_changed_file_is_the_only_upload(tmp_path: Path, sandbox: Spy) -> None:
    skills = _tree(tmp_path)
    tree = LocalTree(skills)
    sync_tree(tree, sandbox)
    sandbox.uploaded.clear()
    _touch_changed(skills / "main" / "alpha" / "SKILL.md", "---\nname: alpha\n---\nA2\n")
    report = sync_tree(tree, sandbox)
    assert report.updated == ["/skills/main/alpha/SKILL.md"]
    assert report.added == [] and report.removed == []
    assert sandbox.uploaded == ["/skills/main/alpha/SKILL.md"]
    assert (sandbox.inner.root / "skills/main/alpha/SKILL.md").read_text().endswith("A2\n")


def test_touched_but_identical_file_is_not_uploaded(tmp_path: Path, sandbox: Spy) -> None:
    skills = _tree(tmp_path)
    tree = LocalTree(skills)
    sync_tree(tree, sandbox)
    sandbox.uploaded.clear()
    path = skills / "main" / "alpha" / "SKILL.md"
    _touch_changed(path, path.read_text())
    assert not sync_tree(tree, sandbox).changed
    assert sandbox.uploaded == []


def test_removed_locally_is_removed_but_agent_files_stay(tmp_path: Path, sandbox: Spy) -> None:
    skills = _tree(tmp_path)
    tree = LocalTree(skills)
    sync_tree(tree, sandbox)
    mine = sandbox.inner.root / "skills/procurement/my-own/SKILL.md"
    mine.parent.mkdir(parents=True)
    mine.write_text("assigned by a user")
    (skills / "procurement" / "beta" / "scripts" / "run.py").unlink()
    report = sync_tree(tree, sandbox)
    assert report.removed == ["/skills/procurement/beta/scripts/run.py"]
    assert not (sandbox.inner.root / "skills/procurement/beta/scripts/run.py").exists()
    assert mine.exists()


def test_reset_sandbox_gets_everything_again(tmp_path: Path) -> None:
    skills = _tree(tmp_path)
    tree = LocalTree(skills)
    settings = SandboxSettings(data_dir=tmp_path / "data")
    sync_tree(tree, make_bubblewrap_sandbox("t1", settings=settings))
    fresh = make_bubblewrap_sandbox("t2", settings=settings)
    assert len(sync_tree(tree, fresh).added) == 3


async def test_middleware_tells_the_run_that_synced_then_nothing(tmp_path: Path) -> None:
    skills = _tree(tmp_path)
    env = make_env(tmp_path / "data")
    mw = SkillsSync(sandbox=env.sandbox, skills_dir=skills)
    model = recording("a", "b", "c")
    graph = agent(env, model, [mw])
    config = thread()
    ctx = Context(user_id="u1")

    def note(system: str) -> str:
        return next((ln for ln in system.splitlines() if "Skills synced" in ln), "")

    first = await graph.ainvoke({"messages": [HumanMessage("1")]}, config, context=ctx)
    assert "/skills/main/alpha/SKILL.md" in note(model.seen[0])
    assert "/AGENTS.md" in note(model.seen[0])
    await graph.ainvoke({"messages": [HumanMessage("2")]}, config, context=ctx)
    assert note(model.seen[1]) == ""  # nothing changed: nothing said
    _touch_changed(skills / "procurement" / "beta" / "SKILL.md", "---\nname: beta\n---\nB2\n")
    third = await graph.ainvoke({"messages": [HumanMessage("3")]}, config, context=ctx)
    assert note(model.seen[2]).endswith("updated: /skills/procurement/beta/SKILL.md")
    # the notes went to the model, never into the thread
    for result in (first, third):
        assert not [m for m in result["messages"] if isinstance(m, SystemMessage)]


async def test_fails_soft(tmp_path: Path) -> None:
    env = make_env(tmp_path / "data")

    def broken() -> BackendProtocol:
        raise Boom("sandbox is down")

    graph = agent(env, scripted("fine"), [SkillsSync(sandbox=broken, skills_dir=_tree(tmp_path))])
    result = await graph.ainvoke(
        {"messages": [HumanMessage("hi")]}, thread(), context=Context(user_id="u1")
    )
    assert result["messages"][-1].text == "fine"


def test_new_file_in_an_existing_folder_is_found(tmp_path: Path, sandbox: Spy) -> None:
    skills = _tree(tmp_path)
    tree = LocalTree(skills)
    sync_tree(tree, sandbox)
    sandbox.uploaded.clear()
    (skills / "main" / "alpha" / "notes.md").write_text("new")
    report = sync_tree(tree, sandbox)
    assert report.added == ["/skills/main/alpha/notes.md"]
    assert sandbox.uploaded == ["/skills/main/alpha/notes.md"]
