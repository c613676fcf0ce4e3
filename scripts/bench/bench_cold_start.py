"""Benchmark: Agent Server cold start and graph build, ours against an empty graph.

Run from the checkout: ``.venv/bin/python -m scripts.bench.bench_cold_start [--rounds 2]``.

Each round starts ``langgraph dev --no-browser --no-reload`` twice on free ports, in
fresh temporary folders: once on this repo's ``langgraph.json`` (offline planner) and
once on a one-node graph written next to its own ``langgraph.json``. It measures
the time from the process start to ``GET /ok`` answering 200, then the first
``GET /assistants/{id}/graph`` of each graph (the request that makes the server call
the graph factory and compile), and prints medians and the ratios ours / empty
(DESIGN's target: at most 2x). Nothing connects to the ERP or the chart gateway at
build time, so none is started.
This is a measurement, not a test: it exits 0 unless something fails.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.integration.procs import HOST, ROOT, free_port

EMPTY_GRAPH = """
from langgraph.graph import START, MessagesState, StateGraph


def _noop(state: MessagesState) -> dict:
    return {}


_builder = StateGraph(MessagesState)
_builder.add_node("noop", _noop)
_builder.add_edge(START, "noop")
graph = _builder.compile()
"""
_MODEL_KEYS = ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY")


@dataclass
class Sample:
    """One cold start: seconds to /ok, and seconds of the first build of each graph."""

    to_ok: float
    builds: dict[str, float] = field(default_factory=dict)


def _our_config(folder: Path) -> Path:
    config = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    config["dependencies"] = [str(ROOT)]
    config["graphs"] = {
        name: str(ROOT / spec.removeprefix("./")) for name, spec in config["graphs"].items()
    }
    config.pop("env", None)
    path = folder / "langgraph.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def _empty_config(folder: Path) -> Path:
    (folder / "empty_graph.py").write_text(EMPTY_GRAPH, encoding="utf-8")
    path = folder / "langgraph.json"
    config = {"dependencies": ["."], "graphs": {"empty": str(folder / "empty_graph.py:graph")}}
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


@contextlib.contextmanager
def _server(config: Path, env: dict[str, str]) -> Iterator[tuple[str, float]]:
    """``langgraph dev`` on ``config``; yields its URL and the seconds it took to answer /ok."""
    port = free_port()
    log = (config.parent / "langgraph-dev.log").open("wb")
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "langgraph_cli", "dev", "--no-browser", "--no-reload",
         "--host", HOST, "--port", str(port), "--config", str(config)],
        cwd=config.parent, env=env, stdin=subprocess.DEVNULL, stdout=log,
        stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    url = f"http://{HOST}:{port}"
    try:
        while True:
            if process.poll() is not None:
                msg = f"langgraph dev exited early; see {log.name}"
                raise RuntimeError(msg)
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{url}/ok", timeout=1).status_code == 200:
                    break
            if time.perf_counter() - started > 120:
                msg = f"langgraph dev not answering on {url}; see {log.name}"
                raise RuntimeError(msg)
            time.sleep(0.02)
        yield url, time.perf_counter() - started
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, 15)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, 9)
            process.wait()
        log.close()


def _first_builds(url: str, graphs: list[str]) -> dict[str, float]:
    found = httpx.post(f"{url}/assistants/search", json={"limit": 50}, timeout=30).json()
    ids = {a["graph_id"]: a["assistant_id"] for a in found}
    builds: dict[str, float] = {}
    for graph in graphs:
        started = time.perf_counter()
        response = httpx.get(f"{url}/assistants/{ids[graph]}/graph", timeout=120)
        response.raise_for_status()
        builds[graph] = time.perf_counter() - started
    return builds


def _one(kind: str, root: Path, env: dict[str, str]) -> Sample:
    folder = Path(tempfile.mkdtemp(prefix=f"{kind}-", dir=root))
    config = _our_config(folder) if kind == "ours" else _empty_config(folder)
    graphs = ["orchestrator", "analyst"] if kind == "ours" else ["empty"]
    with _server(config, env) as (url, to_ok):
        return Sample(to_ok, _first_builds(url, graphs))


def main() -> None:
    """Alternate cold starts of ours and the empty graph; print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="cold starts of each (median)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-cold-start-"))
    env = {k: v for k, v in os.environ.items() if k not in _MODEL_KEYS}
    env.update(
        {
            "MODEL": "offline",
            "DATA_DIR": str(root / "data"),
            "LANGSMITH_TRACING": "false",
            "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")])),
        }
    )
    samples: dict[str, list[Sample]] = {"empty": [], "ours": []}
    try:
        for _ in range(args.rounds):
            for kind in ("empty", "ours"):
                samples[kind].append(_one(kind, root, env))
    finally:
        shutil.rmtree(root, ignore_errors=True)

    def med(values: list[float]) -> float:
        return statistics.median(values)

    empty_ok = med([s.to_ok for s in samples["empty"]])
    ours_ok = med([s.to_ok for s in samples["ours"]])
    empty_build = med([s.builds["empty"] for s in samples["empty"]])
    builds = {g: med([s.builds[g] for s in samples["ours"]]) for g in ("orchestrator", "analyst")}

    def row(label: str, empty: float, ours: float) -> None:
        print(f"{label:<30} {empty:>12.2f} {ours:>10.2f} {ours / empty:>7.2f}x")

    print(f"cold start of langgraph dev, median of {args.rounds} (seconds)")
    print(f"{'':<30} {'empty graph':>12} {'ours':>10} {'ratio':>8}")
    row("process start -> /ok", empty_ok, ours_ok)
    for graph, build in builds.items():
        row(f"first build: {graph}", empty_build, build)
    row("/ok + first build (orch.)", empty_ok + empty_build, ours_ok + builds["orchestrator"])
    row("/ok + both builds", empty_ok + empty_build, ours_ok + sum(builds.values()))
    print("target: ours at most 2x the empty graph")


if __name__ == "__main__":
    main()
