"""The main job of ``scripts/run``, as it runs there: the launcher starts the whole stack
(``langgraph dev`` included) on free ports, the flagship demo runs against it, and the
launcher stops everything afterwards."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from runstack.agent_server import offline_env
from runstack.processes import ROOT, free_port
from runstack.services import SERVICES

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def _run(env: dict[str, str], *args: str, timeout: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, env=env, text=True, capture_output=True,
        timeout=timeout, check=False,
    )  # fmt: skip


def test_stack_up_then_flagship_demo(tmp_path: Path) -> None:
    env = {**offline_env(), "DATA_DIR": str(tmp_path / "data")}
    for svc in SERVICES:
        env[svc.port_env] = str(free_port())
    up = _run(env, "scripts.stack", "up", "--detach", timeout=300)
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        state = json.loads((tmp_path / "data" / "run" / "stack.json").read_text())
        agent = state["services"]["agent-server"]
        # Our graphs on our port: langgraph dev did not move elsewhere.
        assert agent["port"] == int(env["LANGGRAPH_PORT"])
        demo = _run(env, "scripts.demo", timeout=480)
        out = demo.stdout
        assert demo.returncode == 0, out + demo.stderr
        assert "analyst thread" in out and "parent_thread_id" in out
        assert re.search(r"analyst → .*generate_visualization", out)
        assert "approval requested: order_create" in out
        assert "订单总额：" in out and "申请人：demo-buyer" in out  # the card, readable
        row = re.search(
            r"ERP row: (PO\d{11}) (\S+) approved .*requested by demo-buyer, approved by demo-buyer",
            out,
        )
        assert row, out
        erp = state["services"]["sim-erp"]["url"]
        found = httpx.get(f"{erp}/orders/search-details", params={"order_no": row.group(1)},
                          timeout=10).json()  # fmt: skip
        assert found["total"] == 1 and found["items"][0]["supplier_code"] == row.group(2)
        report = re.search(r"report: (\S+\.md)", out)
        assert report and Path(report.group(1)).is_file()
        charts = re.findall(r"chart: (\S+\.png\S*)", out)  # signed links: ?exp=&sig=
        assert len(charts) >= 2
        png = httpx.get(charts[0], timeout=10)
        assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    finally:
        down = _run(env, "scripts.stack", "down", timeout=60)
        assert down.returncode == 0, down.stdout + down.stderr
