"""Token, Origin and Host checks of the standalone adapter, and batch-replace over REST."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
import websockets

from runstack.processes import ServiceHandle
from tests.e2e.rpc_fixtures.server import standalone_adapter
from tests.e2e.rpc_fixtures.ws import RawRpc

pytestmark = pytest.mark.integration

TOKEN = "s3cret-token"
IN_FLIGHT = 8


@pytest.fixture(scope="module")
def adapter() -> Iterator[ServiceHandle]:
    env = {
        "RPC_TOKEN": TOKEN,
        "RPC_ALLOWED_ORIGINS": "localhost,https://cad.example.com",
        "RPC_MAX_IN_FLIGHT": str(IN_FLIGHT),
    }
    with standalone_adapter(env) as svc:
        yield svc


def _ws(adapter: ServiceHandle, query: str = "") -> str:
    return f"ws://127.0.0.1:{adapter.port}/v1/ws{query}"


@pytest.mark.parametrize(
    ("query", "headers"),
    [
        ("", {}),
        ("?token=wrong", {}),
        ("", {"Authorization": "Bearer wrong"}),
        (f"?token={TOKEN}", {"Origin": "https://evil.example"}),
        (f"?token={TOKEN}", {"Origin": "http://cad.example.com"}),
    ],
)
async def test_refused(adapter: ServiceHandle, query: str, headers: dict[str, str]) -> None:
    with pytest.raises(websockets.InvalidStatus) as err:
        await websockets.connect(_ws(adapter, query), additional_headers=headers)
    assert err.value.response.status_code == 403


@pytest.mark.parametrize(
    ("query", "headers"),
    [
        (f"?token={TOKEN}", {}),
        ("", {"Authorization": f"Bearer {TOKEN}"}),
        (f"?token={TOKEN}", {"Origin": "http://localhost:5173"}),
        (f"?token={TOKEN}", {"Origin": "https://cad.example.com"}),
    ],
)
async def test_accepted(adapter: ServiceHandle, query: str, headers: dict[str, str]) -> None:
    rpc = await RawRpc.connect(_ws(adapter, query), additional_headers=headers)
    try:
        assert (await rpc.request("system.ping"))["result"]["pong"] is True
    finally:
        await rpc.close()


FAMILIES = [
    # the reference's example: a breaker series renamed, numbers carried over
    ("NDM2-63", "NXM-63", ["NDM2-125", "NDM2-250/3300", "NDM2 400"],
     ["NXM-125", "NXM-250/3300", "NXM 400"]),
    # spark plugs: nickel → iridium, heat range carried over
    ("CR7HSA", "CR7HIX", ["CR6HSA", "CR8HSA"], ["CR6HIX", "CR8HIX"]),
    ("DPR8EA-9", "DPR8EIX-9", ["DPR7EA-9", "DPR9EA-9"], ["DPR7EIX-9", "DPR9EIX-9"]),
    # chains: standard → sealed, link count carried over
    ("428H-120L", "428HG-120L", ["428H-130L", "428H-96L"], ["428HG-130L", "428HG-96L"]),
    # tires: tube type, size carried over
    ("90/90-17 TL", "90/90-17 TT", ["100/80-17 TL", "110/70-18 TL"],
     ["100/80-17 TT", "110/70-18 TT"]),
    # batteries: gel series, capacity and terminal letter carried over
    ("YTX7A-BS", "YTZ7A-BS", ["YTX9A-BS", "YTX7L-BS"], ["YTZ9A-BS", "YTZ7L-BS"]),
    # bulbs: 12 V → 24 V, base and wattage carried over
    ("H4 12V35W", "H4 24V35W", ["HS1 12V35W", "H7 12V55W"], ["HS1 24V35W", "H7 24V55W"]),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "tasks", "expected"), FAMILIES)
def test_batch_replace_rule(
    adapter: ServiceHandle, old: str, new: str, tasks: list[str], expected: list[str]
) -> None:
    r = httpx.post(
        f"{adapter.url}/api/batch-replace",
        json={"old": old, "new": new, "tasks": tasks},
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=10,
    )
    assert r.status_code == 200, r.text
    results = r.json()["results"]
    assert [x["original"] for x in results] == tasks
    assert [x["replaced"] for x in results] == expected
    assert {x["method"] for x in results} == {"rule"}


def test_batch_replace_ambiguous_and_no_match(adapter: ServiceHandle) -> None:
    r = httpx.post(
        f"{adapter.url}/api/batch-replace",
        json={"old": "H4 12V35W", "new": "H4 24V35W", "tasks": ["H4 6V35W", "YTX7A-BS"]},
        params={"token": TOKEN},
        timeout=10,
    )
    ambiguous, unrelated = r.json()["results"]
    # offline there is no model: the task is left unchanged and the reason is given
    assert ambiguous["method"] == "ambiguous" and ambiguous["replaced"] == "H4 6V35W"
    assert "12" in ambiguous["reason"]
    assert unrelated["method"] == "no_match" and unrelated["replaced"] == "YTX7A-BS"


def test_batch_replace_refusals(adapter: ServiceHandle) -> None:
    body = {"old": "a1", "new": "b1", "tasks": ["a2"]}
    assert httpx.post(f"{adapter.url}/api/batch-replace", json=body).status_code == 403
    bad = httpx.post(f"{adapter.url}/api/batch-replace", json={"old": "a"}, params={"token": TOKEN})
    assert bad.status_code == 422 and bad.json()["error"]["code"] == "VALIDATION"


async def test_requests_in_flight_are_capped(adapter: ServiceHandle) -> None:
    # agent.register waits on the (absent) Agent Server, so these pile up in flight
    rpc = await RawRpc.connect(_ws(adapter, f"?token={TOKEN}&session_id=flood"))
    try:
        params = {"client_id": "c", "agent_id": "orchestrator"}
        for i in range(IN_FLIGHT + 10):
            await rpc.send(
                {"jsonrpc": "2.0", "method": "agent.register", "params": params, "id": i}
            )
        replies = [await rpc.recv(wait=30) for _ in range(IN_FLIGHT + 10)]
        codes = [r["error"]["code"] for r in replies]
        refused = [r for r in replies if "in flight" in r["error"]["message"]]
        assert len(refused) == 10 and set(codes) == {-32000}
    finally:
        await rpc.close()
