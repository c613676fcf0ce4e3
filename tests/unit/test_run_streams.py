"""Background runs publish every stream mode a client may join with (server/run_streams.py)."""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from server.run_streams import JOINABLE_MODES, JoinableRuns, with_joinable_modes


def _echo_app() -> Any:
    async def echo(request: Request) -> JSONResponse:
        body = await request.body()
        assert int(request.headers["content-length"]) == len(body)
        return JSONResponse(json.loads(body))

    routes = [
        Route("/threads/{tid}/runs", echo, methods=["POST"]),
        Route("/threads/{tid}/runs/stream", echo, methods=["POST"]),
        Route("/threads/{tid}/runs/wait", echo, methods=["POST"]),
    ]
    app = Starlette(routes=routes)
    app.add_middleware(JoinableRuns)
    return app


def test_a_background_run_with_the_sdk_default_gets_every_mode() -> None:
    with TestClient(_echo_app()) as client:
        for sent in ({"assistant_id": "analyst"}, {"assistant_id": "a", "stream_mode": "values"}):
            got = client.post("/threads/t1/runs", json=sent).json()
            assert got["stream_mode"] == JOINABLE_MODES
            assert got["assistant_id"] == sent["assistant_id"]


def test_chosen_modes_and_streaming_runs_are_left_alone() -> None:
    with TestClient(_echo_app()) as client:
        chosen = {"assistant_id": "a", "stream_mode": ["updates"]}
        assert client.post("/threads/t1/runs", json=chosen).json() == chosen
        plain = {"assistant_id": "a"}
        assert client.post("/threads/t1/runs/stream", json=plain).json() == plain
        assert client.post("/threads/t1/runs/wait", json=plain).json() == plain


def test_bodies_that_are_not_run_requests_pass_unchanged() -> None:
    assert with_joinable_modes(b"not json") == b"not json"
    assert with_joinable_modes(b"[1, 2]") == b"[1, 2]"
