"""``scripts/eval``: run the task files k times on the offline planner or a ``MODEL``.

    scripts/eval                          # every task, k=3, offline planner, own stack
    scripts/eval --k 5 --only refusal     # one family (or task ids)
    scripts/eval --model deepseek:deepseek-v4-pro   # with DEEPSEEK_API_KEY set
    scripts/eval --agent-url http://127.0.0.1:2024 --erp-url http://127.0.0.1:8080

It starts the services and ``langgraph dev`` on free loopback ports (or uses the running
ones given), resets the ERP before each attempt, prints pass^1 ... pass^k per family
(tau-bench's estimate: the chance that k attempts all pass) and writes every attempt to
a JSON file (``--out``, default ``.data/eval/eval-<time>.json``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict
from datetime import date
from math import comb
from pathlib import Path
from typing import Any

import httpx

from core.agent_client import agent_client
from runstack.agent_server import MODEL_KEYS, langgraph_dev
from runstack.processes import ROOT
from runstack.services import run_services
from scripts.agent_eval.checks import check, snapshot
from scripts.agent_eval.runner import reset_erp, run_attempt
from scripts.agent_eval.tasks import FAMILIES, Task, load_tasks

_SERVICES = ("sim-erp", "erp-mcp", "sim-suppliers", "viz-gateway")


def pass_hat(successes: list[int], k: int) -> dict[int, float]:
    """tau-bench's pass^j for j = 1..k: per task C(c, j) / C(k, j), averaged over tasks."""
    if not successes:
        return {}
    return {j: sum(comb(c, j) / comb(k, j) for c in successes) / len(successes)
            for j in range(1, k + 1)}  # fmt: skip


@contextlib.contextmanager
def own_stack(model: str | None) -> Iterator[tuple[str, str]]:
    """The services and ``langgraph dev`` on free ports; ``(agent url, ERP url)``."""
    with tempfile.TemporaryDirectory(prefix="agent-eval-", ignore_cleanup_errors=True) as tmp:
        root = Path(tmp)
        data = root / "data"
        data.mkdir()
        with run_services(_SERVICES, {"DATA_DIR": str(data)}, log_dir=root) as running:
            env = {
                "DATA_DIR": str(data),
                "ERP_MCP_URL": f"{running['erp-mcp'].url}/mcp",
                "VIZ_MCP_URL": f"{running['viz-gateway'].url}/mcp",
                "SUPPLIER_SITES_URL": running["sim-suppliers"].url,
            }
            if model:
                env["MODEL"] = model
                env.update({k: os.environ[k] for k in MODEL_KEYS if os.environ.get(k)})
            with langgraph_dev(env=env, folder=root / "server", timeout=180) as agent:
                yield agent.url, running["sim-erp"].url


async def run_tasks(
    tasks: list[Task], k: int, agent_url: str, erp_url: str
) -> list[dict[str, Any]]:
    """Every task k times; one record per task with its attempts and problems."""
    records = []
    async with agent_client(agent_url, timeout=300) as client, httpx.AsyncClient(
        base_url=erp_url, timeout=60
    ) as http:  # fmt: skip
        for task in tasks:
            attempts = []
            for n in range(k):
                await reset_erp(erp_url)
                before = await snapshot(http, task)
                attempt = await run_attempt(client, task)
                problems = await check(http, task, attempt, before, date.today())
                attempts.append({"passed": not problems, "problems": problems, **asdict(attempt)})
                mark = "pass" if not problems else "FAIL " + "; ".join(problems)
                print(f"[eval] {task.family:<14} {task.id:<40} #{n + 1} {mark}", flush=True)
            records.append({"id": task.id, "family": task.family, "attempts": attempts})
    return records


def summary(records: list[dict[str, Any]], k: int) -> dict[str, dict[int, float]]:
    """pass^j per family and overall."""
    by_family: dict[str, list[int]] = {}
    for r in records:
        wins = sum(1 for a in r["attempts"] if a["passed"])
        by_family.setdefault(r["family"], []).append(wins)
        by_family.setdefault("all", []).append(wins)
    return {f: pass_hat(by_family[f], k) for f in [*FAMILIES, "all"] if f in by_family}


def _print(table: dict[str, dict[int, float]], k: int) -> None:
    head = "family".ljust(16) + "".join(f"pass^{j}".rjust(9) for j in range(1, k + 1))
    print(head)
    for family, row in table.items():
        print(family.ljust(16) + "".join(f"{row[j]:9.2f}" for j in range(1, k + 1)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/eval", description=__doc__.split("\n")[0])
    parser.add_argument("--k", type=int, default=3, help="attempts per task (default 3)")
    parser.add_argument("--only", nargs="*", help="task ids or families to run")
    parser.add_argument("--tasks", nargs="*", type=Path, help="task files (default: all)")
    parser.add_argument("--model", help="provider:model (default: the offline planner)")
    parser.add_argument("--agent-url", help="a running Agent Server (with --erp-url)")
    parser.add_argument("--erp-url", help="the ERP that Agent Server uses")
    parser.add_argument("--out", type=Path, help="where to write the JSON results")
    args = parser.parse_args(argv)
    tasks = load_tasks(args.tasks, args.only)
    if not tasks:
        print("[eval] no task matches", file=sys.stderr)
        return 2
    stack = (
        contextlib.nullcontext((args.agent_url, args.erp_url))
        if args.agent_url and args.erp_url
        else own_stack(args.model)
    )
    started = time.monotonic()
    with stack as (agent_url, erp_url):
        records = asyncio.run(run_tasks(tasks, args.k, agent_url, erp_url))
    table = summary(records, args.k)
    _print(table, args.k)
    out = args.out or ROOT / ".data" / "eval" / f"eval-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    result = {"model": args.model or "offline", "k": args.k, "pass_hat": table,
              "seconds": round(time.monotonic() - started, 1), "tasks": records}  # fmt: skip
    out.write_text(json.dumps(result, ensure_ascii=False, indent=2, default=str), "utf-8")
    print(f"[eval] results: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
