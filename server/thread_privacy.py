"""Another user's thread answers a create or a copy exactly as a missing one does.

With auth on, every read, change or run of someone else's thread gets 404 (the auth
handler's filters hide it). Two routes told more: ``POST /threads`` with the ``thread_id``
of someone else's thread answered 409 "already exists", and ``POST /threads/{id}/copy``
409 for a thread the caller may not read (and for one that does not exist), so the
status said whether an id was in use.

The Agent Server decides those 409s inside its runtime, below the auth handler, which
can only refuse or filter. So this middleware, which wraps the whole server (it is
middleware of the ``http.app``, like the mounted adapter's app), looks at the answer:
when one of these two routes answers 409, it reads ``GET /threads/{id}`` with the
caller's own credentials, through the same server and the same auth handler, and if
that read is refused, answers what the read answered (404 "Thread with ID ... not
found", the very answer for an id never used). A 409 for the caller's own thread stays
409. Without auth every thread is readable, so nothing changes.

What remains is inherent in one id space per server: a create naming someone else's id
cannot succeed, so a caller who already holds an id learns that it is taken (as 404).
Thread ids are random UUIDs the server makes; this gives away nothing about ids one
does not have.
"""

from __future__ import annotations

import json
import re
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["ForeignThreadsLookMissing"]

# POST {prefix}/threads (create) and POST {prefix}/threads/{id}/copy; the prefix is a
# deployment's mount prefix, if any.
_ROUTE = re.compile(r"(?P<prefix>(?:/[^/]+)*?)/threads(?:/(?P<copied>[0-9a-fA-F-]{32,36})/copy)?/?")
# A create's body is a small JSON object; more than this is not read for its id.
_MAX_BODY = 1 << 20
_DROP = {b"content-length", b"content-type", b"transfer-encoding", b"expect"}


class ForeignThreadsLookMissing:
    """ASGI middleware: see the module docstring."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        route = _ROUTE.fullmatch(str(scope.get("path", "")))
        if scope["type"] != "http" or scope["method"] != "POST" or route is None:
            await self.app(scope, receive, send)
            return
        body = bytearray()

        async def reading() -> Message:
            message = await receive()
            if message["type"] == "http.request" and len(body) < _MAX_BODY:
                body.extend(message.get("body", b""))
            return message

        held: list[Message] = []

        async def answering(message: Message) -> None:
            if held or (message["type"] == "http.response.start" and message["status"] == 409):
                held.append(message)
                return
            await send(message)

        await self.app(scope, reading, answering)
        if not held:
            return
        thread_id = route["copied"] or _thread_id(bytes(body))
        read = None
        if thread_id:
            read = await self._read(scope, receive, f"{route['prefix']}/threads/{thread_id}")
        for message in held if read is None else read:
            await send(message)

    async def _read(self, scope: Scope, receive: Receive, path: str) -> list[Message] | None:
        """The server's answer to the caller's ``GET {path}`` (a thread) when it is a
        refusal (any status but 200), else None."""
        headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() not in _DROP]
        read_scope = {
            **scope,
            "method": "GET",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "headers": headers,
        }
        sent = False

        async def no_body() -> Message:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": b"", "more_body": False}
            return await receive()  # the original request's: a disconnect, when it comes

        answer: list[Message] = []

        async def keep(message: Message) -> None:
            answer.append(message)

        await self.app(read_scope, no_body, keep)
        start = answer[0] if answer else {}
        if start.get("type") != "http.response.start" or start.get("status") == 200:
            return None
        return answer


def _thread_id(body: bytes) -> str | None:
    try:
        payload: Any = json.loads(body or b"{}")
    except ValueError:
        return None
    thread_id = payload.get("thread_id") if isinstance(payload, dict) else None
    return thread_id if isinstance(thread_id, str) and thread_id else None
