"""Host and Origin allow-list middleware (the MCP transport spec's DNS-rebinding guard), and the
Host / Origin parsing every HTTP service's checks share.

Host is checked by name (``ALLOWED_HOSTS``, loopback by default): a rebinding attack sends
the attacker's name. Origin is checked as a whole origin, scheme + host + port, because a
browser treats ``http://localhost:3000`` and ``http://localhost:8000`` as strangers: a page
served by another local program must not drive these services. A request from the service's
own origin passes; others only when listed (``HTTP_ALLOWED_ORIGINS``). ``Origin: null``
(sandboxed frames, ``file:`` pages, some redirects) is refused unless ``null`` is listed.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = [
    "HostOriginGuard",
    "host_allowed",
    "host_only",
    "normal_origin",
    "origin_host",
]

_LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
# A WebSocket handshake comes from a page of the http(s) origin with the same host and port.
_PAGE_SCHEME = {"ws": "http", "wss": "https"}


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


def normal_origin(value: str) -> str | None:
    """``scheme://host:port`` with the port always written and everything lower-cased
    (``HTTP://LocalHost`` → ``http://localhost:80``); None when ``value`` is not an origin
    (no scheme or host, a path, credentials or a bad port)."""
    try:
        parts = urlsplit(value.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname or parts.username is not None:
        return None
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return None
    host = parts.hostname.lower()
    if ":" in host:
        host = f"[{host}]"
    return f"{scheme}://{host}:{port or _DEFAULT_PORTS[scheme]}"


def _own_origin(scope: Scope, host_header: str) -> str | None:
    """The origin of the request itself: its scheme and the authority in its Host header."""
    scheme = str(scope.get("scheme") or "http")
    return normal_origin(f"{_PAGE_SCHEME.get(scheme, scheme)}://{host_header}")


class HostOriginGuard:
    """Refuse requests whose Host or Origin is not allowed (HTTP 403, or WebSocket close 1008).

    ``allowed_hosts``: Host names accepted, any port; ``"*"`` turns the Host check off.
    ``allowed_origins``: whole origins (``http://app.example:3000``) accepted besides the
    request's own; ``"null"`` accepts ``Origin: null``; ``"*"`` any origin. A request with
    no Origin passes (non-browser clients send none). ``ValueError`` for an entry that is
    none of these (a bare host, a path).
    """

    def __init__(
        self,
        app: ASGIApp,
        *,
        allowed_hosts: Iterable[str] = _LOOPBACK,
        allowed_origins: Iterable[str] = (),
    ) -> None:
        self.app = app
        self.allowed = {h.lower() for h in allowed_hosts}
        self.allowed |= {h.strip("[]") for h in self.allowed}
        self.any_host = "*" in self.allowed
        self.origins: set[str] = set()
        for entry in (o.strip() for o in allowed_origins):
            if entry.lower() in ("*", "null"):
                self.origins.add(entry.lower())
                continue
            normal = normal_origin(entry)
            if normal is None:
                msg = (
                    f"allowed origin {entry!r} is not an origin: write scheme://host[:port] "
                    "(for example http://localhost:3000), 'null' or '*'"
                )
                raise ValueError(msg)
            self.origins.add(normal)

    def _host_ok(self, host: str) -> bool:
        return self.any_host or host_allowed(host, self.allowed)

    def _origin_ok(self, origin: str, scope: Scope, host_header: str) -> bool:
        if "*" in self.origins:
            return True
        if origin.strip().lower() == "null":
            return "null" in self.origins
        normal = normal_origin(origin)
        if normal is None:
            return False
        return normal in self.origins or normal == _own_origin(scope, host_header)

    def refusal(self, scope: Scope) -> str | None:
        """Why the request of ``scope`` is refused, or None when it may proceed."""
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        host = headers.get("host", "")
        origin = headers.get("origin")
        if host and not self._host_ok(host_only(host)):
            return f"Host {host!r} is not allowed"
        if origin is not None and not self._origin_ok(origin, scope, host):
            return f"Origin {origin!r} is not allowed"
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        reason = self.refusal(scope)
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
