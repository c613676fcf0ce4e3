"""Host and Origin allow-list middleware (the MCP transport spec's DNS-rebinding guard)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

_LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def _host_only(value: str) -> str:
    value = value.strip().lower()
    if value.startswith("["):
        return value[: value.index("]") + 1] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


class HostOriginGuard:
    """Refuse requests whose Host or Origin is not on the allow-list.

    A missing Origin is accepted (non-browser clients send none); a present one
    must name an allowed host. ``"*"`` in the list turns the check off.
    """

    def __init__(self, app: ASGIApp, *, allowed_hosts: Iterable[str] = _LOOPBACK) -> None:
        self.app = app
        self.allowed = {h.lower() for h in allowed_hosts}
        self.allowed |= {h.strip("[]") for h in self.allowed}
        self.allow_all = "*" in self.allowed

    def _ok(self, host: str) -> bool:
        h = _host_only(host)
        return self.allow_all or h in self.allowed or h.strip("[]") in self.allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.allow_all:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        origin = headers.get("origin")
        reason = None
        if host and not self._ok(host):
            reason = f"Host {host!r} is not allowed"
        elif origin and origin != "null" and not self._ok(urlsplit(origin).netloc or origin):
            reason = f"Origin {origin!r} is not allowed"
        if reason is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008, "reason": reason})
            return
        body = json.dumps({"error": {"code": "FORBIDDEN", "message": reason}}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 403,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
