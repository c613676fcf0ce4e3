"""A nesting limit for JSON request bodies, checked before any parser sees them.

Python's ``json`` and pydantic recurse once per level: a body nested a few thousand deep
(well under any size cap) raises ``RecursionError`` inside the MCP SDK, which answers
HTTP 500 and logs a traceback. :class:`JsonDepthGuard` measures the nesting of a POST
body without parsing it and answers a JSON-RPC parse error (-32700, HTTP 400) when it is
too deep, so the server never recurses on it. Used by the MCP servers (``mcp_erp``,
``viz_gateway``).
"""

from __future__ import annotations

import itertools
import json
import re

import anyio.to_thread
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["DEFAULT_MAX_DEPTH", "JsonDepthGuard", "nesting_depth"]

DEFAULT_MAX_DEPTH = 100
"""Arrays and objects inside each other. Tool calls need a handful of levels (a chart's
data rows about six, a mind map two per tree level); a recursive parser copes with
several hundred."""

_ESCAPE = re.compile(rb"\\.", re.DOTALL)
# Linear: no escapes are left, so a string ends at the next quote (an unclosed one at the end).
_STRING = re.compile(rb'"[^"]*(?:"|\Z)')
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_STEP = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
# Bodies above this are measured in a worker thread (about 60 ms per MB of brackets).
_INLINE_BYTES = 64 * 1024


def nesting_depth(body: bytes) -> int:
    """How deeply arrays and objects nest in ``body`` (brackets inside strings ignored);
    0 for a scalar. Linear in the size of ``body``, whatever it holds; it need not be
    valid JSON."""
    brackets = _STRING.sub(b"", _ESCAPE.sub(b"", body)).translate(None, _NOT_BRACKET)
    return max(0, max(itertools.accumulate(map(_STEP.__getitem__, brackets)), default=0))


def _parse_error(max_depth: int) -> bytes:
    message = (
        f"Parse error: the JSON body nests arrays/objects more than {max_depth} levels "
        "deep; send a flatter request."
    )
    error = {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": message}}
    return json.dumps(error).encode()


class JsonDepthGuard:
    """Answer a POST whose body nests deeper than ``max_depth`` with HTTP 400 and a JSON-RPC
    parse error; pass everything else on unchanged (the body replayed as received)."""

    def __init__(self, app: ASGIApp, *, max_depth: int = DEFAULT_MAX_DEPTH) -> None:
        self.app = app
        self.max_depth = max_depth

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        messages: list[Message] = []
        chunks: list[bytes] = []
        while True:
            message = await receive()
            messages.append(message)
            if message["type"] != "http.request":
                break  # the client went away: let the app see it
            chunks.append(message.get("body", b""))
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        if len(body) > _INLINE_BYTES:
            depth = await anyio.to_thread.run_sync(nesting_depth, body)
        else:
            depth = nesting_depth(body)
        if depth > self.max_depth:
            await _send_json(send, 400, _parse_error(self.max_depth))
            return
        pending = iter(messages)

        async def replay() -> Message:
            return next(pending, None) or await receive()

        await self.app(scope, replay, send)


async def _send_json(send: Send, status: int, body: bytes) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
