"""Remembering how each approval decision was judged, across the runs that resume it.

A refused decision leaves the approval pending: the approval step asks again with a new
interrupt in the same graph task. When a later run resumes it, LangGraph replays the
task and hands back every earlier answer first, without saying who sent them; the
identity on the current run is only the newest answer's. So each answer's verdict is
written here (the Agent Server's Store, keyed by thread, call and attempt) when it is
first judged, and read back on replay instead of being judged again under the wrong
identity.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, TypedDict

from langgraph.store.base import BaseStore

__all__ = ["ApprovalLedger", "Verdict"]

NAMESPACE = "order_approvals"


class Verdict(TypedDict):
    """How one answer to an approval was judged."""

    refusal: str | None  # why it did not stand; None: it was accepted
    by: str
    authenticated: bool
    at: str


class ApprovalLedger:
    """Verdicts per (thread, approval, attempt) in a LangGraph Store."""

    def __init__(self, store: BaseStore) -> None:
        self._store = store

    @staticmethod
    def _where(thread_id: str, approval: str, attempt: int) -> tuple[tuple[str, ...], str]:
        return (NAMESPACE, thread_id or "-"), f"{approval}#{attempt}"

    @staticmethod
    def verdict(refusal: str | None, by: str, authenticated: bool) -> Verdict:
        """A verdict stamped now."""
        at = datetime.now(UTC).isoformat(timespec="seconds")
        return Verdict(refusal=refusal, by=by, authenticated=authenticated, at=at)

    async def aget(self, thread_id: str, approval: str, attempt: int) -> Verdict | None:
        """The verdict already given to this attempt, if any."""
        item = await self._store.aget(*self._where(thread_id, approval, attempt))
        return _as_verdict(item.value) if item is not None else None

    async def aput(self, thread_id: str, approval: str, attempt: int, verdict: Verdict) -> None:
        """Record the verdict of this attempt."""
        await self._store.aput(*self._where(thread_id, approval, attempt), dict(verdict))

    def get(self, thread_id: str, approval: str, attempt: int) -> Verdict | None:
        """Sync twin of :meth:`aget`."""
        item = self._store.get(*self._where(thread_id, approval, attempt))
        return _as_verdict(item.value) if item is not None else None

    def put(self, thread_id: str, approval: str, attempt: int, verdict: Verdict) -> None:
        """Sync twin of :meth:`aput`."""
        self._store.put(*self._where(thread_id, approval, attempt), dict(verdict))


def _as_verdict(value: dict[str, Any]) -> Verdict:
    return Verdict(
        refusal=value.get("refusal"),
        by=str(value.get("by", "")),
        authenticated=bool(value.get("authenticated")),
        at=str(value.get("at", "")),
    )
