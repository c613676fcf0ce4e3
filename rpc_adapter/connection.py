"""One WebSocket connection: a reader and a writer task joined by a bounded queue.

The reader decodes frames and starts each as a task owned by the session, so a long
``agent.chat`` runs while other calls on the same socket are answered, and survives a
dropped socket (its answer waits for the reconnect). The writer is the only task that
sends, so frames stay whole and in order. When either task ends, the other is cancelled.

Limits that keep one client from starving the others or growing the server:

- requests in flight are counted per request, not per frame (a batch of 100 takes 100
  places), and a batch longer than ``max_batch`` is refused whole with one error;
- the reader yields to the event loop after every frame, so a flood on one socket cannot
  hold the loop while other sockets wait;
- the outgoing queue is bounded (messages and bytes): a client that does not read its
  answers fills it and is closed with ``CLOSE_SLOW_CONSUMER`` (4008); what was queued goes
  to the session's bounded backlog for a reconnect.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from rpc_adapter.methods import Methods
from rpc_adapter.outbox import Outbox, Outgoing
from rpc_adapter.protocol import (
    CLOSE_REPLACED,
    CLOSE_SLOW_CONSUMER,
    INTERNAL_ERROR,
    INVALID_REQUEST,
    SERVER_ERROR,
    Invalid,
    Parsed,
    Request,
    RpcError,
    error_response,
    parse_frame,
    result_response,
)
from rpc_adapter.sessions import CURRENT_REQUEST, Session, SessionMoved

__all__ = ["Connection"]

logger = logging.getLogger(__name__)

_CLOSE_WAIT = 30.0
"""How long a closing socket waits to get its close frame out: a client that does not read
takes it only once it reads again (after what was already on the wire)."""


class Connection:
    """Serve JSON-RPC on an accepted WebSocket for one session."""

    def __init__(
        self,
        websocket: WebSocket,
        session: Session,
        methods: Methods,
        *,
        max_message_size: int,
        max_in_flight: int = 256,
        max_batch: int = 100,
        max_queue_messages: int = 1000,
        max_queue_bytes: int = 4 * 1024 * 1024,
    ) -> None:
        self.ws = websocket
        self.session = session
        self.methods = methods
        self.max_message_size = max_message_size
        self.max_in_flight = max_in_flight
        self.max_batch = max_batch
        self.outbox = Outbox(max_queue_messages, max_queue_bytes)
        self._ready = asyncio.Event()
        self._sending: Outgoing | None = None
        self._close: tuple[int, str] | None = None
        self._writer: asyncio.Task[None] | None = None

    def deliver(self, item: Outgoing, *, force: bool = False) -> None:
        """Queue ``item`` for the writer (never blocks). A queue that is full means the
        client is not reading: the socket is closed and the session keeps the messages."""
        if self._close is not None:
            self.session.send(item)  # routed to the session's socket now, or its backlog
            return
        if not force and not self.outbox.fits(item):
            logger.warning(
                "session %s: client not reading (%d messages, %d bytes queued); closing",
                self.session.session_id,
                len(self.outbox),
                self.outbox.bytes,
            )
            self._shut(CLOSE_SLOW_CONSUMER, "slow consumer: outgoing queue full", item)
            return
        self.outbox.append(item)
        self._ready.set()

    def close_soon(self, code: int, reason: str) -> None:
        """Close this socket; what it has not sent stays with the session."""
        if self._close is None:
            self._shut(code, reason, None)

    def _shut(self, code: int, reason: str, extra: Outgoing | None) -> None:
        self._close = (code, reason)
        unsent = list(self.outbox.drain())
        if self._sending is not None:
            # It may or may not have reached the wire: send it again rather than lose it.
            unsent.insert(0, self._sending)
            self._sending = None
        if extra is not None:
            unsent.append(extra)
        if self.session.socket is self:
            self.session.detach(self, unsent)
        else:  # replaced by a newer socket: it gets what this one could not send
            for item in unsent:
                self.session.send(item)
        # The writer may be stuck in a send the client never reads: stop it.
        if self._writer is not None and self._writer is not asyncio.current_task():
            self._writer.cancel()
        self._ready.set()

    async def serve(self) -> None:
        """Run until the socket closes; the session stays for a reconnect."""
        previous = self.session.attach(self)
        if isinstance(previous, Connection):
            previous.close_soon(CLOSE_REPLACED, "session resumed on another socket")
        reader = asyncio.create_task(self._read())
        writer = self._writer = asyncio.create_task(self._write())
        try:
            await asyncio.wait({reader, writer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in (reader, writer):
                t.cancel()
            for t in (reader, writer):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await t
            if self._close is None:
                self._shut(1000, "", None)
            else:
                code, reason = self._close
                with contextlib.suppress(Exception):
                    async with asyncio.timeout(_CLOSE_WAIT):
                        await self.ws.close(code=code, reason=reason)

    async def _write(self) -> None:
        while self._close is None:
            if not self.outbox:
                self._ready.clear()
                await self._ready.wait()
                continue
            self._sending = self.outbox.popleft()
            await self.ws.send_text(self._sending.text)
            self._sending = None

    def _reply(self, message: Any) -> None:
        self.session.send(message)

    async def _read(self) -> None:
        while True:
            try:
                msg = await self.ws.receive()
            except WebSocketDisconnect:
                return
            if msg["type"] == "websocket.disconnect":
                return
            text = msg.get("text")
            data: str | bytes = text if text is not None else (msg.get("bytes") or b"")
            self._frame(data)
            # Let every other socket and task run between two frames of this one.
            await asyncio.sleep(0)

    def _frame(self, data: str | bytes) -> None:
        size = len(data.encode()) if isinstance(data, str) else len(data)
        if size > self.max_message_size:
            self._reply(
                error_response(
                    None,
                    RpcError(
                        INVALID_REQUEST,
                        f"Message of {size} bytes exceeds the limit of "
                        f"{self.max_message_size} bytes",
                        {"max_message_size": self.max_message_size},
                    ),
                )
            )
            return
        parsed = parse_frame(data)
        if parsed.parse_error is not None:
            self._reply(error_response(None, parsed.parse_error))
            return
        count = len(parsed.items)
        if parsed.is_batch and count > self.max_batch:
            self._reply(
                error_response(
                    None,
                    RpcError(
                        INVALID_REQUEST,
                        f"Batch of {count} requests exceeds the limit of {self.max_batch}",
                        {"max_batch": self.max_batch},
                    ),
                )
            )
            return
        if self.session.in_flight + count > self.max_in_flight:
            self._refuse(parsed)
            return
        self.session.in_flight += count
        self.session.spawn(self._answer(parsed, count))

    def _refuse(self, parsed: Parsed) -> None:
        # A client that never waits for answers must not grow the server without bound.
        busy = RpcError(SERVER_ERROR, f"Too many requests in flight (limit {self.max_in_flight})")
        replies = [
            error_response(i.id, busy)
            for i in parsed.items
            if not (isinstance(i, Request) and i.is_notification)
        ]
        if replies:
            self._reply(replies if parsed.is_batch else replies[0])

    async def _answer(self, parsed: Parsed, count: int) -> None:
        try:
            if not parsed.is_batch:
                reply = await self._one(parsed.items[0])
                if reply is not None:
                    self.session.send(reply)
                return
            replies = await asyncio.gather(*(self._one(item) for item in parsed.items))
            answered = [r for r in replies if r is not None]
            if answered:
                self.session.send(answered)
        finally:
            self.session.in_flight -= count

    async def _one(self, item: Request | Invalid) -> dict[str, Any] | None:
        if isinstance(item, Invalid):
            return error_response(item.id, item.error)
        CURRENT_REQUEST.set(None if item.is_notification else item.id)
        try:
            result = await self.methods.call(item.method, item.params)
        except SessionMoved:
            return None  # another adapter serves the session now and answers there
        except RpcError as exc:
            return None if item.is_notification else error_response(item.id, exc)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("internal error in %s", item.method)
            err = RpcError(INTERNAL_ERROR, "Internal error")
            return None if item.is_notification else error_response(item.id, err)
        return None if item.is_notification else result_response(item.id, result)
