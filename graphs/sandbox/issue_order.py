"""The calls a thread makes on its sandbox take effect in the order they were issued.

A model's tool calls of one message run concurrently: LangGraph's ``ToolNode`` gathers
them. Each call reaches the workspace only after hops to worker threads (finding the
thread's backend, then the file operation itself, which takes the workspace lock there),
and those hops finish in whatever order the OS schedules them. The workspace lock keeps
two operations from overlapping but not their order, so ``[execute "echo hi >
/data/hi.txt", ls /data]`` could list ``/data`` before the command ran and answer "No
files found" on a loaded machine.

:class:`IssueOrder` gives each call a turn at the moment it is issued, synchronously in
the coroutine's first step (the order ``ToolNode`` starts its tasks), before any await:
a read waits for the writes and commands issued before it; a write or command waits for
every call issued before it; reads issued together still run together. Only async calls
are ordered: sync callers (``ToolNode`` in a thread pool) have no issue order to keep.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass

__all__ = ["IssueOrder"]


@dataclass(eq=False)
class _Turn:
    exclusive: bool
    waiter: tuple[asyncio.AbstractEventLoop, asyncio.Future[None]] | None = None


def _wake(future: asyncio.Future[None]) -> None:
    if not future.done():  # a waiter cancelled meanwhile is left alone
        future.set_result(None)


class IssueOrder:
    """Turns per key (a thread id) in the order they are taken: shared turns (reads) run
    alongside each other, an exclusive turn (a write or a command) runs alone.

    Thread-safe, and usable from several event loops at once (each waiter is woken on
    its own loop).
    """

    def __init__(self) -> None:
        """No turns yet."""
        self._guard = threading.Lock()
        self._queues: dict[str, list[_Turn]] = {}

    @staticmethod
    def _may_run(queue: list[_Turn], turn: _Turn) -> bool:
        for earlier in queue:
            if earlier is turn:
                return True
            if turn.exclusive or earlier.exclusive:
                return False
        return True

    def pending(self, key: str) -> int:
        """How many calls of ``key`` hold or wait for a turn now."""
        with self._guard:
            return len(self._queues.get(key, ()))

    @contextlib.asynccontextmanager
    async def turn(self, key: str, *, exclusive: bool) -> AsyncIterator[None]:
        """Wait for this call's turn among the calls of ``key`` issued before it; hold it
        inside the block.

        The turn is taken when the block is entered, before anything is awaited, so the
        order is that of the ``async with`` statements, not of the waits that follow.
        """
        turn = _Turn(exclusive)
        with self._guard:
            queue = self._queues.setdefault(key, [])
            queue.append(turn)
            waiting: asyncio.Future[None] | None = None
            if not self._may_run(queue, turn):
                loop = asyncio.get_running_loop()
                waiting = loop.create_future()
                turn.waiter = (loop, waiting)
        try:
            if waiting is not None:
                await waiting
            yield
        finally:
            self._leave(key, turn)

    def _leave(self, key: str, turn: _Turn) -> None:
        woken: list[tuple[asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        with self._guard:
            queue = self._queues[key]
            queue.remove(turn)
            if not queue:
                del self._queues[key]
            for other in queue:
                if other.waiter is not None and self._may_run(queue, other):
                    woken.append(other.waiter)
                    other.waiter = None
        for loop, future in woken:
            # The waiter's loop may be another thread's: never touch its future directly.
            with contextlib.suppress(RuntimeError):  # that loop is closed: nobody waits
                loop.call_soon_threadsafe(_wake, future)
