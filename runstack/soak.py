"""A mixed soak against a running Agent Server, and what it measures: RSS and folder sizes.

The load is what a purchasing team sends: background analyses (waited for until the
orchestrator is woken with the report), greetings, and orders taken up to their approval
and then rejected (nothing is written to the ERP, so its database does not grow with the
soak). :func:`soak` runs ``workers`` loops of that mix until a deadline while a sampler
records the Agent Server's resident memory and the size of the folders given, every
``every`` seconds. ``tests/e2e/test_soak.py`` runs a short one, ``scripts/bench/bench_soak.py``
a 10-minute one.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langgraph_sdk.client import LangGraphClient

from core.agent_client import agent_client
from runstack.threads import (
    FLAGSHIP_REQUEST,
    ended,
    interrupts,
    start_analysis,
    wait_woken,
)

__all__ = ["Sample", "SoakResult", "folder_bytes", "rss_mb", "soak"]

GREETING = "你好，今天能帮我做什么？"
ORDER = "给 NGK 下单 60 个火花塞 IU7"


def rss_mb(pid: int) -> float:
    """Resident memory of process ``pid`` in MB (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def folder_bytes(folder: Path) -> int:
    """Bytes of disk the files under ``folder`` take (0 when it does not exist)."""
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            except OSError:
                continue  # removed while walking
    return total


@dataclass(frozen=True)
class Sample:
    """One measurement: seconds since the start, RSS (MB), each folder's bytes, work done."""

    at: float
    rss_mb: float
    folders: tuple[int, ...]
    done: int


@dataclass
class SoakResult:
    """The samples and what the load did."""

    samples: list[Sample] = field(default_factory=list)
    done: dict[str, int] = field(default_factory=dict)
    failed: list[str] = field(default_factory=list)


async def _greet(client: LangGraphClient, user: str) -> None:
    thread: Any = await client.threads.create()
    message: Any = {"messages": [{"role": "user", "content": GREETING}]}
    await client.runs.wait(
        thread["thread_id"], "orchestrator", input=message, context={"user_id": user}
    )


async def _order(client: LangGraphClient, user: str) -> None:
    thread: Any = await client.threads.create()
    tid = thread["thread_id"]
    context = {"user_id": user}
    message: Any = {"messages": [{"role": "user", "content": ORDER}]}
    await client.runs.wait(tid, "orchestrator", input=message, context=context)
    thread = await client.threads.get(tid)
    pending = interrupts(thread)
    if not pending:
        msg = f"the order reached no approval ({ended(thread)})"
        raise RuntimeError(msg)
    reject: Any = {"resume": {"decisions": [{"type": "reject", "message": "not now"}]}}
    await client.runs.wait(tid, "orchestrator", command=reject, context=context)


async def _analyse(client: LangGraphClient, user: str) -> None:
    analysis = await start_analysis(client, FLAGSHIP_REQUEST, {"user_id": user})
    await wait_woken(client, analysis, 600)


_MIX = (("analysis", _analyse), ("greeting", _greet), ("order", _order), ("greeting", _greet))


async def _worker(url: str, n: int, deadline: float, result: SoakResult) -> None:
    async with agent_client(url, timeout=600) as client:
        i = 0
        while time.monotonic() < deadline:
            kind, job = _MIX[(n + i) % len(_MIX)]
            i += 1
            try:
                await job(client, f"soak-user-{n % 3}")
                result.done[kind] = result.done.get(kind, 0) + 1
            except Exception as exc:  # recorded: a soak counts failures, it does not stop
                result.failed.append(f"{kind}: {type(exc).__name__}: {str(exc)[:600]}")


async def soak(
    url: str,
    pid: int,
    *,
    seconds: float,
    folders: Sequence[Path],
    workers: int = 3,
    every: float = 10.0,
) -> SoakResult:
    """Run the mixed load for ``seconds`` with ``workers`` loops; sample every ``every`` s."""
    result = SoakResult()
    start = time.monotonic()
    deadline = start + seconds

    async def sample() -> None:
        sizes = await asyncio.to_thread(lambda: tuple(folder_bytes(f) for f in folders))
        done = sum(result.done.values())
        result.samples.append(Sample(time.monotonic() - start, rss_mb(pid), sizes, done))

    async def sampler() -> None:
        while time.monotonic() < deadline:
            await sample()
            await asyncio.sleep(every)

    await asyncio.gather(sampler(), *(_worker(url, n, deadline, result) for n in range(workers)))
    await sample()
    return result
