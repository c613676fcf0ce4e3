"""``ForeignThreadsLookMissing`` on a stand-in of the Agent Server's thread routes: a 409
from a create or a copy becomes the caller's own read answer when that read is refused,
and stays a 409 when the caller may read the thread (the real server over HTTP, with
the shipped auth handler: tests/e2e/test_skills_auth_e2e.py)."""

from __future__ import annotations

from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.testclient import TestClient

from server.thread_privacy import ForeignThreadsLookMissing

TAKEN = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0"
"""A thread that exists and belongs to alice."""


def server() -> tuple[TestClient, list[dict[str, Any]]]:
    """A stand-in server: POST /threads and /copy answer 409 for ``TAKEN``; GET shows it to
    alice only (404 to anyone else, as the auth handler's filter does); every request it
    sees is recorded."""
    seen: list[dict[str, Any]] = []

    async def create(request: Request) -> JSONResponse:
        body = await request.json()
        seen.append({"route": "create", "body": body})
        if body.get("thread_id") == TAKEN:
            return JSONResponse({"detail": "already exists"}, status_code=409)
        return JSONResponse({"thread_id": body.get("thread_id") or "new"})

    async def copy(request: Request) -> JSONResponse:
        seen.append({"route": "copy"})
        return JSONResponse({"detail": "Conflict"}, status_code=409)

    async def read(request: Request) -> JSONResponse:
        seen.append({"route": "read", "who": request.headers.get("authorization")})
        thread_id = request.path_params["thread_id"]
        if request.headers.get("authorization") == "Bearer alice" and thread_id == TAKEN:
            return JSONResponse({"thread_id": thread_id})
        return JSONResponse({"detail": f"Thread with ID {thread_id} not found"}, status_code=404)

    routes = [
        Route("/threads", create, methods=["POST"]),
        Route("/threads/{thread_id}/copy", copy, methods=["POST"]),
        Route("/threads/{thread_id}", read, methods=["GET"]),
    ]
    app = ForeignThreadsLookMissing(Starlette(routes=routes))
    return TestClient(app), seen


def test_someone_elses_thread_answers_as_a_missing_one() -> None:
    client, seen = server()
    bob = {"authorization": "Bearer bob"}
    created = client.post("/threads", json={"thread_id": TAKEN, "metadata": {"a": 1}}, headers=bob)
    assert created.status_code == 404
    assert created.json() == {"detail": f"Thread with ID {TAKEN} not found"}
    # The create saw the whole body, and the read went out with the caller's credentials.
    assert seen[0] == {"route": "create", "body": {"thread_id": TAKEN, "metadata": {"a": 1}}}
    assert seen[1] == {"route": "read", "who": "Bearer bob"}
    copied = client.post(f"/threads/{TAKEN}/copy", headers=bob)
    assert (copied.status_code, copied.json()) == (404, created.json())


def test_a_conflict_on_ones_own_thread_stays_a_conflict() -> None:
    client, _ = server()
    alice = {"authorization": "Bearer alice"}
    again = client.post("/threads", json={"thread_id": TAKEN}, headers=alice)
    assert (again.status_code, again.json()) == (409, {"detail": "already exists"})


def test_other_answers_pass_untouched() -> None:
    client, seen = server()
    fresh = client.post("/threads", json={"thread_id": "1" * 32}, headers={"authorization": "x"})
    assert fresh.status_code == 200 and fresh.json() == {"thread_id": "1" * 32}
    assert [s["route"] for s in seen] == ["create"]  # no read for an answer that is no 409
    assert client.get(f"/threads/{TAKEN}").status_code == 404
