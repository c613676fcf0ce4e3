"""One MCP session per server, kept open and shared by every caller in the process.

Opening a streamable-HTTP MCP session costs an ``initialize`` round trip, a
server-to-client event stream, and a ``DELETE`` when it ends; doing that for every tool
call made the servers open and drop thousands of sessions a minute. :class:`McpSessions`
opens one FastMCP :class:`~fastmcp.Client` session per server on first use and keeps it:
concurrent runs share it (MCP multiplexes requests by id over one session).

What it promises:

- **One per server per event loop.** The Agent Server runs every graph on one loop, so
  that is one session per server per process. A client's background task belongs to the
  loop that opened it, so another loop (a sync ``invoke`` on a worker thread) gets its
  own, dropped with that loop.
- **A broken session is replaced once.** When a call finds its session broken (the
  server restarted and no longer knows it, the connection was refused or reset), the
  session is dropped by the first caller that notices; the others see it gone, and the
  next call opens one new session under a per-server lock, not one per caller.
- **A retry only where nothing ran, or nothing changes.** The failed call is sent again
  on the new session when the server cannot have run it: it answered "session
  terminated" (HTTP 404 for an unknown session) or the connection was refused. A call the
  caller marks safe to repeat (a read-only tool) is also sent again once after its
  connection broke (reset, closed, no answer). Anything else (a reset halfway through a
  change) goes back to the caller, who decides; a time-out leaves the session in place
  (a slow tool is not a broken session).
- **A down server still raises.** Opening a session to a server that is down raises the
  transport's error, as a fresh client would; callers turn it into a message naming the
  server.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import weakref
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import anyio
import httpx
from fastmcp import Client
from mcp.shared.exceptions import McpError

__all__ = ["McpSessions", "SessionFactory", "innermost", "timed_out"]

logger = logging.getLogger(__name__)

T = TypeVar("T")
SessionFactory = Callable[[str], Client[Any]]
"""``server name → a new, unopened FastMCP client`` for that server."""

# The MCP SDK answers a request on a session the server no longer knows (HTTP 404) with
# this JSON-RPC error; the server did not run the request.
_SESSION_TERMINATED = 32600
# ... and a request that outlived its read timeout with HTTP's 408.
_REQUEST_TIMEOUT = 408
_CLOSE_TIMEOUT_S = 5.0


@dataclass
class _Slot:
    """The session of one server on one event loop, and the lock that opens it."""

    client: Client[Any] | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


def innermost(exc: BaseException) -> BaseException:
    """What broke, under the wrappers: transports raise exception groups (anyio task
    groups), whose first leaf says it; FastMCP wraps a failed connect in RuntimeError."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    cause = exc.__cause__
    if isinstance(exc, RuntimeError) and cause is not None:
        return innermost(cause)  # FastMCP wraps a failed connect in RuntimeError
    return exc


def timed_out(exc: BaseException) -> bool:
    """True when ``exc`` says a request outlived its time-out (the session is not broken)."""
    inner = innermost(exc)
    if isinstance(inner, TimeoutError):
        return True
    return isinstance(inner, McpError) and inner.error.code == _REQUEST_TIMEOUT


def _never_ran(exc: BaseException) -> bool:
    """True when the server cannot have run the request that failed with ``exc``."""
    inner = innermost(exc)
    if isinstance(inner, McpError):
        return inner.error.code == _SESSION_TERMINATED
    return isinstance(inner, httpx.ConnectError | ConnectionRefusedError)


def _connection_broke(exc: BaseException) -> bool:
    """True when ``exc`` says the connection failed under a request (reset, closed, no
    answer), not that the server answered or was slow."""
    inner = innermost(exc)
    if isinstance(inner, httpx.TimeoutException):
        return False
    return isinstance(
        inner,
        httpx.TransportError
        | ConnectionError
        | anyio.ClosedResourceError
        | anyio.BrokenResourceError
        | anyio.EndOfStream,
    )


class McpSessions:
    """Open MCP sessions by server name, one per server and event loop (see the module)."""

    def __init__(self, factory: SessionFactory) -> None:
        """``factory(server)`` makes the client of a server; it is opened here, kept open."""
        self._factory = factory
        self._loops: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, _Slot]]
        self._loops = weakref.WeakKeyDictionary()
        self._guard = threading.Lock()  # the loops' table is shared across threads
        self._closing: set[asyncio.Task[None]] = set()
        self.opened: Counter[str] = Counter()
        """Sessions opened so far, per server (every loop): what the benchmark reports."""

    def _slot(self, server: str) -> _Slot:
        loop = asyncio.get_running_loop()
        with self._guard:
            slots = self._loops.setdefault(loop, {})
            slot = slots.get(server)
            if slot is None:
                slot = slots[server] = _Slot()
            return slot

    async def _session(self, server: str, slot: _Slot) -> Client[Any]:
        client = slot.client
        if client is not None and client.is_connected():
            return client
        async with slot.lock:  # one opener per server; the others wait and share it
            client = slot.client
            if client is not None and client.is_connected():
                return client
            if client is not None:
                self._drop(slot, client)
            client = self._factory(server)
            await client.__aenter__()
            slot.client = client
            self.opened[server] += 1
            logger.debug("MCP server %r: session opened (%d so far)", server, self.opened[server])
            return client

    def _drop(self, slot: _Slot, client: Client[Any]) -> None:
        """Forget ``client`` if it is still the slot's, and close it in the background."""
        if slot.client is not client:
            return  # another caller already replaced it
        slot.client = None
        task = asyncio.get_running_loop().create_task(self._close(client))
        self._closing.add(task)
        task.add_done_callback(self._closing.discard)

    @staticmethod
    async def _close(client: Client[Any]) -> None:
        with contextlib.suppress(Exception), anyio.move_on_after(_CLOSE_TIMEOUT_S):
            await client.close()

    async def run(
        self,
        server: str,
        op: Callable[[Client[Any]], Awaitable[T]],
        *,
        repeatable: bool = False,
    ) -> T:
        """``op(client)`` on ``server``'s open session (opened now if need be).

        Raises what opening the session or ``op`` raised; a broken session is replaced
        and ``op`` sent once more when the server cannot have run it, or, for a
        ``repeatable`` op (one that changes nothing: a read-only tool), when its connection
        broke.
        """
        slot = self._slot(server)
        client = await self._session(server, slot)
        try:
            return await op(client)
        except Exception as exc:
            if timed_out(exc):
                raise
            self._drop(slot, client)
            if not (_never_ran(exc) or (repeatable and _connection_broke(exc))):
                raise
            logger.info(
                "MCP server %r: session gone (%s: %s); opening a new one",
                server,
                type(innermost(exc)).__name__,
                exc,
            )
        return await op(await self._session(server, slot))

    async def aclose(self) -> None:
        """Close this loop's sessions (tests; a process that ends needs nothing)."""
        loop = asyncio.get_running_loop()
        with self._guard:
            slots = self._loops.pop(loop, {})
        for slot in slots.values():
            if slot.client is not None:
                await self._close(slot.client)
                slot.client = None
        if self._closing:
            await asyncio.gather(*self._closing, return_exceptions=True)
