"""Benchmark: concurrent offline analyses, wall time against one, Agent Server CPU per analysis.

Run from the checkout: ``.venv/bin/python -m scripts.bench.bench_analysis_ramp
[--ramp 1,4,8,16] [--jobs 40] [--profile out.txt]``.

Starts the real services and ``langgraph dev`` on free ports under a temporary folder
(``scripts.bench.fixtures``), builds both graphs, runs one warm-up analysis, then for each
step of the ramp starts that many flagship analyses at once (each on its own thread, for its
own user) and waits until every orchestrator has been woken with its report. Per step it
prints the wall time, its ratio to the one-analysis step, and the Agent Server's CPU seconds
(user + system, from ``/proc``) per analysis. Target (issue 18): 16 concurrent analyses
within 2.5x of one on a 2-core machine.

``--profile FILE``: record the Agent Server with py-spy during the largest step and write
the functions holding the most samples (inclusive) to FILE (py-spy must be installed:
``pip install py-spy``). This is a measurement, not a test: it exits 0 unless something
fails.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
from langgraph_sdk import get_client

from runstack.threads import FLAGSHIP_REQUEST, start_analysis, wait_woken
from scripts.bench.fixtures import agent_server, scratch

RATIO_TARGET = 2.5


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds the process has used so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu_seconds() -> float:
    """CPU seconds every core of the machine has spent busy so far (``/proc/stat``)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


_SERVICES = {
    "sim.erp": "ERP",
    "mcp_erp": "ERP MCP server",
    "viz_gateway": "chart gateway",
    "sim.suppliers": "shops",
}


def cpu_by_process(server: int) -> dict[str, float]:
    """CPU seconds used so far, summed by what each process is: the Agent Server, the
    children it has reaped (the sandbox's commands, retired PDF workers), its PDF workers
    and other live children, each service, this client."""
    tick = os.sysconf("SC_CLK_TCK")
    out: dict[str, float] = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            fields = (proc / "stat").read_text().rsplit(")", 1)[1].split()
            argv = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:  # gone meanwhile
            continue
        pid, ppid = int(proc.name), int(fields[1])
        own = (int(fields[11]) + int(fields[12])) / tick
        if pid == server:
            label = "Agent Server"
            reaped = (int(fields[13]) + int(fields[14])) / tick
            out["its finished children"] = out.get("its finished children", 0.0) + reaped
        elif pid == os.getpid():
            label = "this client"
        elif ppid == server:
            label = "PDF workers" if "multiprocessing" in argv else "its live children"
        else:
            label = next((v for k, v in _SERVICES.items() if f"-m {k}" in argv), "")
        if label:
            out[label] = out.get(label, 0.0) + own
    return out


def rss_mb(pid: int) -> float:
    """Resident memory of the process in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def one_analysis(url: str, user: str) -> float:
    """Start the flagship analysis for ``user`` and wait until the orchestrator has been
    woken with the report; the seconds it took."""
    started = time.perf_counter()
    async with get_client(url=url, timeout=300) as client:
        analysis = await start_analysis(client, FLAGSHIP_REQUEST, {"user_id": user})
        await wait_woken(client, analysis, 900)
    return time.perf_counter() - started


@dataclass
class Step:
    """One step of the ramp: wall seconds, CPU seconds (Agent Server, whole machine), and
    each analysis's own seconds."""

    wall: float
    server_cpu: float
    machine_cpu: float
    each: list[float]
    by_process: dict[str, float]


async def step(url: str, pid: int, n: int, tag: str) -> Step:
    """``n`` analyses at once."""
    cpu0, all0, t0 = cpu_seconds(pid), machine_cpu_seconds(), time.perf_counter()
    parts0 = cpu_by_process(pid)
    each = await asyncio.gather(*(one_analysis(url, f"ramp-{tag}-{i}") for i in range(n)))
    wall = time.perf_counter() - t0
    parts = {k: v - parts0.get(k, 0.0) for k, v in cpu_by_process(pid).items()}
    return Step(wall, cpu_seconds(pid) - cpu0, machine_cpu_seconds() - all0, list(each), parts)


@contextlib.contextmanager
def py_spy(pid: int, out: Path | None) -> Iterator[None]:
    """Record ``pid`` with py-spy (raw stacks) while the block runs, when ``out`` is given."""
    if out is None:
        yield
        return
    spy = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
    raw = out.with_suffix(".raw")
    # --gil: only the thread holding the GIL, i.e. Python actually running, not waiting.
    argv = [spy, "record", "-p", str(pid), "-f", "raw", "-o", str(raw), "-r", "100", "--gil"]
    proc = subprocess.Popen(
        [*argv, "--nonblocking"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        yield
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)
        out.write_text(summarise(raw), encoding="utf-8")
        print(f"profile of the last step: {out} (raw stacks: {raw})")


def summarise(raw: Path, top: int = 80) -> str:
    """The functions with the most samples (inclusive, each once per stack), from py-spy's
    raw output; frames of the idle event loop are left out."""
    inclusive: dict[str, int] = {}
    total = 0
    for line in raw.read_text(encoding="utf-8").splitlines():
        stack, _, count = line.rpartition(" ")
        if "select (selectors.py" in stack or "epoll" in stack:
            continue  # idle: waiting for I/O
        n = int(count)
        total += n
        for frame in dict.fromkeys(stack.split(";")):
            short = frame.split("site-packages/")[-1]
            inclusive[short] = inclusive.get(short, 0) + n
    ranked = sorted(inclusive.items(), key=lambda kv: -kv[1])[:top]
    lines = [f"busy samples: {total}"] + [f"{100 * v / max(total, 1):5.1f}% {k}" for k, v in ranked]
    return "\n".join(lines) + "\n"


async def ramp(url: str, pid: int, sizes: list[int], profile: Path | None) -> None:
    """Warm up, then each step of the ramp; print the table."""
    warm = await step(url, pid, 1, "warm")
    print(f"warm-up analysis: {warm.wall:.1f} s; Agent Server RSS {rss_mb(pid):.0f} MB")
    print("CPU s per analysis: the Agent Server's own, and the whole machine's (every service,")
    print("sandbox and worker, and this client) over the same interval")
    header = (
        f"{'concurrent':>10} {'wall s':>8} {'ratio':>6} {'server CPU':>11} {'machine CPU':>12} "
        f"{'slowest':>8}"
    )
    print(header + "\n" + "-" * len(header))
    base: float | None = None
    ratios: dict[int, float] = {}
    steps: dict[int, Step] = {}
    for n in sizes:
        with py_spy(pid, profile) if n == max(sizes) else contextlib.nullcontext():
            got = await step(url, pid, n, str(n))
        base = base or got.wall
        ratios[n] = got.wall / base
        steps[n] = got
        print(
            f"{n:>10} {got.wall:8.1f} {ratios[n]:5.2f}x {got.server_cpu / n:11.2f} "
            f"{got.machine_cpu / n:12.2f} {max(got.each):8.1f}"
        )
    print_by_process(steps)
    top = max(sizes)
    verdict = "met" if ratios[top] <= RATIO_TARGET else "MISSED"
    print(
        f"\n{top} concurrent analyses: {ratios[top]:.2f}x the wall time of one "
        f"(target <= {RATIO_TARGET}x: {verdict}); Agent Server RSS now {rss_mb(pid):.0f} MB; "
        f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}"
    )


def print_by_process(steps: dict[int, Step]) -> None:
    """Each step's CPU seconds per analysis by process; what no live process accounts for
    (processes that ended unreaped, the kernel, anything else on the machine) last."""
    labels = sorted({k for s in steps.values() for k in s.by_process}, key=lambda k: -max(
        s.by_process.get(k, 0.0) / n for n, s in steps.items()))  # fmt: skip
    print("\nCPU s per analysis by process")
    print(f"{'':24}" + "".join(f"{n:>8}" for n in steps))
    for label in [*labels, "rest of the machine"]:
        cells = []
        for n, s in steps.items():
            rest = s.machine_cpu - sum(s.by_process.values())
            v = rest if label == "rest of the machine" else s.by_process.get(label, 0.0)
            cells.append(f"{v / n:8.2f}")
        print(f"{label:24}" + "".join(cells))


def main() -> None:
    """Start the stack, run the ramp, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ramp", default="1,4,8,16", help="concurrent analyses per step")
    parser.add_argument("--jobs", type=int, default=40, help="langgraph dev --n-jobs-per-worker")
    parser.add_argument("--profile", type=Path, help="py-spy the largest step into this file")
    args = parser.parse_args()
    sizes = [int(x) for x in args.ramp.split(",") if x.strip()]
    with scratch("bench-ramp-") as data, agent_server(data, jobs=args.jobs) as agent:
        found = httpx.post(f"{agent.url}/assistants/search", json={"limit": 50}, timeout=30)
        for assistant in found.json():
            httpx.get(f"{agent.url}/assistants/{assistant['assistant_id']}/graph", timeout=120)
        asyncio.run(ramp(agent.url, agent.process.pid, sizes, args.profile))


if __name__ == "__main__":
    main()
