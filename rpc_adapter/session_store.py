"""Sessions kept in the LangGraph Store, so a reconnect to any replica resumes them.

Live delivery stays in memory (:mod:`rpc_adapter.sessions`); what a reconnect needs is
written to the Agent Server's Store (its Store API, through the adapter's SDK client) in
the session's namespace ``("rpc_sessions", <session_id>)``, one item per adapter instance
that served it, keyed by the instance's id (:class:`SessionRecord`): who may resume it,
its agents and their threads, the client-tool calls and the approvals or questions still
waiting, the chat whose outcome is not sent yet (its run, followed by the instance that
takes the session over), and the final messages queued while no socket was attached. It
is written on those events only, never per delta, and coalesced (one write in flight per
session, the latest state wins).

Ownership: the record names the adapter instance that serves the session (``owner``) and
an ``epoch`` bumped on every takeover. A reconnect that lands on another instance (or on
this one after a restart) takes the session over from the record; the instance that held
it before finds out at its next write or when a tool call times out (every write first
reads the record) and lets go without resuming or writing anything. The Store has no
compare-and-set: an instance that checked it still owned the session may write once more
after another took it over. So each instance writes its own item, never another's, and
the session's record is the item of the latest takeover (epochs order the writers,
:meth:`SessionRecord.supersedes`): a late write of the old owner lands in its own item,
which the new owner's outranks, instead of overwriting the takeover.

Retention: a record lives ``session_ttl`` seconds after its socket left (``expires_at``),
refreshed while a socket is attached. Where the Store honours item TTLs (a Postgres-backed
deployment) each write carries one; ``langgraph dev``'s in-memory Store takes TTLs but
never sweeps them, so the adapter also deletes the records it expires and sweeps expired
ones left by a replica that died. A record past ``expires_at`` is never resumed.

Fallback: a Store that does not answer is logged and left alone for a while, and sessions
carry on in memory as before (resumable on this instance only).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import math
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import TYPE_CHECKING, Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rpc_adapter.interrupts import ActionCard, InterruptKind, PendingInterrupt

if TYPE_CHECKING:
    from langgraph_sdk.client import LangGraphClient

    from rpc_adapter.sessions import Session

__all__ = [
    "NAMESPACE",
    "SessionRecord",
    "SessionRecorder",
    "SessionStore",
    "StoreUnavailable",
    "StoredAgent",
    "StoredCall",
    "StoredInterrupt",
    "StoredMessage",
    "principal_of",
    "snapshot",
    "store_failed",
]

logger = logging.getLogger(__name__)

NAMESPACE: Final = "rpc_sessions"
_STORE_TIMEOUT = 3.0
_OUTAGE_S = 15.0
_PAGE = 100
_KEPT_RUNS = 20
"""Run ids kept per agent: the background watcher lists the thread's last 20 runs."""


class StoredCall(BaseModel):
    """A client-tool call the agent's thread waits on."""

    call_id: str
    tool_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    agent_id: str
    interrupt_id: str = ""
    """The ClientTools interrupt the call belongs to (resumed by this id)."""
    request_id: Any = None
    """The JSON-RPC id of the ``agent.chat`` (or ``agent.resume``) that waits for it."""


class StoredInterrupt(BaseModel):
    """An approval or a question the agent's thread waits on."""

    interrupt_id: str
    agent_id: str
    thread_id: str
    kind: InterruptKind
    actions: list[ActionCard] = Field(default_factory=list)
    value: Any = None
    per_call: bool = False


class StoredAgent(BaseModel):
    """One agent registered in the session."""

    agent_id: str
    client_id: str
    tools: list[dict[str, Any]] = Field(default_factory=list)
    stream: bool = False
    thread_id: str | None = None
    interrupts: list[StoredInterrupt] = Field(default_factory=list)
    watching: bool = False
    """The thread is followed for background results (the analyst's)."""
    own_runs: list[str] = Field(default_factory=list)
    """The latest runs the adapter started on the thread (any other run is a background
    one)."""
    pushed: list[str] = Field(default_factory=list)
    """The latest background runs whose result was sent."""
    answering: bool = False
    """A chat was going and what it ended with was not sent (nor queued here) yet: the
    instance that takes the session over follows its run, even one that ended since."""
    run_id: str | None = None
    """That chat's run, when known."""


class StoredMessage(BaseModel):
    """A final message (a response, or a notification carrying a result) not yet sent."""

    text: str
    ids: list[Any] = Field(default_factory=list)


class SessionRecord(BaseModel):
    """The Store item of one session (see the module docstring)."""

    model_config = ConfigDict(extra="ignore")

    version: int = 1
    session_id: str
    principal: str | None = None
    """Who may resume it: ``user:<id>`` (the Agent Server's auth), ``token:<digest>`` (the
    adapter's token, never the token itself), or None (no credentials)."""
    user_id: str | None = None
    owner: str
    epoch: int = 0
    expires_at: float
    agents: list[StoredAgent] = Field(default_factory=list)
    calls: list[StoredCall] = Field(default_factory=list)
    backlog: list[StoredMessage] = Field(default_factory=list)

    def expired(self, now: float | None = None) -> bool:
        """Whether the session's detached lifetime has passed."""
        return (time.time() if now is None else now) > self.expires_at

    def supersedes(self, epoch: int, owner: str) -> bool:
        """Whether this record was written by a later takeover than ``(epoch, owner)``'s.

        The Store has no compare-and-set: an instance that checked it still owned the
        session may write once more after another took it over. Its record then carries
        an older epoch, so the new owner keeps the session (and writes over it) while the
        old one stands down at its next check. Equal epochs (two takeovers at once) are
        settled by the owner id."""
        return (self.epoch, self.owner) > (epoch, owner)


def principal_of(user_id: str | None, token: str | None) -> str | None:
    """Who opened a session, as the record keeps it: the authenticated user, else a digest
    of the adapter token the client presented (a rotated token does not resume old
    sessions), else None."""
    if user_id is not None:
        return f"user:{user_id}"
    if token:
        return "token:" + hashlib.sha256(token.encode()).hexdigest()[:32]
    return None


def _interrupt(p: PendingInterrupt) -> StoredInterrupt:
    return StoredInterrupt(
        interrupt_id=p.interrupt_id,
        agent_id=p.agent_id,
        thread_id=p.thread_id,
        kind=p.kind,
        actions=list(p.actions),
        value=p.value,
        per_call=p.per_call,
    )


def snapshot(
    session: Session, *, owner: str, ttl: float, now: float | None = None
) -> SessionRecord:
    """The record of ``session`` as it stands."""
    now = time.time() if now is None else now
    return SessionRecord(
        session_id=session.session_id,
        principal=session.principal,
        user_id=session.user_id,
        owner=owner,
        epoch=session.epoch,
        # Attached: kept alive by the heartbeat (a process that dies stops refreshing it).
        expires_at=(session.detached_wall or now) + ttl,
        agents=[
            StoredAgent(
                agent_id=b.agent_id,
                client_id=b.client_id,
                tools=b.tools,
                stream=b.stream,
                thread_id=b.thread_id,
                interrupts=[_interrupt(p) for p in b.interrupts.values()],
                watching=b.watching,
                own_runs=list(b.own_runs)[-_KEPT_RUNS:],
                pushed=list(b.pushed)[-_KEPT_RUNS:],
                answering=b.answering,
                run_id=b.run_id if b.answering else None,
            )
            for b in session.agents.values()
        ],
        calls=[
            StoredCall(
                call_id=c.call_id,
                tool_name=c.tool_name,
                arguments=c.arguments,
                agent_id=c.agent_id,
                interrupt_id=c.interrupt_id,
                request_id=c.request_id,
            )
            for c in session.pending.values()
        ],
        backlog=[
            StoredMessage(text=i.text, ids=list(i.ids)) for i in session.backlog.items if i.final
        ],
    )


class StoreUnavailable(Exception):
    """The Store failed a moment ago: sessions stay in memory until it answers again."""


def store_failed(what: str, exc: Exception) -> None:
    """Log a Store failure once per outage (warning), quietly while it lasts (debug)."""
    level = logging.DEBUG if isinstance(exc, StoreUnavailable) else logging.WARNING
    logger.log(level, "%s (%r); sessions carry on in memory", what, exc)


class SessionStore:
    """The records of all sessions in the Agent Server's Store (through the SDK client).

    A Store that fails (or an Agent Server that does not answer) is not asked again for
    ``_OUTAGE_S`` seconds: sockets still connect at once, in memory only."""

    def __init__(self, client: Callable[[], LangGraphClient], *, ttl: float) -> None:
        self._client = client
        self.ttl = ttl
        self._ttl_supported: bool | None = None  # found out on the first write
        self._down_until = 0.0

    @staticmethod
    def namespace(session_id: str) -> list[str]:
        """The Store namespace of one session."""
        return [NAMESPACE, session_id]

    def _ttl_minutes(self) -> int:
        # Over the record's own expiry: the adapter decides; the Store only cleans up.
        return max(1, math.ceil(self.ttl * 1.5 / 60) + 1)

    @contextlib.asynccontextmanager
    async def _calling(self) -> AsyncIterator[LangGraphClient]:
        if time.monotonic() < self._down_until:
            raise StoreUnavailable("the Store did not answer a moment ago")
        try:
            async with asyncio.timeout(_STORE_TIMEOUT):
                yield self._client()
        except Exception:
            self._down_until = time.monotonic() + _OUTAGE_S
            raise

    async def _items(self, prefix: list[str]) -> AsyncIterator[dict[str, Any]]:
        """Every item under ``prefix`` (paged). A Store may match the prefix textually
        (``rpc_sessions.s1`` also finds ``rpc_sessions.s10``): callers check namespaces."""
        offset = 0
        while True:
            async with self._calling() as client:
                page = await client.store.search_items(prefix, limit=_PAGE, offset=offset)
            items = page.get("items") or []
            for item in items:
                yield dict(item)
            if len(items) < _PAGE:
                return
            offset += _PAGE

    async def _written(self, session_id: str) -> list[tuple[str, Any]]:
        """The session's items, one per instance that wrote it: (key, value)."""
        namespace = self.namespace(session_id)
        return [
            (str(item.get("key")), item.get("value"))
            async for item in self._items(namespace)
            if list(item.get("namespace") or []) == namespace
        ]

    async def load(self, session_id: str) -> SessionRecord | None:
        """The session's record (the latest takeover's item), or None when there is none,
        it expired, or it is unreadable (an expired session's items and unreadable items
        are deleted). Raises when the Store fails."""
        latest: SessionRecord | None = None
        readable: list[str] = []
        for key, value in await self._written(session_id):
            try:
                record = SessionRecord.model_validate(value or {})
            except ValidationError:
                record = None
            if record is None or record.session_id != session_id or record.owner != key:
                logger.warning("session %s: unreadable record in the Store, dropped", session_id)
                await self._drop(session_id, key)
                continue
            readable.append(key)
            if latest is None or record.supersedes(latest.epoch, latest.owner):
                latest = record
        if latest is not None and latest.expired():
            for key in readable:  # the session is over: every item it left
                await self._drop(session_id, key)
            return None
        return latest

    async def save(self, record: SessionRecord) -> None:
        """Write ``record`` as its owner's item (with a Store TTL where the Store takes one).
        Raises when the Store fails."""
        namespace, value = self.namespace(record.session_id), record.model_dump(mode="json")
        key = record.owner
        async with self._calling() as client:
            if self._ttl_supported is not False:
                try:
                    await client.store.put_item(
                        namespace, key, value, index=False, ttl=self._ttl_minutes()
                    )
                    self._ttl_supported = True
                    return
                except Exception as exc:
                    if self._ttl_supported:
                        raise
                    refused = exc
            await client.store.put_item(namespace, key, value, index=False)
            if self._ttl_supported is None:
                # It took the item without a TTL only: the adapter's sweep cleans up.
                logger.info("the Store takes no item TTL (%r): sessions swept here", refused)
                self._ttl_supported = False

    async def _drop(self, session_id: str, key: str) -> None:
        with contextlib.suppress(Exception):
            async with self._calling() as client:
                await client.store.delete_item(self.namespace(session_id), key)

    async def delete(self, session_id: str, *, keep: str | None = None) -> None:
        """Remove the session's items (all, or all but instance ``keep``'s: the earlier
        owners' after a takeover); nothing when there are none, or the Store fails."""
        with contextlib.suppress(Exception):
            for key, _ in await self._written(session_id):
                if key != keep:
                    await self._drop(session_id, key)

    async def sweep(self, now: float | None = None) -> int:
        """Delete every expired item (left by replicas that died, or by an owner that was
        taken over from); returns how many."""
        now = time.time() if now is None else now
        expired: list[tuple[str, str]] = []
        async for item in self._items([NAMESPACE]):
            namespace = list(item.get("namespace") or [])
            expires = (item.get("value") or {}).get("expires_at")
            if len(namespace) == 2 and (not isinstance(expires, int | float) or expires < now):
                expired.append((namespace[1], str(item.get("key"))))
        for session_id, key in expired:
            await self._drop(session_id, key)
        return len(expired)


class SessionRecorder:
    """Writes one session's record after the events a reconnect needs, coalesced.

    ``changed()`` schedules a write (one in flight at a time; the latest state wins);
    ``flush()`` waits until what changed so far is written. A write first checks that this
    instance still owns the session (a client may have resumed it elsewhere, even with
    this socket still open); if another took it over, ``on_moved`` is called and nothing
    is written."""

    def __init__(
        self,
        store: SessionStore,
        session: Session,
        *,
        owner: str,
        on_moved: Callable[[Session], Awaitable[None]],
    ) -> None:
        self.store = store
        self.session = session
        self.owner = owner
        self.on_moved = on_moved
        self.saved_at = 0.0
        self.moved = False
        self._dirty = False
        self._task: asyncio.Task[None] | None = None

    def changed(self) -> None:
        """Schedule a write of the session's current state."""
        if self.moved:
            return
        self._dirty = True
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    async def flush(self) -> None:
        """Wait for every change so far to be written (or to fail, which is logged)."""
        if self._task is not None and not self._task.done():
            await asyncio.shield(self._task)

    async def owned(self) -> bool:
        """Whether this instance still serves the session (True when the Store cannot
        say: the session then carries on here, as without a Store)."""
        if self.moved:
            return False
        try:
            record = await self.store.load(self.session.session_id)
        except Exception as exc:
            store_failed(f"session {self.session.session_id}: Store unreadable", exc)
            return True
        if record is not None and record.supersedes(self.session.epoch, self.owner):
            await self._moved()
            return False
        return True

    async def _moved(self) -> None:
        if not self.moved:
            self.moved = True
            logger.info("session %s: taken over by another adapter", self.session.session_id)
            await self.on_moved(self.session)

    async def _run(self) -> None:
        while self._dirty and not self.moved:
            self._dirty = False
            if not await self.owned():
                return
            record = snapshot(self.session, owner=self.owner, ttl=self.store.ttl)
            try:
                await self.store.save(record)
                self.saved_at = time.monotonic()
            except Exception as exc:
                store_failed(f"session {self.session.session_id}: not written to the Store", exc)

    async def forget(self) -> None:
        """Delete the record when the session ends here (and this instance still owns it)."""
        if self.moved:
            return
        with contextlib.suppress(Exception):
            record = await self.store.load(self.session.session_id)
            if record is not None and record.owner != self.owner:
                return
        await self.store.delete(self.session.session_id)
