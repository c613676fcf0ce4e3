"""The whole stack for the agents' end-to-end tests: the services plus ``langgraph dev``.

Everything runs on free loopback ports with its data under one temporary folder:
the simulated ERP, the ERP MCP server, the supplier shops, the chart gateway, and
``langgraph dev`` serving this repo's ``langgraph.json`` on the offline planner.
The checked-in skills are used as they are: their ``url_mapping.yaml`` points at the
shops' default port, and the analyst moves those URLs to ``SUPPLIER_SITES_URL``.

``langgraph dev`` moves to another port when its port is taken, silently; the start
checks that the server answering on *our* port serves *our* graphs.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from langgraph_sdk.client import LangGraphClient

from tests.integration.procs import HOST, ROOT, ServiceHandle, free_port, start_service

GRAPHS = {"orchestrator", "analyst"}
_MODEL_KEYS = ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY")


@dataclass
class Stack:
    """Where everything listens, and the folders it writes."""

    data_dir: Path
    server_dir: Path
    skills_dir: Path
    erp: ServiceHandle
    mcp: ServiceHandle
    shops: ServiceHandle
    viz: ServiceHandle
    env: dict[str, str]
    agent: ServiceHandle | None = None

    @property
    def url(self) -> str:
        assert self.agent is not None
        return self.agent.url

    def workspace(self, thread_id: str) -> Path:
        """The sandbox folder of a thread (``/`` inside the sandbox)."""
        from graphs.sandbox.workspace import workspace_path

        return workspace_path(self.data_dir / "sandboxes", thread_id)

    def catalog(self) -> dict[str, Any]:
        """The shops' catalogue with the truth behind every quote page."""
        catalog: dict[str, Any] = httpx.get(f"{self.shops.url}/catalog.json", timeout=10).json()
        return catalog

    def erp_get(self, path: str, **params: Any) -> Any:
        """A read of the ERP's REST API (the test's view of the truth)."""
        response = httpx.get(f"{self.erp.url}{path}", params=params, timeout=10)
        response.raise_for_status()
        return response.json()


def _remove(root: Path) -> None:
    # Stopped servers may still flush a file or two while they exit: try a few times.
    for _ in range(10):
        shutil.rmtree(root, ignore_errors=True)
        if not root.exists():
            return
        time.sleep(0.5)


@contextlib.contextmanager
def services() -> Iterator[Stack]:
    """The four services on free ports, wired together, with a regenerated URL map."""
    root = Path(tempfile.mkdtemp(prefix="agents-e2e-"))
    data = root / "data"
    data.mkdir()
    logs = root / "logs"
    logs.mkdir()
    base = {"DATA_DIR": str(data)}
    ports = {name: free_port() for name in ("erp", "mcp", "shops", "viz")}
    erp_url = f"http://{HOST}:{ports['erp']}"
    keep = bool(os.environ.get("KEEP_E2E_DATA"))  # set it to inspect logs and workspaces
    with contextlib.ExitStack() as stack:
        if not keep:
            stack.callback(_remove, root)
        erp = stack.enter_context(start_service(
            "sim.erp", {**base, "SIM_ERP_PORT": str(ports["erp"])}, ports["erp"], timeout=60,
            log_dir=logs))  # fmt: skip
        mcp = stack.enter_context(start_service(
            "mcp_erp", {**base, "ERP_MCP_PORT": str(ports["mcp"]), "ERP_BASE_URL": erp_url},
            ports["mcp"], timeout=30, log_dir=logs))  # fmt: skip
        shops = stack.enter_context(start_service(
            "sim.suppliers", {**base, "SIM_SUPPLIERS_PORT": str(ports["shops"])}, ports["shops"],
            timeout=30, log_dir=logs))  # fmt: skip
        viz_url = f"http://{HOST}:{ports['viz']}"
        viz = stack.enter_context(start_service(
            "viz_gateway", {**base, "VIZ_PORT": str(ports["viz"]), "VIZ_PUBLIC_URL": viz_url},
            ports["viz"], timeout=30, log_dir=logs))  # fmt: skip
        # The checked-in url_mapping.yaml names the shops' default address; the shops run
        # elsewhere here, and the analyst moves the URLs to SUPPLIER_SITES_URL itself.
        skills = ROOT / "skills"
        env = {
            **base,
            "MODEL": "offline",
            "ERP_MCP_URL": f"{mcp.url}/mcp",
            "VIZ_MCP_URL": f"{viz_url}/mcp",
            "SUPPLIER_SITES_URL": shops.url,
            "LANGSMITH_TRACING": "false",
        }
        yield Stack(data, root / "server", skills, erp, mcp, shops, viz, env)


def _config(folder: Path) -> Path:
    """The repo's langgraph.json with absolute paths, in the server's own folder."""
    config = json.loads((ROOT / "langgraph.json").read_text(encoding="utf-8"))
    config["dependencies"] = [str(ROOT)]
    config["graphs"] = {
        name: str(ROOT / spec.removeprefix("./")) for name, spec in config["graphs"].items()
    }
    for key in ("http", "auth"):
        section = config.get(key)
        if isinstance(section, dict):
            for field in ("app", "path"):
                if isinstance(section.get(field), str) and section[field].startswith("./"):
                    section[field] = str(ROOT / section[field].removeprefix("./"))
    config.pop("env", None)  # the test sets the environment itself
    path = folder / "langgraph.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


@contextlib.contextmanager
def langgraph_dev(
    stack: Stack, *, timeout: float = 120, probe_headers: dict[str, str] | None = None
) -> Iterator[ServiceHandle]:
    """``langgraph dev`` on a free port in ``stack.server_dir`` (reused across restarts).

    ``probe_headers``: credentials for the readiness probe when auth is on."""
    folder = stack.server_dir
    folder.mkdir(exist_ok=True)
    config = _config(folder)
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in _MODEL_KEYS}
    env.update(stack.env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    log_path = folder / f"langgraph-dev-{port}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", "langgraph_cli", "dev", "--no-browser", "--no-reload",
             "--host", HOST, "--port", str(port), "--n-jobs-per-worker", "8",
             "--config", str(config)],
            cwd=folder, env=env, stdin=subprocess.DEVNULL, stdout=log,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    handle = ServiceHandle("langgraph dev", port, f"http://{HOST}:{port}", process, log_path)
    try:
        deadline = time.monotonic() + timeout
        while True:
            if process.poll() is not None:
                msg = f"langgraph dev exited early:\n{handle.log_tail()}"
                raise RuntimeError(msg)
            with contextlib.suppress(httpx.HTTPError, ValueError):
                if httpx.get(f"{handle.url}/ok", timeout=2).status_code == 200:
                    found = httpx.post(f"{handle.url}/assistants/search", json={"limit": 50},
                                       headers=probe_headers, timeout=5).json()  # fmt: skip
                    if {a["graph_id"] for a in found} >= GRAPHS:
                        break
            if time.monotonic() > deadline:
                msg = (
                    f"langgraph dev is not serving our graphs on port {port}:\n{handle.log_tail()}"
                )
                raise RuntimeError(msg)
            time.sleep(0.3)
        yield handle
    finally:
        handle.stop()


@contextlib.contextmanager
def serving() -> Iterator[Stack]:
    """:func:`services` with ``langgraph dev`` on top, as ``stack.agent`` (a module's stack)."""
    with services() as running, langgraph_dev(running) as agent:
        running.agent = agent
        yield running


MEMORIES = ["files", "memories"]
"""The Store namespace of ``/memories/`` (keys are ``/<user_id>/<file>``)."""


async def preferences(client: LangGraphClient, user: str) -> str | None:
    """``user``'s preferences file in the Store, or ``None``."""
    try:
        item: Any = await client.store.get_item(MEMORIES, key=f"/{user}/preferences.md")
    except Exception:  # the SDK raises NotFound for a missing item
        return None
    if not item:
        return None
    return str(item["value"]["content"])


async def wait_for_memory(client: LangGraphClient, user: str, needle: str) -> str:
    """``user``'s preferences once they contain ``needle`` (memory is written after the run)."""
    deadline, text = time.monotonic() + 30, None
    while time.monotonic() < deadline:
        text = await preferences(client, user)
        if text and needle in text:
            return text
        await asyncio.sleep(0.5)
    raise AssertionError(f"{needle!r} never reached {user}'s preferences: {text!r}")
