"""Where the agents' files live: DESIGN section 4's storage table as one CompositeBackend.

| path | backend |
|---|---|
| ``/memories/``, ``/persisted-skills/``, ``/reports/`` | the LangGraph Store (across threads) |
| ``/skills/`` | the checkout's ``skills/`` folder, read-only here (SkillsSync replaces it) |
| everything else (``/data/``, ``/analysis/``, ...) | the thread's sandbox workspace |

Building the backend checks the sandbox provider (a missing bubblewrap fails at
start-up) but creates no workspace: that happens on a thread's first file call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepagents.backends import CompositeBackend, FilesystemBackend, StoreBackend
from deepagents.backends.protocol import BackendProtocol

from graphs.sandbox import ThreadSandboxBackend

__all__ = ["STORE_ROUTES", "make_backend"]

STORE_ROUTES = ("/memories/", "/persisted-skills/", "/reports/")

_sandbox: ThreadSandboxBackend | None = None


def _shared_sandbox() -> ThreadSandboxBackend:
    # One router per process: graphs are rebuilt per run, workspaces must not be.
    global _sandbox
    if _sandbox is None:
        _sandbox = ThreadSandboxBackend()
    return _sandbox


def _namespace(name: str) -> Any:
    return lambda _runtime: ("files", name)


def make_backend(*, skills_dir: Path) -> BackendProtocol:
    """The CompositeBackend of DESIGN's storage table."""
    routes: dict[str, BackendProtocol] = {
        route: StoreBackend(namespace=_namespace(route.strip("/"))) for route in STORE_ROUTES
    }
    routes["/skills/"] = FilesystemBackend(root_dir=skills_dir, virtual_mode=True)
    return CompositeBackend(default=_shared_sandbox(), routes=routes)
