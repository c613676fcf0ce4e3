"""One attempt at a task, through the real graphs: a new thread on the Agent Server, the
buyer's turns, their answers to questions and their approval decisions, as a client does.

The ERP is reset before each attempt, so every attempt starts from the same seed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from langgraph_sdk.client import LangGraphClient

from runstack.threads import interrupts, message_text, thread_messages
from scripts.agent_eval.tasks import Task

__all__ = ["Attempt", "reset_erp", "run_attempt"]

USER = {"user_id": "eval-buyer", "username": "Eval Buyer"}
_MAX_RESUMES = 8


@dataclass
class Attempt:
    """What the agent did in one attempt."""

    questions: list[dict[str, Any]] = field(default_factory=list)  # request_order_info
    approvals: list[dict[str, Any]] = field(default_factory=list)  # action requests shown
    waiting: str | None = None  # "question" / "approval" when the buyer had no more to give
    final: str = ""  # the agent's last message
    analyses: list[dict[str, Any]] = field(default_factory=list)  # start_async_task args
    seconds: float = 0.0
    error: str | None = None


def _decision(raw: Any, action: dict[str, Any]) -> dict[str, Any]:
    if raw == "approve" or raw == {"approve": None}:
        return {"type": "approve"}
    if raw == "reject":
        return {"type": "reject", "message": "not now"}
    if isinstance(raw, dict) and "edit" in raw:
        edit = dict(raw["edit"])
        args = dict(action.get("args", {}))
        if "quantity" in edit:  # the buyer changes the quantity of every line on the card
            quantity = edit.pop("quantity")
            args["lines"] = [{**ln, "quantity": quantity} for ln in args.get("lines") or []]
        args.update(edit)
        return {"type": "edit", "edited_action": {"name": action["name"], "args": args}}
    msg = f"unknown decision {raw!r}: use approve, reject or {{edit: {{...}}}}"
    raise ValueError(msg)


def _resume_value(task: Task, pending: dict[str, Any], attempt: Attempt, left: dict[str, list[Any]]
                  ) -> Any | None:  # fmt: skip
    value = pending.get("value") or {}
    if value.get("type") == "request_order_info":
        attempt.questions.append(value)
        if not left["answers"]:
            attempt.waiting = "question"
            return None
        return left["answers"].pop(0)
    actions = value.get("action_requests") or []
    attempt.approvals += actions
    if not left["decisions"]:
        attempt.waiting = "approval"
        return None
    raw = left["decisions"].pop(0)
    return {"decisions": [_decision(raw, a) for a in actions]}


async def _settle(client: LangGraphClient, thread_id: str, task: Task, attempt: Attempt,
                  left: dict[str, list[Any]]) -> bool:  # fmt: skip
    """Answer pending interrupts while the task has answers; False when the buyer is out."""
    for _ in range(_MAX_RESUMES):
        thread: Any = await client.threads.get(thread_id)
        pending = interrupts(thread)
        if not pending:
            return True
        resume = _resume_value(task, pending[0], attempt, left)
        if resume is None:
            return False
        await client.runs.wait(thread_id, "orchestrator", command={"resume": resume},
                               context=USER)  # fmt: skip
    attempt.error = "too many interrupts"
    return False


def _collect(messages: list[dict[str, Any]], attempt: Attempt) -> None:
    for m in messages:
        for call in m.get("tool_calls") or []:
            if call.get("name") == "start_async_task":
                attempt.analyses.append(dict(call.get("args") or {}))
    ai = [m for m in messages if m.get("type") == "ai"]
    attempt.final = message_text(ai[-1]) if ai else ""


async def reset_erp(erp_url: str) -> None:
    """Put the ERP back to its seed, so every attempt starts from the same data."""
    async with httpx.AsyncClient(timeout=60) as http:
        (await http.post(f"{erp_url}/admin/reset")).raise_for_status()


async def run_attempt(client: LangGraphClient, task: Task) -> Attempt:
    """Play the task's side of the conversation on a new thread."""
    attempt = Attempt()
    started = time.monotonic()
    left = {"answers": list(task.answers), "decisions": list(task.decisions)}
    thread_id = str((await client.threads.create())["thread_id"])
    try:
        for turn in task.turns:
            message: Any = {"messages": [{"role": "user", "content": turn}]}
            await client.runs.wait(thread_id, "orchestrator", input=message, context=USER)
            if not await _settle(client, thread_id, task, attempt, left):
                break
    except Exception as e:  # an attempt that errs is a failed attempt, not a failed run
        attempt.error = f"{type(e).__name__}: {e}"
    _collect(await thread_messages(client, thread_id), attempt)
    attempt.seconds = round(time.monotonic() - started, 2)
    return attempt
