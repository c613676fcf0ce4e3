"""Run an ASGI app with uvicorn on loopback, refusing a taken port with a clear message."""

from __future__ import annotations

import socket
import sys
from typing import Any


def port_is_free(host: str, port: int) -> bool:
    """True when nothing is listening on ``host:port`` and we may bind it."""
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


KEEP_ALIVE_S = 75
"""How long an idle client connection stays open. Longer than any client keeps an idle
pooled connection (httpx: 5 s, uvicorn's own default too), so the client always closes
first: when both gave up at 5 s, a request sent on a connection the server was closing at
that moment failed with a ReadError (an MCP tool call once in a 10-minute soak, reported
as "server unreachable" while it was up)."""


def serve(app: Any, *, host: str, port: int, service: str, log_level: str = "info") -> None:
    """Serve ``app`` until interrupted; exit with status 2 when the port is taken. Idle
    connections are kept :data:`KEEP_ALIVE_S` seconds."""
    import uvicorn

    if not port_is_free(host, port):
        print(
            f"{service}: port {port} on {host} is already in use; stop whatever holds it "
            f"or choose another port.",
            file=sys.stderr,
        )
        raise SystemExit(2)
    uvicorn.run(
        app,
        host=host,
        port=port,
        log_level=log_level.lower(),
        access_log=False,
        timeout_keep_alive=KEEP_ALIVE_S,
    )
