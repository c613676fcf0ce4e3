"""``python -m sim.erp`` as a real process on a free loopback port, used as clients use it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from runstack.processes import HOST, ROOT, free_port, start_service
from tests.concurrency import all_at_once

pytestmark = pytest.mark.integration


def _env(tmp_path: Path, port: int) -> dict[str, str]:
    return {"SIM_ERP_PORT": str(port), "DATA_DIR": str(tmp_path), "LOG_LEVEL": "INFO"}


def test_serves_creates_and_stops_cleanly(tmp_path: Path) -> None:
    port = free_port()
    with start_service("sim.erp", _env(tmp_path, port), port) as erp:
        with httpx.Client(base_url=erp.url, timeout=10) as client:
            assert client.get("/health").json() == {"status": "ok", "database": "sqlite"}
            body = {
                "idempotency_key": "process-test-1",
                "supplier_id": 1,
                "lines": [{"part_id": 1, "quantity": 100}],
                "order_date": "2026-12-01",
                "requested_by": "tester",
            }
            created = client.post("/orders/create", json=body)
            assert created.status_code == 201, created.text
            order = created.json()
            assert client.post("/orders/create", json=body).json()["replayed"] is True

            # Two writers with one version over real HTTP: exactly one wins.
            def put(n: int) -> httpx.Response:
                with httpx.Client(base_url=erp.url, timeout=10) as c:
                    return c.put(
                        f"/orders/update/{order['id']}",
                        json={"expected_version": 1, "note": f"writer {n}", "actor": "tester"},
                    )

            answers = all_at_once(4, put)
            assert sorted(a.status_code for a in answers) == [200, 409, 409, 409]

            # Abuse does not take it down.
            assert client.post("/orders/create", content=b"\x00" * 5000).status_code == 400
            huge = client.get("/parts/search", params={"name": "x" * 60_000})
            assert 400 <= huge.status_code < 500
            assert client.get("/health").status_code == 200
        # uvicorn shuts down gracefully, then re-raises SIGTERM so the parent sees it.
        assert erp.stop() in (0, -15)
    log = erp.log_tail(400)
    assert "Application shutdown complete" in log
    assert "Traceback" not in log
    assert (tmp_path / "erp.sqlite3").exists()


def test_a_taken_port_is_refused_with_its_number(tmp_path: Path) -> None:
    with socket.socket() as holder:
        holder.bind((HOST, 0))
        holder.listen()
        port = holder.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "sim.erp"],
            cwd=ROOT,
            env={**_env(tmp_path, port), "PATH": "/usr/bin:/bin"},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 2
    assert str(port) in result.stderr


def test_a_log_folder_made_for_a_service_is_removed_when_the_process_exits(
    tmp_path: Path,
) -> None:
    """Without a ``log_dir`` the log goes to a temporary folder of its own: still readable
    after the service stopped, gone once the process that started it exits (every test
    run used to leave hundreds of them in the system's temporary folder)."""
    code = (
        "import sys\n"
        "from runstack.processes import free_port, start_service\n"
        "port = free_port()\n"
        "env = {'SIM_ERP_PORT': str(port), 'DATA_DIR': sys.argv[1], 'LOG_LEVEL': 'INFO'}\n"
        "with start_service('sim.erp', env, port) as erp:\n"
        "    folder = erp.log_path.parent\n"
        "print(folder, folder.is_dir(), 'Application shutdown complete' in erp.log_tail(400))\n"
    )
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "data")],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(scratch)},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    folder, existed, logged = done.stdout.split()
    assert Path(folder).parent == scratch and existed == "True" and logged == "True"
    assert not Path(folder).exists()
    assert list(scratch.iterdir()) == []
