"""What the adapter has to send, serialized once and bounded by count and bytes.

Two places hold outgoing messages: the live queue of a connected socket (its writer drains
it) and the backlog of a session with no socket (flushed on reconnect). Neither may grow
without bound: a client that stops reading, or never comes back, must not grow the server.

- The live queue refuses what does not fit (:meth:`Outbox.fits`); the connection then
  treats the client as a slow consumer, closes it (``CLOSE_SLOW_CONSUMER``) and hands the
  queue to the session's backlog.
- The backlog always takes a message and, when over its bounds, drops what matters least
  first: progress notifications (status lines, text deltas, tool calls the session re-sends
  anyway), oldest first; only then the oldest final messages (responses, answers, approval
  requests). What it dropped is reported to the client on reconnect
  (:meth:`Outbox.truncation_notice`), never silently.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, Final

from rpc_adapter.protocol import dumps, notification

__all__ = ["BACKLOG_TRUNCATED", "PROGRESS_METHODS", "Outbox", "Outgoing", "outgoing"]

PROGRESS_METHODS: Final = frozenset(
    {"agent.status", "agent.delta", "agent.progress", "agent.toolCall"}
)
"""Notifications a client can miss without losing a result. ``agent.toolCall`` is here
because a reconnect re-sends every call still waiting (``resent: true``)."""

BACKLOG_TRUNCATED: Final = "session.backlogTruncated"
"""Notification sent first on a reconnect when the backlog had to drop messages."""

_MAX_REPORTED_IDS = 100


@dataclass(frozen=True)
class Outgoing:
    """One message ready for the wire."""

    text: str
    final: bool
    """A response, or a notification carrying a result: dropped only as a last resort."""
    ids: tuple[Any, ...] = ()
    """The ids of the responses it carries (to tell a client which answers it lost)."""

    @property
    def size(self) -> int:
        """Bytes on the wire (UTF-8)."""
        return len(self.text.encode())


def outgoing(message: Any) -> Outgoing:
    """Serialize ``message`` (a response, a batch of responses or a notification)."""
    if isinstance(message, Outgoing):
        return message
    if isinstance(message, list):
        ids = tuple(m.get("id") for m in message if isinstance(m, dict))
        return Outgoing(dumps(message), True, ids)
    if isinstance(message, dict) and "method" in message:
        return Outgoing(dumps(message), message["method"] not in PROGRESS_METHODS)
    rid = message.get("id") if isinstance(message, dict) else None
    return Outgoing(dumps(message), True, (rid,))


@dataclass
class Outbox:
    """A FIFO of outgoing messages with a message and a byte bound."""

    max_messages: int
    max_bytes: int
    items: deque[Outgoing] = field(default_factory=deque)
    bytes: int = 0
    dropped_progress: int = 0
    dropped_final: int = 0
    dropped_ids: list[Any] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.items)

    def fits(self, item: Outgoing) -> bool:
        """Whether ``item`` fits now (one message always fits an empty box)."""
        if not self.items:
            return True
        return len(self.items) < self.max_messages and self.bytes + item.size <= self.max_bytes

    def append(self, item: Outgoing) -> None:
        """Add at the end, whatever the bounds (the caller checked :meth:`fits`)."""
        self.items.append(item)
        self.bytes += item.size

    def appendleft(self, item: Outgoing) -> None:
        """Put back at the front (a message whose send was interrupted)."""
        self.items.appendleft(item)
        self.bytes += item.size

    def popleft(self) -> Outgoing:
        """Take the oldest message."""
        item = self.items.popleft()
        self.bytes -= item.size
        return item

    def drain(self) -> Iterator[Outgoing]:
        """Take every message, oldest first."""
        while self.items:
            yield self.popleft()

    def keep(self, item: Outgoing) -> None:
        """Add ``item``; over the bounds, drop progress first, then the oldest finals."""
        self.append(item)
        if self._over():
            self._drop(final=False)
        if self._over():
            self._drop(final=True)

    def _over(self, count: int | None = None) -> bool:
        count = len(self.items) if count is None else count
        return count > self.max_messages or (self.bytes > self.max_bytes and count > 1)

    def _drop(self, *, final: bool) -> None:
        kept: deque[Outgoing] = deque()
        count = len(self.items)
        # Oldest first; the newest message is never dropped for its own sake.
        newest = self.items.pop()
        for item in self.items:
            if item.final != final or not self._over(count):
                kept.append(item)
                continue
            count -= 1
            self.bytes -= item.size
            if final:
                self.dropped_final += 1
                if len(self.dropped_ids) < _MAX_REPORTED_IDS:
                    self.dropped_ids.extend(i for i in item.ids if i is not None)
            else:
                self.dropped_progress += 1
        kept.append(newest)
        self.items = kept

    def truncation_notice(self) -> dict[str, Any] | None:
        """The ``session.backlogTruncated`` notification for what was dropped (and reset the
        counts), or None when nothing was."""
        if not (self.dropped_progress or self.dropped_final):
            return None
        params = {
            "dropped_progress": self.dropped_progress,
            "dropped_final": self.dropped_final,
            "dropped_response_ids": self.dropped_ids[:_MAX_REPORTED_IDS],
            "message": (
                f"While no socket was attached, {self.dropped_progress} progress "
                f"notification(s) and {self.dropped_final} final message(s) were dropped to "
                "keep the session within its bounds"
            ),
        }
        self.dropped_progress = self.dropped_final = 0
        self.dropped_ids = []
        return notification(BACKLOG_TRUNCATED, params)
