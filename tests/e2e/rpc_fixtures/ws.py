"""A raw JSON-RPC-over-WebSocket test client: send exact frames, read exact replies."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection

Message = Any
_AUTO: Any = object()


class RawRpc:
    """Keeps notifications aside while waiting for a given response id."""

    def __init__(self, ws: ClientConnection) -> None:
        self.ws = ws
        self.inbox: list[Message] = []
        self._ids = itertools.count(1)
        self._lock = asyncio.Lock()

    @classmethod
    async def connect(cls, url: str, **kwargs: Any) -> RawRpc:
        """Open a socket to ``url`` (extra kwargs go to ``websockets.connect``)."""
        return cls(await websockets.connect(url, max_size=None, **kwargs))

    async def close(self) -> None:
        """Close the socket."""
        await self.ws.close()

    async def send(self, frame: Any) -> None:
        """Send ``frame`` as is when it is text, else as JSON."""
        await self.ws.send(frame if isinstance(frame, str | bytes) else json.dumps(frame))

    async def recv(self, wait: float = 10) -> Message:
        """The next frame, decoded."""
        return json.loads(await asyncio.wait_for(self.ws.recv(), wait))

    async def wait_for(self, pred: Callable[[Message], bool], wait: float = 10) -> Message:
        """The first message (already received or next) matching ``pred``; others stay queued.

        Several coroutines may wait at once: one reads at a time, all look at the inbox.
        """
        async with asyncio.timeout(wait):
            while True:
                for i, m in enumerate(self.inbox):
                    if pred(m):
                        return self.inbox.pop(i)
                async with self._lock:
                    if any(pred(m) for m in self.inbox):
                        continue
                    self.inbox.append(json.loads(await self.ws.recv()))

    async def request(
        self, method: str, params: Any = None, *, rid: Any = _AUTO, wait: float = 10
    ) -> Message:
        """Send a request and return its full response object (result or error)."""
        rid = next(self._ids) if rid is _AUTO else rid
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "id": rid}
        if params is not None:
            msg["params"] = params
        await self.send(msg)
        return await self.wait_for(
            lambda m: isinstance(m, dict) and "method" not in m and m.get("id") == rid, wait
        )

    async def notification(self, method: str, wait: float = 10, **match: Any) -> Message:
        """Wait for a notification of ``method`` whose params contain ``match``."""

        def pred(m: Message) -> bool:
            if not (isinstance(m, dict) and m.get("method") == method):
                return False
            params = m.get("params") or {}
            return all(params.get(k) == v for k, v in match.items())

        return await self.wait_for(pred, wait)

    def notifications(self, method: str) -> list[Message]:
        """Notifications of ``method`` already received and not yet consumed."""
        return [m for m in self.inbox if isinstance(m, dict) and m.get("method") == method]
