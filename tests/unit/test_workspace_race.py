"""Symlink races: sandboxed code swapping a folder for a symlink never leads a reader outside.

A helper process exchanges a workspace folder with a symlink to a host folder
(``renameat2(RENAME_EXCHANGE)``, atomically, in a tight loop) while the artifacts
route and the file tools read a file under that folder, over and over. Whatever
the timing, no byte of the host file may come back, and the real file must
still be served whenever the real folder is in place.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.testclient import TestClient

from graphs.sandbox import WorkspaceFiles, beneath, workspace_path
from server.artifacts_app import ArtifactSettings, artifact_routes

SWAP_SECONDS = 4.0
HOST_SECRET = "HOST-SECRET-7f3a"
REAL = "REAL-ARTIFACT-1c9e"

# Exchanges two paths atomically until the time is up; prints how many swaps it made.
SWAPPER = r"""
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
a, b, seconds = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2]), float(sys.argv[3])
print("ready", flush=True)
end, swaps = time.monotonic() + seconds, 0
while time.monotonic() < end:
    if libc.renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) != 0:
        sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
    swaps += 1
print(swaps, flush=True)
"""


@pytest.fixture(params=["openat2", "component-walk"])
def resolver(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run each race under both ways of opening beneath the workspace."""
    if request.param == "openat2":
        assert beneath.openat2_available(), "this kernel has openat2 (5.6+); CI's too"
    else:
        monkeypatch.setattr(beneath, "_USE_OPENAT2", False)
    return str(request.param)


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    """A workspace whose /data/x is real, beside a symlink to a host folder with its own x."""
    host = tmp_path / "host"
    host.mkdir()
    (host / "x").write_text(HOST_SECRET * 100)
    (host / "report.md").write_text(HOST_SECRET)
    ws = workspace_path(tmp_path / "sandboxes", "t-race")
    (ws / "data").mkdir(parents=True)
    (ws / "data" / "x").write_text(REAL * 100)
    (ws / "data" / "report.md").write_text(REAL)
    (ws / "decoy").symlink_to(host)
    return ws


@pytest.fixture
def swapping(workspace: Path) -> Iterator[Callable[[], bool]]:
    """Start the swap loop; yields ``running()``; checks at the end that it really swapped."""
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            SWAPPER,
            str(workspace / "data"),
            str(workspace / "decoy"),
            str(SWAP_SECONDS),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    assert proc.stdout.readline().strip() == "ready"
    try:
        yield lambda: proc.poll() is None
    finally:
        out, _ = proc.communicate(timeout=SWAP_SECONDS + 30)
    assert proc.returncode == 0, out
    assert int(out.strip()) > 10_000, "the swap loop hardly ran"


def _until_swapping_stops(
    running: Callable[[], bool], attempt: Callable[[], str | None]
) -> dict[str, int]:
    """Call ``attempt`` until the swapper exits; tally real reads, refusals and leaks."""
    tally = {"real": 0, "refused": 0, "leaked": 0}
    while running():
        got = attempt()
        if got is None:
            tally["refused"] += 1
        elif HOST_SECRET in got:
            tally["leaked"] += 1
        else:
            assert got.startswith(REAL), got[:200]
            tally["real"] += 1
    return tally


def test_artifacts_route_never_serves_a_host_file_during_a_swap_race(
    resolver: str, workspace: Path, swapping: Callable[[], bool]
) -> None:
    async def lookup(thread_id: str, headers: dict[str, str]) -> dict[str, Any] | None:
        return {"owner": "alice"}

    app = Starlette(
        routes=artifact_routes(
            lookup=lookup,
            sandboxes_dir=workspace.parent,
            settings=ArtifactSettings(allow_loopback_without_auth=True),
        )
    )
    with TestClient(app) as client:

        def attempt() -> str | None:
            r = client.get("/artifacts/t-race/data/x")
            return r.text if r.status_code == 200 else None

        tally = _until_swapping_stops(swapping, attempt)

    assert tally["leaked"] == 0, tally
    assert tally["real"] > 0 and tally["refused"] > 0, tally  # both states were seen


def test_file_tools_never_read_a_host_file_during_a_swap_race(
    resolver: str, workspace: Path, swapping: Callable[[], bool]
) -> None:
    files = WorkspaceFiles(workspace)
    reads: list[Callable[[], str | None]] = [
        lambda: (r := files.read("/data/report.md")).file_data and r.file_data["content"],
        lambda: (d := files.download_files(["/data/x"])[0]).content and d.content.decode(),
        lambda: "\n".join(m["text"] for m in files.grep("SECRET", "/data").matches or []) or None,
    ]
    turn = 0

    def attempt() -> str | None:
        nonlocal turn
        turn += 1
        return reads[turn % len(reads)]() or None

    tally = _until_swapping_stops(swapping, attempt)

    assert tally["leaked"] == 0, tally
    assert tally["real"] > 0, tally


def test_writes_never_land_outside_during_a_swap_race(
    resolver: str, workspace: Path, swapping: Callable[[], bool]
) -> None:
    files = WorkspaceFiles(workspace)
    host = workspace.parents[1] / "host"
    written = 0
    while swapping():
        written += files.write(f"/data/new-{written}.txt", "x").error is None
        files.upload_files([("/data/up.txt", b"y")])
    time.sleep(0.1)

    outside = sorted(p.name for p in host.glob("*"))
    assert outside == ["report.md", "x"], outside
    assert written > 0
