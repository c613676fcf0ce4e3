"""An analysis that could not be done ends its run in error (DESIGN section 4, issue 15).

deepagents tells the agent that started an async subagent how its run ended: ``success``
with the final answer when the agent stops, ``error`` only when a model call raises
(``_ParentNotifierMiddleware`` wraps the model calls and reports the exception's type).
An analyst that says "I could not do it" in a final answer would therefore be announced
as finished. The analyst ends such an answer with one marker line instead::

    ANALYSIS_FAILED[no_category]: <the reason, in the buyer's language>

and this layer turns that answer into an exception of the kind's class, so the run ends
with an error status, the thread keeps the reason (Studio shows it) and the parent's
notification names the kind (``The subagent failed (AnalysisCategoryNotFound).``).
The orchestrator reads the kind back with :func:`failure_kind`. The layer sits inside
deepagents' notifier (custom middleware lands after deepagents' core layers) and does not
fail soft: hiding a failure is what it exists to prevent.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage

from graphs.messages import message_text

__all__ = [
    "FAILURE_CLASSES",
    "AnalysisFailed",
    "AnalysisOutcome",
    "FailureKind",
    "failure_kind",
    "failure_line",
]

FailureKind = Literal["no_category", "data_unavailable", "script_failed", "other"]


class AnalysisFailed(RuntimeError):
    """The analysis could not be done; ``kind`` says why, the message says it in words."""

    kind: FailureKind = "other"


class AnalysisCategoryNotFound(AnalysisFailed):
    """The request names no part category the ERP knows."""

    kind: FailureKind = "no_category"


class AnalysisDataUnavailable(AnalysisFailed):
    """The ERP, the MCP server or the sandbox did not answer: nothing to analyse."""

    kind: FailureKind = "data_unavailable"


class AnalysisScriptFailed(AnalysisFailed):
    """The analysis script failed or wrote no readable result."""

    kind: FailureKind = "script_failed"


FAILURE_CLASSES: dict[FailureKind, type[AnalysisFailed]] = {
    c.kind: c for c in (AnalysisCategoryNotFound, AnalysisDataUnavailable, AnalysisScriptFailed)
} | {"other": AnalysisFailed}
_MARK = re.compile(r"^ANALYSIS_FAILED\[(?P<kind>[a-z_]+)\]:[ \t]*(?P<reason>.*)$", re.M)
_NAMED = re.compile(r"\((Analysis\w+)\)")


def failure_line(kind: FailureKind, reason: str) -> str:
    """The marker line an analyst's final answer ends with when the analysis failed."""
    return f"ANALYSIS_FAILED[{kind}]: {' '.join(reason.split())}"


def failure_kind(text: str) -> FailureKind | None:
    """The kind of failure a parent's notification names (``... (AnalysisScriptFailed).``)."""
    for name in _NAMED.findall(text):
        for kind, cls in FAILURE_CLASSES.items():
            if cls.__name__ == name:
                return kind
    return None


def _check(response: ModelResponse[Any]) -> ModelResponse[Any]:
    """``response`` itself, unless it is a final answer with the failure marker: then raise."""
    messages = getattr(response, "result", None) or []
    final = next((m for m in reversed(messages) if isinstance(m, AIMessage)), None)
    if final is None or final.tool_calls:
        return response
    found = _MARK.search(message_text(final))
    if found is None:
        return response
    kind = found.group("kind")
    cls = next((c for k, c in FAILURE_CLASSES.items() if k == kind), AnalysisFailed)
    raise cls(found.group("reason").strip() or kind)


class AnalysisOutcome(AgentMiddleware[Any, Any, Any]):
    """Raise :class:`AnalysisFailed` (by kind) when the analyst's final answer says it failed."""

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        """Call the model; a final answer marked as failed becomes an exception."""
        return _check(handler(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """Async twin of :meth:`wrap_model_call`."""
        return _check(await handler(request))
