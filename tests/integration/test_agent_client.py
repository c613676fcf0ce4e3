"""core.agent_client: a client outside the Agent Server drops an idle connection before
``langgraph dev`` closes it, so no request is sent on a connection the server is closing.

The server here is uvicorn with its default keep-alive (5 s), as ``langgraph dev`` runs it,
and it answers each request with the client's port: a new port is a new connection.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from core.agent_client import IDLE_S, agent_client
from runstack.processes import HOST, free_port


async def _info(request: Request) -> JSONResponse:
    assert request.client is not None
    return JSONResponse({"port": request.client.port, "auth": request.headers.get("authorization")})


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    app = Starlette(routes=[Route("/info", _info)])
    port = free_port()
    config = uvicorn.Config(app, host=HOST, port=port, log_level="warning", lifespan="off")
    assert config.timeout_keep_alive == 5  # what langgraph dev's uvicorn keeps
    srv = uvicorn.Server(config)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not srv.started:
        assert time.monotonic() < deadline, "the test server did not start"
        time.sleep(0.01)
    yield f"http://{HOST}:{port}"
    srv.should_exit = True
    thread.join(10)


async def _port(client: object) -> tuple[int, str | None]:
    answer = await client.http.get("/info")  # type: ignore[attr-defined]
    return int(answer["port"]), answer["auth"]


async def test_a_connection_idle_for_longer_than_idle_s_is_not_reused(server: str) -> None:
    async with agent_client(server, headers={"Authorization": "Bearer t-1"}) as client:
        first, auth = await _port(client)
        assert auth == "Bearer t-1"  # the SDK's headers are kept
        again, _ = await _port(client)
        assert again == first  # busy: the connection is reused
        await asyncio.sleep(IDLE_S + 0.5)  # idle past IDLE_S, well inside the server's 5 s
        later, _ = await _port(client)
    assert later != first


async def test_the_sdks_own_client_would_reuse_it(server: str) -> None:
    """The control: without ``agent_client`` the same wait reuses the connection, so a
    wait of about 5 s would meet the server closing it."""
    from langgraph_sdk import get_client

    async with get_client(url=server, api_key=None) as client:
        first, _ = await _port(client)
        await asyncio.sleep(IDLE_S + 0.5)
        later, _ = await _port(client)
    assert later == first
