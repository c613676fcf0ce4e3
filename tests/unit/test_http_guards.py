"""The HTTP services' request guards (issue 17, break 7): an Origin is allowed as a whole
origin (scheme, host and port), ``Origin: null`` only when configured, and a JSON body
nested too deeply gets a JSON-RPC parse error instead of an HTTP 500.

The guards are checked on the real MCP servers' apps (``mcp_erp``, ``viz_gateway``)
in-process, their lifespans running, and on the ERP's app, so what is tested is what
``python -m ...`` serves.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from asgi_lifespan import LifespanManager
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocket, WebSocketDisconnect

from core.http_guard import HostOriginGuard, normal_origin
from core.json_limits import DEFAULT_MAX_DEPTH, nesting_depth
from tests.unit.erp_inprocess import pinned_settings

HOST = "127.0.0.1:8000"  # where the tests' requests say they are going
OWN = f"http://{HOST}"
WS = f"ws://{HOST}/ws"
MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def _erp_mcp_app(tmp_path: Path, origins: list[str]) -> Any:
    from mcp_erp.server import create_http_app

    # Nothing listens on port 9: /health answers at once that the ERP is unreachable.
    settings = pinned_settings(erp_base_url="http://127.0.0.1:9", http_allowed_origins=origins)
    return create_http_app(settings)


def _viz_app(tmp_path: Path, origins: list[str]) -> Any:
    from viz_gateway.server import create_app
    from viz_gateway.settings import VizSettings

    settings = VizSettings(data_dir=tmp_path, render_workers=1, http_allowed_origins=origins)
    return create_app(settings, warm_up=False)


SERVERS: dict[str, Callable[[Path, list[str]], Any]] = {"erp-mcp": _erp_mcp_app, "viz": _viz_app}


@asynccontextmanager
async def serving(app: Any) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client of ``app`` with its lifespan running (the MCP session manager)."""
    async with LifespanManager(app) as manager:
        transport = httpx.ASGITransport(app=manager.app)
        async with httpx.AsyncClient(transport=transport, base_url=OWN) as client:
            yield client


# -- Origin ------------------------------------------------------------------------------


@pytest.mark.parametrize("server", sorted(SERVERS))
async def test_an_mcp_server_takes_only_its_own_origin_by_default(
    server: str, tmp_path: Path
) -> None:
    async with serving(SERVERS[server](tmp_path, [])) as web:

        async def status(origin: str | None) -> int:
            headers = {} if origin is None else {"origin": origin}
            return (await web.get("/health", headers=headers)).status_code

        assert await status(None) == 200  # non-browser clients send no Origin
        assert await status(OWN) == 200
        assert await status("HTTP://127.0.0.1:8000/") == 200  # the same origin, spelt otherwise
        # Loopback, but another port: another program's page (the old check let it in).
        assert await status("http://127.0.0.1:3000") == 403
        assert await status("http://localhost:8000") == 403  # another host name
        assert await status("https://127.0.0.1:8000") == 403  # another scheme
        assert await status("null") == 403  # a sandboxed frame or a file: page
        assert await status("http://evil.example") == 403
        refused = await web.get("/health", headers={"origin": "null"})
        assert refused.json()["error"]["message"] == "Origin 'null' is not allowed"


@pytest.mark.parametrize("server", sorted(SERVERS))
async def test_configured_origins_are_matched_whole(server: str, tmp_path: Path) -> None:
    app = SERVERS[server](tmp_path, ["http://app.example:3000", "null"])
    async with serving(app) as web:

        async def status(origin: str) -> int:
            return (await web.get("/health", headers={"origin": origin})).status_code

        assert await status("http://app.example:3000") == 200
        assert await status("null") == 200
        assert await status("http://app.example:3001") == 403
        assert await status("https://app.example:3000") == 403
        assert await status("http://app.example") == 403  # port 80 is another origin
        assert await status(OWN) == 200


def test_the_erp_takes_only_its_own_origin(tmp_path: Path) -> None:
    from sim.erp.app import create_app
    from tests.unit.erp_fixtures import make_template, settings_for

    settings = settings_for(make_template(tmp_path / "template"), tmp_path / "erp")
    with TestClient(create_app(settings), base_url=OWN) as erp:
        assert erp.get("/health", headers={"origin": OWN}).status_code == 200
        assert erp.get("/health", headers={"origin": "http://127.0.0.1:5173"}).status_code == 403
        assert erp.get("/health", headers={"origin": "null"}).status_code == 403


def _websocket_app(**guard: Any) -> Any:
    async def hello(request: Any) -> PlainTextResponse:
        return PlainTextResponse("hello")

    async def echo(socket: WebSocket) -> None:
        await socket.accept()
        await socket.send_text("open")
        await socket.close()

    app = Starlette(routes=[Route("/", hello), WebSocketRoute("/ws", echo)])
    return HostOriginGuard(app, **guard)


def test_a_websocket_from_a_foreign_origin_is_closed() -> None:
    client = TestClient(_websocket_app(), base_url="http://127.0.0.1:8000")
    with client.websocket_connect(WS, headers={"origin": OWN}) as socket:
        assert socket.receive_text() == "open"  # a page of ws's own http origin
    for origin in ("http://127.0.0.1:3000", "null"):
        with (
            pytest.raises(WebSocketDisconnect) as closed,
            client.websocket_connect(WS, headers={"origin": origin}) as socket,
        ):
            socket.receive_text()
        assert closed.value.code == 1008


def test_the_host_check_is_unchanged() -> None:
    client = TestClient(_websocket_app(), base_url="http://127.0.0.1:8000")
    assert client.get("/", headers={"host": "localhost:1234"}).status_code == 200
    assert client.get("/", headers={"host": "attacker.example:8000"}).status_code == 403
    every_host = TestClient(_websocket_app(allowed_hosts=["*"]), base_url="http://x.example")
    assert every_host.get("/").status_code == 200
    # "*" for hosts does not open the Origin check.
    assert every_host.get("/", headers={"origin": "http://evil.example"}).status_code == 403


def test_origins_are_compared_in_one_spelling() -> None:
    assert normal_origin("HTTP://LocalHost") == "http://localhost:80"
    assert normal_origin("https://[::1]") == "https://[::1]:443"
    assert normal_origin("http://app.example:3000/") == "http://app.example:3000"
    for bad in ("localhost:3000", "app.example", "http://a.example/path", "http://u@a.example",
                "ftp://a.example", "http://a.example:99999", "null"):  # fmt: skip
        assert normal_origin(bad) is None, bad


def test_a_bad_origin_setting_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import ValidationError

    from mcp_erp.settings import ErpMcpSettings

    monkeypatch.setenv("HTTP_ALLOWED_ORIGINS", "http://ok.example:3000, localhost:3000")
    with pytest.raises(ValidationError) as caught:
        ErpMcpSettings()
    assert "'localhost:3000' is not an origin" in str(caught.value)
    with pytest.raises(ValueError, match="is not an origin"):
        HostOriginGuard(Starlette(), allowed_origins=["app.example"])


# -- JSON nesting --------------------------------------------------------------------------


def _nested(depth: int) -> str:
    """JSON text of ``depth`` objects and arrays inside each other (written as text:
    ``json.dumps`` itself recurses)."""
    opening = "".join("[" if n % 2 else '{"k": ' for n in range(depth))
    closing = "".join("]" if n % 2 else "}" for n in reversed(range(depth)))
    return f'{opening}"leaf"{closing}'


def _initialize(depth: int) -> bytes:
    """An MCP ``initialize`` request whose ``capabilities.experimental`` (any JSON object)
    holds a value nested ``depth`` deep; the request nests ``depth + 4`` deep in all."""
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {"experimental": {"x": "HOLE"}},
            "clientInfo": {"name": "guard-test", "version": "1"},
        },
    }
    return json.dumps(request).replace('"HOLE"', _nested(depth)).encode()


@pytest.mark.parametrize("server", sorted(SERVERS))
async def test_deeply_nested_json_is_a_parse_error_not_a_crash(server: str, tmp_path: Path) -> None:
    async with serving(SERVERS[server](tmp_path, [])) as web:

        async def post(body: bytes) -> httpx.Response:
            return await web.post("/mcp", content=body, headers=MCP_HEADERS)

        for depth in (DEFAULT_MAX_DEPTH + 1, 1_000, 100_000):
            body = b"[" * depth + b"]" * depth
            answer = await post(body)
            assert answer.status_code == 400, (depth, answer.text)
            error = answer.json()
            assert error["jsonrpc"] == "2.0" and error["id"] is None
            assert error["error"]["code"] == -32700
            assert f"more than {DEFAULT_MAX_DEPTH} levels" in error["error"]["message"]
        # Deep inside a real request too: an initialize whose capabilities nest 1,000 deep.
        deep = await post(_initialize(1_000))
        assert deep.status_code == 400 and deep.json()["error"]["code"] == -32700
        # Within the limit the server still answers, and it keeps serving afterwards.
        fine = await post(_initialize(DEFAULT_MAX_DEPTH - 4))
        assert fine.status_code == 200, fine.text
        assert fine.json()["result"]["serverInfo"]["name"]
        assert (await web.get("/health")).status_code == 200


def test_nesting_depth_ignores_brackets_in_strings() -> None:
    assert nesting_depth(b"1") == 0
    assert nesting_depth(b"{}") == 1
    assert nesting_depth(b'[[1], {"a": [2, [3]]}]') == 4
    assert nesting_depth(b'{"a": "[[[[{{{{", "b": "\\"[[[["}') == 1
    assert nesting_depth(b'"\\\\"') == 0  # an escaped backslash ends before the quote
    assert nesting_depth(b'["\\\\", [[]]]') == 3
    assert nesting_depth(b'"' + b'\\"[' * 50_000) == 0  # one unclosed string
    assert nesting_depth(_nested(500).encode()) == 500
    assert nesting_depth(_initialize(DEFAULT_MAX_DEPTH - 4)) == DEFAULT_MAX_DEPTH
    assert nesting_depth(b"]]]]") == 0
