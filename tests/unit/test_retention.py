"""The retention sweep: old idle threads deleted with their workspaces, busy and recent ones
kept, idle workspaces removed; a refusing server only switches thread retention off.

Workspaces are real (bubblewrap's folders on a temporary data folder); the Agent Server's
threads API is a small in-memory stand-in with its paging and sorting (the real one runs
in tests/e2e/test_soak.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest

from graphs.sandbox import SandboxSettings, ThreadSandboxBackend
from graphs.storage import SEED_FOLDER
from runstack.processes import ROOT
from server.retention import RetentionSettings, sweep_once

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


class Threads:
    """``client.threads`` as the sweep uses it: search (sorted, paged) and delete."""

    def __init__(
        self, threads: dict[str, tuple[datetime, str]], parents: dict[str, str] | None = None
    ) -> None:
        self.rows = threads  # id -> (updated_at, status)
        self.parents = parents or {}  # a background task's thread -> the thread it wakes
        self.deleted: list[str] = []

    async def search(
        self,
        *,
        limit: int,
        offset: int,
        sort_by: str = "updated_at",
        sort_order: str = "asc",
        status: str | None = None,
    ) -> Any:
        assert (sort_by, sort_order) == ("updated_at", "asc")
        ordered = sorted(self.rows.items(), key=lambda kv: kv[1][0])
        ordered = [kv for kv in ordered if status is None or kv[1][1] == status]
        page = ordered[offset : offset + limit]
        return [
            {
                "thread_id": tid,
                "updated_at": at.isoformat(),
                "status": state,
                "metadata": {"parent_thread_id": self.parents[tid]} if tid in self.parents else {},
            }
            for tid, (at, state) in page
        ]

    async def delete(self, thread_id: str) -> None:
        del self.rows[thread_id]
        self.deleted.append(thread_id)


class Client:
    def __init__(self, threads: Threads) -> None:
        self.threads = threads


@pytest.fixture
def router(tmp_path: Path) -> ThreadSandboxBackend:
    settings = SandboxSettings(data_dir=tmp_path)
    return ThreadSandboxBackend(settings=settings, seed=settings.sandboxes_dir / SEED_FOLDER)


def names(tmp_path: Path) -> set[str]:
    return {p.name for p in (tmp_path / "sandboxes").iterdir() if not p.name.startswith(".")}


async def test_old_threads_go_with_their_workspaces(
    router: ThreadSandboxBackend, tmp_path: Path
) -> None:
    rows = {
        **{f"old-{i:03d}": (NOW - timedelta(days=40, minutes=i), "idle") for i in range(150)},
        "old-busy": (NOW - timedelta(days=40), "busy"),
        "recent": (NOW - timedelta(days=1), "idle"),
    }
    for tid in ("old-000", "old-149", "old-busy", "recent"):
        router.for_thread(tid).upload_files([("/data/f.txt", b"x")])
    threads = Threads(rows)
    settings = RetentionSettings(thread_hours=24 * 30, workspace_hours=0)
    report = await sweep_once(Client(threads), router, settings, now=NOW)
    assert len(report.threads) == 150 and set(threads.rows) == {"old-busy", "recent"}
    assert names(tmp_path) == {"old-busy", "recent"}  # both workspaces of deleted threads gone


async def test_a_conversation_waiting_for_its_analysis_is_kept(
    router: ThreadSandboxBackend,
) -> None:
    # The buyer's thread went idle long ago; the analysis it started (its own thread, still
    # running) will wake it with the report. Deleting it would lose the answer.
    rows = {
        "buyer": (NOW - timedelta(days=40), "idle"),
        "analysis": (NOW - timedelta(days=1), "busy"),
        "finished-buyer": (NOW - timedelta(days=40), "idle"),
        "finished-analysis": (NOW - timedelta(days=39), "idle"),
    }
    threads = Threads(rows, {"analysis": "buyer", "finished-analysis": "finished-buyer"})
    settings = RetentionSettings(thread_hours=24 * 30, workspace_hours=0)
    report = await sweep_once(Client(threads), router, settings, now=NOW)
    assert sorted(report.threads) == ["finished-analysis", "finished-buyer"]
    assert set(threads.rows) == {"buyer", "analysis"}


async def test_idle_workspaces_are_removed_whatever_their_thread(
    router: ThreadSandboxBackend, tmp_path: Path
) -> None:
    for tid in ("idle", "fresh"):
        router.for_thread(tid).upload_files([("/data/f.txt", b"x")])
    stale = (NOW - timedelta(days=8)).timestamp()
    os.utime(tmp_path / "sandboxes" / "idle", (stale, stale))
    recent = (NOW - timedelta(hours=1)).timestamp()
    os.utime(tmp_path / "sandboxes" / "fresh", (recent, recent))
    settings = RetentionSettings(thread_hours=0, workspace_hours=24 * 7)
    report = await sweep_once(Client(Threads({})), router, settings, now=NOW)
    assert report.workspaces == ["idle"] and names(tmp_path) == {"fresh"}


async def test_a_refused_delete_is_left_for_the_next_sweep(
    router: ThreadSandboxBackend, tmp_path: Path
) -> None:
    class Refusing(Threads):
        async def delete(self, thread_id: str) -> None:
            request = httpx.Request("DELETE", f"http://x/threads/{thread_id}")
            raise httpx.HTTPStatusError("403", request=request, response=httpx.Response(403))

    router.for_thread("old").upload_files([("/data/f.txt", b"x")])
    threads = Refusing({"old": (NOW - timedelta(days=60), "idle")})
    settings = RetentionSettings(thread_hours=24, workspace_hours=0)
    report = await sweep_once(Client(threads), router, settings, now=NOW)
    assert report.threads == [] and set(threads.rows) == {"old"}
    assert names(tmp_path) == {"old"}  # its workspace stays with it


# Run in a fresh interpreter: in the test process, other tests' allocations fill and reuse
# the heap's holes, so how much a trim can give back there depends on what ran before.
_HOLES = """
import json
from pathlib import Path
from server.retention import release_memory

def rss_mb():
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0

# 128 MB freed in holes between blocks still in use (1 KB: glibc's, not Python's small
# object allocator): free() cannot give such pages back, malloc_trim can.
blocks = [(bytearray(64 * 1024), bytearray(1024)) for _ in range(2000)]
keep = [small for _, small in blocks]
del blocks
before = rss_mb()
released = release_memory()
print(json.dumps({"released": released, "before": before, "after": rss_mb(), "kept": len(keep)}))
"""


def test_free_heap_memory_is_returned_to_the_system() -> None:
    pythonpath = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", _HOLES],
        env={**os.environ, "PYTHONPATH": pythonpath},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    assert measured["released"] is True and measured["kept"] == 2000
    assert measured["before"] - measured["after"] > 50, measured
