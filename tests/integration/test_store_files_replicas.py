"""Two replicas filing reports for one buyer at the same moment both keep their index line.

A deployment runs several Agent Server replicas on one Store. An edit of a Store file
(``edit_file`` on ``/reports/{user}/index.md``) reads the file and writes it back; the
Store has no conditional write, so overlapping edits from two replicas used to keep only
the later one. Here two "replicas" (their own backend objects and their own process locks,
as two processes have) edit one shared Store with a slow read, which widens the window the
way a busy replica or a far database does, and a real PostgreSQL (the deployment's own,
``DATABASE_URI``) holds the advisory locks. Without the locks, lines are lost (the control:
the test can see the race); with them, every line is there. A lock that cannot be had in
time, or a PostgreSQL that cannot be reached, refuses the edit with a message and leaves
the file as it was.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import psycopg
import pytest
from langgraph.store.base import GetOp, Item, Op, Result
from langgraph.store.memory import InMemoryStore

from graphs.store_files import LockedStoreBackend, OffloadingStoreBackend, StoreFileSettings
from graphs.store_files import file_locks as configured_locks
from graphs.store_locks import _CLASS_ID, FileLocks, lock_key
from runstack.processes import HOST, free_port

NS = ("files", "reports")
INDEX = "/buyer-7/index.md"
RULE = "|---|---|"
HEAD = f"# Reports\n\n| Date | Report |\n{RULE}\n"
READ_DELAY_S = 0.05


class SlowReadStore(InMemoryStore):
    """One Store shared by the replicas, whose answers to reads take a while to arrive (a
    remote database): what was read may be stale by the time the reader writes back."""

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        results = super().batch(ops)
        if any(isinstance(op, GetOp) for op in ops):
            time.sleep(READ_DELAY_S)
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        ops = list(ops)
        results = super().batch(ops)
        if any(isinstance(op, GetOp) for op in ops):
            await asyncio.sleep(READ_DELAY_S)
        return results


def _replica(locks: FileLocks) -> FileLocks:
    """``locks`` with a process's own in-process locks: replicas share none."""
    locks.thread_locks = tuple(threading.RLock() for _ in locks.thread_locks)
    locks.task_locks = tuple(threading.Lock() for _ in locks.task_locks)
    return locks


def _offloading(store: InMemoryStore, folder: Path, url: str | None) -> OffloadingStoreBackend:
    return OffloadingStoreBackend(
        folder=folder,
        min_bytes=1 << 20,
        store=store,
        namespace=lambda _rt: NS,
        locks=_replica(FileLocks(url, timeout_s=30)),
    )


def _text(store: InMemoryStore) -> str:
    item = store.get(NS, INDEX)
    assert isinstance(item, Item)
    content = item.value["content"]
    return "\n".join(content) if isinstance(content, list) else str(content)


def _rows(store: InMemoryStore) -> list[str]:
    return [line for line in _text(store).splitlines() if line.startswith("| 2026")]


def _row(i: int) -> str:
    return f"| 2026-12-05 | [report_{i:02d}.md](report_{i:02d}.md) |"


def _file_row(i: int) -> dict[str, Any]:
    return {"old_string": RULE, "new_string": f"{RULE}\n{_row(i)}"}


def _sync_burst(replicas: list[OffloadingStoreBackend], per_replica: int) -> list[Any]:
    """Every replica adds ``per_replica`` index lines at once, from worker threads (as the
    agents' ``aedit`` does under langgraph dev)."""
    jobs = [(r, i * len(replicas) + n) for i in range(per_replica) for n, r in enumerate(replicas)]
    with ThreadPoolExecutor(len(jobs)) as pool:
        return list(pool.map(lambda job: job[0].edit(INDEX, **_file_row(job[1])), jobs))


def test_without_a_shared_lock_the_replicas_lose_lines(tmp_path: Path) -> None:
    """The control: the race is real, and this test sees it."""
    store = SlowReadStore()
    replicas = [_offloading(store, tmp_path / f"r{n}", None) for n in range(2)]
    assert replicas[0].write(INDEX, HEAD).error is None
    results = _sync_burst(replicas, 6)
    assert all(r.error is None for r in results)  # every edit says it worked ...
    assert len(_rows(store)) < 12  # ... and lines are gone


def test_with_the_deployments_postgres_every_line_is_kept(tmp_path: Path, pg_url: str) -> None:
    store = SlowReadStore()
    replicas = [_offloading(store, tmp_path / f"r{n}", pg_url) for n in range(2)]
    assert replicas[0].write(INDEX, HEAD).error is None
    results = _sync_burst(replicas, 6)
    assert [r.error for r in results] == [None] * 12
    rows = _rows(store)
    assert sorted(rows) == sorted(_row(i) for i in range(12))
    # The head survived every edit, and each line is there once.
    assert _text(store).startswith(HEAD.rstrip("\n"))


async def test_a_deployments_async_edits_keep_every_line(pg_url: str) -> None:
    """A deployment's route backend (the Store keeps every file) edits on the event loop."""
    store = SlowReadStore()
    replicas = [
        LockedStoreBackend(
            store=store, namespace=lambda _rt: NS, locks=_replica(FileLocks(pg_url, timeout_s=30))
        )
        for _ in range(2)
    ]
    assert (await replicas[0].awrite(INDEX, HEAD)).error is None
    results = await asyncio.gather(
        *(replicas[i % 2].aedit(INDEX, **_file_row(i)) for i in range(12))
    )
    assert [r.error for r in results] == [None] * 12
    assert len(set(_rows(store))) == 12


@contextlib.contextmanager
def _held_elsewhere(url: str, key: str) -> Iterator[None]:
    """The file's advisory lock, held by another session (a replica stuck mid-change)."""
    with psycopg.connect(
        url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True
    ) as conn:
        conn.execute("SELECT pg_advisory_lock(%s, %s)", (_CLASS_ID, lock_key(NS, key)))
        yield


def test_a_file_held_too_long_elsewhere_is_refused_and_left_alone(
    tmp_path: Path, pg_url: str
) -> None:
    store = InMemoryStore()
    replica = _offloading(store, tmp_path, pg_url)
    assert replica.write(INDEX, HEAD).error is None
    replica.locks.timeout_s = 0.5
    with _held_elsewhere(pg_url, INDEX):
        started = time.monotonic()
        result = replica.edit(INDEX, **_file_row(1))
        waited = time.monotonic() - started
        written = replica.write(INDEX, "replaced")
    assert result.error is not None and "being changed elsewhere" in result.error
    assert written.error is not None and "being changed elsewhere" in written.error
    assert waited < 10
    assert _text(store) == HEAD
    # Released: the next edit goes through.
    assert replica.edit(INDEX, **_file_row(1)).error is None
    assert len(_rows(store)) == 1


async def test_an_unreachable_lock_database_refuses_the_edit_without_its_password(
    tmp_path: Path,
) -> None:
    url = f"postgresql://erp:s3cret-pass@{HOST}:{free_port()}/erp"
    store = InMemoryStore()
    shelf = LockedStoreBackend(
        store=store, namespace=lambda _rt: NS, locks=FileLocks(url, timeout_s=2)
    )
    store.put(NS, INDEX, {"content": HEAD, "encoding": "utf-8"})
    for result in (
        await shelf.aedit(INDEX, **_file_row(1)),
        await asyncio.to_thread(shelf.edit, INDEX, **_file_row(2)),
    ):
        assert result.error is not None
        assert f"{HOST}:" in result.error and "cannot be reached" in result.error
        assert "s3cret" not in result.error
    assert _text(store) == HEAD


def test_the_lock_database_is_the_deployments_own_unless_set(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("DATABASE_URI", "postgres://pg@db:5432/app")
    monkeypatch.setenv("LANGGRAPH_RUNTIME_EDITION", "postgres")
    assert configured_locks(StoreFileSettings()).url == "postgres://pg@db:5432/app"
    monkeypatch.setenv("STORE_FILES_LOCK_URL", "postgresql+psycopg://locks@other:5433/x")
    assert configured_locks(StoreFileSettings()).url == "postgresql://locks@other:5433/x"
    monkeypatch.delenv("STORE_FILES_LOCK_URL")
    # langgraph dev: one process, its own locks; no database, even if one is in the env.
    monkeypatch.setenv("LANGGRAPH_RUNTIME_EDITION", "inmem")
    assert configured_locks(StoreFileSettings()).url is None
