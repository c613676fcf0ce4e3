"""SkillsSync: the checkout's ``skills/`` into the thread's sandbox ``/skills/``, incrementally.

Second layer of DESIGN section 4's stack (``before_agent``). Each run compares the
local tree's content hashes with a manifest kept in the workspace
(``/.skills-sync.json``, the hashes of what was last uploaded there) and uploads
only the files that differ; files it uploaded earlier and that are gone locally are
removed. The global guidelines (``graphs/AGENTS.md``) are seeded as ``/AGENTS.md``
the same way. A note listing what changed goes into the run's model requests (never into
the thread's messages: :mod:`graphs.middleware.notes`); none when nothing did. A change
also clears ``skills_metadata``, so deepagents' SkillsMiddleware re-reads the skills.

Local hashes are cached by (size, mtime) and the file list by folder mtimes, so an
unchanged tree costs one ``stat`` per file and folder and one manifest read: that is
the benchmark's ≥10x against a full upload.
A sandbox that was reset has no manifest, and gets everything again.

A sandbox router with a ``seed`` (``graphs.sandbox.ThreadSandboxBackend``: workspaces made
only when a thread first needs one) gets the seed synced first, under one lock per process:
a thread without a workspace then reads an up-to-date seed and has nothing to upload, so
syncing creates no workspace; a thread with one is synced as before.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from deepagents.backends.protocol import BackendProtocol
from deepagents.middleware.skills import SkillsState
from langchain.agents.middleware.types import AgentState, ContextT, ResponseT
from langgraph.runtime import Runtime

from graphs.middleware.notes import NoteLayer, NotesState
from graphs.storage import SandboxGetter, resolve_sandbox

__all__ = [
    "AGENTS_MD",
    "MANIFEST_PATH",
    "SKILLS_SYNC_PROMPT",
    "LocalTree",
    "SkillsSync",
    "SyncReport",
    "full_upload",
    "sync_tree",
]

logger = logging.getLogger(__name__)

_seed_lock = threading.Lock()  # concurrent runs would upload the same files to the seed

AGENTS_MD = Path(__file__).resolve().parents[1] / "AGENTS.md"
"""The global guidelines, seeded into every sandbox as ``/AGENTS.md``."""

MANIFEST_PATH = "/.skills-sync.json"
SKILLS_SYNC_PROMPT = "技能已同步到沙箱 / Skills synced into the sandbox: {changes}"
_MAX_LISTED = 20
_SKIP_NAMES = frozenset({"__pycache__", ".DS_Store", ".git"})


@dataclass
class SyncReport:
    """What one synchronisation did (virtual paths)."""

    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: int = 0
    failed: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Whether the sandbox's files changed."""
        return bool(self.added or self.updated or self.removed)

    def describe(self) -> str:
        """A short listing for the model: added / updated / removed paths."""
        parts = []
        for label, paths in (("added", self.added), ("updated", self.updated)):
            if paths:
                shown = ", ".join(paths[:_MAX_LISTED])
                more = f" (+{len(paths) - _MAX_LISTED} more)" if len(paths) > _MAX_LISTED else ""
                parts.append(f"{label}: {shown}{more}")
        if self.removed:
            parts.append("removed: " + ", ".join(self.removed[:_MAX_LISTED]))
        return "; ".join(parts)


class LocalTree:
    """The files to mirror: a local folder under a virtual prefix, plus single seeded files.

    Hashes are cached per file by (size, mtime_ns), so re-scanning an unchanged tree
    reads no file contents.
    """

    def __init__(
        self,
        root: Path,
        *,
        prefix: str = "/skills/",
        extra: Mapping[str, Path] | None = None,
    ) -> None:
        """Mirror ``root`` under ``prefix``; ``extra`` maps virtual paths to single files."""
        self.root = root
        self.prefix = prefix if prefix.endswith("/") else prefix + "/"
        self.extra = dict(extra or {})
        self._cache: dict[Path, tuple[int, int, str]] = {}
        self._listing: tuple[dict[str, int], dict[str, Path]] | None = None
        self._lock = threading.Lock()

    def _hash(self, path: Path) -> str:
        stat = os.stat(path)
        key = (stat.st_size, stat.st_mtime_ns)
        with self._lock:
            cached = self._cache.get(path)
        if cached is not None and cached[:2] == key:
            return cached[2]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        with self._lock:
            self._cache[path] = (*key, digest)
        return digest

    def _listing_is_current(self) -> bool:
        # A folder's mtime changes when entries are added, removed or renamed in it:
        # if no folder changed, the file list has not either.
        if self._listing is None:
            return False
        try:
            return all(os.stat(d).st_mtime_ns == m for d, m in self._listing[0].items())
        except OSError:
            return False

    def files(self) -> dict[str, Path]:
        """Virtual path → local file, for every file to mirror."""
        if self._listing is not None and self._listing_is_current():
            return dict(self._listing[1])
        found: dict[str, Path] = {}
        dirs: dict[str, int] = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            dirs[dirpath] = os.stat(dirpath).st_mtime_ns
            dirnames[:] = sorted(d for d in dirnames if d not in _SKIP_NAMES and d[0] != ".")
            rel = os.path.relpath(dirpath, self.root)
            base = self.prefix if rel == "." else f"{self.prefix}{Path(rel).as_posix()}/"
            for name in sorted(filenames):
                if name not in _SKIP_NAMES and name[0] != ".":
                    found[base + name] = Path(dirpath, name)
        for vpath, path in self.extra.items():
            if path.is_file():
                found[vpath] = path
        self._listing = (dirs, dict(found))
        return found

    def hashes(self, files: Mapping[str, Path] | None = None) -> dict[str, str]:
        """Virtual path → sha256 of the local content (of ``files``, default all)."""
        files = self.files() if files is None else files
        return {vpath: self._hash(path) for vpath, path in files.items()}


def _read_manifest(sandbox: BackendProtocol) -> dict[str, str]:
    response = sandbox.download_files([MANIFEST_PATH])[0]
    if response.error is not None or response.content is None:
        return {}
    try:
        data = json.loads(response.content.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        logger.warning("SkillsSync: unreadable manifest %s; uploading everything", MANIFEST_PATH)
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): str(v) for k, v in data.items()}


def sync_tree(tree: LocalTree, sandbox: BackendProtocol) -> SyncReport:
    """Bring ``sandbox`` in line with ``tree``, uploading only what changed (blocking)."""
    report = SyncReport()
    paths = tree.files()
    local = tree.hashes(paths)
    manifest = _read_manifest(sandbox)
    todo = [vpath for vpath, digest in local.items() if manifest.get(vpath) != digest]
    report.unchanged = len(local) - len(todo)
    if todo:
        uploads = [(vpath, paths[vpath].read_bytes()) for vpath in todo]
        for response in sandbox.upload_files(uploads):
            if response.error is not None:
                report.failed.append(response.path)
            elif response.path in manifest:
                report.updated.append(response.path)
            else:
                report.added.append(response.path)
    # Only files this sync put there are removed: skills an agent assigned stay.
    for vpath in sorted(set(manifest) - set(local)):
        result = sandbox.delete(vpath)
        if result.error is None:
            report.removed.append(vpath)
        else:
            logger.info("SkillsSync: could not remove %s: %s", vpath, result.error)
    if report.changed or report.failed or set(manifest) != set(local):
        new_manifest = {v: d for v, d in local.items() if v not in report.failed}
        body = json.dumps(new_manifest, sort_keys=True).encode("utf-8")
        error = sandbox.upload_files([(MANIFEST_PATH, body)])[0].error
        if error is not None:
            logger.warning("SkillsSync: manifest not written (%s)", error)
    if report.failed:
        logger.warning("SkillsSync: upload failed for %s", report.failed)
    return report


def full_upload(tree: LocalTree, sandbox: BackendProtocol) -> int:
    """Upload every file of ``tree`` (the benchmark's baseline); the number uploaded."""
    paths = tree.files()
    sandbox.upload_files([(vpath, path.read_bytes()) for vpath, path in paths.items()])
    return len(paths)


class SkillsNotesState(SkillsState, NotesState):
    """deepagents' skills state (``skills_metadata``) and the run's model notes."""


class SkillsSync(NoteLayer):
    """Mirror local skills (and ``/AGENTS.md``) into the thread's sandbox before each run.

    ``sandbox`` is the sandbox backend itself (for example the ``ThreadSandboxBackend``
    the graph's CompositeBackend defaults to), not the composite: the composite may
    route ``/skills/`` elsewhere.
    """

    # Shares deepagents' skills state: clearing ``skills_metadata`` makes its
    # SkillsMiddleware (later in the stack) reload the skills it caches per thread.
    state_schema = SkillsNotesState

    def __init__(
        self,
        *,
        sandbox: BackendProtocol | SandboxGetter,
        skills_dir: Path,
        agents_md: Path | None = AGENTS_MD,
        prefix: str = "/skills/",
    ) -> None:
        """Sync ``skills_dir`` to ``prefix`` and ``agents_md`` to ``/AGENTS.md``."""
        extra = {"/AGENTS.md": agents_md} if agents_md is not None else {}
        self.tree = LocalTree(skills_dir, prefix=prefix, extra=extra)
        self._sandbox = sandbox

    def _sync(self) -> SyncReport:
        sandbox = resolve_sandbox(self._sandbox)
        seed = getattr(sandbox, "seed", None)
        if isinstance(seed, BackendProtocol):
            with _seed_lock:
                sync_tree(self.tree, seed)
        return sync_tree(self.tree, sandbox)

    def _run(self, state: AgentState[Any]) -> dict[str, Any] | None:
        # Fail soft: the agent works with what the sandbox has.
        report = self.soft(self._sync, None)
        if report is None or not report.changed:
            # Last run's note said what changed then; this run has nothing new to say.
            return self.clear_note(state)
        logger.info("SkillsSync: %s", report.describe())
        text = SKILLS_SYNC_PROMPT.format(changes=report.describe())
        return {**self.note_update(text), "skills_metadata": None}

    def before_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """Sync; a note for this run's model calls listing the changes, or nothing."""
        return self._run(state)

    async def abefore_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """Sync off the event loop (hashing and uploads touch the disk)."""
        # to_thread copies the context, so the sandbox still sees the run's thread id.
        return await asyncio.to_thread(self._run, state)
