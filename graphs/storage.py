"""Where the agents' files live: DESIGN section 4's storage table as one CompositeBackend.

| path | backend |
|---|---|
| ``/memories/``, ``/persisted-skills/``, ``/reports/`` | the LangGraph Store (across threads) |
| everything else (``/skills/``, ``/AGENTS.md``, ``/data/``, ...) | the thread's sandbox |

A Store route's binary and long files keep their bytes on disk under ``langgraph dev``
(``graphs.store_files``), so the in-memory Store holds only their records.

SkillsSync copies the checkout's ``skills/`` into the sandbox's ``/skills/``.
The Store routes are per user (``graphs.user_scope``): ``/memories/{user_id}/...`` of
another user is refused.

Building the backend checks the sandbox provider (a missing bubblewrap fails at
start-up) but creates no workspace: that happens when a thread first writes a file or
runs a command; reads before that come from the shared seed (``DATA_DIR/sandboxes/.seed``,
the skills and ``/AGENTS.md`` SkillsSync keeps there).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from deepagents.backends import CompositeBackend
from deepagents.backends.protocol import BackendProtocol

from graphs.sandbox import SandboxSettings, ThreadSandboxBackend
from graphs.store_files import route_backend
from graphs.user_scope import user_scoped

__all__ = [
    "PERSISTED_ROOT",
    "SEED_FOLDER",
    "SKILLS_ROOT",
    "STORE_ROUTES",
    "SandboxGetter",
    "make_backend",
    "persisted_path",
    "resolve_sandbox",
    "sandbox_path",
    "shared_sandbox",
]

STORE_ROUTES = ("/memories/", "/persisted-skills/", "/reports/")
PERSISTED_ROOT = "/persisted-skills/"
"""Where a user's assigned skills are kept in the Store: ``/persisted-skills/{user_id}/...``."""
SKILLS_ROOT = "/skills/"
"""Where skills live in the sandbox (the agents' ``skills=[...]`` sources are below it)."""

B = TypeVar("B", bound=BackendProtocol)
SandboxGetter = Callable[[], BackendProtocol]
"""A sandbox handed over as a getter: the thread's backend, looked up when used."""


def resolve_sandbox(sandbox: B | Callable[[], B]) -> B:
    """The backend itself, whether given as one or as a getter."""
    if isinstance(sandbox, BackendProtocol):
        return sandbox
    return sandbox()


def persisted_path(user_id: str, skills_path: str) -> str:
    """``/skills/x/y`` → ``/persisted-skills/{user_id}/x/y``."""
    rest = skills_path.removeprefix(SKILLS_ROOT).lstrip("/")
    return f"{PERSISTED_ROOT}{user_id}/{rest}"


def sandbox_path(user_id: str, stored_path: str) -> str:
    """``/persisted-skills/{user_id}/x/y`` → ``/skills/x/y``."""
    rest = stored_path.removeprefix(f"{PERSISTED_ROOT}{user_id}/")
    return SKILLS_ROOT + rest.lstrip("/")


_sandbox: ThreadSandboxBackend | None = None


SEED_FOLDER = ".seed"
"""The seed's folder under ``DATA_DIR/sandboxes`` (no thread id starts with a dot)."""


def shared_sandbox() -> ThreadSandboxBackend:
    """The process's sandbox router (one per process: graphs are rebuilt, workspaces not).

    Lazy: a thread's workspace is created when the thread first writes or runs something;
    until then its reads (skills, ``/AGENTS.md``) come from the shared seed folder.
    """
    global _sandbox
    if _sandbox is None:
        settings = SandboxSettings()
        _sandbox = ThreadSandboxBackend(
            settings=settings, seed=settings.sandboxes_dir / SEED_FOLDER
        )
    return _sandbox


def make_backend(*, skills_dir: Path | None = None) -> CompositeBackend:
    """The CompositeBackend of DESIGN's storage table, Store routes scoped per user.

    ``skills_dir`` is no longer routed (SkillsSync mirrors it into the sandbox); the
    argument is accepted for existing callers.
    """
    routes: dict[str, BackendProtocol] = {
        route: route_backend(route.strip("/")) for route in STORE_ROUTES
    }
    return user_scoped(CompositeBackend(default=shared_sandbox(), routes=routes))
