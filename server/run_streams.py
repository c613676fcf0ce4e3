"""Background runs publish every stream mode a client may join them with.

The Agent Server publishes only the stream modes a run was created with, and a background
run (``POST /threads/{thread_id}/runs``) created with the SDK's default gets ``values``
alone. That is how deepagents starts the analyst (``start_async_task``) and wakes the
orchestrator when it ends: nobody is listening then, but a UI or the demo joins those runs
later (``client.runs.join_stream(thread_id, run_id, stream_mode=...)``) and needs the
analyst's ``custom`` stage events, its ``updates`` and its ``messages``.

:class:`JoinableRuns` is an ASGI middleware on the Agent Server's custom app (which
langgraph-api applies to every route, in-process SDK calls included) that gives a
background run asking for no more than ``values`` :data:`JOINABLE_MODES` (a joiner picks
the modes it wants; ``values`` is still among them). A background run created with other
modes, and every streaming or waiting run (``/runs/stream``, ``/runs/wait``), is left
exactly as asked.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["JOINABLE_MODES", "JoinableRuns", "with_joinable_modes"]

JOINABLE_MODES: Final = ["values", "updates", "messages-tuple", "custom"]
_BACKGROUND_CREATE = re.compile(r"^/threads/[^/]+/runs/?$")
_MAX_BODY = 8 * 1024 * 1024  # a run's input; anything larger goes through untouched


def with_joinable_modes(body: bytes) -> bytes:
    """The run-create body with :data:`JOINABLE_MODES` when it asks for no stream mode or
    only ``values`` (the SDK's default); anything else unchanged."""
    try:
        payload = json.loads(body)
    except ValueError:
        return body
    if not isinstance(payload, dict):
        return body
    modes = payload.get("stream_mode") or []
    if set([modes] if isinstance(modes, str) else modes) - {"values"}:
        return body
    return json.dumps({**payload, "stream_mode": JOINABLE_MODES}).encode()


class JoinableRuns:
    """ASGI middleware: background run creations get :data:`JOINABLE_MODES`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    @staticmethod
    def _applies(scope: Scope) -> bool:
        if scope["type"] != "http" or scope.get("method") != "POST":
            return False
        if not _BACKGROUND_CREATE.match(scope.get("path", "")):
            return False
        headers = dict(scope.get("headers") or [])
        return headers.get(b"content-type", b"").split(b";")[0].strip() == b"application/json"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self._applies(scope):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                await self.app(scope, _replay([message], receive), send)
                return
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = bool(message.get("more_body"))
        body = b"".join(chunks)
        if size <= _MAX_BODY:
            body = with_joinable_modes(body)
        headers = [(k, v) for k, v in scope["headers"] if k != b"content-length"]
        headers.append((b"content-length", str(len(body)).encode()))
        request = {"type": "http.request", "body": body, "more_body": False}
        await self.app({**scope, "headers": headers}, _replay([request], receive), send)


def _replay(first: list[Message], receive: Receive) -> Receive:
    pending = list(first)

    async def replay() -> Any:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay
