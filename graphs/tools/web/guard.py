"""The SSRF guard: every URL, and every redirect hop, is vetted before a connection.

Only http(s). The host is resolved (``loop.getaddrinfo``) and refused when any address
is private, loopback, link-local, cloud metadata, unspecified, multicast or otherwise
not globally routable, unless the URL's ``host:port`` (or ``host``), as written, is on
the allow-list (``WEB_ALLOWED_HOSTS`` plus the supplier shops). The checked address is
returned so the connection goes to that very address (see :mod:`.client`): a DNS
answer that changes between check and connect cannot slip through. Cloud-metadata
addresses are refused even when allow-listed.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlsplit

from graphs.tools.web.errors import FetchFailure, Refused

__all__ = ["Guard", "Resolver", "Target", "hostport", "system_resolve"]

Resolver = Callable[[str, int], Awaitable[list[str]]]

_METADATA = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("fd00:ec2::254"),
    ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
}


@dataclass(frozen=True)
class Target:
    """A vetted URL: the address to connect to, and whether it is a public one."""

    url: str
    host: str
    port: int
    ip: str
    public: bool


def hostport(host: str, port: int) -> str:
    """``host:port`` as the allow-list spells it (IPv6 in brackets, lower case)."""
    host = host.lower().strip("[]")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


async def system_resolve(host: str, port: int) -> list[str]:
    """The host's addresses from the system resolver, without blocking the loop."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _is_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in ipaddress.ip_network("64:ff9b::/96"):
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None and not _is_public(embedded):
            return False
    return ip.is_global and not (ip.is_multicast or ip.is_unspecified or ip.is_reserved)


class Guard:
    """Resolves and vets every URL before a connection is made to it."""

    def __init__(self, allowed: set[str], resolver: Resolver | None) -> None:
        self.allowed = allowed
        self.resolve = resolver or system_resolve

    def is_allowed(self, host: str, port: int) -> bool:
        """Whether ``host:port`` (or the bare host) is on the allow-list, as written."""
        host = host.lower().strip("[]")
        return hostport(host, port) in self.allowed or host in self.allowed

    async def check(self, url: str) -> Target:
        """The vetted target; raises :class:`Refused` or :class:`FetchFailure`."""
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as exc:
            raise FetchFailure("invalid_url", f"{url!r} is not a valid URL ({exc}).") from exc
        if parts.scheme not in ("http", "https"):
            raise Refused(f"only http and https URLs can be fetched, not {parts.scheme or '?'}:")
        host = parts.hostname
        if not host:
            raise FetchFailure("invalid_url", f"{url!r} has no host name.")
        if parts.username or parts.password:
            raise Refused("URLs with embedded credentials are not fetched.")
        port = port or (443 if parts.scheme == "https" else 80)
        ips = await self._addresses(host, port)
        for ip in ips:
            if ip in _METADATA or (ip.version == 6 and ip.ipv4_mapped in _METADATA):
                raise Refused(f"{host} resolves to the cloud metadata address {ip}; refused.")
        private = [ip for ip in ips if not _is_public(ip)]
        # Matched on the host as written, not on what it resolves to: otherwise any name
        # pointed at an allowed internal address (DNS rebinding) would be let in too.
        if private and not self.is_allowed(host, port):
            shown = host if host.strip("[]") == str(private[0]) else f"{host} ({private[0]})"
            raise Refused(
                f"{shown}:{port} is a private, loopback, link-local or otherwise internal "
                "address and is not on the allow-list (WEB_ALLOWED_HOSTS)."
            )
        return Target(url, host, port, str(ips[0]), public=not private)

    async def _addresses(
        self, host: str, port: int
    ) -> list[ipaddress.IPv4Address | ipaddress.IPv6Address]:
        try:
            return [ipaddress.ip_address(host.strip("[]"))]
        except ValueError:
            pass
        try:
            found = await self.resolve(host, port)
        except (OSError, UnicodeError) as exc:
            raise FetchFailure("dns", f"could not resolve host {host!r} ({exc}).") from exc
        if not found:
            raise FetchFailure("dns", f"host {host!r} has no addresses.")
        return [ipaddress.ip_address(a.split("%")[0]) for a in found]
