"""Background analyses the conversation started: launched, asked about, stopped, finished."""

from __future__ import annotations

import html
import re
from typing import Any

from graphs.messages import NOTIFICATION_KEY, message_text
from graphs.middleware.analysis_outcome import FailureKind, failure_kind
from graphs.offline import lexicon
from graphs.offline.entities import find_suppliers, token_spans
from graphs.offline.history import ToolResult, View
from graphs.offline.intent import Intent
from graphs.offline.policies.base import Decision, say
from graphs.offline.policies.orchestrator import replies
from graphs.offline.scope import read_scope
from graphs.orders.words import supplier_status_word

__all__ = ["LAUNCHED", "known_tasks", "launched", "on_notification", "task_question"]

LAUNCHED = "launched"
"""The note of the reply that started analyses: a next message that only limits the scope
("只看 NGK 和博世的") starts the same request again with the new limits."""

_TASK_ID = re.compile(r"task_id:\s*([0-9a-fA-F-]{8,})")
_USER = re.compile(r"user_id=([^,;\s]+)")
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)
# What a finished analysis hands back: the report it wrote.
_REPORT = re.compile(r"report_\d{8}[\w-]*\.md")


# "取消所有分析", "cancel all the analyses", "stop them all": every one started here.
_ALL = re.compile(r"所有|全部|都|统统|(?<![a-z])(?:all|every|everything|both)(?![a-z])", re.I)


def _cancelled(view: View) -> set[str]:
    """Ids of the tasks this conversation already cancelled."""
    return {
        str(m.content).rsplit(":", 1)[-1].strip()
        for m in view.messages
        if getattr(m, "type", "") == "tool"
        and getattr(m, "name", "") == "cancel_async_task"
        and str(m.content).startswith("Cancelled")
    }


def known_tasks(view: View) -> list[str]:
    """Ids of the background tasks this conversation started, oldest first."""
    ids: list[str] = []
    for m in view.messages:
        if getattr(m, "type", "") == "tool" and getattr(m, "name", "") == "start_async_task":
            found = _TASK_ID.search(str(m.content))
            if found:
                ids.append(found.group(1))
    return ids


def _ended_tasks(view: View) -> set[str]:
    """Ids of the background tasks whose end (done, failed, cancelled) this conversation was
    told of by a notification."""
    ended = set()
    for m in view.messages:
        event = (getattr(m, "additional_kwargs", None) or {}).get(NOTIFICATION_KEY)
        if isinstance(event, dict) and event.get("status") in ("success", "error", "cancelled"):
            ended.add(str(event.get("task_id")))
    return ended


# What failed and what the buyer can do, by the kind the analyst's failure names.
_FAILED: dict[FailureKind, tuple[str, str]] = {
    "no_category": (
        "没能确定要分析的零件类别。请说明要分析哪一类零件（例如“火花塞”或“刹车片”），我再重新开始。",
        "it could not tell which part category to analyse. Say which category (for example "
        "spark plugs or brake pads) and I will start again.",
    ),
    "data_unavailable": (
        "分析需要的数据拿不到：ERP 或它的 MCP 服务没有响应。请过几分钟再试；"
        "如果一直这样，请联系管理员检查 ERP 服务。",
        "the data it needs could not be read: the ERP or its MCP server did not answer. Try "
        "again in a few minutes; if it keeps failing, ask an administrator to check the ERP.",
    ),
    "script_failed": (
        "沙箱中的分析脚本出错，没有得到结果。可以再发起一次同样的分析；如果还是失败，"
        "请联系管理员（详情在分析任务的线程里）。",
        "the analysis script failed in the sandbox and produced no result. Ask for the same "
        "analysis again; if it fails again, ask an administrator (the details are in the "
        "task's thread).",
    ),
    "other": (
        "分析过程中出错了。可以再发起一次；如果还是失败，请联系管理员。",
        "something went wrong during the analysis. Ask again; if it fails again, ask an "
        "administrator.",
    ),
}


def _batch(view: View, task_id: str) -> list[str]:
    """The tasks started together with ``task_id`` (one request, several categories)."""
    started = {
        str(getattr(m, "tool_call_id", "")): found.group(1)
        for m in view.messages
        if getattr(m, "type", "") == "tool" and getattr(m, "name", "") == "start_async_task"
        and (found := _TASK_ID.search(str(m.content)))
    }  # fmt: skip
    for m in view.messages:
        calls = getattr(m, "tool_calls", None) or []
        batch = [started[str(c.get("id"))] for c in calls if str(c.get("id")) in started]
        if task_id in batch:
            return batch
    return [task_id]


def _failed(view: View, event: dict[str, object], text: str, zh: bool) -> Decision:
    """The buyer's answer when the analysis ended in error: what failed, what to try."""
    task_id = str(event.get("task_id", ""))
    kind = failure_kind(text) or "other"
    chinese, english = _FAILED[kind]
    return Decision(
        say(zh, f"后台分析 {task_id} 失败了，没有生成报告：{chinese}",
            f"The background analysis {task_id} failed and wrote no report: {english}"),
        note=f"notified-error:{kind}",
    )  # fmt: skip


def on_notification(view: View, event: dict[str, object], zh: bool) -> Decision:
    """Tell the buyer how a background task ended; a run with no report did not succeed."""
    text = message_text(view.last) if view.last is not None else ""
    result = re.search(r"<result>\s*(.*?)\s*</result>", text, re.S)
    # deepagents escapes the answer inside its tags (& → &amp;): the buyer reads it unescaped,
    # and the links in it (?exp=...&sig=...) must work.
    body = html.unescape(result.group(1).strip()) if result else ""
    task_id = str(event.get("task_id", ""))
    status = str(event.get("status", ""))
    if status == "error":
        return _failed(view, event, text, zh)
    if status == "success" and _REPORT.search(body):
        batch = _batch(view, task_id)
        of = (
            say(zh, f"（本次请求涉及 {len(batch)} 个类别，每个类别一份报告，这是第 "
                f"{batch.index(task_id) + 1} 份。）",
                f" (your request covered {len(batch)} categories, one report each: this is "
                f"report {batch.index(task_id) + 1}.)")
            if len(batch) > 1
            else ""
        )  # fmt: skip
        return Decision(
            say(zh, f"后台分析 {task_id} 已完成{of}\n\n{body}",
                f"The background analysis {task_id} has finished{of}.\n\n{body}"),
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


def _records(view: View, tool: str) -> dict[str, dict[str, Any]]:
    """The ERP records ``tool`` listed since the request, by code."""
    out: dict[str, dict[str, Any]] = {}
    for _, data in view.iter_data(tool):
        items = data.get("items") if isinstance(data, dict) else None
        for item in items or []:
            if isinstance(item, dict) and item.get("code"):
                out[str(item["code"])] = item
    return out


def _understood(view: View, started: list[ToolResult], zh: bool) -> list[str]:
    """What each started analysis covers, as the buyer would check it: the category, the
    brands, the window and the part the scope settled (so a misreading shows at once)."""
    categories = _records(view, "category_list")
    suppliers = _records(view, "supplier_query")
    key = "name_zh" if zh else "name_en"
    lines = []
    for r in started:
        if r.name != "start_async_task" or not _TASK_ID.search(r.content):
            continue
        scope = read_scope(str(r.args.get("description", "")))
        cats = [str(categories.get(c, {}).get(key) or c) for c in scope.categories]
        what = ("、" if zh else ", ").join(cats) or say(zh, "所有类别", "all categories")
        limits = []
        if scope.brands:
            brands = [str(suppliers.get(b, {}).get(key) or b) for b in scope.brands]
            limits.append(say(zh, "品牌：" + "、".join(brands), "brands: " + ", ".join(brands)))
        if scope.part:
            limits.append(say(zh, f"零件：{scope.part}", f"part: {scope.part}"))
        if scope.parts:
            limits.append(
                say(zh, "零件：" + "、".join(scope.parts), "parts: " + ", ".join(scope.parts))
            )
        if scope.excluded:
            out = [str(suppliers.get(b, {}).get(key) or b) for b in scope.excluded]
            limits.append(say(zh, "不含：" + "、".join(out), "leaving out: " + ", ".join(out)))
        if scope.origin:
            home = scope.origin == "domestic"
            limits.append(
                say(
                    zh,
                    "只看国内供应商" if home else "只看国外供应商",
                    "domestic suppliers only" if home else "suppliers abroad only",
                )
            )
        if scope.window_months:
            n = scope.window_months
            limits.append(say(zh, f"近 {n} 个月", f"last {n} months"))
        extra = (say(zh, "（" + "；".join(limits) + "）", " (" + "; ".join(limits) + ")")
                 if limits else "")  # fmt: skip
        task_id = _TASK_ID.search(r.content).group(1)  # type: ignore[union-attr]
        lines.append(
            say(
                zh,
                f"- {what}的供应商比价分析{extra}，task_id: {task_id}",
                f"- {what} supplier price comparison{extra}, task_id: {task_id}",
            )
        )
    return lines


_BODY = re.compile(r"【(?:分析)?需求正文】(.*?)(?=【[^】]+】|\Z)", re.S)


def _not_brands(view: View, started: list[ToolResult], zh: bool) -> str:
    """What the buyer should know of the suppliers the request names that the scope could
    not take as they were meant ("只看力帆": a distributor is no part brand; a supplier not
    active takes no orders), or ""."""
    suppliers = list(_records(view, "supplier_query").values())
    notes: list[str] = []
    for r in started:
        description = str(r.args.get("description", ""))
        body = _BODY.search(description)
        if r.name != "start_async_task" or body is None:
            continue
        scope = read_scope(description)
        text = body.group(1)
        for m in find_suppliers(text, suppliers, skip=token_spans(text)):
            s = m.record
            code = str(s.get("code"))
            if code in scope.excluded or any(code in n for n in notes):
                continue
            name = f"{s.get('name_zh') if zh else s.get('name_en')}（{code}）" if zh else (
                f"{s.get('name_en')} ({code})")  # fmt: skip
            if s.get("kind") == "distributor":
                notes.append(say(zh, f"{name}是经销商，不是零件品牌，比价范围不能只限定到它，"
                                     "这次比较的是所有供应商的报价",
                                 f"{name} is a distributor, not a part brand, so the "
                                 "comparison cannot be limited to it: it covers every "
                                 "supplier's prices"))  # fmt: skip
            if s.get("status") != "active":
                word = supplier_status_word(str(s.get("status")), "zh" if zh else "en")
                notes.append(say(zh, f"{name}目前{word}，不能向它下单",
                                 f"{name} is {word} and cannot take orders now"))  # fmt: skip
        if KIND_LIMIT.search(body.group(1)):
            notes.append(KIND_NOTE[0] if zh else KIND_NOTE[1])
    if not notes:
        return ""
    return say(zh, "说明：" + "；".join(notes) + "。\n", "Note: " + "; ".join(notes) + ".\n")


# "只看经销商", "only distributors", "只看厂家": a limit by the suppliers' kind, which the
# comparison's scope does not take (brands, origin, exclusions and window do).
KIND_LIMIT = re.compile(
    r"(?:只看|只要|只比|仅限?|限定)\s*(?:经销商|贸易商|代理商|厂家|原厂|制造商|生产商)"
    r"|(?<![a-z])only\s+(?:the\s+)?(?:distributors|dealers|traders|makers|manufacturers)(?![a-z])",
    re.I,
)
KIND_NOTE = (
    "比价范围不能按供应商类型（厂家或经销商）限定，这次比较的是所有供应商的报价",
    "the comparison cannot be limited by the kind of supplier (maker or distributor): it "
    "covers every supplier's prices",
)


def launched(view: View, zh: bool) -> Decision:
    """The analyses this turn started, each with what it covers and its task id (or why one
    could not start)."""
    started = view.last_turn() or [r for r in view.results if r.name == "start_async_task"][-1:]
    ids = [m.group(1) for r in started if (m := _TASK_ID.search(r.content))]
    failed = [r for r in started if r.name == "start_async_task" and not _TASK_ID.search(r.content)]
    if failed and not ids:
        return Decision(
            say(zh, f"后台分析没能启动：{failed[0].content}",
                f"The analysis could not start: {failed[0].content}"),
            note="launch-failed",
        )  # fmt: skip
    understood = "\n".join(_understood(view, started, zh)) + "\n" + _not_brands(view, started, zh)
    understood = understood.rstrip("\n")
    several = (
        say(zh, f"请求涉及 {len(ids)} 个类别，每个类别单独分析、各出一份报告。",
            f"Your request covers {len(ids)} categories: one analysis and one report each. ")
        if len(ids) > 1
        else ""
    )  # fmt: skip
    done = _ended_tasks(view)  # a task whose end was notified is not "still running"
    before = [t for t in known_tasks(view) if t not in ids and t not in done]
    still = (
        say(zh, f"之前开始的分析（task_id: {before[-1]}）仍在后台运行；不需要的话告诉我"
            f"“取消分析 {before[-1]}”。\n",
            f"The analysis started before (task_id: {before[-1]}) is still running; say "
            f"\"cancel analysis {before[-1]}\" if you no longer need it.\n")
        if before
        else ""
    )  # fmt: skip
    return Decision(
        say(zh, f"已在后台开始分析：\n{understood}\n{several}{still}"
            "你可以继续提问，完成后我会告诉你报告位置。要换范围就直接说（比如“只看 NGK 和博世”"
            "或“近 3 个月”），我按新范围再开始一次。",
            f"The analysis is running in the background:\n{understood}\n{several}{still}Keep "
            "chatting; I'll tell you where the report is when it's done. To change the scope, "
            "just say so (for example \"only NGK and Bosch\" or \"the last 3 months\") and "
            "I'll start it again with that scope."),
        note=LAUNCHED,
    )  # fmt: skip


def _archive(view: View, zh: bool) -> Decision:
    """ "My reports": the index of the buyer's archive, which every analysis adds a line to."""
    found = _USER.search(view.system)
    if found is None:
        return Decision(
            say(zh, "不知道你是哪位用户，没法打开你的报告存档。",
                "I don't know which user you are, so I cannot open your report archive."),
            note="archive-no-user",
        )  # fmt: skip
    return Decision(
        say(zh, "打开你的报告存档。", "Opening your report archive."),
        [("read_file", {"file_path": f"/reports/{found.group(1)}/index.md"})],
        note="archive",
    )


def task_question(view: View, intent: Intent, zh: bool) -> Decision:
    """Check on or stop the background analysis the request names (else the latest one);
    "my reports" opens the archive's index."""
    if intent == "analysis_status" and lexicon.has(view.request, "my_reports"):
        return _archive(view, zh)
    tasks = known_tasks(view)
    tool = "cancel_async_task" if intent == "analysis_cancel" else "check_async_task"
    if not tasks or not view.has_tool(tool):
        return Decision(replies.no_task(zh), note="no-task")
    named = [t for t in _UUID.findall(view.request) if t in tasks]
    if intent == "analysis_cancel":
        every = _ALL.search(view.request) and not named
        stopped = _cancelled(view)
        chosen = [t for t in tasks if t not in stopped] if every else [(named or tasks)[-1]]
        if not chosen:
            return Decision(say(zh, "之前开始的分析都已经取消了。",
                                "Every analysis started here is already cancelled."),
                            note="no-task")  # fmt: skip
        return Decision(
            say(zh, "取消后台分析。", "Cancelling the background analysis."),
            [(tool, {"task_id": t}) for t in chosen],
            note="cancel-task",
        )
    return Decision(
        say(zh, "查询后台分析的状态。", "Checking the background analysis."),
        [(tool, {"task_id": (named or tasks)[-1]})],
        note="check-task",
    )


def after_task_tool(view: View, last: ToolResult, zh: bool) -> Decision:
    """The answer once a cancel or status call came back, in the buyer's words (the tools
    answer in English and JSON, for a model)."""
    task_id = str(last.args.get("task_id") or "")
    batch = [r for r in view.last_turn() if r.name == "cancel_async_task"]
    if len(batch) > 1:  # "取消所有分析": each one, stopped or not
        done = [str(r.args.get("task_id")) for r in batch if r.ok]
        failed = [f"{r.args.get('task_id')}: {r.content}" for r in batch if not r.ok]
        text = say(zh, f"已取消 {len(done)} 个后台分析（task_id: {'、'.join(done)}），"
                       "不会再写报告。",
                   f"Cancelled {len(done)} background analyses (task_id: {', '.join(done)}); "
                   "they will not write reports.") if done else ""  # fmt: skip
        if failed:
            text += say(zh, "\n没能取消：" + "；".join(failed),
                        "\nCould not cancel: " + "; ".join(failed))  # fmt: skip
        return Decision(text.strip(), note="task-cancelled")
    if last.name == "cancel_async_task":
        if last.ok:
            return Decision(
                say(zh, f"已取消后台分析（task_id: {task_id}）。它不会再写报告。",
                    f"Cancelled the background analysis (task_id: {task_id}); it will not "
                    "write a report."),
                note="task-cancelled",
            )  # fmt: skip
        return Decision(
            say(zh, f"没能取消后台分析（task_id: {task_id}）：{last.content}",
                f"Could not cancel the background analysis (task_id: {task_id}): {last.content}"),
            note="task-cancel-failed",
        )  # fmt: skip
    data = last.data()
    if not isinstance(data, dict) or "status" not in data:
        return Decision(
            say(
                zh,
                f"后台分析状态：\n{last.content}",
                f"Background analysis status:\n{last.content}",
            ),
            note="task-status",
        )
    return Decision(_status_text(data, task_id, zh), note="task-status")


def _status_text(data: dict[str, Any], task_id: str, zh: bool) -> str:
    """A task's status as ``check_async_task`` reports it, said to the buyer."""
    status = str(data.get("status"))
    ref = f"（task_id: {task_id}）" if zh else f" (task_id: {task_id})"
    if status == "success":
        result = str(data.get("result") or "").strip()
        return say(zh, f"分析已经完成{ref}：\n{result}", f"The analysis is done{ref}:\n{result}")
    if status == "error":
        error = str(data.get("error") or "")
        return say(zh, f"分析出错了{ref}：{error}", f"The analysis failed{ref}: {error}")
    if status == "cancelled":
        return say(zh, f"这项分析已经取消{ref}。", f"That analysis was cancelled{ref}.")
    if data.get("interrupts"):
        return say(zh, f"分析在等你回复{ref}。", f"The analysis is waiting for your answer{ref}.")
    return say(
        zh,
        f"分析还在进行{ref}。完成后我会告诉你报告在哪里。",
        f"The analysis is still running{ref}. I will tell you where the report is when it is done.",
    )
