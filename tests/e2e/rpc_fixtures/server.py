"""Servers for the JSON-RPC adapter's tests: ``langgraph dev`` with the adapter mounted,
and the standalone adapter.

``langgraph_dev`` serves the stand-in echo graphs (:mod:`runstack.echo_graph`) by
default, or the product's ``langgraph.json``; either way the adapter is mounted as the
server's ``http.app``, and :func:`runstack.agent_server.langgraph_dev` checks that the
server on the port we asked for lists the config's graphs.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from runstack import agent_server
from runstack.echo_graph import langgraph_config
from runstack.processes import HOST, ServiceHandle, free_port, start_service


@contextlib.contextmanager
def langgraph_dev(
    env: Mapping[str, str] | None = None,
    *,
    config: Path | Mapping[str, Any] | None = None,
    timeout: float = 60,
) -> Iterator[ServiceHandle]:
    """Serve ``config`` (default: the echo graphs ``echo``, ``echo2`` and ``approval``) on a
    free port with enough job slots for many sessions at once; stop it afterwards.
    ``KEEP_E2E_DATA=1`` keeps the server's folder (its log) afterwards."""
    with agent_server.langgraph_dev(
        langgraph_config() if config is None else config,
        env,
        jobs=64,
        timeout=timeout,
        keep=bool(os.environ.get("KEEP_E2E_DATA")),
    ) as handle:
        yield handle


@contextlib.contextmanager
def standalone_adapter(
    env: Mapping[str, str], *, agent_server_url: str | None = None, health_path: str = "/health"
) -> Iterator[ServiceHandle]:
    """``python -m rpc_adapter`` on a free port with ``env``, talking to the Agent Server at
    ``agent_server_url`` (default: a closed port, so nothing answers behind it)."""
    port = free_port()
    behind = agent_server_url or f"http://{HOST}:{free_port()}"
    child_env = {"RPC_PORT": str(port), "LANGGRAPH_URL": behind, **env}
    with start_service("rpc_adapter", child_env, port, health_path=health_path) as adapter:
        yield adapter
