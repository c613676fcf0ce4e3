"""Benchmark the JSON-RPC adapter (not a test; prints numbers and ratios).

1. ``system.ping`` round trip through the standalone adapter against a bare
   WebSocket echo on the same server stack (Starlette on uvicorn), same run:
   p50/p99 and the ratio (issue 7: at most 3x).
2. Idle sessions held open at once (target 1,000) and the adapter's memory per session.
3. Chats per second with N concurrent sessions, each chat calling a client tool,
   through the adapter mounted in ``langgraph dev`` (the echo graph of
   ``runstack.echo_graph``; ``--agent``/``--message`` pick another of its graphs).

    .venv/bin/python -m scripts.bench.bench_rpc [--pings 2000] [--sessions 1000] [--chats 1,10,50]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import websockets

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from rpc_adapter.client import LocalTool, RpcClient  # noqa: E402
from runstack.agent_server import langgraph_dev  # noqa: E402
from runstack.echo_graph import langgraph_config  # noqa: E402
from runstack.processes import free_port, start_service  # noqa: E402


def echo_app() -> Any:
    """A bare WebSocket echo on Starlette: the baseline for ping."""
    from starlette.applications import Starlette
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket, WebSocketDisconnect

    async def echo(ws: WebSocket) -> None:
        await ws.accept()
        try:
            while True:
                await ws.send_text(await ws.receive_text())
        except WebSocketDisconnect:
            pass

    async def health(request: Any) -> Any:
        from starlette.responses import PlainTextResponse

        return PlainTextResponse("ok")

    return Starlette(routes=[WebSocketRoute("/echo", echo), Route("/health", health)])


def _pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(p / 100 * len(s)))]


async def _round_trips(url: str, frame: str, n: int) -> list[float]:
    async with websockets.connect(url) as ws:
        for _ in range(50):  # warm-up
            await ws.send(frame)
            await ws.recv()
        out = []
        for _ in range(n):
            t = time.perf_counter()
            await ws.send(frame)
            await ws.recv()
            out.append((time.perf_counter() - t) * 1000)
        return out


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def bench_ping(adapter_port: int, echo_port: int, n: int) -> None:
    ping = json.dumps({"jsonrpc": "2.0", "method": "system.ping", "id": 1})
    # alternate so both see the same machine load
    rpc, echo = [], []
    for _ in range(4):
        rpc += await _round_trips(f"ws://127.0.0.1:{adapter_port}/v1/ws", ping, n // 4)
        echo += await _round_trips(f"ws://127.0.0.1:{echo_port}/echo", ping, n // 4)
    r50, r99, e50, e99 = _pct(rpc, 50), _pct(rpc, 99), _pct(echo, 50), _pct(echo, 99)
    print(f"\n== system.ping round trip ({n} each)")
    print(f"adapter ping : p50 {r50:.3f} ms  p99 {r99:.3f} ms  mean {statistics.mean(rpc):.3f}")
    print(f"bare echo    : p50 {e50:.3f} ms  p99 {e99:.3f} ms  mean {statistics.mean(echo):.3f}")
    print(f"ratio        : p50 {r50 / e50:.2f}x  p99 {r99 / e99:.2f}x   (target <= 3x)")


async def bench_idle(adapter_port: int, pid: int, n: int) -> None:
    before = _rss_kib(pid)
    conns = []
    t = time.perf_counter()
    for batch in range(0, n, 100):
        opened = await asyncio.gather(
            *(
                websockets.connect(f"ws://127.0.0.1:{adapter_port}/v1/ws?session_id=idle-{i}")
                for i in range(batch, min(n, batch + 100))
            )
        )
        conns += opened
    ping = json.dumps({"jsonrpc": "2.0", "method": "system.ping", "id": 1})
    await asyncio.gather(*(c.send(ping) for c in conns))
    await asyncio.gather(*(c.recv() for c in conns))
    opened_in = time.perf_counter() - t
    await asyncio.sleep(1)
    after = _rss_kib(pid)
    print(f"\n== idle sessions: {len(conns)} open and answering (opened in {opened_in:.1f} s)")
    print(
        f"adapter RSS {before / 1024:.1f} MiB -> {after / 1024:.1f} MiB: "
        f"{(after - before) / max(1, len(conns)):.1f} KiB per session"
    )
    await asyncio.gather(*(c.close() for c in conns))


async def _chatter(url: str, agent: str, message: str, until: float) -> int:
    def tool(**kwargs: Any) -> dict[str, Any]:
        return {"rows": [["spark plug", 4]], "asked": kwargs}

    client = RpcClient(url)
    client.add_tool(LocalTool("fetch_bom_tool", "Bill of materials", {"type": "object"}, tool))
    done = 0
    async with client:
        await client.register(agent, client_id="bench")
        while time.perf_counter() < until:
            await client.chat(message)
            done += 1
    return done


async def _sdk_chatter(base: str, agent: str, until: float) -> int:
    """Baseline: the same two runs a tool-calling chat costs, straight through the SDK."""
    from langgraph_sdk import get_client

    done = 0
    async with get_client(url=base, api_key=None) as sdk:
        thread = await sdk.threads.create()
        msg: dict[str, Any] = {"messages": [{"role": "user", "content": "hello"}]}
        while time.perf_counter() < until:
            for _ in range(2):
                await sdk.runs.wait(thread["thread_id"], agent, input=msg)
            done += 1
    return done


async def bench_chats(
    port: int, agent: str, message: str, levels: list[int], seconds: float
) -> None:
    print(
        f"\n== chats/s through the mounted adapter (agent {agent!r}, each with a client tool call)"
    )
    print("   baseline: 2 plain runs per 'chat' straight through the SDK, same server, same N")
    url, base = f"ws://127.0.0.1:{port}/v1/ws", f"http://127.0.0.1:{port}"
    for n in levels:
        rates = []
        for chatter in ("adapter", "sdk"):
            t = time.perf_counter()
            until = t + seconds
            if chatter == "adapter":
                jobs = [_chatter(url, agent, message, until) for _ in range(n)]
            else:
                jobs = [_sdk_chatter(base, agent, until) for _ in range(n)]
            total = sum(await asyncio.gather(*jobs))
            rates.append(total / (time.perf_counter() - t))
        ratio = f"{rates[0] / rates[1]:.2f}" if rates[1] else "n/a (baseline finished none)"
        print(
            f"N={n:4d}: adapter {rates[0]:6.2f} chats/s   SDK baseline {rates[1]:6.2f} /s   "
            f"ratio {ratio}"
        )


async def main_async(args: argparse.Namespace) -> None:
    env = {"DATA_DIR": os.environ.get("DATA_DIR", str(ROOT / ".data")), "LOG_LEVEL": "WARNING"}
    ap, ep = free_port(), free_port()
    with (
        start_service(
            "rpc_adapter", {**env, "RPC_PORT": str(ap), "LANGGRAPH_URL": "http://127.0.0.1:9"}, ap
        ) as adapter,
        start_service("scripts.bench.bench_rpc", env, ep, args=("--echo-server", str(ep))),
    ):
        await bench_ping(ap, ep, args.pings)
        await bench_idle(ap, adapter.process.pid, args.sessions)
    levels = [int(x) for x in args.chats.split(",") if x]
    if levels:
        lg_env = {"RPC_TOOL_TIMEOUT": "120", "RPC_AGENT_TIMEOUT": "300"}
        with langgraph_dev(langgraph_config(), lg_env, jobs=64, timeout=60) as lg:
            await bench_chats(lg.port, args.agent, args.message, levels, args.seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pings", type=int, default=2000)
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--chats", default="1,10,50", help="concurrency levels, comma-separated")
    parser.add_argument("--seconds", type=float, default=10.0, help="per concurrency level")
    parser.add_argument("--agent", default="echo")
    parser.add_argument("--message", default='fetch_bom_tool args={"product": "X1"}')
    parser.add_argument("--echo-server", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.echo_server:
        import uvicorn

        uvicorn.run(echo_app(), host="127.0.0.1", port=args.echo_server, log_level="warning")
        return
    asyncio.run(main_async(args))


if __name__ == "__main__":
    main()
