"""Sessions: what survives a WebSocket reconnect.

A session (``?session_id=``) holds, per registered agent, the client's tools and
the Agent Server thread; the tool calls and the approvals or questions the agent is
waiting on; the requests still running; and the messages produced while no socket was
attached (a bounded backlog, :mod:`rpc_adapter.outbox`). A reconnect within
``SESSION_TTL`` re-attaches to it: the backlog is flushed (after a notice of anything it
had to drop) and pending tool calls and interrupts are sent again. Sessions are isolated:
each has its own threads, tools and pending calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from core.client_tools import ClientToolAnswer, ClientToolCall
from rpc_adapter.interrupts import PendingInterrupt
from rpc_adapter.outbox import Outbox, Outgoing, outgoing
from rpc_adapter.protocol import TOOL_ERROR, RpcError, notification

__all__ = ["AgentBinding", "PendingCall", "Session", "SessionManager", "Socket"]

logger = logging.getLogger(__name__)

CallOutcome = Literal["answered", "timed out", "cancelled"]

_FINISHED = 10_000
_OWN_RUNS = 1000
DEFAULT_MAX_MESSAGES = 1000
DEFAULT_MAX_BYTES = 4 * 1024 * 1024


class Socket(Protocol):
    """What a session sends through while a socket is attached."""

    def deliver(self, item: Outgoing, *, force: bool = False) -> None:
        """Queue ``item`` for the wire (``force``: past the queue's bounds, for a flush)."""


@dataclass
class PendingCall:
    """A client-tool call the agent is waiting on."""

    call_id: str
    tool_name: str
    arguments: dict[str, Any]
    agent_id: str
    future: asyncio.Future[ClientToolAnswer]

    def notification(self, *, resent: bool = False) -> dict[str, Any]:
        """The ``agent.toolCall`` message for this call."""
        params: dict[str, Any] = {
            "call_id": self.call_id,
            "tool_name": self.tool_name,
            "arguments": self.arguments,
            "agent_id": self.agent_id,
        }
        if resent:
            params["resent"] = True
        return notification("agent.toolCall", params)


@dataclass
class AgentBinding:
    """One agent registered in a session."""

    agent_id: str
    client_id: str
    tools: list[dict[str, Any]]
    stream: bool = False
    thread_id: str | None = None
    run_id: str | None = None
    chat: asyncio.Task[Any] | None = None
    cancelled: bool = False
    interrupts: dict[str, PendingInterrupt] = field(default_factory=dict)
    """Approvals and questions the agent's thread waits on, by interrupt id."""
    own_runs: deque[str] = field(default_factory=lambda: deque(maxlen=_OWN_RUNS))
    """Runs this adapter started on the thread (any other run is a background one)."""
    watcher: asyncio.Task[Any] | None = None
    """Follows the thread for background results while the agent has tasks running."""

    @property
    def busy(self) -> bool:
        """True while a chat is running for this agent."""
        return self.chat is not None and not self.chat.done()


@dataclass
class Session:
    """State of one session_id, attached to at most one socket at a time."""

    session_id: str
    agents: dict[str, AgentBinding] = field(default_factory=dict)
    pending: dict[str, PendingCall] = field(default_factory=dict)
    finished: OrderedDict[str, CallOutcome] = field(default_factory=OrderedDict)
    tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    backlog: Outbox = field(default_factory=lambda: Outbox(DEFAULT_MAX_MESSAGES, DEFAULT_MAX_BYTES))
    socket: Socket | None = None
    detached_at: float | None = None
    in_flight: int = 0
    """Requests of this session being answered right now (a batch counts each request)."""
    user_id: str | None = None
    """The authenticated user who opened it, when the Agent Server's auth is on; only they
    may resume it, and the agents run for them."""

    def send(self, message: Any) -> None:
        """Deliver to the attached socket, or keep it (bounded) for the next reconnect."""
        item = outgoing(message)
        if self.socket is not None:
            self.socket.deliver(item)
        else:
            self.backlog.keep(item)

    def status(self, status: str, message: str, agent_id: str | None = None) -> None:
        """Send an ``agent.status`` notification."""
        params: dict[str, Any] = {"status": status, "message": message}
        if agent_id:
            params["agent_id"] = agent_id
        self.send(notification("agent.status", params))

    def spawn(self, coro: Any) -> asyncio.Task[Any]:
        """Run work owned by the session (it outlives the socket that asked for it)."""
        task = asyncio.create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)
        return task

    # client tool calls ---------------------------------------------------------------

    def open_call(self, agent_id: str, call: ClientToolCall) -> PendingCall:
        """Register a call the agent makes and tell the client about it."""
        loop = asyncio.get_running_loop()
        pc = PendingCall(
            call_id=str(call["call_id"]),
            tool_name=str(call["tool_name"]),
            arguments=dict(call.get("arguments") or {}),
            agent_id=agent_id,
            future=loop.create_future(),
        )
        self.pending[pc.call_id] = pc
        self.send(pc.notification())
        return pc

    def close_call(self, call_id: str, outcome: CallOutcome) -> None:
        """Forget a pending call; later results for it are refused with ``outcome``."""
        pc = self.pending.pop(call_id, None)
        if pc is not None and not pc.future.done():
            pc.future.cancel()
        self.finished[call_id] = outcome
        while len(self.finished) > _FINISHED:
            self.finished.popitem(last=False)

    def submit(self, call_id: str, tool_name: str | None, answer: ClientToolAnswer) -> None:
        """Apply a client's tool result exactly once; late or duplicate results raise -32002."""
        pc = self.pending.get(call_id)
        if pc is None:
            outcome = self.finished.get(call_id)
            if outcome == "answered":
                msg = f"Duplicate result: call {call_id} was already answered"
            elif outcome is not None:
                msg = f"Late result: call {call_id} has {outcome}; the agent moved on"
            else:
                msg = f"Unknown call_id {call_id!r}: no tool call is waiting for it"
            raise RpcError(TOOL_ERROR, msg, {"call_id": call_id, "reason": outcome or "unknown"})
        if tool_name and tool_name != pc.tool_name:
            raise RpcError(
                TOOL_ERROR,
                f"call {call_id} is for tool {pc.tool_name!r}, not {tool_name!r}",
                {"call_id": call_id, "reason": "tool_mismatch"},
            )
        if not pc.future.done():
            pc.future.set_result(answer)
        self.close_call(call_id, "answered")

    def cancel_calls(self, agent_id: str | None = None) -> list[str]:
        """Answer every pending call (of one agent) as cancelled."""
        ids = [c for c, pc in self.pending.items() if agent_id in (None, pc.agent_id)]
        for call_id in ids:
            self.close_call(call_id, "cancelled")
        return ids

    # sockets ----------------------------------------------------------------------------

    def attach(self, socket: Socket) -> Socket | None:
        """Attach a socket; returns the socket it replaces, if any. Says what the backlog
        dropped, flushes it, and re-sends the tool calls and interrupts still waiting."""
        previous = self.socket
        self.socket, self.detached_at = socket, None
        notice = self.backlog.truncation_notice()
        if notice is not None:
            socket.deliver(outgoing(notice), force=True)
        for item in self.backlog.drain():
            socket.deliver(item, force=True)
        for pc in list(self.pending.values()):
            socket.deliver(outgoing(pc.notification(resent=True)), force=True)
        for binding in self.agents.values():
            for pending in binding.interrupts.values():
                socket.deliver(outgoing(pending.notification(resent=True)), force=True)
        return previous

    def detach(self, socket: Socket, unsent: list[Outgoing] | None = None) -> None:
        """Detach ``socket`` if it is still the attached one; what it could not send
        (``unsent``, oldest first) goes to the backlog."""
        if self.socket is not socket:
            return
        self.socket, self.detached_at = None, time.monotonic()
        for item in unsent or []:
            self.backlog.keep(item)

    def close(self) -> None:
        """End everything the session runs."""
        self.cancel_calls()
        for task in list(self.tasks):
            task.cancel()


class SessionManager:
    """All sessions of this adapter process, expired ``ttl`` seconds after their socket left.

    ``max_messages`` / ``max_bytes`` bound each detached session's backlog."""

    def __init__(
        self,
        *,
        ttl: float,
        max_messages: int = DEFAULT_MAX_MESSAGES,
        max_bytes: int = DEFAULT_MAX_BYTES,
    ) -> None:
        self.ttl = ttl
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self.sessions: dict[str, Session] = {}
        self._reaper: asyncio.Task[None] | None = None

    def get_or_create(self, session_id: str | None) -> tuple[Session, bool]:
        """The session for ``session_id`` (a new id when None); True when it already existed."""
        sid = session_id or uuid.uuid4().hex
        if sid in self.sessions:
            return self.sessions[sid], True
        session = Session(sid, backlog=Outbox(self.max_messages, self.max_bytes))
        self.sessions[sid] = session
        return session, False

    def expire(self, now: float | None = None) -> int:
        """Close detached sessions older than the TTL; returns how many."""
        now = time.monotonic() if now is None else now
        dead = [
            s
            for s in self.sessions.values()
            if s.socket is None and s.detached_at is not None and now - s.detached_at > self.ttl
        ]
        for s in dead:
            s.close()
            self.sessions.pop(s.session_id, None)
            logger.info("session %s expired", s.session_id)
        return len(dead)

    async def _reap(self) -> None:
        interval = max(0.2, min(self.ttl / 4, 30.0))
        while True:
            await asyncio.sleep(interval)
            self.expire()

    def start(self) -> None:
        """Start expiring sessions in the background."""
        if self._reaper is None:
            self._reaper = asyncio.create_task(self._reap())

    async def stop(self) -> None:
        """Stop the reaper and close every session."""
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
            self._reaper = None
        for s in list(self.sessions.values()):
            s.close()
        self.sessions.clear()
