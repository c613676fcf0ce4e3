"""Benchmark: the flagship analysis on the offline planner, wall time and where it goes.

Run from the checkout: ``.venv/bin/python -m scripts.bench.bench_flagship``.

Starts the real services (simulated ERP, ERP MCP server, supplier shops, chart gateway)
and ``langgraph dev`` on free ports under a temporary folder (the end-to-end tests'
helpers), builds both graphs once (cold start is bench_cold_start's business), then
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

from scripts.demo import REQUEST, TASK_ID, message_text, thread_messages
from tests.e2e.agents_stack import langgraph_dev, services

STAGE = re.compile(r"阶段\s*(\d)|Stage\s*(\d)")
NOTIFICATION = "deepagents_notification"


async def _wait(predicate: Any, within_s: float, what: str) -> Any:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        found = await predicate()
        if found:
            return found
        await asyncio.sleep(0.1)
    msg = f"timed out waiting for {what}"
    raise RuntimeError(msg)


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
        thread_id = (await client.threads.create())["thread_id"]
        prompt: Any = {"messages": [{"role": "user", "content": REQUEST}]}
        started = time.perf_counter()
        await client.runs.wait(
            thread_id,
            "orchestrator",
            input=prompt,
            context={"user_id": "bench-user"},
        )
        answered = time.perf_counter() - started
        first = (await thread_messages(client, thread_id))[-1]
        found = TASK_ID.search(message_text(first))
        if found is None:
            msg = f"no task id in the orchestrator's answer: {message_text(first)}"
            raise RuntimeError(msg)
        task_id = found.group(1)

        async def woken() -> bool:
            msgs = await thread_messages(client, thread_id)
            notified = any(NOTIFICATION in (m.get("additional_kwargs") or {}) for m in msgs)
            return notified and msgs[-1].get("type") == "ai"

        await _wait(woken, 300, "the orchestrator to be woken")
        total = time.perf_counter() - started
        timeline = await _first_seen(client, task_id)
        report = re.search(
            r"/analysis/report_\d{8}\.md",
            message_text((await thread_messages(client, thread_id))[-1]),
        )
    finally:
        await client.aclose()
    print(f"request: {REQUEST}")
    print(f"orchestrator answered with the task id in {answered:6.2f} s")
    analyst_s = timeline[-1][0] - timeline[0][0]
    _breakdown(timeline)
    print(
        f"launch, analyst start-up wait and parent wake-up: {total - answered - analyst_s:6.2f} s"
    )
    print(f"request -> orchestrator woken with the report: {total:6.2f} s (target ≤ 30 s)")
    print(f"report: {report.group(0) if report else 'not named in the final message'}")


def main() -> None:
    """Start the stack, build the graphs, run the flagship analysis once, print the times."""
    t0 = time.perf_counter()
    with services() as stack, langgraph_dev(stack) as agent:
        stack.agent = agent
        ready = time.perf_counter() - t0
        found = httpx.post(f"{agent.url}/assistants/search", json={"limit": 50}, timeout=30)
        t1 = time.perf_counter()
        for assistant in found.json():
            httpx.get(f"{agent.url}/assistants/{assistant['assistant_id']}/graph", timeout=120)
        print(f"stack up in {ready:.1f} s; graphs built in {time.perf_counter() - t1:.1f} s")
        asyncio.run(_run(agent.url))


if __name__ == "__main__":
    main()
