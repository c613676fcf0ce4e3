"""Start ``langgraph dev`` on the RPC fixture graph (and the mounted adapter) for a test.

The fixture's ``langgraph.json`` uses repo-relative paths; here it is rewritten
with absolute ones into a temporary folder that is also the server's working
directory, so the in-memory runtime's ``.langgraph_api/`` files stay out of the
checkout and away from other servers. ``langgraph dev`` moves to another port
silently when its port is taken, so the start checks that *our* adapter answers
on the port we asked for.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx

from tests.integration.procs import HOST, ROOT, ServiceHandle, free_port

FIXTURES = Path(__file__).resolve().parent
FIXTURE_CONFIG = FIXTURES / "langgraph.json"
MOUNT = "./rpc_adapter/app.py:app"


def _absolute_config(folder: Path, source: Path) -> Path:
    """``source`` with absolute paths and the adapter mounted, written into ``folder``."""
    config = json.loads(source.read_text())
    config["dependencies"] = [str(ROOT)]
    config["graphs"] = {
        name: str(ROOT / spec.removeprefix("./")) for name, spec in config["graphs"].items()
    }
    http = config.setdefault("http", {})
    http["app"] = str(ROOT / http.get("app", MOUNT).removeprefix("./"))
    env_file = config.get("env")
    if isinstance(env_file, str):
        if (ROOT / env_file).is_file():
            config["env"] = str(ROOT / env_file)
        else:
            config.pop("env")
    path = folder / "langgraph.json"
    path.write_text(json.dumps(config))
    return path


@contextlib.contextmanager
def langgraph_dev(
    env: Mapping[str, str] | None = None,
    *,
    config: Path = FIXTURE_CONFIG,
    timeout: float = 60,
) -> Iterator[ServiceHandle]:
    """Serve the graphs of ``config`` (default: the fixture graphs ``echo`` and ``echo2``)
    with the adapter mounted, on a free port; stop it afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="rpc-langgraph-dev-"))
    config = _absolute_config(folder, config)
    port = free_port()
    log_path = folder / "langgraph-dev.log"
    child_env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "LANGSMITH_TRACING": "false",
        **(env or {}),
    }
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [
                sys.executable, "-m", "langgraph_cli", "dev",
                "--no-browser", "--no-reload", "--host", HOST, "--port", str(port),
                "--n-jobs-per-worker", "64", "--config", str(config),
            ],
            cwd=folder,
            env=child_env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    handle = ServiceHandle("langgraph dev", port, f"http://{HOST}:{port}", process, log_path)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                msg = f"langgraph dev exited early:\n{handle.log_tail()}"
                raise RuntimeError(msg)
            with contextlib.suppress(httpx.HTTPError):
                ok = httpx.get(f"{handle.url}/ok", timeout=2)
                root = httpx.get(f"{handle.url}/", timeout=2)
                if ok.status_code == 200 and root.json().get("name") == "procurement-rpc-adapter":
                    break
            if time.monotonic() > deadline:
                msg = f"langgraph dev not answering on port {port}:\n{handle.log_tail()}"
                raise RuntimeError(msg)
            time.sleep(0.2)
        yield handle
    finally:
        handle.stop()
        if not os.environ.get("KEEP_E2E_DATA"):  # set it to read the server's log afterwards
            shutil.rmtree(folder, ignore_errors=True)
