"""The stack's services: how each starts, which port it takes, how it says it is healthy.

The launcher (``scripts/stack``), the benchmarks, the tests and the demo all read this
one table, so a service added here is started everywhere. Ports come from the
environment (``SIM_ERP_PORT``, ...) with the defaults of DESIGN section 3; ``wiring``
derives the URLs one service needs to reach another from the ports actually chosen, so
a stack on random free ports is still wired together (``run_services`` does that).
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from runstack.processes import HOST, ServiceHandle, free_port, start_service


@dataclass(frozen=True)
class Service:
    """One process of the stack."""

    name: str
    module: str
    port_env: str
    default_port: int
    health_path: str = "/health"
    links: Mapping[str, str] = field(default_factory=dict)  # label -> path shown to the user
    args: tuple[str, ...] = ()
    # A full command line instead of ``python -m module``; "{python}", "{port}" and
    # "{config}" are filled in (``langgraph dev`` is started this way).
    argv: tuple[str, ...] | None = None
    # Graph ids the service must list at POST /assistants/search before it counts as ready.
    expect_graphs: tuple[str, ...] = ()

    def command(self, python: str, port: int, config: str = "langgraph.json") -> list[str]:
        """The command line that starts this service on ``port`` (``config``: the
        ``langgraph.json`` of a service started by ``argv``)."""
        if self.argv is None:
            return [python, "-m", self.module, *self.args]
        return [a.format(python=python, port=port, config=config) for a in self.argv]

    def port(self, env: Mapping[str, str] | None = None) -> int:
        """The port this service takes under ``env`` (default: the process environment)."""
        env = os.environ if env is None else env
        return int(env.get(self.port_env, self.default_port))


SERVICES: tuple[Service, ...] = (
    Service("sim-erp", "sim.erp", "SIM_ERP_PORT", 8080, links={"REST": "/"}),
    Service("erp-mcp", "mcp_erp", "ERP_MCP_PORT", 8000, links={"MCP": "/mcp"}),
    Service(
        "viz-gateway", "viz_gateway", "VIZ_PORT", 1122, links={"MCP": "/mcp", "charts": "/charts/"}
    ),
    Service("sim-suppliers", "sim.suppliers", "SIM_SUPPLIERS_PORT", 8300, links={"shops": "/"}),
    # The Agent Server last: its graphs reach the others lazily, on first use.
    # --n-jobs-per-worker: the default runs one job at a time, and the user must be able
    # to chat while the background analyst runs.
    Service(
        "agent-server",
        "langgraph_cli",
        "LANGGRAPH_PORT",
        2024,
        health_path="/ok",
        links={"API": "/", "docs": "/docs", "JSON-RPC": "/v1/ws"},
        argv=(
            "{python}",
            "-m",
            "langgraph_cli",
            "dev",
            "--no-browser",
            "--no-reload",
            "--host",
            "127.0.0.1",
            "--port",
            "{port}",
            "--n-jobs-per-worker",
            "10",
            "--config",
            "{config}",
        ),
        expect_graphs=("orchestrator", "analyst"),
    ),
)


def service(name: str) -> Service:
    """The entry of :data:`SERVICES` called ``name``; ``KeyError`` naming the known ones."""
    for svc in SERVICES:
        if svc.name == name:
            return svc
    msg = f"unknown service {name!r}; known: {', '.join(s.name for s in SERVICES)}"
    raise KeyError(msg)


def wiring(ports: Mapping[str, int], host: str = HOST) -> dict[str, str]:
    """Environment variables that point services at each other, from the chosen ports."""
    env: dict[str, str] = {}
    for svc in SERVICES:
        if svc.name in ports:
            env[svc.port_env] = str(ports[svc.name])
    if "sim-erp" in ports:
        env["ERP_BASE_URL"] = f"http://{host}:{ports['sim-erp']}"
    if "erp-mcp" in ports:
        env["ERP_MCP_URL"] = f"http://{host}:{ports['erp-mcp']}/mcp"
    if "agent-server" in ports:
        env["LANGGRAPH_URL"] = f"http://{host}:{ports['agent-server']}"
    if "viz-gateway" in ports:
        env["VIZ_MCP_URL"] = f"http://{host}:{ports['viz-gateway']}/mcp"
        env["VIZ_PUBLIC_URL"] = f"http://{host}:{ports['viz-gateway']}"
    if "sim-suppliers" in ports:
        env["SUPPLIER_SITES_URL"] = f"http://{host}:{ports['sim-suppliers']}"
    return env


@contextlib.contextmanager
def run_services(
    names: Iterable[str],
    env: Mapping[str, str],
    *,
    log_dir: Path | None = None,
    timeout: float = 60,
) -> Iterator[dict[str, ServiceHandle]]:
    """Start the named services (not the Agent Server: see :mod:`runstack.agent_server`) on
    free loopback ports, wired to each other, with ``env`` over the current environment
    and over the wiring; yield their handles by name once every one is healthy; stop them
    all afterwards. A service that exits or stays unhealthy for ``timeout`` seconds
    raises ``RuntimeError`` with its log tail."""
    chosen = [service(name) for name in names]
    for svc in chosen:
        if svc.argv is not None:
            msg = f"{svc.name} is not a python -m service; start it with runstack.agent_server"
            raise ValueError(msg)
    ports = {svc.name: free_port() for svc in chosen}
    child_env = {**wiring(ports), **env}
    with contextlib.ExitStack() as stack:
        handles = {
            svc.name: stack.enter_context(
                start_service(
                    svc.module,
                    child_env,
                    ports[svc.name],
                    svc.health_path,
                    args=svc.args,
                    log_dir=log_dir,
                    wait=False,
                )
            )
            for svc in chosen
        }
        # Started side by side, then waited for: the slowest start sets the pace, not the sum.
        for svc in chosen:
            handles[svc.name].wait_healthy(svc.health_path, timeout)
        yield handles


def agent_server_auth(config: Path = Path("langgraph.json")) -> tuple[str | None, dict[str, str]]:
    """``(auth handler path or None, headers for our own tools)`` of the Agent Server.

    With an auth handler in ``langgraph.json``, the launcher's readiness probe and the
    demo identify themselves with the first service account of that handler's
    ``AuthSettings`` (the shipped handler's ``AGENT_AUTH_SERVICE_TOKENS``), which may act
    for the demo's buyer; with none configured, or a handler without ``AuthSettings``,
    they send nothing and the server will refuse them.
    """
    try:
        auth = json.loads(config.read_text(encoding="utf-8")).get("auth")
    except (OSError, ValueError, AttributeError):
        return None, {}
    path = auth.get("path") if isinstance(auth, dict) else None
    if not isinstance(path, str):
        return None, {}
    settings = getattr(_handler_module(path), "AuthSettings", None)
    if settings is None:
        return path, {}
    try:
        services = [a for a in settings().accounts() if a.service]
    except ValueError:
        return path, {}
    return path, ({"Authorization": f"Bearer {services[0].token}"} if services else {})


def _handler_module(path: str) -> object | None:
    """The module of a ``./pkg/module.py:attr`` handler path, imported by its dotted name
    (the server imports it from the same checkout), or None when that fails."""
    file = path.split(":", 1)[0].removeprefix("./")
    if not file.endswith(".py") or file.startswith(("/", "..")):
        return None
    try:
        return importlib.import_module(file.removesuffix(".py").replace("/", "."))
    except ImportError:
        return None
