"""Host and Origin allow-list middleware (the MCP transport spec's DNS-rebinding guard), and the
Host / Origin parsing every HTTP service's checks share."""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["HostOriginGuard", "host_allowed", "host_only", "origin_host"]

_LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


def host_only(value: str) -> str:
    """A Host header (or URL authority) without its port, lower-cased; ``[::1]`` stays
    bracketed, a bare IPv6 address stays whole."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[: value.index("]") + 1] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def origin_host(origin: str) -> str:
    """The host an ``Origin`` header names (``http://localhost:3000`` → ``localhost``)."""
    return host_only(urlsplit(origin).netloc or origin)


def host_allowed(host: str, allowed: Collection[str]) -> bool:
    """Whether a port-less ``host`` is in ``allowed``, an IPv6 address with or without brackets."""
    return host in allowed or host.strip("[]") in allowed


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
        return self.allow_all or host_allowed(host, self.allowed)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or self.allow_all:
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        origin = headers.get("origin")
        reason = None
        if host and not self._ok(host_only(host)):
            reason = f"Host {host!r} is not allowed"
        elif origin and origin != "null" and not self._ok(origin_host(origin)):
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
