"""McpSessions: one open session per server, replaced once when broken, and a failed call
sent again only when the server cannot have run it.

The sessions are real FastMCP in-memory clients; faults are injected by the operation
(what the transport raises when a server restarted, reset the connection or was slow).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from fastmcp import Client, FastMCP
from mcp.shared.exceptions import McpError
from mcp.types import ErrorData

from graphs.mcp_sessions import McpSessions


def make_server() -> FastMCP:
    server = FastMCP("counter")
    calls: list[int] = []

    @server.tool
    def bump() -> int:
        """Count a call."""
        calls.append(1)
        return len(calls)

    server.calls = calls  # type: ignore[attr-defined]
    return server


class Factory:
    def __init__(self) -> None:
        self.server = make_server()
        self.clients: list[Client[Any]] = []

    def __call__(self, name: str) -> Client[Any]:
        client: Client[Any] = Client(self.server)
        self.clients.append(client)
        return client


@pytest.fixture
async def pool() -> Any:
    factory = Factory()
    sessions = McpSessions(factory)
    sessions.factory = factory  # type: ignore[attr-defined]
    yield sessions
    await sessions.aclose()


def failing_once(exc: Exception) -> Any:
    """An operation whose first attempt fails with ``exc``; later ones call the tool."""
    attempts: list[Client[Any]] = []

    async def op(client: Client[Any]) -> Any:
        attempts.append(client)
        if len(attempts) == 1:
            raise exc
        return (await client.call_tool("bump", {})).data

    op.attempts = attempts  # type: ignore[attr-defined]
    return op


async def test_one_session_for_many_concurrent_calls(pool: Any) -> None:
    async def bump(client: Client[Any]) -> Any:
        return (await client.call_tool("bump", {})).data

    results = await asyncio.gather(*(pool.run("s", bump) for _ in range(50)))
    assert sorted(results) == list(range(1, 51))
    assert pool.opened["s"] == 1 and len(pool.factory.clients) == 1


async def test_session_terminated_is_sent_again_on_a_new_session(pool: Any) -> None:
    gone = McpError(ErrorData(code=32600, message="Session terminated"))
    op = failing_once(gone)
    assert await pool.run("s", op) == 1  # the tool ran once, on the second session
    first, second = op.attempts
    assert first is not second and pool.opened["s"] == 2
    assert pool.factory.server.calls == [1]


async def test_a_refused_connection_is_sent_again(pool: Any) -> None:
    op = failing_once(httpx.ConnectError("All connection attempts failed"))
    assert await pool.run("s", op) == 1
    assert pool.opened["s"] == 2


async def test_a_reset_mid_call_is_not_sent_again_but_the_session_is_replaced(pool: Any) -> None:
    op = failing_once(httpx.ReadError("connection reset"))
    with pytest.raises(httpx.ReadError):
        await pool.run("s", op)
    assert pool.factory.server.calls == []  # not retried: it may have run
    assert await pool.run("s", op) == 1  # the next call gets a new session
    assert pool.opened["s"] == 2


async def test_a_repeatable_call_is_sent_again_when_its_connection_broke(pool: Any) -> None:
    # A read-only tool: the caller says sending it twice changes nothing.
    op = failing_once(httpx.ReadError("[Errno 104] Connection reset by peer"))
    assert await pool.run("s", op, repeatable=True) == 1
    first, second = op.attempts
    assert first is not second and pool.opened["s"] == 2
    assert pool.factory.server.calls == [1]


@pytest.mark.parametrize(
    "exc",
    [
        httpx.ReadTimeout("timed out"),  # slow, not broken
        McpError(ErrorData(code=-32603, message="Internal error")),  # the server answered
        ValueError("a bug in the caller"),
    ],
)
async def test_a_repeatable_call_is_not_sent_again_when_the_connection_held(
    pool: Any, exc: Exception
) -> None:
    op = failing_once(exc)
    with pytest.raises(type(exc)):
        await pool.run("s", op, repeatable=True)
    assert pool.factory.server.calls == [] and len(op.attempts) == 1


async def test_a_timeout_keeps_the_session(pool: Any) -> None:
    slow = McpError(ErrorData(code=408, message="Timed out while waiting for response"))
    op = failing_once(slow)
    with pytest.raises(McpError):
        await pool.run("s", op)
    assert await pool.run("s", op) == 1
    assert pool.opened["s"] == 1


async def test_a_server_that_cannot_be_reached_raises_and_is_tried_again_later() -> None:
    up = False
    server = make_server()

    def factory(name: str) -> Client[Any]:
        if not up:
            raise httpx.ConnectError("All connection attempts failed")
        return Client(server)

    sessions = McpSessions(factory)

    async def bump(client: Client[Any]) -> Any:
        return (await client.call_tool("bump", {})).data

    with pytest.raises(httpx.ConnectError):
        await sessions.run("s", bump)
    up = True
    try:
        assert await sessions.run("s", bump) == 1
    finally:
        await sessions.aclose()


def test_each_event_loop_gets_its_own_session() -> None:
    factory = Factory()
    sessions = McpSessions(factory)

    async def once() -> Any:
        try:
            return (await sessions.run("s", lambda c: c.call_tool("bump", {}))).data
        finally:
            await sessions.aclose()

    assert asyncio.run(once()) == 1
    assert asyncio.run(once()) == 2
    assert sessions.opened["s"] == 2  # a session never crosses loops
