"""UserSkillsRestore: the user's persisted skills from the Store back into the sandbox.

Third layer of DESIGN section 4's stack (``abefore_agent``). Skills a user created
and assigned with ``assign_skill`` are kept in the Store under
``/persisted-skills/{user_id}/<path under /skills/>``, so they outlive the sandbox
(a new thread, a reset workspace, the analyst's own thread). Before each run the
ones missing or different in this thread's sandbox are written back to
``/skills/<path>``; files already identical are left alone. What it restored is told to
the run's model calls as a note (:mod:`graphs.middleware.notes`), not a stored message.
"""

from __future__ import annotations

import logging
from typing import Any

from deepagents.backends.protocol import BackendProtocol
from langchain.agents.middleware.types import AgentState, ContextT, ResponseT
from langgraph.runtime import Runtime

from graphs.context import user_fields
from graphs.middleware.notes import NoteLayer
from graphs.middleware.skills_sync import SkillsNotesState
from graphs.middleware.sync_bridge import run_blocking
from graphs.storage import (
    PERSISTED_ROOT,
    SandboxGetter,
    resolve_sandbox,
    sandbox_path,
)

__all__ = ["RESTORE_PROMPT", "UserSkillsRestore", "persisted_files", "restore_skills"]

logger = logging.getLogger(__name__)

RESTORE_PROMPT = "已从存储恢复你的技能 / Restored your persisted skills into /skills/: {paths}"


async def persisted_files(files: BackendProtocol, user_id: str) -> dict[str, bytes]:
    """Stored path → content of every file persisted for ``user_id``."""
    root = f"{PERSISTED_ROOT}{user_id}/"
    found = await files.aglob("**/*", path=root)
    if found.error:
        msg = f"listing {root} failed: {found.error}"
        raise RuntimeError(msg)
    paths = sorted(info["path"] for info in found.matches or [] if not info.get("is_dir"))
    if not paths:
        return {}
    out: dict[str, bytes] = {}
    for response in await files.adownload_files(paths):
        if response.error is None and response.content is not None:
            out[response.path] = response.content
    return out


async def restore_skills(
    files: BackendProtocol, sandbox: BackendProtocol, user_id: str
) -> list[str]:
    """Write ``user_id``'s persisted skills into ``sandbox``; the sandbox paths written."""
    stored = await persisted_files(files, user_id)
    if not stored:
        return []
    wanted = {sandbox_path(user_id, path): data for path, data in stored.items()}
    current = await sandbox.adownload_files(list(wanted))
    todo = [
        (r.path, wanted[r.path])
        for r in current
        if r.error is not None or r.content != wanted[r.path]
    ]
    if not todo:
        return []
    written = []
    for response in await sandbox.aupload_files(todo):
        if response.error is None:
            written.append(response.path)
        else:
            logger.warning("UserSkillsRestore: %s not restored: %s", response.path, response.error)
    return written


class UserSkillsRestore(NoteLayer):
    """Restore the run's user's persisted skills into the thread's sandbox.

    ``files`` is a backend through which ``/persisted-skills/`` reaches the Store (the
    graph's CompositeBackend); ``sandbox`` is the sandbox backend itself.
    """

    # Clearing deepagents' ``skills_metadata`` makes SkillsMiddleware reload them.
    state_schema = SkillsNotesState

    def __init__(self, *, files: BackendProtocol, sandbox: BackendProtocol | SandboxGetter) -> None:
        """Read persisted skills through ``files``, write them to ``sandbox``."""
        self._files = files
        self._sandbox = sandbox

    async def abefore_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """Restore; a note for this run's model calls naming the restored files, or nothing."""
        # Fail soft: the run goes on without the user's skills.
        written: list[str] = await self.asoft(lambda: self._restore(runtime), [])
        if not written:
            return self.clear_note(state)
        logger.info("UserSkillsRestore: restored %s", written)
        note = RESTORE_PROMPT.format(paths=", ".join(written))
        return {**self.note_update(note), "skills_metadata": None}

    async def _restore(self, runtime: Runtime[Any]) -> list[str]:
        fields = user_fields(getattr(runtime, "context", None))
        if fields is None:
            return []
        return await restore_skills(self._files, resolve_sandbox(self._sandbox), fields[0])

    def before_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """Synchronous ``graph.invoke``: the async hook on a private event loop."""
        return run_blocking(self.abefore_agent(state, runtime), "UserSkillsRestore")
