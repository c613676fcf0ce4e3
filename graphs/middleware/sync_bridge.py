"""Run an async middleware hook from a synchronous ``graph.invoke``."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

__all__ = ["run_blocking"]

logger = logging.getLogger(__name__)


def run_blocking(
    coro: Coroutine[Any, Any, dict[str, Any] | None], who: str
) -> dict[str, Any] | None:
    """Run an async hook from a synchronous ``graph.invoke`` (no event loop in this thread).

    On a thread that already runs an event loop the hook is skipped with a warning naming
    ``who``: blocking that loop would stall every other run on it.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    coro.close()
    logger.warning("%s: sync hook called on a running event loop; skipped (use the async API)", who)
    return None
