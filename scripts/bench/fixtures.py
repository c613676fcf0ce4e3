"""What the benchmarks start and stand in with (the tests have fixtures of their own).

- :func:`scratch`: a throw-away DATA_DIR;
- :func:`services`: services of :mod:`runstack.services` on free loopback ports, quiet,
  wired to each other;
- :func:`agent_server`: the four services plus ``langgraph dev`` on this checkout's
  ``langgraph.json``, on the offline planner;
- :func:`compact_then_answer`: a scripted chat model that calls ``compact_conversation``
  once, then answers.

Each context manager stops what it started and removes its files, even when the
measurement inside raised.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from runstack.agent_server import PRODUCT_CONFIG, langgraph_dev
from runstack.processes import ServiceHandle
from runstack.services import run_services, wiring

AGENT_SERVICES = ("sim-erp", "erp-mcp", "sim-suppliers", "viz-gateway")
"""What the graphs reach at run time."""


@contextlib.contextmanager
def scratch(prefix: str) -> Iterator[Path]:
    """A temporary folder, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix=prefix, ignore_cleanup_errors=True) as folder:
        yield Path(folder)


@contextlib.contextmanager
def services(
    names: Iterable[str], data: Path, *, timeout: float = 60, **env: str
) -> Iterator[dict[str, ServiceHandle]]:
    """The named services on free ports with their data and logs under ``data``, logging
    warnings only, ``env`` over that; their handles by name."""
    quiet = {"DATA_DIR": str(data), "LOG_LEVEL": "WARNING", **env}
    with run_services(names, quiet, log_dir=data, timeout=timeout) as running:
        yield running


@contextlib.contextmanager
def agent_server(
    data: Path, *, jobs: int | None = 8, folder: Path | None = None, **env: str
) -> Iterator[ServiceHandle]:
    """:data:`AGENT_SERVICES` and ``langgraph dev`` (the product's graphs, offline) wired to
    them, everything under ``data``; the Agent Server's handle. ``jobs``: its
    ``--n-jobs-per-worker``; ``folder``: its working folder (reuse it to restart on the same
    state; default ``data/server``); ``env``: more environment for it."""
    with services(AGENT_SERVICES, data) as running:
        server_env = {
            "DATA_DIR": str(data),
            **wiring({n: h.port for n, h in running.items()}),
            **env,
        }
        where = folder or data / "server"
        with langgraph_dev(PRODUCT_CONFIG, server_env, folder=where, jobs=jobs) as agent:
            yield agent


class _ToolTolerantFake(GenericFakeChatModel):
    """GenericFakeChatModel that accepts tools, as an agent binds them, and ignores them."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


def compact_then_answer(answer: str = "ok") -> GenericFakeChatModel:
    """A model whose first turn calls ``compact_conversation`` and whose second says
    ``answer``."""
    compact = {"name": "compact_conversation", "args": {}, "id": "call_0", "type": "tool_call"}
    turns = iter([AIMessage(content="", tool_calls=[compact]), AIMessage(content=answer)])
    return _ToolTolerantFake(messages=turns)
