"""Sessions: what survives a WebSocket reconnect.

A session (``?session_id=``) holds, per registered agent, the client's tools and
the Agent Server thread; the tool calls and the approvals or questions the agent is
waiting on; the requests still running; and the messages produced while no socket was
attached (a bounded backlog, :mod:`rpc_adapter.outbox`). A reconnect within
``SESSION_TTL`` re-attaches to it: the backlog is flushed (after a notice of anything it
had to drop) and pending tool calls and interrupts are sent again. Sessions are isolated:
each has its own threads, tools and pending calls.

What a reconnect needs is also kept in the Agent Server's Store
(:mod:`rpc_adapter.session_store`), so a reconnect that lands on another replica, or on
this one after a restart, takes the session over from there. The session says when that
state changed (:meth:`Session.changed`); live delivery never goes through the Store.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
import time
import uuid
from collections import OrderedDict, deque
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from core.client_tools import ClientToolAnswer, ClientToolCall
from rpc_adapter.interrupts import PendingInterrupt
from rpc_adapter.outbox import Outbox, Outgoing, outgoing
from rpc_adapter.protocol import (
    CLOSE_REPLACED,
    INVALID_PARAMS,
    SERVER_ERROR,
    TOOL_ERROR,
    RpcError,
    notification,
)
from rpc_adapter.session_store import (
    SessionRecord,
    SessionRecorder,
    SessionStore,
    StoredCall,
    snapshot,
    store_failed,
)

__all__ = [
    "CURRENT_REQUEST",
    "AgentBinding",
    "Opened",
    "PendingCall",
    "Session",
    "SessionManager",
    "SessionMoved",
    "Socket",
    "check_session_id",
]

logger = logging.getLogger(__name__)

CallOutcome = Literal["answered", "timed out", "cancelled"]

_FINISHED = 10_000
_OWN_RUNS = 1000
DEFAULT_MAX_MESSAGES = 1000
DEFAULT_MAX_BYTES = 4 * 1024 * 1024
_MOVED = "session resumed on another adapter"
_STOP_FLUSH_S = 5.0
_SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{1,128}$")

CURRENT_REQUEST: ContextVar[Any] = ContextVar("rpc_current_request", default=None)
"""The JSON-RPC id of the request being answered (set per request by the connection), so
a tool call it waits on can name it for the replica that may finish the request."""


class SessionMoved(Exception):
    """Another adapter instance took the session over: this one stops serving it."""


def check_session_id(session_id: str | None) -> str:
    """``session_id`` (a new random one when None); -32602 when it is not 1-128 letters,
    digits, '_' or '-' (it names the session's Store namespace)."""
    if session_id is None:
        return uuid.uuid4().hex
    if not _SESSION_ID.match(session_id):
        raise RpcError(
            INVALID_PARAMS,
            "Invalid params: session_id must be 1-128 letters, digits, '_' or '-'",
            {"reason": "bad_session_id"},
        )
    return session_id


class Recorder(Protocol):
    """Where a session's durable state goes (:class:`rpc_adapter.session_store.SessionRecorder`)."""

    moved: bool
    saved_at: float
    """``time.monotonic()`` of the last write."""

    def changed(self) -> None:
        """Schedule a write of the session's state."""

    async def flush(self) -> None:
        """Wait until the changes so far are written."""

    async def owned(self) -> bool:
        """Whether this instance still serves the session."""

    async def forget(self) -> None:
        """Delete the session's record (it ended here)."""


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
    interrupt_id: str = ""
    """The ClientTools interrupt it belongs to (the thread is resumed by this id)."""
    request_id: Any = None
    """The JSON-RPC id of the request that waits for it."""

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
    pushed: deque[str] = field(default_factory=lambda: deque(maxlen=_OWN_RUNS))
    """Background runs whose result was sent already."""
    resume_watch: bool = False
    """Taken over while another adapter followed the thread: follow it from here."""
    answering: bool = False
    """A chat is going whose outcome (the answer, client-tool calls or cards) has not been
    sent yet: an adapter that takes the session over follows its run (``run_id``), even
    one that ended meanwhile, and sends what it ended with."""

    @property
    def watching(self) -> bool:
        """True while the thread is followed for background results."""
        return self.watcher is not None and not self.watcher.done()

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
    """The authenticated user who opened it, when the Agent Server's auth is on; the
    agents run for them."""
    principal: str | None = None
    """Who may resume it (:func:`rpc_adapter.session_store.principal_of`)."""
    epoch: int = 0
    """How many times it was taken over from the Store (the record's epoch)."""
    detached_wall: float | None = None
    """Wall-clock time its socket left (comparable across processes, for the record)."""
    recorder: Recorder | None = None
    handed_over: bool = False
    """Let go of because another instance serves it now (:meth:`release`): a chat still
    running here is not cancelled (its run goes on for that instance)."""

    @property
    def moved(self) -> bool:
        """True once another adapter instance took the session over."""
        return self.recorder is not None and self.recorder.moved

    def changed(self) -> None:
        """Something a reconnect needs changed: have the record written (no-op without one)."""
        if self.recorder is not None:
            self.recorder.changed()

    async def persist(self) -> None:
        """Write what changed and wait for it (before telling the client about it)."""
        if self.recorder is not None:
            self.recorder.changed()
            await self.recorder.flush()

    async def owned(self) -> bool:
        """Whether this instance still serves the session; False once another took it
        over (it has been let go of then)."""
        return True if self.recorder is None else await self.recorder.owned()

    def send(self, message: Any) -> None:
        """Deliver to the attached socket, or keep it (bounded) for the next reconnect."""
        item = outgoing(message)
        if self.socket is not None:
            self.socket.deliver(item)
        else:
            self.backlog.keep(item)
            if item.final:
                self.changed()

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

    def open_call(
        self,
        agent_id: str,
        call: ClientToolCall,
        *,
        interrupt_id: str = "",
        request_id: Any = None,
        notify: bool = True,
    ) -> PendingCall:
        """Register a call the agent makes and (``notify``) tell the client about it."""
        loop = asyncio.get_running_loop()
        pc = PendingCall(
            call_id=str(call["call_id"]),
            tool_name=str(call["tool_name"]),
            arguments=dict(call.get("arguments") or {}),
            agent_id=agent_id,
            future=loop.create_future(),
            interrupt_id=interrupt_id,
            request_id=request_id,
        )
        self.pending[pc.call_id] = pc
        self.changed()
        if notify:
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
        if pc is not None:
            self.changed()

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
        self.socket, self.detached_at, self.detached_wall = socket, None, None
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
        self.changed()  # attached again, backlog delivered
        return previous

    def detach(self, socket: Socket, unsent: list[Outgoing] | None = None) -> None:
        """Detach ``socket`` if it is still the attached one; what it could not send
        (``unsent``, oldest first) goes to the backlog."""
        if self.socket is not socket:
            return
        self.socket, self.detached_at, self.detached_wall = None, time.monotonic(), time.time()
        for item in unsent or []:
            self.backlog.keep(item)
        self.changed()

    def close(self) -> None:
        """End everything the session runs."""
        self.cancel_calls()
        for task in list(self.tasks):
            task.cancel()

    def release(
        self, code: int = CLOSE_REPLACED, reason: str = _MOVED, *, stop_runs: bool = False
    ) -> None:
        """Stop serving the session here without answering or resuming anything: another
        instance serves it now, or will after a restart. An attached socket is closed with
        ``code``.

        The agents' runs go on: the instance that serves the session now follows them and
        sends what they end with. A chat streaming one here is left to end unseen (what it
        sends is dropped, nothing is written): cancelling it would cancel the run on the
        Agent Server (it streams with ``on_disconnect="cancel"``). ``stop_runs`` (this
        adapter shutting down) cancels them as before."""
        self.handed_over = not stop_runs
        for binding in self.agents.values():
            for task in (binding.chat, binding.watcher):
                if task is not None and (stop_runs or task is binding.watcher):
                    task.cancel()
        for task in list(self.tasks):
            task.cancel()
        if self.socket is not None and hasattr(self.socket, "close_soon"):
            self.socket.close_soon(code, reason)


@dataclass
class Opened:
    """A session for a socket: whether it existed, and the client-tool calls its thread
    still waits on when it was taken over from the Store (to be served again)."""

    session: Session
    resumed: bool
    restored_calls: list[StoredCall] = field(default_factory=list)
    taken_over: bool = False
    """Taken over from the Store (another instance, or this one before a restart, had it)."""


class SessionManager:
    """All sessions of this adapter process, expired ``ttl`` seconds after their socket left.

    ``max_messages`` / ``max_bytes`` bound each detached session's backlog. With a
    ``store``, sessions are also kept in the Agent Server's Store and taken over from it
    (:meth:`open`)."""

    def __init__(
        self,
        *,
        ttl: float,
        max_messages: int = DEFAULT_MAX_MESSAGES,
        max_bytes: int = DEFAULT_MAX_BYTES,
        store: SessionStore | None = None,
    ) -> None:
        self.ttl = ttl
        self.max_messages = max_messages
        self.max_bytes = max_bytes
        self.store = store
        self.instance = uuid.uuid4().hex
        """This adapter instance, as record owners name it."""
        self.sessions: dict[str, Session] = {}
        self._reaper: asyncio.Task[None] | None = None
        self._chores: set[asyncio.Task[Any]] = set()
        self._swept_at = 0.0

    def _new(self, sid: str) -> Session:
        session = Session(sid, backlog=Outbox(self.max_messages, self.max_bytes))
        if self.store is not None:
            session.recorder = SessionRecorder(
                self.store, session, owner=self.instance, on_moved=self._let_go
            )
        self.sessions[sid] = session
        return session

    def get_or_create(self, session_id: str | None) -> tuple[Session, bool]:
        """The session for ``session_id`` in memory (a new id when None); True when it
        already existed."""
        sid = session_id or uuid.uuid4().hex
        if sid in self.sessions:
            return self.sessions[sid], True
        return self._new(sid), False

    async def open(
        self, session_id: str | None, *, principal: str | None, user_id: str | None
    ) -> Opened:
        """The session a socket asks for: this instance's own, the one in the Store (taken
        over: this instance owns it from now on), or a new one. Raises ``RpcError`` for a
        malformed id (-32602) or a session someone else opened (-32000, saying nothing
        about it)."""
        sid = check_session_id(session_id)
        local = self.sessions.get(sid)
        record = await self._record(sid) if session_id is not None else None
        if local is not None and (
            record is None or not record.supersedes(local.epoch, self.instance)
        ):
            _check_principal(sid, local.principal, principal)
            return Opened(local, True)
        if record is not None:
            _check_principal(sid, record.principal, principal)
            if local is not None:
                await self._let_go(local)
            return await self._take_over(sid, record)
        session = self._new(sid)
        session.principal, session.user_id = principal, user_id
        session.changed()
        return Opened(session, False)

    async def _record(self, sid: str) -> SessionRecord | None:
        if self.store is None:
            return None
        try:
            return await self.store.load(sid)
        except Exception as exc:
            store_failed(f"session {sid}: Store unreadable", exc)
            return None

    async def _take_over(self, sid: str, record: SessionRecord) -> Opened:
        session = self._new(sid)
        calls = restore_into(session, record)
        session.epoch = record.epoch + 1
        assert self.store is not None
        try:
            # Claimed before anything is sent: the instance that held it stands down.
            await self.store.save(snapshot(session, owner=self.instance, ttl=self.ttl))
        except Exception as exc:
            store_failed(f"session {sid}: takeover not recorded", exc)
        else:
            # The earlier owners' items are outranked now; tidy them away meanwhile.
            self._chore(self.store.delete(sid, keep=self.instance))
        logger.info("session %s taken over from the Store (epoch %d)", sid, session.epoch)
        return Opened(session, True, calls, taken_over=True)

    async def _let_go(self, session: Session) -> None:
        """Stop serving a session another instance took over (its record stays theirs)."""
        if self.sessions.get(session.session_id) is session:
            self.sessions.pop(session.session_id, None)
        session.release()

    def expire(self, now: float | None = None) -> int:
        """Close detached sessions older than the TTL (and delete their records); returns
        how many."""
        now = time.monotonic() if now is None else now
        dead = [
            s
            for s in self.sessions.values()
            if s.socket is None and s.detached_at is not None and now - s.detached_at > self.ttl
        ]
        for s in dead:
            s.close()
            self.sessions.pop(s.session_id, None)
            if s.recorder is not None:
                self._chore(s.recorder.forget())
            logger.info("session %s expired", s.session_id)
        return len(dead)

    def _chore(self, coro: Any) -> None:
        task = asyncio.create_task(coro)
        self._chores.add(task)
        task.add_done_callback(self._chores.discard)

    async def _upkeep(self) -> None:
        """Keep attached sessions' records alive; sweep records left by dead replicas."""
        if self.store is None:
            return
        now = time.monotonic()
        for s in list(self.sessions.values()):
            recorder = s.recorder
            if s.socket is not None and recorder and now - recorder.saved_at > self.ttl / 3:
                recorder.changed()
        if now - self._swept_at > min(max(self.ttl / 2, 1.0), 300.0):
            self._swept_at = now
            try:
                swept = await self.store.sweep()
            except Exception as exc:
                store_failed("sweeping expired sessions from the Store failed", exc)
            else:
                if swept:
                    logger.info("%d expired session(s) removed from the Store", swept)

    async def _reap(self) -> None:
        interval = max(0.2, min(self.ttl / 4, 30.0))
        while True:
            await asyncio.sleep(interval)
            self.expire()
            await self._upkeep()

    def start(self) -> None:
        """Start expiring sessions in the background."""
        if self._reaper is None:
            self._reaper = asyncio.create_task(self._reap())

    async def stop(self) -> None:
        """Stop the reaper and let every session go; with a Store their records stay, so
        another replica (or this one restarted) resumes them."""
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
            self._reaper = None
        sessions = list(self.sessions.values())
        recorders = [s.recorder for s in sessions if s.recorder is not None]
        with contextlib.suppress(Exception):
            async with asyncio.timeout(_STOP_FLUSH_S):  # a shutdown waits this long at most
                await asyncio.gather(*(r.flush() for r in recorders), return_exceptions=True)
        for s in sessions:
            if s.recorder is None:
                s.close()
            else:
                s.release(1012, "adapter restarting; reconnect", stop_runs=True)
        self.sessions.clear()
        if self._chores:
            await asyncio.wait(set(self._chores), timeout=_STOP_FLUSH_S)


def restore_into(session: Session, record: SessionRecord) -> list[StoredCall]:
    """Fill a fresh ``session`` from ``record``: agents, threads, interrupts and the queued
    final messages. Returns the client-tool calls still waiting (the caller re-opens them:
    they need an agent run to resume)."""
    session.principal, session.user_id = record.principal, record.user_id
    session.epoch = record.epoch
    for agent in record.agents:
        binding = AgentBinding(
            agent_id=agent.agent_id,
            client_id=agent.client_id,
            tools=agent.tools,
            stream=agent.stream,
            thread_id=agent.thread_id,
        )
        binding.own_runs.extend(agent.own_runs)
        binding.answering, binding.run_id = agent.answering, agent.run_id
        binding.pushed.extend(agent.pushed)
        binding.resume_watch = agent.watching
        for i in agent.interrupts:
            binding.interrupts[i.interrupt_id] = PendingInterrupt(
                i.interrupt_id,
                i.agent_id,
                i.thread_id,
                i.kind,
                list(i.actions),
                i.value,
                per_call=i.per_call,
            )
        session.agents[agent.agent_id] = binding
    for m in record.backlog:
        session.backlog.keep(Outgoing(m.text, True, tuple(m.ids)))
    return [c for c in record.calls if c.agent_id in session.agents]


def _check_principal(sid: str, owner: str | None, principal: str | None) -> None:
    if owner != principal:
        logger.warning("session %s: resume by another user or token refused", sid)
        raise RpcError(
            SERVER_ERROR,
            "This session cannot be resumed: it was opened by another user or token. "
            "Connect without session_id (or with a new one) to start your own.",
            {"reason": "foreign_session"},
        )
