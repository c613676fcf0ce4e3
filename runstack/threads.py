"""The agents' threads as a LangGraph SDK client reads them: the demo, the benchmarks and
the end-to-end tests start analyses and wait for their results with these.

A background analysis (DESIGN section 4): the orchestrator answers at once with the
analyst's ``task_id``; the analyst works on its own thread (``parent_thread_id`` in its
metadata); when it finishes, deepagents wakes the orchestrator with a notification
message (a new run on the orchestrator's thread) and the orchestrator's last answer names
the report. Both runs can be followed as they happen with :func:`follow_run` (the Agent
Server's run stream; background runs publish every stream mode, ``server/run_streams.py``).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from langgraph_sdk.client import LangGraphClient
from langgraph_sdk.schema import StreamPart

__all__ = [
    "FLAGSHIP_REQUEST",
    "REPORT",
    "TASK_ID",
    "Analysis",
    "analyst_thread",
    "ended",
    "follow_run",
    "interrupts",
    "message_text",
    "poll",
    "runs_since",
    "start_analysis",
    "thread_messages",
    "wait_woken",
    "woken_answer",
]

FLAGSHIP_REQUEST = "帮我对摩托车火花塞做供应商比价分析"
"""The main job's request: a spark-plug supplier comparison."""
TASK_ID = re.compile(r"task_id: ([0-9a-f-]{36})")
"""How the orchestrator names the background task it started."""
REPORT = re.compile(r"/analysis/report_\d{8}_[0-9a-f]{8}\.md")
"""A report's path in the analyst's sandbox: the day and the task id's last 8 hex digits."""
NOTIFICATION = "deepagents_notification"
"""The ``additional_kwargs`` key of the message that wakes the orchestrator."""

T = TypeVar("T")


def message_text(message: Mapping[str, Any]) -> str:
    """The text of a thread message (a string, or the text of its content blocks)."""
    content = message.get("content")
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content if isinstance(b, dict))
    return str(content or "")


async def thread_messages(client: LangGraphClient, thread_id: str) -> list[dict[str, Any]]:
    """The messages of a thread's current state (none yet: an empty list)."""
    state: Any = await client.threads.get_state(thread_id)
    return list((state.get("values") or {}).get("messages") or [])


def ended(thread: Mapping[str, Any]) -> str:
    """How a thread ended, for a failure's message: its status and its last messages."""
    messages = (thread.get("values") or {}).get("messages") or []
    last = " | ".join(f"{m.get('type')}: {str(m.get('content'))[:160]}" for m in messages[-3:])
    return f"status {thread.get('status')}; {last}"


def interrupts(thread: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The pending interrupts of a thread (``client.threads.get``), in task order."""
    return [i for items in (thread.get("interrupts") or {}).values() for i in items]


async def poll(
    check: Callable[[], Awaitable[T | None]], within_s: float, what: str, every: float = 0.5
) -> T:
    """The first truthy result of ``check``, called every ``every`` seconds; ``TimeoutError``
    naming ``what`` after ``within_s`` seconds."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        found = await check()
        if found:
            return found
        await asyncio.sleep(every)
    msg = f"timed out after {within_s:g} s waiting for {what}"
    raise TimeoutError(msg)


@dataclass(frozen=True)
class Analysis:
    """A background analysis the orchestrator has just started."""

    thread_id: str
    task_id: str
    answer: str
    answered_in: float
    run_id: str = ""
    """The orchestrator's run that started it (a later run on the thread is the wake-up)."""


async def start_analysis(
    client: LangGraphClient,
    request: str,
    context: Mapping[str, Any],
    *,
    metadata: Mapping[str, Any] | None = None,
) -> Analysis:
    """Ask the orchestrator ``request`` on a new thread and wait for its first answer;
    ``RuntimeError`` with that answer when it names no background task."""
    thread: Any = await client.threads.create(metadata=dict(metadata or {}))
    started = time.monotonic()
    prompt: Any = {"messages": [{"role": "user", "content": request}]}
    run = await client.runs.create(
        thread["thread_id"], "orchestrator", input=prompt, context=dict(context)
    )
    await client.runs.join(thread["thread_id"], run["run_id"])
    answered_in = time.monotonic() - started
    answer = message_text((await thread_messages(client, thread["thread_id"]))[-1])
    found = TASK_ID.search(answer)
    if not found:
        msg = f"the orchestrator did not start a background analysis: {answer[:300]}"
        raise RuntimeError(msg)
    return Analysis(thread["thread_id"], found.group(1), answer, answered_in, run["run_id"])


async def analyst_thread(client: LangGraphClient, parent_id: str) -> dict[str, Any] | None:
    """The analyst's thread started from ``parent_id``, or None while there is none."""
    found: Any = await client.threads.search(metadata={"parent_thread_id": parent_id})
    return dict(found[0]) if found else None


async def woken_answer(
    client: LangGraphClient, parent_id: str, *, naming: re.Pattern[str] | None = None
) -> str | None:
    """The orchestrator's last answer once the analyst has woken it (and, with ``naming``,
    once that answer matches it), else None."""
    messages = await thread_messages(client, parent_id)
    notified = any(NOTIFICATION in (m.get("additional_kwargs") or {}) for m in messages)
    last = messages[-1] if messages else {}
    if not notified or last.get("type") != "ai":
        return None
    text = message_text(last)
    return text if naming is None or naming.search(text) else None


async def wait_woken(
    client: LangGraphClient, analysis: Analysis, within_s: float, *, every: float = 1.0
) -> str:
    """The orchestrator's answer once the analyst of ``analysis`` has woken it;
    ``TimeoutError`` after ``within_s`` seconds.

    Waits without reading the threads' state over and over (each read serialises the
    whole state in the Agent Server, which 16 waiting clients made a measurable share of
    its CPU): it joins the analyst's run, then lists the orchestrator's runs (a few
    small records) until the run that woke it has ended, and reads the state once."""
    deadline = time.monotonic() + within_s

    async def analyst_ended() -> None:
        runs: Any = await client.runs.list(analysis.task_id, limit=10)
        for run in runs:
            if run["status"] in ("pending", "running"):
                await client.runs.join(analysis.task_id, run["run_id"])

    async def woken() -> str | None:
        later = await runs_since(client, analysis.thread_id, analysis.run_id)
        if not later or any(r["status"] in ("pending", "running") for r in later):
            return None
        return await woken_answer(client, analysis.thread_id)

    try:
        await asyncio.wait_for(analyst_ended(), within_s)
    except TimeoutError:
        msg = f"timed out after {within_s:g} s waiting for the analyst's run to end"
        raise TimeoutError(msg) from None
    return await poll(
        woken, max(deadline - time.monotonic(), 0.0), "the orchestrator to be woken", every
    )


async def follow_run(
    client: LangGraphClient, thread_id: str, run_id: str
) -> AsyncIterator[StreamPart]:
    """Every event the run publishes from now until it ends (nothing for a run that ended).

    No ``stream_mode`` filter: this SDK sends a list of modes as repeated query parameters,
    of which the server reads one; the caller picks events by ``part.event``."""
    async for part in client.runs.join_stream(thread_id, run_id):
        yield part


async def runs_since(
    client: LangGraphClient, thread_id: str, after_run_id: str
) -> list[dict[str, Any]]:
    """Runs on the thread created after the run ``after_run_id``, oldest first."""
    runs = [dict(r) for r in await client.runs.list(thread_id, limit=50)]
    since = next((str(r["created_at"]) for r in runs if r["run_id"] == after_run_id), "")
    later = [r for r in runs if str(r["created_at"]) > since and r["run_id"] != after_run_id]
    return sorted(later, key=lambda r: str(r["created_at"]))
