"""Workspace file operations: confined to the thread's folder, with clear refusals.

No bubblewrap needed: these use ``WorkspaceFiles`` directly, with the same
reserved names the sandbox's runtime mounts occupy.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from graphs.sandbox import (
    WorkspaceFiles,
    beneath,
    open_workspace_file,
    safe_thread_id,
    workspace_path,
)
from graphs.sandbox.errors import SandboxConfigError

RESERVED = {"usr", "etc", "tmp", "proc", "dev", "bin", "work", "root"}


@pytest.fixture(autouse=True, params=["openat2", "component-walk"])
def resolver(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test runs with the kernel's openat2 and with the component-walk fallback."""
    if request.param == "component-walk":
        monkeypatch.setattr(beneath, "_USE_OPENAT2", False)


@pytest.fixture
def files(tmp_path: Path) -> WorkspaceFiles:
    return WorkspaceFiles(tmp_path / "ws", reserved=RESERVED)


def test_standard_folders_exist_and_round_trip(files: WorkspaceFiles) -> None:
    assert {e["path"] for e in files.ls("/").entries or []} == {
        "/analysis/",
        "/data/",
        "/skills/",
    }
    assert files.write("/AGENTS.md", "# notes\n").error is None
    assert files.write("/skills/x/SKILL.md", "---\nname: x\n---\n").error is None
    assert files.edit("/AGENTS.md", "notes", "memory").occurrences == 1
    assert files.read("/AGENTS.md").file_data == {"content": "# memory\n", "encoding": "utf-8"}
    assert (files.root / "skills" / "x" / "SKILL.md").is_file()
    assert [m["path"] for m in files.glob("**/*.md").matches or []] == [
        "/AGENTS.md",
        "/skills/x/SKILL.md",
    ]
    assert files.grep("memory").matches == [{"path": "/AGENTS.md", "line": 1, "text": "# memory"}]


@pytest.mark.parametrize(
    "path",
    ["/../outside.txt", "/data/../../outside.txt", "../outside.txt", "~/outside.txt"],
)
def test_traversal_is_refused(files: WorkspaceFiles, tmp_path: Path, path: str) -> None:
    write = files.write(path, "x")
    read = files.read(path)

    assert write.error is not None and "refused" in write.error
    assert read.error is not None and "refused" in read.error
    assert not (tmp_path / "outside.txt").exists()


def test_absolute_host_paths_stay_inside_the_workspace(tmp_path: Path) -> None:
    # No reserved names here, so the host's /tmp path is an ordinary workspace path.
    files = WorkspaceFiles(tmp_path / "ws", reserved=())
    host_file = tmp_path / "host.txt"
    host_file.write_text("host content")

    # An absolute host path is just a path inside the workspace: not found there.
    read = files.read(str(host_file))

    assert read.error is not None and "not found" in read.error
    assert files.write(str(host_file), "overwritten").error is None
    assert host_file.read_text() == "host content"
    assert (files.root / str(host_file).lstrip("/")).read_text() == "overwritten"


@pytest.mark.parametrize("path", ["/etc/shadow", "/usr/bin/python3", "/tmp/x", "/work/x.toml"])
def test_runtime_mount_points_are_refused_with_a_hint(files: WorkspaceFiles, path: str) -> None:
    res = files.read(path)

    assert res.error is not None and "refused" in res.error
    assert "/data" in res.error
    assert files.write(path, "x").error is not None
    up = files.upload_files([(path, b"x")])
    assert up[0].error == "permission_denied"


def test_symlinks_out_of_the_workspace_are_refused(files: WorkspaceFiles, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP-SECRET")
    (files.root / "data" / "out").symlink_to(outside)
    (files.root / "data" / "secret-link.txt").symlink_to(outside / "secret.txt")

    for path in ("/data/out/secret.txt", "/data/secret-link.txt"):
        res = files.read(path)
        assert res.error is not None and "outside the sandbox workspace" in res.error
    assert files.write("/data/out/new.txt", "x").error is not None
    assert not (outside / "new.txt").exists()
    assert not files.grep("TOP-SECRET", "/").matches
    assert files.download_files(["/data/secret-link.txt"])[0].content is None


def test_links_inside_the_workspace_are_not_followed_either(files: WorkspaceFiles) -> None:
    # Even a link that stays inside: the tools never follow one, so none can be
    # swapped for one that leads out between a check and a use.
    assert files.write("/data/real.txt", "real").error is None
    (files.root / "data" / "alias.txt").symlink_to("real.txt")
    (files.root / "linked").symlink_to("data")

    for path in ("/data/alias.txt", "/linked/real.txt"):
        res = files.read(path)
        assert res.error is not None and "symbolic link" in res.error, res
    assert files.write("/linked/new.txt", "x").error is not None
    assert not (files.root / "data" / "new.txt").exists()
    assert files.edit("/data/alias.txt", "real", "edited").error is not None
    assert (files.root / "data" / "real.txt").read_text() == "real"
    # Listings show real files and folders only.
    assert [e["path"] for e in files.ls("/data").entries or []] == ["/data/real.txt"]
    assert [m["path"] for m in files.glob("**/*.txt").matches or []] == ["/data/real.txt"]
    assert [m["path"] for m in files.grep("real").matches or []] == ["/data/real.txt"]
    # Deleting a link removes the link, not its target.
    assert files.delete("/linked").error is None
    assert (files.root / "data" / "real.txt").is_file()


def test_a_standard_folder_swapped_for_a_link_is_not_followed_on_start(
    files: WorkspaceFiles, tmp_path: Path
) -> None:
    (files.root / "data").rmdir()
    (files.root / "data").symlink_to(tmp_path / "elsewhere")  # dangling, outside

    again = WorkspaceFiles(files.root, reserved=RESERVED)

    assert not (tmp_path / "elsewhere").exists()
    res = again.write("/data/x.txt", "x")
    assert res.error is not None and "symbolic link" in res.error


def test_a_fifo_is_refused_without_hanging(files: WorkspaceFiles) -> None:
    # A FIFO planted under a file's name would block an open for reading forever.
    os.mkfifo(files.root / "data" / "pipe.csv")

    assert files.read("/data/pipe.csv").error is not None
    assert files.download_files(["/data/pipe.csv"])[0].error is not None
    assert files.grep("x", "/data").matches == []
    with pytest.raises(OSError):
        open_workspace_file(files.root, "/data/pipe.csv")


def test_open_workspace_file_reads_from_its_own_descriptor(files: WorkspaceFiles) -> None:
    files.write("/data/report.md", "first version")
    opened = open_workspace_file(files.root, "/data/report.md")
    # Replaced by name after opening: the descriptor still reads what was opened.
    (files.root / "data" / "report.md").unlink()
    (files.root / "data" / "report.md").write_text("replaced")

    assert (opened.name, opened.size) == ("report.md", len("first version"))
    assert os.read(opened.fd, 100) == b"first version"
    opened.close()
    opened.close()  # idempotent
    for bad in ("/data", "/data/missing.md", "/data/../../x"):
        with pytest.raises(OSError):
            open_workspace_file(files.root, bad)


def test_deleting_the_workspace_root_is_refused(files: WorkspaceFiles) -> None:
    res = files.delete("/")

    assert res.error is not None
    assert files.root.is_dir()


def test_safe_thread_ids() -> None:
    uuid = "0f8f7c9e-1b2a-4c3d-9e8f-123456789abc"
    assert safe_thread_id(uuid) == uuid
    hostile = safe_thread_id("../../etc")
    assert "/" not in hostile and not hostile.startswith(".")
    # Different ids never collapse into one folder.
    assert safe_thread_id("a/b") != safe_thread_id("a_b")
    assert safe_thread_id("a/b") != safe_thread_id("a?b")
    with pytest.raises(SandboxConfigError):
        safe_thread_id("  ")


def test_workspace_path_stays_under_the_sandboxes_folder(tmp_path: Path) -> None:
    for thread_id in ("t1", "../../x", "/abs/path", "..", "x" * 500):
        path = workspace_path(tmp_path, thread_id)
        assert path.parent == tmp_path
        assert path.resolve().is_relative_to(tmp_path)
