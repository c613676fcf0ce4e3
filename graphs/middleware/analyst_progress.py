"""AnalystProgress: the analyst's five stages as ``custom`` stream events, for any model.

A client following the analyst's run (``stream_mode="custom"``, or ``updates`` /
``messages-tuple`` for the raw steps) gets one event when a stage starts and one per tool
call, read from what the agent does, not from what it says, so it works the same for the
offline planner and any real model:

1. ``skills``: listing ``/skills/`` or reading its Markdown (``SKILL.md`` and its notes);
2. ``data``: the ERP's read tools, ``web_search``, ``fetch_url``, reading or searching a
   skill's data (a file that is not Markdown, or anything under a ``data/`` folder: the
   quote-URL table);
3. ``analysis``: ``execute``, or writing a script or ``/data/``;
4. ``charts``: ``generate_visualization``;
5. ``report``: writing under ``/analysis/`` or ``/reports/``.

Every event is a JSON object with ``type: "analyst_progress"`` and ``event``: ``stage``
(a stage began: ``stage``, ``name``, ``label``), ``tool`` (``tool``, ``status``:
started / done / error, and its ``stage`` when it belongs to one) or ``finished``
(``stages``: the stages the run went through). Progress is read from the run's own
messages, so parallel calls and resumed runs count each stage once.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Collection, Iterable, Iterator, Sequence
from pathlib import PurePosixPath
from typing import Any, Final, Literal

from langchain.agents.middleware.types import AgentState, ContextT, ResponseT
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolCall, ToolMessage
from langgraph.config import get_stream_writer
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.runtime import Runtime
from langgraph.types import Command

from graphs.middleware.fail_soft import FailSoft

__all__ = ["EVENT_TYPE", "STAGES", "AnalystProgress", "stage_of", "stages_so_far"]

logger = logging.getLogger(__name__)

EVENT_TYPE: Final = "analyst_progress"
STAGES: Final[dict[int, tuple[str, str]]] = {
    1: ("skills", "读取技能 / Reading the skills"),
    2: ("data", "采集数据 / Collecting ERP data and quotes"),
    3: ("analysis", "分析计算 / Analysing in the sandbox"),
    4: ("charts", "绘制图表 / Drawing charts"),
    5: ("report", "撰写报告 / Writing the report"),
}
_FILE_READS: Final = frozenset({"ls", "read_file", "glob", "grep"})
_FILE_WRITES: Final = frozenset({"write_file", "edit_file"})
_WEB: Final = frozenset({"web_search", "fetch_url"})

Status = Literal["started", "done", "error"]


def _path(args: dict[str, Any]) -> str:
    return str(args.get("file_path") or args.get("path") or args.get("pattern") or "")


def stage_of(name: str, args: dict[str, Any], data_tools: Collection[str] = ()) -> int | None:
    """The stage a tool call belongs to (1-5), or None for housekeeping."""
    path = _path(args)
    if name in _FILE_READS and path.startswith("/skills"):
        is_data = name != "ls" and (
            "/data/" in path or PurePosixPath(path).suffix.lower() not in ("", ".md")
        )
        return 2 if is_data else 1
    if name in _WEB or name in data_tools:
        return 2
    if name == "execute":
        return 3
    if name in _FILE_WRITES:
        if path.startswith(("/analysis/", "/reports/")):
            return 5
        if path.startswith("/data/") or path.endswith(".py"):
            return 3
    if name == "generate_visualization":
        return 4
    return None


def _calls_since_request(messages: Sequence[BaseMessage]) -> Iterator[ToolCall]:
    """The tool calls of the AI messages since the last human message, in order."""
    start = 0
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], HumanMessage):
            start = i
            break
    for m in messages[start:]:
        if isinstance(m, AIMessage):
            yield from m.tool_calls


def _stages(
    messages: Sequence[BaseMessage], data_tools: Iterable[str], before: str | None
) -> Iterator[int]:
    """The stage of each tool call since the request that has one (up to the call with id
    ``before``, when given)."""
    tools = frozenset(data_tools)
    for call in _calls_since_request(messages):
        if before is not None and call.get("id") == before:
            return
        stage = stage_of(call["name"], dict(call.get("args") or {}), tools)
        if stage is not None:
            yield stage


def stages_so_far(
    messages: Sequence[BaseMessage], data_tools: Iterable[str] = (), *, before: str | None = None
) -> list[int]:
    """Stages of the tool calls since the request, in order of first appearance (only the
    calls before the one with id ``before``, when given)."""
    return list(dict.fromkeys(_stages(messages, data_tools, before)))


def _started_before(
    stage: int, messages: Sequence[BaseMessage], data_tools: Iterable[str], before: str | None
) -> bool:
    """Whether a call before the one with id ``before`` began ``stage`` already. It stops at
    the first such call: every tool call asks, and an analysis makes dozens."""
    return any(s == stage for s in _stages(messages, data_tools, before))


class AnalystProgress(FailSoft):
    """Emit the analyst's stage and tool events on the ``custom`` stream.

    ``data_tools``: the agent's data-source tools beyond the web (its ERP read tools).
    """

    def __init__(self, *, data_tools: Iterable[str] = ()) -> None:
        super().__init__()
        self.data_tools = frozenset(data_tools)

    def _emit(self, event: dict[str, Any]) -> None:
        # Fail soft: progress is a courtesy, never a reason for a tool call to fail.
        self.soft(lambda: get_stream_writer()({"type": EVENT_TYPE, **event}), None)

    def _stage_event(self, stage: int) -> dict[str, Any]:
        name, label = STAGES[stage]
        return {"event": "stage", "stage": stage, "name": name, "label": label}

    def _before(self, request: ToolCallRequest) -> int | None:
        call = request.tool_call
        stage = stage_of(call["name"], dict(call.get("args") or {}), self.data_tools)
        messages = (request.state or {}).get("messages") or []
        if stage is not None and not _started_before(
            stage, messages, self.data_tools, call.get("id")
        ):
            self._emit(self._stage_event(stage))
        self._tool_event(request, "started", stage)
        return stage

    def _tool_event(self, request: ToolCallRequest, status: Status, stage: int | None) -> None:
        event: dict[str, Any] = {
            "event": "tool",
            "tool": request.tool_call["name"],
            "call_id": request.tool_call.get("id"),
            "status": status,
        }
        if stage is not None:
            event["stage"] = stage
        self._emit(event)

    @staticmethod
    def _status(result: Any) -> Status:
        failed = isinstance(result, ToolMessage) and result.status == "error"
        return "error" if failed else "done"

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Announce the call (and its stage when it starts one), run it, report how it ended."""
        stage = self.soft(lambda: self._before(request), None)
        try:
            result = await handler(request)
        except Exception:
            self._tool_event(request, "error", stage)
            raise
        self._tool_event(request, self._status(result), stage)
        return result

    def wrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], ToolMessage | Command[Any]],
    ) -> ToolMessage | Command[Any]:
        """Sync twin of :meth:`awrap_tool_call`."""
        stage = self.soft(lambda: self._before(request), None)
        try:
            result = handler(request)
        except Exception:
            self._tool_event(request, "error", stage)
            raise
        self._tool_event(request, self._status(result), stage)
        return result

    def _finished(self, state: AgentState[Any]) -> None:
        stages = stages_so_far(state.get("messages") or [], self.data_tools)
        self._emit({"event": "finished", "stages": stages})

    def after_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """Say which stages the run went through; no state update."""
        self._finished(state)
        return None

    async def aafter_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """Say which stages the run went through; no state update."""
        self._finished(state)
        return None
