"""Background analyses the conversation started: launched, asked about, stopped, finished."""

from __future__ import annotations

import re

from graphs.messages import message_text
from graphs.offline.history import ToolResult, View
from graphs.offline.intent import Intent
from graphs.offline.policies.base import Decision, say
from graphs.offline.policies.orchestrator import replies

__all__ = ["known_tasks", "launched", "on_notification", "task_question"]

_TASK_ID = re.compile(r"task_id:\s*([0-9a-fA-F-]{8,})")
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
# What a finished analysis hands back: the report it wrote.
_REPORT = re.compile(r"report_\d{8}[\w-]*\.md")


def known_tasks(view: View) -> list[str]:
    """Ids of the background tasks this conversation started, oldest first."""
    ids: list[str] = []
    for m in view.messages:
        if getattr(m, "type", "") == "tool" and getattr(m, "name", "") == "start_async_task":
            found = _TASK_ID.search(str(m.content))
            if found:
                ids.append(found.group(1))
    return ids


def on_notification(view: View, event: dict[str, object], zh: bool) -> Decision:
    """Tell the buyer how a background task ended; a run with no report did not succeed."""
    text = message_text(view.last) if view.last is not None else ""
    result = re.search(r"<result>\s*(.*?)\s*</result>", text, re.S)
    body = result.group(1).strip() if result else ""
    task_id = str(event.get("task_id", ""))
    status = str(event.get("status", ""))
    if status == "success" and _REPORT.search(body):
        return Decision(
            say(zh, f"后台分析 {task_id} 已完成。\n\n{body}",
                f"The background analysis {task_id} has finished.\n\n{body}"),
            note="notified-success",
        )  # fmt: skip
    if status == "waiting":
        return Decision(
            say(zh, f"后台任务 {task_id} 正在等待输入，请在它自己的线程里回答。",
                f"Background task {task_id} is waiting for input on its own thread."),
            note="notified-waiting",
        )  # fmt: skip
    why = body or status
    return Decision(
        say(zh, f"后台分析 {task_id} 没有完成，没有生成报告：{why}",
            f"The background analysis {task_id} did not complete and wrote no report: {why}"),
        note="notified-failure",
    )  # fmt: skip


def launched(view: View, zh: bool) -> Decision:
    """The task ids of the analyses this turn started (or why one could not start)."""
    started = view.last_turn() or [r for r in view.results if r.name == "start_async_task"][-1:]
    ids = [m.group(1) for r in started if (m := _TASK_ID.search(r.content))]
    failed = [r for r in started if r.name == "start_async_task" and not _TASK_ID.search(r.content)]
    if failed and not ids:
        return Decision(
            say(zh, f"后台分析没能启动：{failed[0].content}",
                f"The analysis could not start: {failed[0].content}"),
            note="launch-failed",
        )  # fmt: skip
    listed = ", ".join(f"task_id: {i}" for i in ids)
    return Decision(
        say(zh, f"已在后台开始分析（{listed}）。你可以继续提问，完成后我会告诉你报告位置。",
            f"The analysis is running in the background ({listed}). Keep chatting; I'll tell "
            "you where the report is when it's done."),
        note="launched",
    )  # fmt: skip


def task_question(view: View, intent: Intent, zh: bool) -> Decision:
    """Check on or stop the background analysis the request names (else the latest one)."""
    tasks = known_tasks(view)
    tool = "cancel_async_task" if intent == "analysis_cancel" else "check_async_task"
    if not tasks or not view.has_tool(tool):
        return Decision(replies.no_task(zh), note="no-task")
    named = [t for t in _UUID.findall(view.request) if t in tasks]
    if intent == "analysis_cancel":
        return Decision(
            say(zh, "取消后台分析。", "Cancelling the background analysis."),
            [(tool, {"task_id": (named or tasks)[-1]})],
            note="cancel-task",
        )
    return Decision(
        say(zh, "查询后台分析的状态。", "Checking the background analysis."),
        [(tool, {"task_id": (named or tasks)[-1]})],
        note="check-task",
    )


def after_task_tool(last: ToolResult, zh: bool) -> Decision:
    """The answer once a cancel or status call came back."""
    if last.name == "cancel_async_task":
        return Decision(
            say(zh, f"后台任务：{last.content}", f"Background task: {last.content}")
            if last.ok
            else say(zh, f"没能取消后台任务：{last.content}", f"Could not cancel: {last.content}"),
            note="task-cancelled" if last.ok else "task-cancel-failed",
        )
    return Decision(
        say(zh, f"后台分析状态：\n{last.content}", f"Background analysis status:\n{last.content}"),
        note="task-status",
    )
