"""Build a graph once per process, off the event loop, for langgraph.json factories."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class BuildOnce(Generic[T]):
    """Calls ``build`` in a worker thread on first use and returns the same result after.

    Building reads YAML and probes bubblewrap (blocking calls), so it runs in a thread;
    the lock keeps concurrent first requests from building twice.
    """

    def __init__(self, build: Callable[[], T]) -> None:
        self._build = build
        self._value: T | None = None
        self._lock = asyncio.Lock()

    async def get(self) -> T:
        """The built value, building it on the first call."""
        if self._value is None:
            async with self._lock:
                if self._value is None:
                    self._value = await asyncio.to_thread(self._build)
        return self._value

    def reset(self) -> None:
        """Forget the built value (tests rebuild under other settings)."""
        self._value = None
