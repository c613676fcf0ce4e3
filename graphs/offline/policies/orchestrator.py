"""Orchestrator policy: route by DESIGN's keyword classes, delegate, report back.

a request that carries a SKILL.md, or asks to list or remove skills → ``assign_skill``
(:mod:`graphs.offline.policies.skills`); "cancel the analysis" with a background task
running → ``cancel_async_task``; a request that names what a client-lent tool
provides → that tool, arguments from its schema, then its result (or its error) as the
answer; analysis words → ``start_async_task`` (analyst, in the background) and the task
id at once; order words → ``task`` (procurement-order); greetings → a greeting; anything
else → what offline mode can do. A task notification → tell the user the outcome.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graphs.messages import message_text
from graphs.offline.client_tools import build_arguments, match_client_tool
from graphs.offline.history import ToolResult, View
from graphs.offline.policies import skills
from graphs.offline.policies.base import Decision, say
from graphs.offline.text import classify, find_order_no, is_chinese
from graphs.prompts import DELEGATION_TEMPLATE

__all__ = ["decide"]

ANALYST = "analyst"
ORDER_AGENT = "procurement-order"
_STATUS_WORDS = re.compile(
    r"进度|好了吗|完成了吗|做完|状态如何|\bstatus\b|\bprogress\b|\bdone\b", re.I
)
_TASK_ID = re.compile(r"task_id:\s*([0-9a-fA-F-]{8,})")
_CANCEL_WORDS = re.compile(r"取消|停止|停掉|终止|不要了|\bcancel|\bstop\b|\babort\b", re.I)
_TASK_WORDS = re.compile(r"分析|任务|报告|\banalys[ie]s\b|\btask\b|\breport\b", re.I)
_UUID = re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I)


def _scope(zh: bool) -> str:
    return say(
        zh,
        "当前为离线模式（未配置模型密钥），我能做：\n"
        "1. 供应商比价 / 采购分析（例如“帮我对摩托车火花塞做供应商比价分析”），"
        "在后台生成报告和图表；\n"
        "2. 订单操作：下单、修改、取消、查询订单状态"
        "（例如“给 NGK 下单 200 个火花塞 IU7，下周五前到货”），提交前需要你审批；\n"
        "3. 查询或停止后台分析任务（例如“停止这个分析”）；\n"
        "4. 技能管理：发来一份 SKILL.md（开头 --- 之间写 name 和 description），"
        "我会创建、测试并分配给你点名的代理（分析师、订单代理，默认主代理）；"
        "也可以列出或删除你的技能。\n"
        "配置 DEEPSEEK_API_KEY 或 OPENAI_API_KEY 后可以自由对话。",
        "Offline mode (no model key configured). I can:\n"
        "1. run a supplier price comparison / procurement analysis in the background "
        "(e.g. 'compare suppliers for spark plugs'), with a report and charts;\n"
        "2. place, change, cancel or look up purchase orders (e.g. 'order 200 NGK spark plugs "
        "IU7 by next Friday'), always with your approval before anything is committed;\n"
        "3. tell you how a background analysis is doing, or stop it ('cancel the analysis');\n"
        "4. manage skills: send a SKILL.md (front matter with name and description between "
        "'---' lines) and I create, test and assign it to the agent you name (analyst, "
        "procurement-order; the orchestrator by default); I can also list or remove yours.\n"
        "Set DEEPSEEK_API_KEY or OPENAI_API_KEY for open conversation.",
    )


def _delegation(view: View, *, analysis: bool) -> str:
    zh = is_chinese(view.request)
    goal = (
        say(
            zh,
            "按 5 个阶段完成供应商比价 / 采购分析并写报告",
            "Run the 5-stage procurement analysis and write the report",
        )
        if analysis
        else say(
            zh,
            "执行用户的订单操作（提交前需人工审批）",
            "Carry out the user's order operation (human approval before committing)",
        )
    )
    output = (
        say(
            zh,
            "/analysis/report_YYYYMMDD.md（摘要、表格、2-4 张图、结论、建议、带 URL 的编号来源），"
            "返回结构化摘要",
            "/analysis/report_YYYYMMDD.md (summary, tables, 2-4 charts, "
            "conclusions, recommendations, numbered sources with URLs); "
            "return a structured summary",
        )
        if analysis
        else say(
            zh,
            "订单号、状态、明细与金额的确认",
            "Confirmation with order number, status, lines and total",
        )
    )
    return DELEGATION_TEMPLATE.format(
        goal=goal, preferences=say(zh, "无", "none"), body=view.request.strip(), output=output
    )


def _known_tasks(view: View) -> list[str]:
    ids: list[str] = []
    for m in view.messages:
        if getattr(m, "type", "") == "tool" and getattr(m, "name", "") == "start_async_task":
            found = _TASK_ID.search(str(m.content))
            if found:
                ids.append(found.group(1))
    return ids


def _on_notification(view: View, event: dict[str, object]) -> Decision:
    text = message_text(view.last) if view.last is not None else ""
    zh = is_chinese(view.request) if view.request else True
    result = re.search(r"<result>\s*(.*?)\s*</result>", text, re.S)
    body = result.group(1).strip() if result else ""
    task_id = str(event.get("task_id", ""))
    status = str(event.get("status", ""))
    if status == "success":
        return Decision(
            say(
                zh,
                f"后台分析任务 {task_id} 已完成。\n\n{body}",
                f"The background analysis {task_id} has finished.\n\n{body}",
            ),
            note="notified-success",
        )
    if status == "waiting":
        return Decision(
            say(
                zh,
                f"后台任务 {task_id} 正在等待输入，请在它自己的线程里回答。",
                f"Background task {task_id} is waiting for input on its own thread.",
            ),
            note="notified-waiting",
        )
    return Decision(
        say(
            zh,
            f"后台任务 {task_id} 没有成功（{status}）。可以让我重新开始分析。",
            f"Background task {task_id} did not succeed ({status}). Ask me to start it again.",
        ),
        note="notified-failure",
    )


def _client_result(result: ToolResult, zh: bool) -> Decision:
    if result.ok:
        return Decision(
            say(
                zh,
                f"客户端工具 {result.name} 的结果：\n{result.body}",
                f"Result of your client tool {result.name}:\n{result.body}",
            ),
            note="client-tool-answer",
        )
    return Decision(
        say(
            zh,
            f"客户端工具 {result.name} 调用失败：{result.body}",
            f"Your client tool {result.name} failed: {result.body}",
        ),
        note="client-tool-error",
    )


def _client_call(view: View, zh: bool) -> Decision | None:
    """Call the client tool the request asks for (once per request), if one fits."""
    candidates = {n: s for n, s in view.client_tools.items() if not view.called(n)}
    found = match_client_tool(view.request, candidates)
    if found is None:
        return None
    args, missing = build_arguments(view.request, candidates[found.name]["parameters"])
    if missing:
        return Decision(
            say(
                zh,
                f"要调用你的工具 {found.name}，还需要：{'、'.join(missing)}。请补充。",
                f"To call your tool {found.name} I also need: {', '.join(missing)}.",
            ),
            note="client-tool-missing-args",
        )
    return Decision(
        say(
            zh,
            f"调用你的客户端工具 {found.name}。",
            f"Calling your client tool {found.name}.",
        ),
        [(found.name, args)],
        note="client-tool-call",
    )


def _launched(last: ToolResult, zh: bool) -> Decision:
    found = _TASK_ID.search(last.content)
    if found is None:
        return Decision(
            say(
                zh,
                f"后台分析没能启动：{last.content}",
                f"The analysis could not start: {last.content}",
            ),
            note="launch-failed",
        )
    return Decision(
        say(
            zh,
            f"已在后台启动分析，task_id: {found.group(1)}。你可以继续提问；"
            "分析完成后我会告诉你报告位置。",
            f"The analysis is running in the background, task_id: {found.group(1)}. "
            "Keep chatting; I'll tell you where the report is when it's done.",
        ),
        note="launched",
    )


def _after_tool(view: View, last: ToolResult, zh: bool) -> Decision:
    """The answer once a tool the orchestrator called has come back."""
    if last.name == "start_async_task":
        return _launched(last, zh)
    if last.name == "task":
        return Decision(last.content, note="relayed-subagent")
    if last.name == skills.TOOL:
        return skills.after_result(view, zh)
    if last.name in view.client_tools:
        return _client_result(last, zh)
    if last.name == "cancel_async_task":
        return Decision(
            say(zh, f"后台任务：{last.content}", f"Background task: {last.content}")
            if last.ok
            else say(zh, f"没能取消后台任务：{last.content}", f"Could not cancel: {last.content}"),
            note="task-cancelled" if last.ok else "task-cancel-failed",
        )
    if last.name in ("check_async_task", "list_async_tasks"):
        return Decision(
            say(zh, f"后台任务状态：\n{last.content}", f"Background task status:\n{last.content}"),
            note="task-status",
        )
    return Decision(last.content, note="relayed-tool")


def _background_task(view: View, zh: bool, intent: str) -> Decision | None:
    """Stop or look up a background analysis the conversation started, when asked to."""
    tasks = _known_tasks(view)
    if not tasks:
        return None
    # "Cancel the analysis" (a cancel word and a task word, no order number) stops the
    # background task the request names, or the latest one; an order is cancelled by the
    # order agent as before.
    cancels_task = (
        bool(_CANCEL_WORDS.search(view.request))
        and bool(_TASK_WORDS.search(view.request))
        and find_order_no(view.request) is None
    )
    if cancels_task and view.has_tool("cancel_async_task"):
        named = [t for t in _UUID.findall(view.request) if t in tasks]
        return Decision(
            say(zh, "取消后台任务。", "Cancelling the background task."),
            [("cancel_async_task", {"task_id": (named or tasks)[-1]})],
            note="cancel-task",
        )
    asks_status = bool(_STATUS_WORDS.search(view.request)) and intent != "order"
    if asks_status and view.has_tool("check_async_task"):
        return Decision(
            say(zh, "查询后台任务状态。", "Checking the background task."),
            [("check_async_task", {"task_id": tasks[-1]})],
            note="check-task",
        )
    return None


@dataclass(frozen=True)
class _Route:
    """Where a request of one class goes: which tool hands it to which agent."""

    tool: str
    agent: str
    note: str
    zh: str
    en: str


_ROUTES = {
    "analysis": _Route(
        "start_async_task",
        ANALYST,
        "route-analyst",
        "这是分析类请求，交给后台分析师。",
        "An analysis request: handing it to the background analyst.",
    ),
    "order": _Route(
        "task",
        ORDER_AGENT,
        "route-order",
        "这是订单操作，交给订单子代理。",
        "An order operation: handing it to the order agent.",
    ),
}


def _delegate(view: View, zh: bool, intent: str) -> Decision | None:
    """Hand an analysis to the background analyst, an order operation to the order agent."""
    route = _ROUTES.get(intent)
    if route is None or not view.has_tool(route.tool):
        return None
    description = _delegation(view, analysis=intent == "analysis")
    args = {"description": description, "subagent_type": route.agent}
    return Decision(say(zh, route.zh, route.en), [(route.tool, args)], note=route.note)


def decide(view: View) -> Decision:
    """Next step of the orchestrator."""
    event = view.notification()
    if event is not None:
        return _on_notification(view, event)
    zh = is_chinese(view.request)
    last = view.last_result()
    if last is not None and getattr(view.last, "type", "") == "tool":
        return _after_tool(view, last, zh)
    client = _client_call(view, zh)
    if client is not None:
        return client
    # Before the keyword classes: a skill's own text may hold analysis or order words.
    skill = skills.start(view, zh)
    if skill is not None:
        return skill
    intent = classify(view.request)
    step = _background_task(view, zh, intent) or _delegate(view, zh, intent)
    if step is not None:
        return step
    if intent == "greeting":
        return Decision(
            say(
                zh,
                "你好！我是采购助理。\n" + _scope(zh),
                "Hello! I'm the procurement assistant.\n" + _scope(zh),
            ),
            note="greeting",
        )
    return Decision(_scope(zh), note="offline-scope")
