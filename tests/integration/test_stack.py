"""The launcher starts, reports and stops the real services, and refuses a taken port."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from runstack.processes import ROOT, free_port
from runstack.services import SERVICES


def _stack(
    env: dict[str, str], *args: str, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "scripts.stack", *args],
        cwd=ROOT,
        env=env,
        text=True,
        capture_output=True,
        timeout=timeout,
        check=False,
    )


@pytest.fixture
def stack_env(tmp_path: Path) -> dict[str, str]:
    env = {**os.environ, "DATA_DIR": str(tmp_path / "data")}
    for svc in SERVICES:
        env[svc.port_env] = str(free_port())
    return env


def _pids_alive(pids: list[int]) -> list[int]:
    alive = []
    for pid in pids:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            continue
        alive.append(pid)
    return alive


def test_up_status_down(stack_env: dict[str, str], tmp_path: Path) -> None:
    up = _stack(stack_env, "up", "--detach", "--only", "sim-erp,erp-mcp")
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        state = json.loads((tmp_path / "data" / "run" / "stack.json").read_text())
        erp = state["services"]["sim-erp"]
        assert erp["port"] == int(stack_env["SIM_ERP_PORT"])
        assert f"127.0.0.1:{stack_env['ERP_MCP_PORT']}/mcp" in up.stdout
        assert httpx.get(erp["health"], timeout=5).status_code == 200

        status = _stack(stack_env, "status")
        assert status.returncode == 0, status.stdout
        assert status.stdout.count("healthy") >= 2
    finally:
        down = _stack(stack_env, "down")
    assert down.returncode == 0, down.stdout + down.stderr
    pids = [state["launcher_pid"], *(s["pid"] for s in state["services"].values())]
    deadline = time.monotonic() + 10
    while _pids_alive(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _pids_alive(pids) == []
    assert _stack(stack_env, "status").returncode == 3


def test_taken_port_is_refused(stack_env: dict[str, str]) -> None:
    with socket.socket() as blocker:
        blocker.bind(("127.0.0.1", 0))
        blocker.listen()
        port = blocker.getsockname()[1]
        stack_env["ERP_MCP_PORT"] = str(port)
        result = _stack(stack_env, "up", "--only", "sim-erp,erp-mcp", timeout=30)
    assert result.returncode == 2
    assert f"port {port} (ERP_MCP_PORT)" in result.stdout
    assert "already in use" in result.stdout


def test_unknown_service_is_refused(stack_env: dict[str, str]) -> None:
    result = _stack(stack_env, "up", "--only", "nope", timeout=30)
    assert result.returncode != 0
    assert "unknown service" in result.stderr
