"""The shipped auth handler (``auth.py`` beside the server's ``http.app``) on a real
``langgraph dev``.

The server runs with that handler as its ``auth`` and ``enable_custom_route_auth``,
and accounts from ``AGENT_AUTH_TOKENS`` / ``AGENT_AUTH_SERVICE_TOKENS``:

- a request without a known bearer token gets 401; a person calling the Store API 403;
- a thread belongs to its creator: another user gets 404 for it and its artifacts, and
  creating or copying it answers exactly as for an id never used (no 409 oracle);
- a run's user is the token's account, whatever ``user_id`` the context claims: alice
  claiming to be bob gets her own memory, and bob's stays empty;
- a service account may name the user it acts for;
- the JSON-RPC adapter mounted in the server runs a socket's chats for the socket's
  authenticated user, owns its threads to them, and lets no one else resume the session.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from langgraph_sdk.errors import NotFoundError
from websockets.exceptions import InvalidStatus

from rpc_adapter.client import RpcClient, RpcClientError
from runstack.threads import FLAGSHIP_REQUEST, start_analysis
from tests.e2e.agents_stack import Stack
from tests.e2e.auth_stack import authed_agent, authed_services, bearer
from tests.e2e.auth_stack import sdk_client as client_for
from tests.e2e.memory import MEMORIES, preferences, wait_for_memory

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

TOKENS = {"alice": "alice-token-0123456789abcdef", "bob": "bob-token-0123456789abcdef"}
SERVICE = ("rpc-adapter", "service-token-0123456789abcdef")


def active_suppliers(stack: Stack, n: int) -> list[str]:
    items = stack.erp_get("/suppliers/search", name="", size=20, status="active")["items"]
    return [s["name_zh"] for s in items if s.get("name_zh")][:n]


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with authed_services(TOKENS, SERVICE) as running:
        yield running


@pytest.fixture(scope="module")
def agent(stack: Stack) -> Iterator[Any]:
    with authed_agent(stack, SERVICE) as handle:
        yield handle


async def test_unknown_callers_are_refused(agent: Any) -> None:
    async with httpx.AsyncClient(base_url=agent.url, timeout=30) as http:
        for headers in ({}, {"Authorization": "User alice"}, bearer("not-a-known-token-at-all")):
            refused = await http.post("/threads/search", json={}, headers=headers)
            assert refused.status_code == 401, (headers, refused.text)
        person = await http.post("/store/items/search", json={"namespace_prefix": MEMORIES},
                                 headers=bearer(TOKENS["alice"]))  # fmt: skip
        assert person.status_code == 403, person.text
        assert "service accounts only" in person.text
        # langgraph dev takes the Studio scheme on faith: such a caller gets no privileges.
        studio = {"x-auth-scheme": "langsmith"}
        forged = await http.post("/store/items/search", json={"namespace_prefix": MEMORIES},
                                 headers=studio)  # fmt: skip
        assert forged.status_code == 403, forged.text
        graphs = await http.post("/assistants/search", json={}, headers=bearer(TOKENS["bob"]))
        assert graphs.status_code == 200 and {a["graph_id"] for a in graphs.json()} >= {
            "orchestrator",
            "analyst",
        }


async def test_only_the_owner_sees_a_thread_and_its_files(stack: Stack, agent: Any) -> None:
    alice, bob = client_for(agent, TOKENS["alice"]), client_for(agent, TOKENS["bob"])
    try:
        # An owner named in the request is overridden by the creator.
        created = await alice.threads.create(metadata={"owner": "bob"})
        thread_id = created["thread_id"]
        assert created["metadata"]["owner"] == "alice"
        assert thread_id not in {t["thread_id"] for t in await bob.threads.search()}
        with pytest.raises(NotFoundError):
            await bob.threads.get(thread_id)
    finally:
        await alice.aclose()
        await bob.aclose()
    report = stack.workspace(thread_id) / "analysis" / "report_20260101.md"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text("# alice's report\n", encoding="utf-8")
    url = f"/artifacts/{thread_id}/analysis/report_20260101.md"
    async with httpx.AsyncClient(base_url=agent.url, timeout=30) as http:
        mine = await http.get(url, headers=bearer(TOKENS["alice"]))
        assert mine.status_code == 200 and mine.text == "# alice's report\n"
        theirs = await http.get(url, headers=bearer(TOKENS["bob"]))
        assert theirs.status_code == 404 and "alice" not in theirs.text
        assert (await http.get(url)).status_code == 401
        escape = await http.get(
            f"/artifacts/{thread_id}/analysis/../../etc/x", headers=bearer(TOKENS["alice"])
        )
        assert escape.status_code in (400, 404)


async def test_another_users_thread_answers_as_a_missing_one(agent: Any) -> None:
    never_used = str(uuid.uuid4())
    async with httpx.AsyncClient(base_url=agent.url, timeout=30) as http:
        alice, bob = bearer(TOKENS["alice"]), bearer(TOKENS["bob"])
        theirs = (await http.post("/threads", json={}, headers=alice)).json()["thread_id"]
        bobs_before = (await http.post("/threads/search", json={}, headers=bob)).json()

        def missing(thread_id: str) -> dict[str, str]:
            return {"detail": f"Thread with ID {thread_id} not found"}

        # What a read of a never-used id answers is the answer for someone else's thread.
        unknown = await http.get(f"/threads/{never_used}", headers=bob)
        assert (unknown.status_code, unknown.json()) == (404, missing(never_used))
        tries = [
            ("POST", "/threads", {"thread_id": theirs}),
            ("POST", "/threads", {"thread_id": theirs, "if_exists": "do_nothing"}),
            ("POST", f"/threads/{theirs}/copy", None),
        ]
        for method, path, body in tries:
            answer = await http.request(method, path, json=body, headers=bob)
            assert (answer.status_code, answer.json()) == (404, missing(theirs)), (path, body)
        copy_unknown = await http.post(f"/threads/{never_used}/copy", headers=bob)
        assert (copy_unknown.status_code, copy_unknown.json()) == (404, missing(never_used))

        # Nothing changed hands: bob has no new thread, alice's is hers and unchanged.
        bobs_after = (await http.post("/threads/search", json={}, headers=bob)).json()
        assert [t["thread_id"] for t in bobs_after] == [t["thread_id"] for t in bobs_before]
        hers = await http.get(f"/threads/{theirs}", headers=alice)
        assert hers.status_code == 200 and hers.json()["metadata"]["owner"] == "alice"
        # The owner still gets the honest answers for her own thread.
        again = await http.post("/threads", json={"thread_id": theirs}, headers=alice)
        assert again.status_code == 409
        copied = await http.post(f"/threads/{theirs}/copy", headers=alice)
        assert copied.status_code == 200 and copied.json()["metadata"]["owner"] == "alice"
        # A fresh id is simply created.
        fresh = await http.post("/threads", json={"thread_id": never_used}, headers=bob)
        assert fresh.status_code == 200 and fresh.json()["metadata"]["owner"] == "bob"


async def test_the_run_is_for_the_token_not_the_claimed_user(stack: Stack, agent: Any) -> None:
    first, second = active_suppliers(stack, 2)
    alice = client_for(agent, TOKENS["alice"])
    service = client_for(agent, SERVICE[1])
    try:
        thread_id = (await alice.threads.create())["thread_id"]
        request: Any = {"messages": [{"role": "user", "content": f"查一下{first}最近的订单状态"}]}
        await alice.runs.wait(thread_id, "orchestrator", input=request, context={"user_id": "bob"})
        mine = await wait_for_memory(service, "alice", first)
        assert "bob" not in mine
        assert await preferences(service, "bob") is None
        # The user's note goes into each model request (tests/unit/test_mw_authenticated_user
        # shows every call told "alice"), never into the thread, where a UI would show it.
        state: Any = await alice.threads.get_state(thread_id)
        assert not [m for m in state["values"]["messages"] if m.get("type") == "system"]

        # The service account acts for the user it names.
        other = (await service.threads.create())["thread_id"]
        request = {"messages": [{"role": "user", "content": f"查一下{second}最近的订单状态"}]}
        await service.runs.wait(other, "orchestrator", input=request, context={"user_id": "carol"})
        await wait_for_memory(service, "carol", second)
        assert await preferences(service, SERVICE[0]) is None
    finally:
        await alice.aclose()
        await service.aclose()


async def test_the_mounted_adapter_runs_for_the_sockets_user(stack: Stack, agent: Any) -> None:
    supplier = active_suppliers(stack, 3)[2]
    ws_url = agent.url.replace("http://", "ws://") + "/v1/ws"
    service = client_for(agent, SERVICE[1])
    dave = client_for(agent, TOKENS["bob"])
    try:
        async with RpcClient(ws_url, headers=bearer(TOKENS["bob"])) as rpc:
            # The client id is a label here, not a user: the run is bob's.
            await rpc.register("orchestrator", client_id="cad-plugin")
            answer = await rpc.chat(f"查一下{supplier}最近的订单状态")
            assert answer.get("thread_id"), answer
            session_id = rpc.session_id
        await wait_for_memory(service, "bob", supplier)
        assert await preferences(service, "cad-plugin") is None
        thread = await dave.threads.get(answer["thread_id"])  # bob owns it, so he sees it
        assert thread["metadata"]["owner"] == "bob"
        assert thread["metadata"]["source"] == "rpc_adapter"

        with pytest.raises(InvalidStatus) as refused:  # no token: no socket at all
            async with RpcClient(ws_url):
                pass
        assert refused.value.response.status_code in (401, 403)
        # Alice is authenticated, yet bob's session is refused to her (a JSON-RPC error
        # naming no one, then the socket closes); a session of her own is fine.
        async with RpcClient(
            ws_url, headers=bearer(TOKENS["alice"]), session_id=session_id
        ) as taken:
            with pytest.raises(RpcClientError) as refused_session:
                await taken.call("system.ping")
        assert refused_session.value.data == {"reason": "foreign_session"}
        assert "bob" not in refused_session.value.message
        async with RpcClient(ws_url, headers=bearer(TOKENS["alice"])) as own:
            assert (await own.call("system.ping"))["pong"] is True
    finally:
        await service.aclose()
        await dave.aclose()


async def test_the_background_analyst_works_for_the_caller(stack: Stack, agent: Any) -> None:
    # Alice claims to be bob; the analyst the orchestrator starts for her (in-process, with
    # the context it is handed) files her report under her name, and its thread serves
    # its files to alice and to no one else.
    alice = client_for(agent, TOKENS["alice"])
    service = client_for(agent, SERVICE[1])
    try:
        task_id = (await start_analysis(alice, FLAGSHIP_REQUEST, {"user_id": "bob"})).task_id

        deadline, reports = time.monotonic() + 300, []
        while time.monotonic() < deadline and not reports:
            items = await service.store.search_items(["files", "reports"], limit=100)
            reports = [i["key"] for i in items["items"] if i["key"].startswith("/alice/")]
            await asyncio.sleep(1)
        assert reports, "no report was filed under /reports/alice/"
        bobs = await service.store.search_items(["files", "reports"], limit=100)
        assert not [i for i in bobs["items"] if i["key"].startswith("/bob/")]
    finally:
        await alice.aclose()
        await service.aclose()
    [report] = list((stack.workspace(task_id) / "analysis").glob("report_*.md"))
    url = f"/artifacts/{task_id}/analysis/{report.name}"
    async with httpx.AsyncClient(base_url=agent.url, timeout=30) as http:
        mine = await http.get(url, headers=bearer(TOKENS["alice"]))
        assert mine.status_code == 200 and mine.text == report.read_text(encoding="utf-8")
        assert (await http.get(url, headers=bearer(TOKENS["bob"]))).status_code == 404
