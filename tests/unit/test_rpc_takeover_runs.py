"""A run in progress when the session moves to another adapter: its answer reaches the
client there, whenever the run ends around the takeover, and the old adapter standing
down does not stop it.

Two ``SessionManager``s over one Store (:mod:`tests.unit.test_rpc_session_store`) stand in
for two replicas; a fake Agent Server holds one thread whose run ends when the test says.
The real processes are in ``tests/e2e/test_rpc_replicas.py``.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

from rpc_adapter.agents import AgentService
from rpc_adapter.methods import Methods
from rpc_adapter.session_store import SessionStore
from rpc_adapter.sessions import AgentBinding, Session, SessionManager
from tests.unit.test_rpc_session_store import Socket, StoreApi

ANSWER = "slow done after 4s"


class AgentServer:
    """One thread ``t1`` and its one run ``r1`` (``slow:4``), which ends on :meth:`end`."""

    def __init__(self) -> None:
        self.messages: list[dict[str, Any]] = [{"type": "human", "content": "slow:4"}]
        self.status = "pending"
        self.ended = asyncio.Event()
        self.streams_dropped = 0
        """Streams closed before their run ended: ``on_disconnect="cancel"`` cancels it."""

    def end(self) -> None:
        self.status = "success"
        self.messages.append({"type": "ai", "content": ANSWER})
        self.ended.set()


class Client:
    """The SDK calls the adapter makes, on an :class:`AgentServer`; ``hold_state`` keeps
    a ``get_state`` waiting (an adapter busy between the run's end and its answer)."""

    def __init__(self, server: AgentServer, store: StoreApi) -> None:
        self.server = server
        self.store = store
        self.hold_state: asyncio.Event | None = None
        self.runs = SimpleNamespace(stream=self._stream, list=self._list, join=self._join)
        self.threads = SimpleNamespace(get=self._get, get_state=self._get_state)

    async def _stream(self, *_: Any, **__: Any) -> AsyncIterator[Any]:
        self.server.status = "running"
        yield SimpleNamespace(event="metadata", data={"run_id": "r1"})
        try:
            await self.server.ended.wait()
        except BaseException:
            self.server.streams_dropped += 1
            raise
        update = {"model": {"messages": [self.server.messages[-1]]}}
        yield SimpleNamespace(event="updates", data=update)

    async def _list(self, thread_id: str, **_: Any) -> list[dict[str, Any]]:
        return [{"run_id": "r1", "status": self.server.status, "created_at": "2026-01-01"}]

    async def _join(self, thread_id: str, run_id: str) -> dict[str, Any]:
        await self.server.ended.wait()
        return {}

    async def _get(self, thread_id: str) -> dict[str, Any]:
        return {"thread_id": thread_id, "interrupts": {}}

    async def _get_state(self, thread_id: str) -> dict[str, Any]:
        if self.hold_state is not None:
            await self.hold_state.wait()
        return {"values": {"messages": list(self.server.messages)}}


def replica(server: AgentServer, api: StoreApi) -> tuple[SessionManager, AgentService, Client]:
    client = Client(server, api)
    sessions = SessionManager(ttl=60, store=SessionStore(lambda: client, ttl=60))  # type: ignore[arg-type, return-value]
    service = AgentService(lambda: client, agent_timeout=60, tool_timeout=60)  # type: ignore[arg-type, return-value]
    service.watch_interval = 0.01
    return sessions, service, client


async def chatting(sessions: SessionManager, service: AgentService) -> tuple[Session, Socket]:
    """Session ``s1`` on ``sessions``, its agent's chat ``slow:4`` streaming run ``r1``
    (asked as a request, as the socket does); the socket has left and that is written."""
    session = (await sessions.open("s1", principal=None, user_id=None)).session
    sock = Socket()
    session.attach(sock)
    session.agents["echo"] = AgentBinding("echo", "cad", [], thread_id="t1")
    session.spawn(Methods(session, service, None).call("agent.chat", {"message": "slow:4"}))
    binding = session.agents["echo"]
    await until(lambda: binding.run_id == "r1")
    session.detach(sock)
    return session, sock


async def taken_over(sessions: SessionManager, service: AgentService) -> Socket:
    """``s1`` resumed on ``sessions`` as the app does it: followed, then a socket attached."""
    opened = await sessions.open("s1", principal=None, user_id=None)
    assert opened.taken_over
    Methods(opened.session, service, None).follow()
    sock = Socket()
    opened.session.attach(sock)
    return sock


def responses(sock: Socket) -> list[str]:
    return [m["params"]["content"] for m in sock.got if m.get("method") == "agent.response"]


async def until(check: Any, within: float = 2.0) -> None:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"not within {within} s")


async def test_a_run_that_ends_while_the_session_moves_is_answered_on_the_new_replica() -> None:
    server, api = AgentServer(), StoreApi()
    a_sessions, a_service, a_client = replica(server, api)
    b_sessions, b_service, _ = replica(server, api)
    old, _ = await chatting(a_sessions, a_service)
    await old.persist()  # the socket left: written, the run still going
    # The run ends; adapter A has not sent (nor written) its answer when B takes over.
    a_client.hold_state = asyncio.Event()
    server.end()
    sock = await taken_over(b_sessions, b_service)
    a_client.hold_state.set()  # A's answer now finds the session moved: dropped there
    await until(lambda: old.moved)
    await until(lambda: bool(responses(sock)))
    await asyncio.sleep(0.05)
    assert responses(sock) == [ANSWER]
    assert not b_sessions.sessions["s1"].agents["echo"].answering


async def test_the_old_replica_standing_down_does_not_stop_the_run_the_new_one_follows() -> None:
    server, api = AgentServer(), StoreApi()
    a_sessions, a_service, _ = replica(server, api)
    b_sessions, b_service, _ = replica(server, api)
    old, _ = await chatting(a_sessions, a_service)
    # B takes the session over before A writes that its socket left; that write finds it
    # moved and A stands down while the run streams there.
    sock = await taken_over(b_sessions, b_service)
    await old.persist()
    assert old.moved
    await asyncio.sleep(0.05)
    assert server.streams_dropped == 0
    server.end()
    await until(lambda: bool(responses(sock)))
    await asyncio.sleep(0.05)
    assert responses(sock) == [ANSWER]


async def test_an_answer_queued_before_the_move_is_sent_once() -> None:
    server, api = AgentServer(), StoreApi()
    a_sessions, a_service, _ = replica(server, api)
    b_sessions, b_service, _ = replica(server, api)
    old, _ = await chatting(a_sessions, a_service)
    server.end()
    await until(lambda: not old.agents["echo"].busy)
    await old.persist()  # the answer waits in A's record
    sock = await taken_over(b_sessions, b_service)
    await asyncio.sleep(0.1)
    assert responses(sock) == [ANSWER]
