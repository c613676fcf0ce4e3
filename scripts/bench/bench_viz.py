"""Benchmark the visualization gateway: fresh vs cached latency per chart type, and memory.

Starts ``python -m viz_gateway`` on a free port (as the stack does), talks to it over
streamable HTTP with one MCP session, and prints per type p50/p99 of fresh renders
(unique arguments every call) and cache hits (the same arguments again). Baselines from
the same run: vl-convert drawing the same spec directly in this process (the renderer's
floor), and a cache hit inside the gateway without MCP/HTTP. Then it renders 1,000 more
fresh charts and reports the RSS of the gateway and its render workers.

    .venv/bin/python scripts/bench/bench_viz.py [--n 10] [--renders 1000] [--workers 1]

Targets (issue 3): fresh p50 ≤ 300 ms, cache hit ≤ 5 ms, RSS after 1,000 renders < 500 MB.
Not a test: numbers depend on the machine and its load (printed alongside).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def pct(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def rss_mb(pid: int) -> float:
    """Resident memory of ``pid`` and all its descendants, in MB."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    total_kb = 0
    stack = [pid]
    while stack:
        p = stack.pop()
        stack.extend(children.get(p, []))
        try:
            for line in Path(f"/proc/{p}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total_kb += int(line.split()[1])
        except OSError:
            pass
    return total_kb / 1024


def unique(tool: str, args: dict[str, Any], tag: str) -> dict[str, Any]:
    """The same chart with a different label: a cache miss, about the same work."""
    from viz_gateway.schemas import TOOLS

    out = dict(args)
    if "title" in TOOLS[tool][1]["properties"]:
        out["title"] = f"{out.get('title', '')} {tag}".strip()
        return out
    if isinstance(out["data"], list):  # spreadsheet: change the first cell
        first = dict(out["data"][0])
        key = next(iter(first))
        first[key] = f"{first[key]} {tag}"
        out["data"] = [first, *out["data"][1:]]
        return out
    data = dict(out["data"])
    if "nodes" in data:  # flow / network: rename the first node everywhere
        old = data["nodes"][0]["name"]
        new = f"{old} {tag}"
        data["nodes"] = [{"name": new}, *data["nodes"][1:]]
        data["edges"] = [
            {
                **e,
                "source": new if e["source"] == old else e["source"],
                "target": new if e["target"] == old else e["target"],
            }
            for e in data["edges"]
        ]
    else:  # trees: rename the root
        data["name"] = f"{data['name']} {tag}"
    out["data"] = data
    return out


def baseline_direct(tools: list[str], n: int) -> dict[str, float]:
    """p50 ms of drawing each example's spec with vl-convert in this process."""
    import vl_convert

    from viz_gateway import fonts
    from viz_gateway.examples import EXAMPLES
    from viz_gateway.render import build_spec
    from viz_gateway.schemas import TOOLS, with_defaults

    font = fonts.activate()
    out: dict[str, float] = {}
    for tool in tools:
        chart = build_spec(tool, with_defaults(TOOLS[tool][1], EXAMPLES[tool]), font.family)
        draw = vl_convert.vegalite_to_png if chart.format == "vega-lite" else vl_convert.vega_to_png
        draw(chart.spec)  # first call compiles
        times = []
        for _ in range(n):
            started = time.perf_counter()
            draw(chart.spec)
            times.append((time.perf_counter() - started) * 1000)
        out[tool] = statistics.median(times)
    return out


def font_floor(tool: str, n: int) -> list[tuple[str, float]]:
    """p50 ms of drawing one example with each CJK font family on this machine (the renderer
    measures every label with the chart's font, so the font sets the floor)."""
    import vl_convert

    from viz_gateway import fonts
    from viz_gateway.examples import EXAMPLES
    from viz_gateway.render import build_spec
    from viz_gateway.schemas import TOOLS, with_defaults

    args = with_defaults(TOOLS[tool][1], EXAMPLES[tool])
    out: list[tuple[str, float]] = []
    seen: set[str] = set()
    for path, faces in fonts._candidates(list(fonts.SEARCH_DIRS)):
        family = fonts._best_face(path, faces).family
        if family in seen:
            continue
        seen.add(family)
        vl_convert.register_font_directory(str(path.parent))
        chart = build_spec(tool, args, family)
        draw = vl_convert.vegalite_to_png if chart.format == "vega-lite" else vl_convert.vega_to_png
        draw(chart.spec)
        times = []
        for _ in range(n):
            started = time.perf_counter()
            draw(chart.spec)
            times.append((time.perf_counter() - started) * 1000)
        out.append((family, statistics.median(times)))
    return out


async def in_process_cache_hit(data_dir: Path, n: int) -> float:
    """p50 ms of a cache hit inside the gateway (validation, hash, store lookup), no MCP."""
    from viz_gateway.examples import EXAMPLES
    from viz_gateway.server import Gateway
    from viz_gateway.settings import VizSettings

    gateway = Gateway(VizSettings(data_dir=data_dir, render_workers=1))
    args = EXAMPLES["generate_line_chart"]
    await gateway.call("generate_line_chart", args)
    times = []
    for _ in range(n):
        started = time.perf_counter()
        await gateway.call("generate_line_chart", args)
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


async def run(url: str, pid: int, tools: list[str], n: int, renders: int) -> dict[str, Any]:
    from fastmcp import Client

    from viz_gateway.examples import EXAMPLES

    run_id = uuid.uuid4().hex[:6]
    fresh: dict[str, list[float]] = {}
    cached: dict[str, list[float]] = {}
    async with Client(f"{url}/mcp", timeout=120) as client:
        for tool in tools:  # warm every worker and code path once
            await client.call_tool(tool, unique(tool, EXAMPLES[tool], f"warm-{run_id}"))
        for tool in tools:
            fresh[tool], cached[tool] = [], []
            for i in range(n):
                args = unique(tool, EXAMPLES[tool], f"{run_id}-{i}")
                started = time.perf_counter()
                await client.call_tool(tool, args)
                fresh[tool].append((time.perf_counter() - started) * 1000)
            for _ in range(max(n, 20)):
                started = time.perf_counter()
                await client.call_tool(tool, args)
                cached[tool].append((time.perf_counter() - started) * 1000)
        # The transport's own floor: an MCP round trip that runs no tool.
        for _ in range(10):
            await client.ping()
        pings = []
        for _ in range(100):
            started = time.perf_counter()
            await client.ping()
            pings.append((time.perf_counter() - started) * 1000)
        rss_before = rss_mb(pid)
        sem = asyncio.Semaphore(4)
        started = time.perf_counter()

        async def one(i: int) -> None:
            tool = tools[i % len(tools)]
            async with sem:
                await client.call_tool(tool, unique(tool, EXAMPLES[tool], f"{run_id}-rss-{i}"))

        await asyncio.gather(*(one(i) for i in range(renders)))
        elapsed = time.perf_counter() - started
    return {
        "fresh": fresh,
        "cached": cached,
        "ping": statistics.median(pings),
        "rss_before": rss_before,
        "rss_after": rss_mb(pid),
        "throughput": renders / elapsed,
        "elapsed": elapsed,
    }


def _measure(ns: argparse.Namespace, tools: list[str]) -> dict[str, Any]:
    """Every number the report prints: over MCP, in the gateway, and drawn directly."""
    from scripts.bench.fixtures import scratch, services

    with scratch("bench-viz-") as data:
        direct = baseline_direct(tools, 5)
        env = {"VIZ_UPSTREAM_URL": "", "VIZ_RENDER_WORKERS": str(ns.workers)}
        with services(["viz-gateway"], data, timeout=90, **env) as running:
            gw = running["viz-gateway"]
            rss_idle = rss_mb(gw.process.pid)
            result = asyncio.run(run(gw.url, gw.process.pid, tools, ns.n, ns.renders))
        hit_inproc = asyncio.run(in_process_cache_hit(data / "inproc", 200))
    by_font = font_floor("generate_line_chart", 5)
    return {**result, "direct": direct, "rss_idle": rss_idle, "hit_inproc": hit_inproc,
            "by_font": by_font}  # fmt: skip


def _print_table(tools: list[str], m: dict[str, Any]) -> tuple[float, float]:
    """One row per chart type and the ALL row; the overall fresh and cached p50."""
    direct = m["direct"]
    print(
        f"\n{'type':28s} {'fresh p50':>9s} {'p99':>7s} {'cached p50':>10s} {'p99':>6s} "
        f"{'direct p50':>10s} {'fresh/direct':>12s} {'fresh/cached':>12s}"
    )
    all_fresh, all_cached = [], []
    for tool in tools:
        f, c = m["fresh"][tool], m["cached"][tool]
        all_fresh += f
        all_cached += c
        f50, c50 = statistics.median(f), statistics.median(c)
        print(
            f"{tool.removeprefix('generate_'):28s} {f50:8.0f}ms {pct(f, 0.99):6.0f}ms "
            f"{c50:9.1f}ms {pct(c, 0.99):5.1f}ms {direct[tool]:9.0f}ms "
            f"{f50 / direct[tool]:11.2f}x {f50 / c50:11.0f}x"
        )
    f50, c50 = statistics.median(all_fresh), statistics.median(all_cached)
    print(
        f"{'ALL':28s} {f50:8.0f}ms {pct(all_fresh, 0.99):6.0f}ms {c50:9.1f}ms "
        f"{pct(all_cached, 0.99):5.1f}ms {statistics.median(direct.values()):9.0f}ms "
        f"{f50 / statistics.median(direct.values()):11.2f}x {f50 / c50:11.0f}x"
    )
    return f50, c50


def _print_summary(ns: argparse.Namespace, tools: list[str], m: dict[str, Any]) -> None:
    """The slowest types, the font floor, the cache, throughput, memory and the targets."""
    f50, c50 = _print_table(tools, m)
    slowest = max(tools, key=lambda t: statistics.median(m["fresh"][t]))
    slowest_hit = max(tools, key=lambda t: statistics.median(m["cached"][t]))
    print(
        f"slowest type: fresh p50 {statistics.median(m['fresh'][slowest]):.0f} ms "
        f"({slowest.removeprefix('generate_')}); slowest cache hit over MCP p50 "
        f"{statistics.median(m['cached'][slowest_hit]):.1f} ms "
        f"({slowest_hit.removeprefix('generate_')}, its spec travels in the result)"
    )
    if m["by_font"]:
        first = m["by_font"][0][1]
        print(
            "line chart drawn directly, by CJK font (first = the gateway's choice): "
            + ", ".join(f"{fam} {ms:.0f} ms ({ms / first:.2f}x)" for fam, ms in m["by_font"])
        )
    print(f"\ncache hit inside the gateway (no MCP/HTTP): p50 {m['hit_inproc']:.2f} ms")
    print(
        f"MCP ping (no tool) p50 {m['ping']:.1f} ms: a cache hit over MCP is "
        f"{c50 / m['ping']:.1f}x a bare MCP round trip"
    )
    print(
        f"{ns.renders} more fresh renders (4 in flight): {m['elapsed']:.1f} s, "
        f"{m['throughput']:.1f} charts/s"
    )
    print(
        f"RSS gateway + {ns.workers} workers: idle {m['rss_idle']:.0f} MB, before the "
        f"{ns.renders} {m['rss_before']:.0f} MB, after {m['rss_after']:.0f} MB "
        f"(ratio {m['rss_after'] / m['rss_before']:.2f})"
    )
    worst = statistics.median(m["fresh"][slowest])
    verdict = [
        f"fresh p50 {f50:.0f} ms, slowest type {worst:.0f} ms {'≤' if worst <= 300 else '>'} 300",
        f"cache hit {m['hit_inproc']:.1f} ms (in gateway) / {c50:.1f} ms (over MCP) vs 5",
        f"RSS {m['rss_after']:.0f} MB {'<' if m['rss_after'] < 500 else '≥'} 500",
    ]
    print("targets: " + "; ".join(verdict))


def main() -> None:
    """Run the benchmark and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10, help="fresh renders per type")
    parser.add_argument("--renders", type=int, default=1000, help="renders before the RSS read")
    parser.add_argument("--workers", type=int, default=1, help="VIZ_RENDER_WORKERS")
    parser.add_argument("--types", nargs="*", help="tool names (default: every local type)")
    ns = parser.parse_args()

    from viz_gateway.render import BUILDERS

    tools = ns.types or list(BUILDERS)
    print(f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f} at start")
    _print_summary(ns, tools, _measure(ns, tools))
    print(f"load average at end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
