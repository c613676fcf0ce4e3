"""Benchmark: Agent Server cold start and graph build, ours against an empty graph.

Run from the checkout: ``.venv/bin/python -m scripts.bench.bench_cold_start [--rounds 2]``.

Each round starts ``langgraph dev --no-browser --no-reload`` twice on free ports, in
fresh temporary folders: once on this repo's ``langgraph.json`` (offline planner) and
once on a one-node graph written next to its own ``langgraph.json``. It measures
the time from the process start until the server serves its graphs on our port
(``GET /ok`` answers 200 and ``/assistants/search`` lists them), then the first
``GET /assistants/{id}/graph`` of each graph (the request that makes the server call
the graph factory and compile), and prints medians and the ratios ours / empty
(DESIGN's target: at most 2x). Nothing connects to the ERP or the chart gateway at
build time, so none is started.
This is a measurement, not a test: it exits 0 unless something fails.
"""

from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from runstack.agent_server import PRODUCT_CONFIG, langgraph_dev
from scripts.bench.fixtures import scratch

EMPTY_GRAPH = """
from langgraph.graph import START, MessagesState, StateGraph


def _noop(state: MessagesState) -> dict:
    return {}


_builder = StateGraph(MessagesState)
_builder.add_node("noop", _noop)
_builder.add_edge(START, "noop")
graph = _builder.compile()
"""


@dataclass
class Sample:
    """One cold start: seconds until it serves its graphs, and of the first build of each."""

    to_ok: float
    builds: dict[str, float] = field(default_factory=dict)


def _empty_config(folder: Path) -> dict[str, Any]:
    (folder / "empty_graph.py").write_text(EMPTY_GRAPH, encoding="utf-8")
    return {"dependencies": [str(folder)], "graphs": {"empty": f"{folder}/empty_graph.py:graph"}}


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


def _one(kind: str, root: Path) -> Sample:
    """A cold start of ``kind`` in a fresh folder under ``root`` (``langgraph dev`` with its
    default job count, as a bare server starts)."""
    folder = root / f"{kind}-{time.monotonic_ns()}"
    folder.mkdir()
    config = PRODUCT_CONFIG if kind == "ours" else _empty_config(folder)
    graphs = ["orchestrator", "analyst"] if kind == "ours" else ["empty"]
    started = time.perf_counter()
    env = {"DATA_DIR": str(root / "data")}
    with langgraph_dev(config, env, folder=folder / "server", jobs=None, every=0.02) as server:
        to_ok = time.perf_counter() - started
        return Sample(to_ok, _first_builds(server.url, graphs))


def main() -> None:
    """Alternate cold starts of ours and the empty graph; print medians and ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2, help="cold starts of each (median)")
    args = parser.parse_args()
    samples: dict[str, list[Sample]] = {"empty": [], "ours": []}
    with scratch("bench-cold-start-") as root:
        for _ in range(args.rounds):
            for kind in ("empty", "ours"):
                samples[kind].append(_one(kind, root))

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
    row("process start -> serving", empty_ok, ours_ok)
    for graph, build in builds.items():
        row(f"first build: {graph}", empty_build, build)
    row("/ok + first build (orch.)", empty_ok + empty_build, ours_ok + builds["orchestrator"])
    row("/ok + both builds", empty_ok + empty_build, ours_ok + sum(builds.values()))
    print("target: ours at most 2x the empty graph")


if __name__ == "__main__":
    main()
