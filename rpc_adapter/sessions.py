"""Sessions: what survives a WebSocket reconnect.

A session (``?session_id=``) holds, per registered agent, the client's tools and
the Agent Server thread; the tool calls the agent is waiting on; the requests
still running; and the messages produced while no socket was attached. A
reconnect within ``SESSION_TTL`` re-attaches to it: the backlog is flushed and
pending tool calls are sent again. Sessions are isolated: each has its own
threads, tools and pending calls.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from core.client_tools import ClientToolAnswer, ClientToolCall
from rpc_adapter.protocol import TOOL_ERROR, RpcError, notification

__all__ = ["AgentBinding", "PendingCall", "Session", "SessionManager"]

logger = logging.getLogger(__name__)

Sink = Callable[[Any], None]
CallOutcome = Literal["answered", "timed out", "cancelled"]

_BACKLOG = 1000
_FINISHED = 10_000


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
    backlog: deque[Any] = field(default_factory=lambda: deque(maxlen=_BACKLOG))
    sink: Sink | None = None
    owner: object | None = None
    detached_at: float | None = None
    user_id: str | None = None
    """The authenticated user who opened it, when the Agent Server's auth is on; only they
    may resume it, and the agents run for them."""

    def send(self, message: Any) -> None:
        """Deliver to the attached socket, or keep it for the next reconnect."""
        if self.sink is not None:
            self.sink(message)
        else:
            self.backlog.append(message)

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

    def attach(self, owner: object, sink: Sink) -> object | None:
        """Attach a socket; returns the socket it replaces, if any. Flushes and re-sends."""
        previous = self.owner
        self.owner, self.sink, self.detached_at = owner, sink, None
        while self.backlog:
            sink(self.backlog.popleft())
        for pc in list(self.pending.values()):
            sink(pc.notification(resent=True))
        return previous

    def detach(self, owner: object) -> None:
        """Detach ``owner`` if it is still the attached socket."""
        if self.owner is owner:
            self.owner, self.sink, self.detached_at = None, None, time.monotonic()

    def close(self) -> None:
        """End everything the session runs."""
        self.cancel_calls()
        for task in list(self.tasks):
            task.cancel()


class SessionManager:
    """All sessions of this adapter process, expired ``ttl`` seconds after their socket left."""

    def __init__(self, *, ttl: float) -> None:
        self.ttl = ttl
        self.sessions: dict[str, Session] = {}
        self._reaper: asyncio.Task[None] | None = None

    def get_or_create(self, session_id: str | None) -> tuple[Session, bool]:
        """The session for ``session_id`` (a new id when None); True when it already existed."""
        sid = session_id or uuid.uuid4().hex
        if sid in self.sessions:
            return self.sessions[sid], True
        session = Session(sid)
        self.sessions[sid] = session
        return session, False

    def expire(self, now: float | None = None) -> int:
        """Close detached sessions older than the TTL; returns how many."""
        now = time.monotonic() if now is None else now
        dead = [
            s
            for s in self.sessions.values()
            if s.owner is None and s.detached_at is not None and now - s.detached_at > self.ttl
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
