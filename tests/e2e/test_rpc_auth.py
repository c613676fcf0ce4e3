"""Issue 17, break 6: the Agent Server's auth on *and* the adapter's ``RPC_TOKEN`` set.

``Authorization: Bearer`` belongs to the Agent Server's auth handler (the user's token),
so the adapter's own token travels elsewhere: the ``X-RPC-Token`` header, a
``rpc-token.<token>`` WebSocket subprotocol, or ``?token=``. Every combination a client
can send is tried against a real ``langgraph dev`` with the shipped auth handler and the
adapter mounted (the stand-in echo graphs: no model, no services), and against the
standalone adapter in front of it.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import NamedTuple

import pytest
import websockets

from runstack import agent_server
from runstack.echo_graph import langgraph_config
from runstack.processes import ServiceHandle
from tests.e2e.auth_stack import accounts_env, bearer, with_auth
from tests.e2e.rpc_fixtures.server import standalone_adapter
from tests.e2e.rpc_fixtures.ws import RawRpc

pytestmark = pytest.mark.e2e

RPC_TOKEN = "rpc-token-0123456789abcdef"
ALICE = "alice-token-0123456789abcdef"
SERVICE = ("rpc-adapter", "service-token-0123456789abcdef")


@pytest.fixture(scope="module")
def server() -> Iterator[ServiceHandle]:
    config = with_auth(langgraph_config())
    env = {**accounts_env({"alice": ALICE}, SERVICE), "RPC_TOKEN": RPC_TOKEN}
    with agent_server.langgraph_dev(config, env, jobs=16, headers=bearer(SERVICE[1])) as svc:
        yield svc


def _url(server: ServiceHandle, query: str = "") -> str:
    return f"ws://127.0.0.1:{server.port}/v1/ws?session_id={uuid.uuid4().hex}{query}"


def _user(token: str = ALICE) -> dict[str, str]:
    return bearer(token)


class Attempt(NamedTuple):
    """What a client sends when it opens the socket: where the adapter's token goes."""

    how: str
    query: str
    headers: dict[str, str]
    subprotocols: list[str] | None


ACCEPTED = [
    Attempt("header", "", {**_user(), "X-RPC-Token": RPC_TOKEN}, None),
    Attempt("query", f"&token={RPC_TOKEN}", _user(), None),
    Attempt("subprotocol", "", _user(), ["jsonrpc-2.0", f"rpc-token.{RPC_TOKEN}"]),
]
# A WebSocket refused before it is accepted reads as HTTP 403, whoever refused it: the
# adapter (no or a wrong token of its own) or the server's auth (no known user).
REFUSED = [
    Attempt("user token only", "", _user(), None),
    Attempt("wrong adapter token", "", {**_user(), "X-RPC-Token": "wrong-token-0123456789"}, None),
    Attempt("adapter token as bearer", "", _user(RPC_TOKEN), None),
    Attempt("adapter token, no user", "", {"X-RPC-Token": RPC_TOKEN}, None),
    Attempt("nothing", "", {}, None),
]


@pytest.mark.parametrize("attempt", ACCEPTED, ids=lambda a: a.how)
async def test_a_user_and_the_adapter_token_together_are_let_in(
    server: ServiceHandle, attempt: Attempt
) -> None:
    how = attempt.how
    rpc = await RawRpc.connect(
        _url(server, attempt.query),
        additional_headers=attempt.headers,
        subprotocols=attempt.subprotocols,
    )
    try:
        if attempt.subprotocols:
            assert rpc.ws.subprotocol == "jsonrpc-2.0"
        assert (await rpc.request("system.ping"))["result"]["pong"] is True
        reply = await rpc.request("agent.register", {"client_id": "cad", "agent_id": "echo"})
        assert reply["result"]["status"] == "registered", (how, reply)
        chat = await rpc.request("agent.chat", {"message": f"hello via {how}"}, wait=30)
        assert chat["result"]["content"] == f"echo: hello via {how}"
    finally:
        await rpc.close()


@pytest.mark.parametrize("attempt", REFUSED, ids=lambda a: a.how)
async def test_anything_less_is_refused(server: ServiceHandle, attempt: Attempt) -> None:
    with pytest.raises(websockets.InvalidStatus) as refused:
        await websockets.connect(
            _url(server, attempt.query),
            additional_headers=attempt.headers,
            subprotocols=attempt.subprotocols,
        )
    assert refused.value.response.status_code in (401, 403), attempt.how


@pytest.mark.parametrize(
    "headers",
    [{"X-RPC-Token": RPC_TOKEN}, {"Authorization": f"Bearer {RPC_TOKEN}"}],
)
async def test_the_standalone_adapter_in_front_of_the_authed_server(
    server: ServiceHandle, headers: dict[str, str]
) -> None:
    env = {"RPC_TOKEN": RPC_TOKEN, "RPC_LANGGRAPH_TOKEN": SERVICE[1]}
    with standalone_adapter(env, agent_server_url=server.url, health_path="/ready") as adapter:
        url = f"ws://127.0.0.1:{adapter.port}/v1/ws"
        rpc = await RawRpc.connect(url, additional_headers=headers)
        try:
            await rpc.request("agent.register", {"client_id": "cad", "agent_id": "echo"})
            chat = await rpc.request("agent.chat", {"message": "through the front"}, wait=30)
            assert chat["result"]["content"] == "echo: through the front"
        finally:
            await rpc.close()
        with pytest.raises(websockets.InvalidStatus) as refused:
            await websockets.connect(url)
        assert refused.value.response.status_code == 403
