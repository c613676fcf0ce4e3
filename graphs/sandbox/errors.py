"""Errors raised by the sandbox package.

Configuration and host problems raise at start-up; a path the model got wrong
becomes a :class:`WorkspacePathError`, which the file tools turn into an error
string the model can act on.
"""

from __future__ import annotations


class SandboxUnavailableError(RuntimeError):
    """The sandbox cannot run on this host (bubblewrap missing or blocked)."""


class SandboxConfigError(ValueError):
    """The sandbox settings are incomplete or name something that is not installed."""


class WorkspacePathError(PermissionError):
    """A file-tool path that would leave the workspace or touch the runtime's mounts.

    A ``PermissionError`` so deepagents' file operations report it as an error
    result (they catch ``OSError``) instead of raising into the graph.
    """
