"""Model-call and tool-call limits per agent (layers 6 and 7 of DESIGN section 4's stack).

langchain's own ``ModelCallLimitMiddleware`` and ``ToolCallLimitMiddleware``, per run,
ending the run (``exit_behavior="end"``) with a message instead of raising, so a
runaway loop stops and the user still gets an answer.
"""

from __future__ import annotations

from typing import Literal, TypedDict

from langchain.agents.middleware import ModelCallLimitMiddleware, ToolCallLimitMiddleware

__all__ = ["LIMITS", "AgentName", "Limits", "build_limits"]

AgentName = Literal["orchestrator", "analyst", "procurement-order"]


class Limits(TypedDict):
    """Per-run caps of one agent."""

    model_calls: int
    tool_calls: int


LIMITS: dict[AgentName, Limits] = {
    "orchestrator": {"model_calls": 50, "tool_calls": 200},
    "analyst": {"model_calls": 50, "tool_calls": 200},
    "procurement-order": {"model_calls": 20, "tool_calls": 50},
}


def build_limits(
    agent: AgentName, *, limits: Limits | None = None
) -> tuple[ModelCallLimitMiddleware, ToolCallLimitMiddleware]:
    """The two limit middleware of ``agent`` (``limits`` overrides DESIGN's numbers)."""
    caps = limits or LIMITS[agent]
    return (
        ModelCallLimitMiddleware(run_limit=caps["model_calls"], exit_behavior="end"),
        ToolCallLimitMiddleware(run_limit=caps["tool_calls"], exit_behavior="end"),
    )
