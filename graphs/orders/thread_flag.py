"""Marking a thread whose order waits for an approver, so approvers can find and answer it.

Threads belong to their creator (the shipped auth handler hides them from everyone
else). An order above the approval limit needs someone else, so while its approval is
pending the thread carries ``metadata.approval = "awaiting_approver"``; the auth handler
lets holders of ``orders:approve`` search, read and resume such threads (and only
resume them). Once a decision stands the flag becomes ``"decided"`` and
``metadata.approval_decided_by`` names who decided, who keeps reading the thread (the
run that carries the decision is theirs, and an approver sees what they approved).

The flag is written through the Agent Server's in-process SDK client, so it exists only
inside a running Agent Server; elsewhere (unit tests, a graph run without the server)
marking is skipped, and the approval policy itself does not depend on it.
"""

from __future__ import annotations

import logging
import sys
from typing import Protocol

__all__ = [
    "AWAITING_APPROVER",
    "DECIDED",
    "DECIDED_BY_KEY",
    "FLAG_KEY",
    "ServerThreadFlag",
    "ThreadFlag",
]

logger = logging.getLogger(__name__)

FLAG_KEY = "approval"
"""The thread-metadata key of the flag."""
DECIDED_BY_KEY = "approval_decided_by"
"""The thread-metadata key naming who made the decision that stood."""
AWAITING_APPROVER = "awaiting_approver"
DECIDED = "decided"


class ThreadFlag(Protocol):
    """Sets the approval flag of a thread."""

    async def mark(self, thread_id: str, value: str, *, decided_by: str | None = None) -> None:
        """Set ``metadata.approval`` of ``thread_id`` to ``value`` (and who decided, when
        given); never raises."""
        ...


class ServerThreadFlag:
    """The flag through the Agent Server's own API, in-process (no network, no token)."""

    async def mark(self, thread_id: str, value: str, *, decided_by: str | None = None) -> None:
        """Set the flag; skipped (logged) outside an Agent Server or when the update fails."""
        if not thread_id or "langgraph_api.server" not in sys.modules:
            return
        metadata = {FLAG_KEY: value}
        if decided_by:
            metadata[DECIDED_BY_KEY] = decided_by
        try:
            from langgraph_sdk import get_client

            async with get_client() as client:
                await client.threads.update(thread_id, metadata=metadata)
        except Exception as exc:  # the approval still works; approvers just cannot list it
            logger.warning("could not mark thread %s as %s=%s: %s", thread_id, FLAG_KEY, value, exc)
