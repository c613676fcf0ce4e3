"""Where the agents' files live: DESIGN section 4's storage table as one CompositeBackend.

| path | backend |
|---|---|
| ``/memories/``, ``/persisted-skills/``, ``/reports/`` | the LangGraph Store (across threads) |
| everything else (``/skills/``, ``/AGENTS.md``, ``/data/``, ...) | the thread's sandbox |

SkillsSync copies the checkout's ``skills/`` into the sandbox's ``/skills/``.
The Store routes are per user (``graphs.user_scope``): ``/memories/{user_id}/...`` of
another user is refused.

Building the backend checks the sandbox provider (a missing bubblewrap fails at
start-up) but creates no workspace: that happens on a thread's first file call.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepagents.backends import CompositeBackend, StoreBackend
from deepagents.backends.protocol import BackendProtocol

from graphs.sandbox import ThreadSandboxBackend
from graphs.user_scope import user_scoped

__all__ = ["STORE_ROUTES", "make_backend", "shared_sandbox"]

STORE_ROUTES = ("/memories/", "/persisted-skills/", "/reports/")

_sandbox: ThreadSandboxBackend | None = None


def shared_sandbox() -> ThreadSandboxBackend:
    """The process's sandbox router (one per process: graphs are rebuilt, workspaces not)."""
    global _sandbox
    if _sandbox is None:
        _sandbox = ThreadSandboxBackend()
    return _sandbox


def _namespace(name: str) -> Any:
    return lambda _runtime: ("files", name)


def make_backend(*, skills_dir: Path | None = None) -> CompositeBackend:
    """The CompositeBackend of DESIGN's storage table, Store routes scoped per user.

    ``skills_dir`` is no longer routed (SkillsSync mirrors it into the sandbox); the
    argument is accepted for existing callers.
    """
    routes: dict[str, BackendProtocol] = {
        route: StoreBackend(namespace=_namespace(route.strip("/"))) for route in STORE_ROUTES
    }
    return user_scoped(CompositeBackend(default=shared_sandbox(), routes=routes))
