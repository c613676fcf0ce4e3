"""A small run of ``scripts/eval`` (k=1, a few tasks of different families) through the real
graphs: it starts its own stack, plays the buyer's turns, answers and approvals, checks
the ERP afterwards, and writes pass^k per family to JSON. The whole run is a script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from runstack.processes import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

TASKS = ("ask-supplier-then-order", "change-due-by-description", "refuse-negative-quantity",
         "oos-flight", "stock-of-a-part-en")  # fmt: skip


def test_a_small_eval_run_passes_and_writes_its_results(tmp_path: Path) -> None:
    out = tmp_path / "eval.json"
    scratch = tmp_path / "tmp"  # the run's temporary folder
    scratch.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "scripts.agent_eval", "--k", "1", "--only", *TASKS,
         "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=840,
        env={**os.environ, "TMPDIR": str(scratch)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    # Its stack (data, logs, the server's folder) is gone with it: each run used to leave
    # about 3 MB behind.
    assert not list(scratch.glob("agent-eval-*"))
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["model"] == "offline" and result["k"] == 1
    assert sorted(t["id"] for t in result["tasks"]) == sorted(TASKS)
    failed = {t["id"]: t["attempts"][0]["problems"] for t in result["tasks"]
              if not t["attempts"][0]["passed"]}  # fmt: skip
    assert not failed, failed
    families = {t["family"] for t in result["tasks"]}
    assert set(result["pass_hat"]) == families | {"all"}
    assert result["pass_hat"]["all"]["1"] == 1.0
    assert "pass^1" in done.stdout
