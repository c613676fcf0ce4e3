"""The whole stack for the agents' end-to-end tests: the services plus ``langgraph dev``.

Everything runs on free loopback ports with its data under one temporary folder:
the simulated ERP, the ERP MCP server, the supplier shops, the chart gateway, and
``langgraph dev`` serving this repo's ``langgraph.json`` on the offline planner.
The checked-in skills are used as they are: their ``url_mapping.yaml`` points at the
shops' default port, and the analyst moves those URLs to ``SUPPLIER_SITES_URL``.

``langgraph dev`` moves to another port when its port is taken, silently; the start
(:func:`runstack.agent_server.langgraph_dev`) checks that the server answering on
*our* port serves *our* graphs.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import httpx

from runstack import agent_server
from runstack.agent_server import PRODUCT_CONFIG
from runstack.processes import ROOT, ServiceHandle
from runstack.services import run_services

KEEP = bool(os.environ.get("KEEP_E2E_DATA"))
"""Set ``KEEP_E2E_DATA=1`` to keep the logs, workspaces and server folders afterwards."""


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
    # The langgraph.json the Agent Server serves (a test may serve a variant of it).
    config: Path | Mapping[str, Any] = PRODUCT_CONFIG

    @property
    def url(self) -> str:
        assert self.agent is not None
        return self.agent.url

    def complaints(self, most: int = 40) -> str:
        """The warnings and errors the stack's processes logged (the last ``most``), for a
        failure's message: the folder with the logs goes when the module ends."""
        logs = sorted(self.server_dir.glob("*.log")) + sorted(
            (self.data_dir.parent / "logs").glob("*.log")
        )
        found: list[str] = []
        for log in logs:
            with contextlib.suppress(OSError):
                for raw in log.read_text(errors="replace").splitlines():
                    line = re.sub(r"\x1b\[[0-9;]*m", "", raw)  # the console's colours
                    low = line.lower()
                    if any(w in low for w in ("warning", "error", "traceback", "unreachable")):
                        found.append(f"{log.name}: {line.strip()[:300]}")
        return "\n".join(found[-most:]) or "(nothing logged as a warning or an error)"

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
    """The four services on free ports, wired together."""
    root = Path(tempfile.mkdtemp(prefix="agents-e2e-"))
    data = root / "data"
    data.mkdir()
    logs = root / "logs"
    logs.mkdir()
    names = ("sim-erp", "erp-mcp", "sim-suppliers", "viz-gateway")
    with contextlib.ExitStack() as stack:
        if not KEEP:
            stack.callback(_remove, root)
        running = stack.enter_context(run_services(names, {"DATA_DIR": str(data)}, log_dir=logs))
        erp, mcp, shops, viz = (running[name] for name in names)
        # The checked-in url_mapping.yaml names the shops' default address; the shops run
        # elsewhere here, and the analyst moves the URLs to SUPPLIER_SITES_URL itself.
        env = {
            "DATA_DIR": str(data),
            "ERP_MCP_URL": f"{mcp.url}/mcp",
            "VIZ_MCP_URL": f"{viz.url}/mcp",
            "SUPPLIER_SITES_URL": shops.url,
        }
        yield Stack(data, root / "server", ROOT / "skills", erp, mcp, shops, viz, env)


@contextlib.contextmanager
def langgraph_dev(
    stack: Stack, *, timeout: float = 120, probe_headers: dict[str, str] | None = None
) -> Iterator[ServiceHandle]:
    """``langgraph dev`` on ``stack.config`` in ``stack.server_dir`` (reused across restarts,
    so a restart keeps the checkpoints), on the offline planner.

    ``probe_headers``: credentials for the readiness probe when auth is on."""
    with agent_server.langgraph_dev(
        stack.config,
        stack.env,
        folder=stack.server_dir,
        timeout=timeout,
        headers=probe_headers,
    ) as handle:
        yield handle


def orders_from(
    stack: Stack, args: dict[str, Any], sku: str = "SP-NGK-IU7"
) -> list[dict[str, Any]]:
    """ERP orders this card's arguments made: placed today with its supplier and lines (part,
    quantity). Each test orders its own quantity, so they are its orders."""
    found = stack.erp_get("/orders/search-details", sku=sku, size=100)["items"]
    want = sorted((int(ln["part_id"]), int(ln["quantity"])) for ln in args["lines"])
    today = date.today().isoformat()
    return [
        o for o in found
        if o.get("order_date") == today and o.get("supplier_id") == args["supplier_id"]
        and sorted((int(ln["part_id"]), int(ln["quantity"])) for ln in o["lines"]) == want
    ]  # fmt: skip
