"""Sessions in the Store without sockets: the record, takeover, standing down, expiry.

The Store is langgraph's own ``InMemoryStore`` (what ``langgraph dev`` serves) behind the
four calls of the SDK's store client the adapter uses; TTLs are taken and ignored, as
``langgraph dev`` does. The real Agent Server is in ``tests/e2e/test_rpc_replicas.py``.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from langgraph.store.memory import InMemoryStore

from rpc_adapter.outbox import Outgoing
from rpc_adapter.protocol import RpcError, notification
from rpc_adapter.session_store import SessionStore, principal_of, snapshot
from rpc_adapter.sessions import AgentBinding, Opened, Session, SessionManager, restore_into


class StoreApi:
    """``LangGraphClient.store`` over an ``InMemoryStore``, counting writes."""

    def __init__(self) -> None:
        self.store = InMemoryStore()
        self.puts = 0
        self.before_put: Callable[[str], Awaitable[None]] | None = None
        """Runs (once) before a write lands, given the item's key: a write that is slow."""

    async def put_item(
        self, namespace: list[str], key: str, value: dict[str, Any], **_: Any
    ) -> None:
        self.puts += 1
        hook, self.before_put = self.before_put, None
        if hook is not None:
            await hook(key)
        await self.store.aput(tuple(namespace), key, value, index=False)

    async def delete_item(self, namespace: list[str], key: str) -> None:
        await self.store.adelete(tuple(namespace), key)

    async def search_items(
        self, prefix: list[str], *, limit: int = 10, offset: int = 0
    ) -> dict[str, Any]:
        found = await self.store.asearch(tuple(prefix), limit=limit, offset=offset)
        return {
            "items": [
                {"namespace": list(i.namespace), "key": i.key, "value": i.value} for i in found
            ]
        }

    async def items(self, session_id: str) -> list[dict[str, Any]]:
        """Every item kept for the session."""
        return [i.value for i in await self.store.asearch(("rpc_sessions", session_id), limit=100)]

    async def record(self, session_id: str) -> dict[str, Any] | None:
        """What a reconnect resumes from: the item of the latest takeover."""
        found = await self.items(session_id)
        return max(found, key=lambda v: (v["epoch"], v["owner"])) if found else None


class Client:
    def __init__(self, api: StoreApi) -> None:
        self.store = api


class Socket:
    """A socket stand-in: what the session delivers, decoded."""

    def __init__(self) -> None:
        self.got: list[Any] = []

    def deliver(self, item: Outgoing, *, force: bool = False) -> None:
        self.got.append(json.loads(item.text))


def manager(api: StoreApi, ttl: float = 60) -> SessionManager:
    client = Client(api)
    return SessionManager(ttl=ttl, store=SessionStore(lambda: client, ttl=ttl))  # type: ignore[arg-type, return-value]


async def waiting_on_a_call(
    manager: SessionManager,
    sid: str,
    call_id: str,
    *,
    principal: str | None = None,
    user_id: str | None = None,
) -> tuple[Opened, Socket]:
    """Session ``sid`` opened on ``manager`` with a socket attached, its agent's thread
    (``t`` + the id's digits) waiting on the client-tool call ``call_id``; written."""
    opened = await manager.open(sid, principal=principal, user_id=user_id)
    sock = Socket()
    opened.session.attach(sock)
    opened.session.agents["echo"] = AgentBinding("echo", "cad", [], thread_id=f"t{sid[1:]}")
    opened.session.open_call("echo", {"call_id": call_id, "tool_name": "bom", "arguments": {}},
                             interrupt_id=f"i{sid[1:]}", notify=False)  # fmt: skip
    await opened.session.persist()
    return opened, sock


APPROVAL = {
    "id": "intr-1",
    "value": {
        "action_requests": [{"name": "order_create", "args": {"qty": 5}, "description": "card"}],
        "review_configs": [{"action_name": "order_create", "allowed_decisions": ["approve"]}],
    },
}


async def test_the_record_round_trips_what_a_reconnect_needs() -> None:
    from rpc_adapter.interrupts import pending_interrupt

    session = Session("s1", principal=principal_of("alice", None), user_id="alice")
    binding = AgentBinding("echo", "cad", [{"name": "bom"}], stream=True, thread_id="t1")
    binding.interrupts["intr-1"] = pending_interrupt(APPROVAL, "echo", "t1")
    session.agents["echo"] = binding
    session.open_call("echo", {"call_id": "c1", "tool_name": "bom", "arguments": {"p": 1}},
                      interrupt_id="intr-2", request_id="chat-9")  # fmt: skip
    session.send(notification("agent.status", {"status": "thinking"}))  # progress: not kept
    session.send({"jsonrpc": "2.0", "id": 4, "result": {"done": True}})
    record = snapshot(session, owner="me", ttl=60)
    assert record.principal == "user:alice" and record.calls[0].request_id == "chat-9"
    assert len(record.backlog) == 1 and record.backlog[0].ids == [4]

    again = Session("s1")
    calls = restore_into(again, record)
    assert [(c.call_id, c.interrupt_id, c.arguments) for c in calls] == [("c1", "intr-2", {"p": 1})]
    restored = again.agents["echo"]
    assert (restored.thread_id, restored.tools, restored.stream) == ("t1", [{"name": "bom"}], True)
    card = restored.interrupts["intr-1"]
    assert card.params() == binding.interrupts["intr-1"].params()
    sock = Socket()
    again.attach(sock)
    assert sock.got[0] == {"jsonrpc": "2.0", "id": 4, "result": {"done": True}}
    assert sock.got[1]["method"] == "agent.interrupt" and sock.got[1]["params"]["resent"] is True


async def test_a_takeover_moves_the_session_and_the_old_owner_stands_down() -> None:
    api = StoreApi()
    first, second = manager(api), manager(api)
    alice = principal_of("alice", None)
    opened, sock = await waiting_on_a_call(first, "s2", "c1", principal=alice, user_id="alice")
    assert not opened.resumed
    old = opened.session
    old.detach(sock)
    await old.persist()

    with pytest.raises(RpcError) as foreign:
        await second.open("s2", principal=principal_of("bob", None), user_id="bob")
    assert foreign.value.code == -32000 and foreign.value.data == {"reason": "foreign_session"}
    assert "alice" not in foreign.value.message

    moved = await second.open("s2", principal=alice, user_id="alice")
    assert moved.taken_over and [c.call_id for c in moved.restored_calls] == ["c1"]
    stored = await api.record("s2") or {}
    assert stored["owner"] == second.instance and stored["epoch"] == 1
    # the first instance finds out on its next check, lets go and writes nothing more
    puts = api.puts
    assert await old.owned() is False and old.moved
    assert "s2" not in first.sessions
    old.send({"jsonrpc": "2.0", "id": 5, "result": {}})
    await asyncio.sleep(0.05)
    assert api.puts == puts
    # a reconnect to the first instance takes it back (epoch 2), from the Store
    back = await first.open("s2", principal=alice, user_id="alice")
    assert back.taken_over and back.session is not old and back.session.epoch == 2


async def test_writes_are_coalesced() -> None:
    api = StoreApi()
    opened = await manager(api).open("s3", principal=None, user_id=None)
    await opened.session.persist()
    before = api.puts
    for _ in range(50):
        opened.session.changed()
    await opened.session.persist()
    assert api.puts - before <= 2


async def test_expired_records_are_not_resumed_and_are_swept() -> None:
    api = StoreApi()
    one = manager(api, ttl=60)
    opened = await one.open("s4", principal=None, user_id=None)
    opened.session.agents["echo"] = AgentBinding("echo", "c", [], thread_id="t4")
    await opened.session.persist()
    store = one.store
    assert store is not None
    # a replica that died left it: past its lifetime it is gone for everyone
    later = time.time() + 3600
    assert await store.sweep(now=time.time()) == 0
    assert await store.sweep(now=later) == 1
    assert await api.items("s4") == []
    fresh = await manager(api).open("s4", principal=None, user_id=None)
    assert not fresh.resumed and fresh.session.agents == {}


async def test_a_session_expiring_here_deletes_its_record() -> None:
    api = StoreApi()
    short = manager(api, ttl=0.05)
    opened = await short.open("s5", principal=None, user_id=None)
    sock = Socket()
    opened.session.attach(sock)
    opened.session.detach(sock)
    await opened.session.persist()
    assert await api.record("s5") is not None
    await asyncio.sleep(0.1)
    assert short.expire() == 1
    await short.stop()
    assert await api.items("s5") == []


async def test_malformed_session_ids_are_refused() -> None:
    api = StoreApi()
    for bad in ("a.b", "", "x" * 129, "../x"):
        with pytest.raises(RpcError) as err:
            await manager(api).open(bad, principal=None, user_id=None)
        assert err.value.code == -32602
    assert api.puts == 0


class DownStoreApi(StoreApi):
    """An Agent Server that does not answer: every Store call fails."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def search_items(
        self, prefix: list[str], *, limit: int = 10, offset: int = 0
    ) -> dict[str, Any]:
        self.calls += 1
        raise ConnectionError("refused")

    async def put_item(
        self, namespace: list[str], key: str, value: dict[str, Any], **_: Any
    ) -> None:
        self.calls += 1
        raise ConnectionError("refused")


async def test_a_store_that_fails_leaves_sessions_in_memory_and_is_not_hammered() -> None:
    api = DownStoreApi()
    one = manager(api)
    opened = await one.open("s6", principal=None, user_id=None)
    assert not opened.resumed
    await opened.session.persist()  # logged, not raised
    calls = api.calls
    assert calls >= 1
    again = await one.open("s6", principal=None, user_id=None)
    assert again.resumed and again.session is opened.session  # from memory
    for _ in range(5):
        await opened.session.persist()
    assert api.calls == calls  # not asked again during the outage


class ClosableSocket(Socket):
    def __init__(self) -> None:
        super().__init__()
        self.closed: tuple[int, str] | None = None

    def close_soon(self, code: int, reason: str) -> None:
        self.closed = (code, reason)


async def test_a_socket_still_open_on_the_old_instance_is_closed_as_replaced() -> None:
    api = StoreApi()
    first, second = manager(api), manager(api)
    old = (await first.open("s7", principal=None, user_id=None)).session
    sock = ClosableSocket()
    old.attach(sock)
    await old.persist()
    await second.open("s7", principal=None, user_id=None)  # the same client, elsewhere
    old.agents["echo"] = AgentBinding("echo", "c", [])
    await old.persist()  # its next write finds the session moved: nothing written
    assert sock.closed == (4000, "session resumed on another adapter")
    stored = await api.record("s7") or {}
    assert stored["owner"] == second.instance and stored["agents"] == []


async def test_a_late_write_of_the_old_owner_does_not_take_the_session_back() -> None:
    api = StoreApi()
    first, second = manager(api), manager(api)
    old = (await first.open("s8", principal=None, user_id=None)).session
    await old.persist()
    new = (await second.open("s8", principal=None, user_id=None)).session
    store = first.store
    assert store is not None
    # the old owner had checked before the takeover, and its write lands after it
    await store.save(snapshot(old, owner=first.instance, ttl=60))
    assert await old.owned() is False  # it does not get the session back: it stands down
    assert await new.owned() is True
    new.agents["echo"] = AgentBinding("echo", "c", [], thread_id="t8")
    await new.persist()  # the new owner keeps it and writes over the stale record
    assert not new.moved
    stored = await api.record("s8") or {}
    assert (stored["owner"], stored["epoch"]) == (second.instance, 1)
    assert stored["agents"][0]["thread_id"] == "t8"


async def test_a_takeover_during_the_old_owners_write_is_not_overwritten() -> None:
    # The buyer's app drops its socket (the old adapter writes the detach) and reconnects
    # to another adapter, which takes the session over while that write is on its way.
    api = StoreApi()
    first, second = manager(api), manager(api)
    opened, sock = await waiting_on_a_call(first, "s9", "c9")
    old = opened.session
    taken: list[Any] = []

    async def reconnect_elsewhere(key: str) -> None:
        assert key == first.instance  # the old owner's write, past its ownership check
        taken.append(await second.open("s9", principal=None, user_id=None))

    api.before_put = reconnect_elsewhere
    old.detach(sock)
    await old.persist()
    [moved] = taken
    assert moved.taken_over and [c.call_id for c in moved.restored_calls] == ["c9"]

    stored = await api.record("s9") or {}
    assert (stored["owner"], stored["epoch"]) == (second.instance, 1)
    # one owner, at once: the old one stands down, the new one keeps it
    assert await old.owned() is False and "s9" not in first.sessions
    assert await moved.session.owned() is True
    # and a reconnect resumes from the takeover, not from the late write
    third = manager(api)
    again = await third.open("s9", principal=None, user_id=None)
    assert again.taken_over and again.session.epoch == 2
    assert again.session.agents["echo"].thread_id == "t9"


async def test_a_takeover_tidies_the_earlier_owners_items_and_sweep_takes_expired_ones() -> None:
    api = StoreApi()
    first, second = manager(api), manager(api)
    await (await first.open("s10", principal=None, user_id=None)).session.persist()
    await (await first.open("s1", principal=None, user_id=None)).session.persist()
    await second.open("s1", principal=None, user_id=None)
    await asyncio.sleep(0.05)  # the tidy-up runs in the background
    assert [v["owner"] for v in await api.items("s1")] == [second.instance]
    # another session whose id starts the same is another session
    assert [v["owner"] for v in await api.items("s10")] == [first.instance]
    store = second.store
    assert store is not None
    assert await store.sweep(now=time.time() + 3600) == 2
    assert await api.items("s1") == [] and await api.items("s10") == []
