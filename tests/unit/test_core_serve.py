"""core.serve: our services keep an idle connection open longer than a client's pool does."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import httpx

from runstack.processes import free_port

ROOT = Path(__file__).resolve().parents[2]
APP = """
from core.serve import serve

async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})

serve(app, host="127.0.0.1", port=PORT, service="keep-alive test", log_level="warning")
"""
REQUEST = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


def _answer(sock: socket.socket) -> bytes:
    sock.sendall(REQUEST)
    data = b""
    while not data.endswith(b"ok"):
        chunk = sock.recv(4096)
        if not chunk:  # the server closed the connection
            break
        data += chunk
    return data


def test_an_idle_connection_outlives_the_clients_pool() -> None:
    port = free_port()
    code = textwrap.dedent(APP).replace("PORT", str(port))
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
            assert _answer(sock).startswith(b"HTTP/1.1 200")
            # Idle for longer than httpx keeps a pooled connection: the client would drop
            # it first. With uvicorn's default (5 s) the server had closed it by now, and a
            # request sent as it closed failed with a ReadError.
            time.sleep(httpx.Limits().keepalive_expiry + 1)  # type: ignore[operator]
            assert _answer(sock).startswith(b"HTTP/1.1 200")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
