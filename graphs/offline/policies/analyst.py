"""Analyst policy (placeholder while the stages are built)."""

from __future__ import annotations

from graphs.offline.history import View
from graphs.offline.policies.base import Decision

__all__ = ["decide"]


def decide(view: View) -> Decision:
    """Next step of the analyst."""
    return Decision("analysis not implemented yet", note="todo")
