"""Issue 17, break 4: the standalone adapter under a flood, a client that never reads, and
hostile frames. Real sockets against ``python -m rpc_adapter`` (no Agent Server behind it:
``system.ping`` needs none).

- a client sending 40 frames of about 1 MB, each a batch of about 19,000 requests, does
  not keep another client's ping waiting beyond a small bound;
- a client that never reads is closed with 4008 once its bounded queue fills, the server's
  memory stays bounded, and its session keeps the final answers (newest kept, what was
  dropped said on reconnect);
- 100,000-deep nested JSON is answered with -32700 and the socket stays open.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from websockets.asyncio.client import ClientConnection

from runstack.processes import ServiceHandle
from runstack.threads import poll
from tests.e2e.rpc_fixtures.server import standalone_adapter
from tests.e2e.rpc_fixtures.ws import RawRpc

pytestmark = pytest.mark.integration

QUEUE_BYTES = 1024 * 1024
PING_BOUND_S = 2.0
"""How long another client's ping may take while the flood is on (it took over 15 s)."""


@pytest.fixture
def adapter() -> Iterator[ServiceHandle]:
    env = {"RPC_MAX_QUEUE_BYTES": str(QUEUE_BYTES), "RPC_SESSION_TTL": "60"}
    with standalone_adapter(env) as svc:
        yield svc


def _url(adapter: ServiceHandle, session_id: str | None = None) -> str:
    return f"ws://127.0.0.1:{adapter.port}/v1/ws?session_id={session_id or uuid.uuid4().hex}"


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _flood_frame(start: int) -> str:
    """About 1 MB: one batch of about 19,000 pings, as the prober sent."""
    one = '{"jsonrpc":"2.0","method":"system.ping","id":%d}'
    items = [one % (start + i) for i in range(19_000)]
    return "[" + ",".join(items) + "]"


async def _ping_latencies(url: str, stop: asyncio.Event) -> list[float]:
    rpc = await RawRpc.connect(url)
    seen: list[float] = []
    try:
        while not stop.is_set():
            t0 = time.monotonic()
            reply = await rpc.request("system.ping", wait=60)
            assert reply["result"]["pong"] is True
            seen.append(time.monotonic() - t0)
            await asyncio.sleep(0.05)
    finally:
        await rpc.close()
    return seen


async def _not_reading(adapter: ServiceHandle, session_id: str) -> ClientConnection:
    """A client that stops reading at once: its library pauses after one frame, its kernel
    buffer is small, and without compression the answers take their real size."""
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32 * 1024)
    sock.connect(("127.0.0.1", adapter.port))
    return await websockets.connect(
        _url(adapter, session_id), max_size=None, max_queue=1, compression=None, sock=sock
    )


async def _send_until_stuck(ws: ClientConnection, frames: Iterator[str]) -> int:
    """Send frames until the server stops taking them; how many were sent."""
    sent = 0
    with contextlib.suppress(websockets.ConnectionClosed, TimeoutError):
        for frame in frames:
            await asyncio.wait_for(ws.send(frame), 3)
            sent += 1
    return sent


def _ping_batches(count: int, size: int = 100) -> Iterator[str]:
    ping = '{"jsonrpc":"2.0","method":"system.ping","id":%d}'
    for n in range(count):
        yield "[" + ",".join(ping % (n * size + i) for i in range(size)) + "]"


async def test_a_flood_does_not_delay_another_clients_ping(adapter: ServiceHandle) -> None:
    stop = asyncio.Event()
    watcher = asyncio.create_task(_ping_latencies(_url(adapter), stop))
    await asyncio.sleep(0.3)
    flooder = await _not_reading(adapter, uuid.uuid4().hex)
    frame = _flood_frame(0)
    assert 900_000 < len(frame) <= 1_048_576
    try:
        # the prober's 40 frames of about 19,000 requests each, then a stream of batches
        # at the batch limit, from a client that reads nothing
        await _send_until_stuck(flooder, iter([frame] * 40))
        await _send_until_stuck(flooder, _ping_batches(3000))
        # the other client keeps pinging while the adapter works through the frames
        await asyncio.sleep(1)
    finally:
        stop.set()
        latencies = await watcher
        await flooder.close()
    assert len(latencies) > 10
    assert max(latencies) < PING_BOUND_S, f"slowest ping {max(latencies):.2f}s"


async def test_a_client_that_never_reads_is_closed_and_memory_stays_bounded(
    adapter: ServiceHandle,
) -> None:
    sid = uuid.uuid4().hex
    before = _rss_mb(adapter.process.pid)
    slow = await _not_reading(adapter, sid)
    sent = await _send_until_stuck(slow, _ping_batches(3000))
    assert sent > 100
    grown = _rss_mb(adapter.process.pid) - before
    assert grown < 100, f"the adapter grew by {grown:.0f} MB"
    async with httpx.AsyncClient(base_url=adapter.url) as http:

        async def let_go() -> bool:
            return (await http.get("/health")).json()["sockets"] == 0

        await poll(let_go, 30, "the adapter to let go of the socket")
    # reading now, the client gets what was on the wire, then the slow-consumer close
    on_wire: list[int] = []
    with contextlib.suppress(websockets.ConnectionClosed):
        async with asyncio.timeout(30):
            async for raw in slow:
                on_wire.extend(m["id"] for m in json.loads(raw))
    assert slow.close_code == 4008, (slow.close_code, slow.close_reason)
    assert "slow consumer" in (slow.close_reason or "")

    # the server still serves others
    other = await RawRpc.connect(_url(adapter))
    assert (await other.request("system.ping"))["result"]["pong"] is True
    await other.close()

    # its session kept the newest answers and says what it dropped
    back = await RawRpc.connect(_url(adapter, sid))
    try:
        first = await back.recv()
        assert first["method"] == "session.backlogTruncated", first
        assert first["params"]["dropped_final"] > 0
        ids: list[int] = []
        with contextlib.suppress(TimeoutError):
            while True:
                msg = await back.recv(wait=2)
                ids.extend(m["id"] for m in (msg if isinstance(msg, list) else [msg]))
        assert len(ids) == len(set(ids)) and len(ids) % 100 == 0  # whole batches, once
        # what the socket could not take waits here, newest included (older ones dropped)
        assert on_wire and max(ids) > max(on_wire)
        assert max(ids) < sent * 100
    finally:
        await back.close()
    assert _rss_mb(adapter.process.pid) - before < 100


async def test_deep_nesting_is_a_parse_error_and_the_socket_stays(adapter: ServiceHandle) -> None:
    rpc = await RawRpc.connect(_url(adapter))
    try:
        await rpc.send("[" * 100_000 + "]" * 100_000)
        reply = await rpc.recv()
        assert reply["error"]["code"] == -32700 and reply["id"] is None
        await rpc.send(
            '{"jsonrpc":"2.0","method":"system.ping","params":'
            + "[" * 5000
            + "]" * 5000
            + ',"id":1}'
        )
        assert (await rpc.recv())["error"]["code"] == -32700
        assert (await rpc.request("system.ping"))["result"]["pong"] is True
    finally:
        await rpc.close()


async def test_in_flight_counts_requests_not_frames(adapter: ServiceHandle) -> None:
    # 3 frames of 100 requests: 300 requests in flight would pass a per-frame count of 256;
    # agent.register waits on the absent Agent Server, so they stay in flight.
    rpc = await RawRpc.connect(_url(adapter))
    params = {"client_id": "c", "agent_id": "orchestrator"}
    try:
        for f in range(3):
            batch = [
                {"jsonrpc": "2.0", "method": "agent.register", "params": params, "id": f * 100 + i}
                for i in range(100)
            ]
            await rpc.send(json.dumps(batch))
        replies = [await rpc.recv(wait=30) for _ in range(3)]
        busy = [r for batch in replies for r in batch if "in flight" in r["error"]["message"]]
        assert len(busy) == 100  # the third frame would have made 300 > 256
    finally:
        await rpc.close()
