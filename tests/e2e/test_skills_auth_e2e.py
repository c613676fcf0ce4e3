"""The artifacts route behind the Agent Server's own auth: the thread's owner only.

``langgraph dev`` runs with an auth handler (``auth`` below: ``Authorization: User
<name>``; a thread belongs to its creator and only they can read it) and
``enable_custom_route_auth``, so the server authenticates ``/artifacts/...`` before
the route runs; the route then checks ownership through the SDK with the caller's
credentials.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from langgraph_sdk import Auth, get_client

from tests.e2e import agents_stack
from tests.e2e.agents_stack import Stack, langgraph_dev, services

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

auth = Auth()


@auth.authenticate
async def authenticate(authorization: str | None) -> Auth.types.MinimalUserDict:
    """``Authorization: User <name>`` (a stand-in for a real identity provider).

    No header is the user ``anonymous`` (the stack's readiness probe sends none).
    """
    if not authorization:
        return {"identity": "anonymous", "is_authenticated": True}
    if not authorization.startswith("User "):
        raise Auth.exceptions.HTTPException(status_code=401, detail="Who are you?")
    return {"identity": authorization.removeprefix("User "), "is_authenticated": True}


@auth.on.threads.create
async def own_new_thread(ctx: Auth.types.AuthContext, value: Any) -> None:
    """A thread belongs to whoever creates it."""
    value.setdefault("metadata", {})["owner"] = ctx.user.identity


@auth.on.threads.read
async def read_own_threads(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """Only the owner sees a thread."""
    return {"owner": ctx.user.identity}


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    original = agents_stack._config

    def with_auth(folder: Path) -> Path:
        path = original(folder)
        config = json.loads(path.read_text(encoding="utf-8"))
        config["auth"] = {"path": f"{Path(__file__).resolve()}:auth"}
        config["http"] = {
            **config.get("http", {}),
            "app": str(agents_stack.ROOT / "graphs/artifacts_app.py") + ":app",
            "enable_custom_route_auth": True,
        }
        path.write_text(json.dumps(config), encoding="utf-8")
        return path

    mp = pytest.MonkeyPatch()
    mp.setattr(agents_stack, "_config", with_auth)
    try:
        with services() as running:
            yield running
    finally:
        mp.undo()


async def test_only_the_owner_downloads(stack: Stack) -> None:
    with langgraph_dev(stack) as agent:
        alice = {"Authorization": "User alice"}
        client = get_client(url=agent.url, timeout=120, headers=alice)
        try:
            thread_id = (await client.threads.create())["thread_id"]
        finally:
            await client.aclose()
        report = stack.workspace(thread_id) / "analysis" / "report_20260101.md"
        report.parent.mkdir(parents=True, exist_ok=True)
        report.write_text("# alice's report\n", encoding="utf-8")
        url = f"/artifacts/{thread_id}/analysis/report_20260101.md"
        async with httpx.AsyncClient(base_url=agent.url, timeout=30) as http:
            mine = await http.get(url, headers=alice)
            assert mine.status_code == 200 and mine.text == "# alice's report\n"
            theirs = await http.get(url, headers={"Authorization": "User bob"})
            assert theirs.status_code == 404
            assert "alice" not in theirs.text
            anonymous = await http.get(url)
            assert anonymous.status_code == 404
            forged = await http.get(url, headers={"Authorization": "Bearer alice"})
            assert forged.status_code in (401, 403)
            escape = await http.get(f"/artifacts/{thread_id}/analysis/../../etc/x", headers=alice)
            assert escape.status_code in (400, 404)
