"""One WebSocket connection: a reader and a writer task joined by a queue.

The reader decodes frames and starts each request as a task owned by the
session, so a long ``agent.chat`` runs while other calls on the same socket are
answered, and survives a dropped socket (its answer waits for the reconnect).
The writer is the only task that sends, so frames stay whole and in order.
When either task ends, the other is cancelled.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from starlette.websockets import WebSocket, WebSocketDisconnect

from rpc_adapter.methods import Methods
from rpc_adapter.protocol import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    SERVER_ERROR,
    Invalid,
    Parsed,
    Request,
    RpcError,
    dumps,
    error_response,
    parse_frame,
    result_response,
)
from rpc_adapter.sessions import Session

__all__ = ["Connection"]

logger = logging.getLogger(__name__)

_CLOSE = object()


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
    ) -> None:
        self.ws = websocket
        self.session = session
        self.methods = methods
        self.max_message_size = max_message_size
        self.max_in_flight = max_in_flight
        self.queue: asyncio.Queue[Any] = asyncio.Queue()

    def enqueue(self, message: Any) -> None:
        """Hand a message to the writer (never blocks)."""
        self.queue.put_nowait(message)

    def close_soon(self, code: int = 4000) -> None:
        """Ask the writer to close the socket after what is queued."""
        self.queue.put_nowait((_CLOSE, code))

    async def serve(self) -> None:
        """Run until the socket closes; the session stays for a reconnect."""
        previous = self.session.attach(self, self.enqueue)
        if isinstance(previous, Connection):
            previous.close_soon(4000)
        reader = asyncio.create_task(self._read())
        writer = asyncio.create_task(self._write())
        try:
            await asyncio.wait({reader, writer}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for t in (reader, writer):
                t.cancel()
            for t in (reader, writer):
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await t
            self.session.detach(self)

    async def _write(self) -> None:
        while True:
            item = await self.queue.get()
            if isinstance(item, tuple) and item and item[0] is _CLOSE:
                with contextlib.suppress(Exception):
                    await self.ws.close(code=item[1], reason="session resumed on another socket")
                return
            await self.ws.send_text(item if isinstance(item, str) else dumps(item))

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
            size = len(data.encode()) if isinstance(data, str) else len(data)
            if size > self.max_message_size:
                self.session.send(
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
                continue
            parsed = parse_frame(data)
            if parsed.parse_error is not None:
                self.session.send(error_response(None, parsed.parse_error))
                continue
            if len(self.session.tasks) >= self.max_in_flight:
                # A client that never waits for answers must not grow the server without bound.
                busy = RpcError(
                    SERVER_ERROR, f"Too many requests in flight (limit {self.max_in_flight})"
                )
                replies = [
                    error_response(i.id, busy)
                    for i in parsed.items
                    if not (isinstance(i, Request) and i.is_notification)
                ]
                if replies:
                    self.session.send(replies if parsed.is_batch else replies[0])
                continue
            self.session.spawn(self._answer(parsed))

    async def _answer(self, parsed: Parsed) -> None:
        if not parsed.is_batch:
            reply = await self._one(parsed.items[0])
            if reply is not None:
                self.session.send(reply)
            return
        replies = await asyncio.gather(*(self._one(item) for item in parsed.items))
        answered = [r for r in replies if r is not None]
        if not answered:
            return
        self.session.send(answered)

    async def _one(self, item: Request | Invalid) -> dict[str, Any] | None:
        if isinstance(item, Invalid):
            return error_response(item.id, item.error)
        try:
            result = await self.methods.call(item.method, item.params)
        except RpcError as exc:
            return None if item.is_notification else error_response(item.id, exc)
        except asyncio.CancelledError:
            raise
        except Exception:
            logger.exception("internal error in %s", item.method)
            err = RpcError(INTERNAL_ERROR, "Internal error")
            return None if item.is_notification else error_response(item.id, err)
        return None if item.is_notification else result_response(item.id, result)
