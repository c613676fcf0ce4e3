"""Sandboxes for code the agents write (DESIGN section 9).

- :class:`BubblewrapSandbox`: the local default, one workspace per thread under
  ``DATA_DIR/sandboxes/``, mounted as ``/`` inside bubblewrap.
- :class:`OpenSandboxBackend`: a remote OpenSandbox container, when
  ``SANDBOX_PROVIDER=opensandbox``.
- :func:`make_sandbox_backend` picks one for a thread; :class:`ThreadSandboxBackend`
  routes a graph's calls to the current run's thread.

Nothing here starts a process or connects at import.
"""

from graphs.sandbox.bubblewrap import (
    BubblewrapInfo,
    BubblewrapSandbox,
    check_bubblewrap,
    make_bubblewrap_sandbox,
)
from graphs.sandbox.errors import SandboxConfigError, SandboxUnavailableError, WorkspacePathError
from graphs.sandbox.factory import ThreadSandboxBackend, current_thread_id, make_sandbox_backend
from graphs.sandbox.opensandbox import OpenSandboxBackend
from graphs.sandbox.prompts import SANDBOX_PROMPT, sandbox_prompt
from graphs.sandbox.settings import SandboxSettings
from graphs.sandbox.workspace import (
    OpenedFile,
    WorkspaceFiles,
    open_workspace_file,
    safe_thread_id,
    workspace_path,
    workspace_usage,
)

__all__ = [
    "SANDBOX_PROMPT",
    "BubblewrapInfo",
    "BubblewrapSandbox",
    "OpenSandboxBackend",
    "OpenedFile",
    "SandboxConfigError",
    "SandboxSettings",
    "SandboxUnavailableError",
    "ThreadSandboxBackend",
    "WorkspaceFiles",
    "WorkspacePathError",
    "check_bubblewrap",
    "current_thread_id",
    "make_bubblewrap_sandbox",
    "make_sandbox_backend",
    "open_workspace_file",
    "safe_thread_id",
    "sandbox_prompt",
    "workspace_path",
    "workspace_usage",
]
