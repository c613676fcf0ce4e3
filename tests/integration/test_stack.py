"""The launcher starts, reports and stops the real services, and refuses a taken port; it
restarts a service that exits (and only that one), restarts one on request, and rotates
the output it captures."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

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


SIDECARS = ("sim-erp", "erp-mcp", "viz-gateway", "sim-suppliers")


def _state(tmp_path: Path) -> dict[str, Any]:
    state: dict[str, Any] = json.loads((tmp_path / "data" / "run" / "stack.json").read_text())
    return state


def _wait_for(tmp_path: Path, name: str, restarts: int, timeout: float = 60) -> dict[str, Any]:
    """The state of ``name`` once it has been restarted ``restarts`` times and is healthy."""
    deadline = time.monotonic() + timeout
    info: dict[str, Any] = {}
    while time.monotonic() < deadline:
        info = _state(tmp_path)["services"][name]
        if info["restarts"] >= restarts and info["state"] == "running":
            return info
        time.sleep(0.2)
    raise AssertionError(f"{name} not back after {timeout} s: {info}")


def test_a_service_that_exits_is_restarted_alone(stack_env: dict[str, str], tmp_path: Path) -> None:
    stack_env["STACK_LOG_MAX_MB"] = "0.003"  # about 3 KB: the output below rotates
    up = _stack(stack_env, "up", "--detach", "--only", ",".join(SIDECARS))
    try:
        assert up.returncode == 0, up.stdout + up.stderr
        first = _state(tmp_path)
        for name in SIDECARS:
            before = _state(tmp_path)["services"]
            os.killpg(before[name]["pid"], signal.SIGKILL)
            back = _wait_for(tmp_path, name, 1)
            assert back["pid"] != before[name]["pid"] and back["port"] == before[name]["port"]
            assert httpx.get(back["health"], timeout=5).status_code == 200
            assert back["last_exit"]["why"] == "signal SIGKILL"
            after = _state(tmp_path)["services"]
            for other in set(SIDECARS) - {name}:  # nothing else was stopped or restarted
                assert after[other]["pid"] == before[other]["pid"], other
        assert _state(tmp_path)["launcher_pid"] == first["launcher_pid"]
        # Read with its rotated copies: at this size it may have rotated already.
        log = "".join(p.read_text() for p in (tmp_path / "data" / "logs").glob("stack.out*"))
        for name in SIDECARS:
            pid = first["services"][name]["pid"]
            assert f"{name} (pid {pid}) stopped: signal SIGKILL; starting it again in 1 s" in log
            assert f"{name} is healthy again (pid " in log

        status = _stack(stack_env, "status")
        assert status.returncode == 0, status.stdout
        assert status.stdout.count("restarts 1 ") == len(SIDECARS), status.stdout
        assert status.stdout.count("last stop") == len(SIDECARS)

        # One service restarted on request, the others left alone.
        before = _state(tmp_path)["services"]
        restart = _stack(stack_env, "restart", "sim-suppliers")
        assert restart.returncode == 0, restart.stdout
        after = _state(tmp_path)["services"]
        assert after["sim-suppliers"]["restarts"] == 2
        assert after["sim-suppliers"]["pid"] != before["sim-suppliers"]["pid"]
        assert {n: after[n]["pid"] for n in SIDECARS if n != "sim-suppliers"} == {
            n: before[n]["pid"] for n in SIDECARS if n != "sim-suppliers"
        }
        unknown = _stack(stack_env, "restart", "nope")
        assert unknown.returncode == 2 and "unknown service 'nope'" in unknown.stdout

        # Output the ERP writes (a line per refused request) makes its log rotate.
        erp = after["sim-erp"]["url"]
        for _ in range(60):
            httpx.post(f"{erp}/orders/create", content=b"not json", timeout=5)
        logs = tmp_path / "data" / "logs"
        # The detached launcher's own output rotates too (its restart reports fill it).
        rotated = [logs / "sim-erp.out.1", logs / "stack.out.1"]
        deadline = time.monotonic() + 30
        while not all(p.exists() for p in rotated) and time.monotonic() < deadline:
            time.sleep(0.5)
        assert "VALIDATION" in rotated[0].read_text()
        copies = "".join(p.read_text() for p in sorted(logs.glob("stack.out.*")))
        assert "stopped: signal SIGKILL" in copies
        assert (logs / "sim-erp.out").stat().st_size < 64 * 1024
    finally:
        down = _stack(stack_env, "down")
    assert down.returncode == 0, down.stdout + down.stderr


def test_restart_and_status_say_when_nothing_runs(stack_env: dict[str, str]) -> None:
    assert _stack(stack_env, "status").returncode == 3
    refused = _stack(stack_env, "restart", "sim-erp")
    assert refused.returncode == 3 and "not running" in refused.stdout
    bad = {**stack_env, "STACK_RESTART_DELAY": "-1"}
    result = _stack(bad, "up", "--only", "sim-erp", timeout=30)
    assert result.returncode != 0
    assert "STACK_RESTART_DELAY: Input should be greater than 0" in result.stderr
