"""Benchmark: the flagship analysis on the offline planner, wall time and where it goes.

Run from the checkout: ``.venv/bin/python -m scripts.bench.bench_flagship``.

Starts the real services (simulated ERP, ERP MCP server, supplier shops, chart gateway)
and ``langgraph dev`` on free ports under a temporary folder (``scripts.bench.fixtures``),
builds both graphs once (cold start is bench_cold_start's business), then
sends "帮我对摩托车火花塞做供应商比价分析" through the LangGraph SDK and waits until the
orchestrator is woken with the report. The per-stage breakdown comes from the analyst
thread's checkpoint history: each message is timed by the first checkpoint holding it;
the planner names its stage ("阶段 N") and its step (``response_metadata.step``).
The model takes no time offline, so this is all our own overhead (target ≤ 30 s).
This is a measurement, not a test: it exits 0 unless something fails.
"""

from __future__ import annotations

import asyncio
import re
import time
from datetime import datetime
from typing import Any

import httpx
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from runstack.threads import (
    FLAGSHIP_REQUEST,
    REPORT,
    message_text,
    poll,
    start_analysis,
    woken_answer,
)
from scripts.bench.fixtures import agent_server, scratch

STAGE = re.compile(r"阶段\s*(\d)|Stage\s*(\d)")


async def _first_seen(
    client: LangGraphClient, thread_id: str
) -> list[tuple[float, dict[str, Any]]]:
    """Every message of the thread with the time of the first checkpoint that holds it."""
    history: Any = await client.threads.get_history(thread_id, limit=1000)
    seen: dict[str, tuple[float, dict[str, Any]]] = {}
    for snapshot in reversed(list(history)):  # oldest first
        at = datetime.fromisoformat(snapshot["created_at"]).timestamp()
        for m in snapshot["values"].get("messages") or []:
            key = str(m.get("id"))
            if key not in seen:
                seen[key] = (at, m)
    first = datetime.fromisoformat(list(history)[-1]["created_at"]).timestamp()
    return [(first, {"type": "start"}), *sorted(seen.values(), key=lambda p: p[0])]


def _breakdown(timeline: list[tuple[float, dict[str, Any]]]) -> None:
    start = timeline[0][0]
    end = timeline[-1][0]
    stages: dict[str, float] = {}
    steps: list[tuple[str, str, float]] = []
    stage = "0 (start-up)"
    marks: list[tuple[float, str, str]] = [(start, stage, "run start")]
    for at, m in timeline[1:]:
        if m.get("type") != "ai":
            continue
        found = STAGE.search(message_text(m))
        if found:
            stage = found.group(1) or found.group(2)
        step = str((m.get("response_metadata") or {}).get("step") or "?")
        marks.append((at, stage, step))
    for (at, stage_, step), (next_at, _, _) in zip(marks, [*marks[1:], (end, "", "")], strict=True):
        stages[stage_] = stages.get(stage_, 0.0) + (next_at - at)
        steps.append((stage_, step, next_at - at))
    print("analyst, per stage (from the message that opens it to the next stage's):")
    for name, seconds in stages.items():
        print(f"  stage {name:<14} {seconds:6.2f} s")
    print(f"  {'analyst total':<20} {end - start:6.2f} s")
    print("analyst, per step (a model turn and the tools it called):")
    for stage_, step, seconds in steps:
        print(f"  stage {stage_:<14} {step:<16} {seconds:6.2f} s")


async def _run(url: str) -> None:
    client = get_client(url=url, timeout=120)
    try:
        started = time.perf_counter()
        analysis = await start_analysis(client, FLAGSHIP_REQUEST, {"user_id": "bench-user"})

        async def woken() -> str | None:
            return await woken_answer(client, analysis.thread_id)

        final = await poll(woken, 300, "the orchestrator to be woken", every=0.1)
        total = time.perf_counter() - started
        timeline = await _first_seen(client, analysis.task_id)
        report = REPORT.search(final)
    finally:
        await client.aclose()
    print(f"request: {FLAGSHIP_REQUEST}")
    print(f"orchestrator answered with the task id in {analysis.answered_in:6.2f} s")
    analyst_s = timeline[-1][0] - timeline[0][0]
    _breakdown(timeline)
    launch = total - analysis.answered_in - analyst_s
    print(f"launch, analyst start-up wait and parent wake-up: {launch:6.2f} s")
    print(f"request -> orchestrator woken with the report: {total:6.2f} s (target ≤ 30 s)")
    print(f"report: {report.group(0) if report else 'not named in the final message'}")


def main() -> None:
    """Start the stack, build the graphs, run the flagship analysis once, print the times."""
    t0 = time.perf_counter()
    with scratch("bench-flagship-") as data, agent_server(data) as agent:
        ready = time.perf_counter() - t0
        found = httpx.post(f"{agent.url}/assistants/search", json={"limit": 50}, timeout=30)
        t1 = time.perf_counter()
        for assistant in found.json():
            httpx.get(f"{agent.url}/assistants/{assistant['assistant_id']}/graph", timeout=120)
        print(f"stack up in {ready:.1f} s; graphs built in {time.perf_counter() - t1:.1f} s")
        asyncio.run(_run(agent.url))


if __name__ == "__main__":
    main()
