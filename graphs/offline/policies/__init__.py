"""The offline planner's fixed policies, one module per agent."""

from __future__ import annotations

from collections.abc import Callable

from graphs.offline.history import View
from graphs.offline.policies.base import Decision

__all__ = ["Decision", "decide"]


def _table() -> dict[str, Callable[[View], Decision]]:
    from graphs.offline.policies import analyst, memory, orchestrator, order, summary

    return {
        "orchestrator": orchestrator.decide,
        "analyst": analyst.decide,
        "procurement-order": order.decide,
        "summary": summary.decide,
        "memory": memory.decide,
    }


def decide(view: View) -> Decision:
    """The next step of the policy ``view.policy`` for the conversation in ``view``."""
    table = _table()
    if view.policy not in table:
        msg = f"unknown offline policy {view.policy!r}; known: {sorted(table)}"
        raise ValueError(msg)
    return table[view.policy](view)
