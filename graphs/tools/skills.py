"""``assign_skill``: the skill lifecycle of DESIGN section 4 in one tool.

create / download a skill into the sandbox (``/skills/drafts/<name>/``) → test it →
assign it to an agent (copied into that agent's skills folder, and persisted in the
Store under ``/persisted-skills/{user_id}/``) → it comes back after a sandbox restart
or on another thread (UserSkillsRestore) → remove it. ``list`` shows drafts and
assigned skills. The procedure for the model is ``skills/main/skill-management/SKILL.md``.
"""

from __future__ import annotations

import logging
import re
import shlex
from collections.abc import Awaitable, Callable
from typing import Annotated, Any, Literal

import yaml
from deepagents.backends.protocol import BackendProtocol, SandboxBackendProtocol
from langchain.tools import ToolRuntime
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, StructuredTool
from langgraph.types import Command
from pydantic import BaseModel, Field

from graphs.context import user_fields
from graphs.storage import PERSISTED_ROOT, persisted_path, resolve_sandbox

__all__ = [
    "AGENT_SKILL_DIRS",
    "ASSIGN_SKILL_DESCRIPTION",
    "DRAFTS_DIR",
    "AssignSkillInput",
    "check_skill_md",
    "front_matter",
    "is_skill_name",
    "make_assign_skill",
]

logger = logging.getLogger(__name__)

DRAFTS_DIR = "/skills/drafts/"
AGENT_SKILL_DIRS: dict[str, str] = {
    "orchestrator": "/skills/main/",
    "analyst": "/skills/procurement/",
    "procurement-order": "/skills/order/",
}
"""Where each agent's ``SkillsMiddleware`` looks (its ``skills=[...]`` source)."""

ASSIGN_SKILL_DESCRIPTION = (
    "Manage skills (SKILL.md folders). action=create (name + content: the SKILL.md text with "
    "front matter name/description) or download (name + url) puts a draft in "
    "/skills/drafts/<name>/ (add more files there with write_file); test checks the front "
    "matter and runs the draft's tests/*.py or scripts/test_*.py in the sandbox; assign copies "
    "the draft to an agent (orchestrator, analyst, procurement-order) and keeps it across "
    "sessions; remove takes it away from that agent; list shows drafts and assigned skills. "
    "See /skills/main/skill-management/SKILL.md."
)

_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*(?:\n|\Z)", re.S)
_MAX_SKILL_BYTES = 256_000
_TEST_TIMEOUT_S = 120

Fetch = Callable[[str], Awaitable[tuple[str | None, str | None]]]
"""``url → (text, error)``."""

SandboxGetter = Callable[[], SandboxBackendProtocol]
"""The sandbox given as a getter (this tool needs one that can execute tests)."""


class AssignSkillInput(BaseModel):
    """Arguments of ``assign_skill``."""

    action: Annotated[
        Literal["create", "download", "test", "assign", "remove", "list"],
        Field(description="What to do."),
    ]
    name: Annotated[
        str | None,
        Field(description="Skill name: lowercase letters, digits and '-', e.g. 'moq-checker'."),
    ] = None
    agent: Annotated[
        Literal["orchestrator", "analyst", "procurement-order"] | None,
        Field(description="For assign / remove: which agent gets (or loses) the skill."),
    ] = None
    content: Annotated[str | None, Field(description="For create: the full SKILL.md text.")] = None
    url: Annotated[str | None, Field(description="For download: URL of a SKILL.md (raw text).")] = (
        None
    )


def is_skill_name(name: object) -> bool:
    """Whether ``name`` can name a skill folder (lowercase letters, digits, '-')."""
    return isinstance(name, str) and _NAME.match(name) is not None


def _read_front(text: str) -> tuple[dict[str, Any] | None, int, str]:
    """``(front matter, where the body starts, the problem)`` of a SKILL.md: the mapping
    and its end offset, or ``None`` and a sentence saying what is wrong."""
    match = _FRONT.match(text.lstrip("\ufeff"))
    if match is None:
        return None, 0, "SKILL.md must start with YAML front matter between '---' lines."
    try:
        meta = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        return None, 0, f"front matter is not valid YAML: {exc}"
    if not isinstance(meta, dict):
        return None, 0, "front matter must be a mapping with name and description."
    return meta, match.end(), ""


def front_matter(text: str) -> dict[str, Any] | None:
    """The YAML front matter a SKILL.md starts with, as a mapping; None when there is none
    or it is not a mapping of valid YAML."""
    return _read_front(text)[0]


def check_skill_md(text: str, name: str) -> list[str]:
    """Problems with a SKILL.md for skill ``name`` (empty when it is usable)."""
    meta, body_at, problem = _read_front(text)
    if meta is None:
        return [problem]
    problems = []
    if meta.get("name") != name:
        problems.append(
            f"front matter name must be {name!r} (the folder name), got {meta.get('name')!r}."
        )
    description = meta.get("description")
    if not isinstance(description, str) or not description.strip():
        problems.append("front matter needs a non-empty description (when to use the skill).")
    elif len(description) > 1024:
        problems.append("description is longer than 1024 characters.")
    if not text[body_at:].strip():
        problems.append("SKILL.md has no instructions after the front matter.")
    return problems


async def _default_fetch(url: str) -> tuple[str | None, str | None]:
    # The SSRF-guarded fetcher: a skill URL is as untrusted as any web page.
    from graphs.tools.web.fetcher import fetch_markdown

    result = await fetch_markdown(url)
    if not result.ok:
        return None, result.error or "download failed"
    return result.markdown, None


class _Skills:
    def __init__(
        self,
        sandbox: SandboxBackendProtocol | SandboxGetter,
        files: BackendProtocol,
        fetch: Fetch,
    ) -> None:
        self._sandbox = sandbox
        self.files = files
        self.fetch = fetch

    @property
    def sandbox(self) -> SandboxBackendProtocol:
        return resolve_sandbox(self._sandbox)

    async def _tree(self, backend: BackendProtocol, root: str) -> dict[str, bytes]:
        found = await backend.aglob("**/*", path=root)
        if found.error:
            return {}
        paths = sorted(i["path"] for i in found.matches or [] if not i.get("is_dir"))
        if not paths:
            return {}
        return {
            r.path: r.content
            for r in await backend.adownload_files(paths)
            if r.error is None and r.content is not None
        }

    async def write_draft(self, name: str, text: str) -> str:
        if len(text.encode("utf-8")) > _MAX_SKILL_BYTES:
            return f"Error: SKILL.md is larger than {_MAX_SKILL_BYTES} bytes."
        problems = check_skill_md(text, name)
        if problems:
            return "Error: SKILL.md not accepted: " + " ".join(problems)
        path = f"{DRAFTS_DIR}{name}/SKILL.md"
        result = (await self.sandbox.aupload_files([(path, text.encode("utf-8"))]))[0]
        if result.error is not None:
            return f"Error: could not write {path}: {result.error}"
        return (
            f"Draft skill '{name}' written to {path}. Add files beside it if needed, then "
            f"assign_skill(action='test', name='{name}')."
        )

    async def download(self, name: str, url: str) -> str:
        text, error = await self.fetch(url)
        if text is None:
            return f"Error: could not download {url}: {error}"
        return await self.write_draft(name, text)

    async def test(self, name: str) -> str:
        root = f"{DRAFTS_DIR}{name}/"
        tree = await self._tree(self.sandbox, root)
        skill_md = tree.get(root + "SKILL.md")
        if skill_md is None:
            return f"Error: no draft {root}SKILL.md; create or download it first."
        problems = check_skill_md(skill_md.decode("utf-8", "replace"), name)
        lines = [f"Skill '{name}': {len(tree)} file(s)."]
        lines.append("SKILL.md: " + ("OK" if not problems else "; ".join(problems)))
        tests = [
            p.removeprefix(root)
            for p in tree
            if re.search(r"(^|/)(tests/[^/]+|scripts/test_[^/]+)\.py$", p.removeprefix(root))
        ]
        failed = bool(problems)
        for rel in tests:
            command = f"cd {shlex.quote(root)} && python3 {shlex.quote(rel)}"
            response = await self.sandbox.aexecute(command, timeout=_TEST_TIMEOUT_S)
            ok = response.exit_code == 0
            failed = failed or not ok
            tail = response.output.strip()[-800:]
            lines.append(f"{rel}: {'passed' if ok else f'FAILED (exit {response.exit_code})'}")
            if not ok and tail:
                lines.append(tail)
        if not tests:
            lines.append("No tests (tests/*.py or scripts/test_*.py) to run.")
        lines.append("Result: " + ("FAILED" if failed else "passed; ready to assign."))
        return "\n".join(lines)

    async def assign(self, name: str, agent: str, user_id: str) -> str:
        root = f"{DRAFTS_DIR}{name}/"
        tree = await self._tree(self.sandbox, root)
        skill_md = tree.get(root + "SKILL.md")
        if skill_md is None:
            return f"Error: no draft {root}SKILL.md; create or download it first."
        problems = check_skill_md(skill_md.decode("utf-8", "replace"), name)
        if problems:
            return "Error: fix the draft first: " + " ".join(problems)
        dest = f"{AGENT_SKILL_DIRS[agent]}{name}/"
        persisted_root = persisted_path(user_id, dest)
        existing = await self.sandbox.adownload_files([dest + "SKILL.md"])
        mine = await self.files.adownload_files([persisted_root + "SKILL.md"])
        if existing[0].error is None and mine[0].error is not None:
            return f"Error: {dest} is a built-in skill; choose another name for yours."
        # Replace, not merge: files dropped from the draft must not linger.
        if existing[0].error is None:
            await self.sandbox.adelete(dest.rstrip("/"))
            await self.files.adelete(persisted_root.rstrip("/"))
        copies = [(dest + p.removeprefix(root), data) for p, data in tree.items()]
        errors = [r.path for r in await self.sandbox.aupload_files(copies) if r.error]
        stored = [(persisted_path(user_id, p), data) for p, data in copies]
        errors += [r.path for r in await self.files.aupload_files(stored) if r.error]
        if errors:
            return f"Error: could not copy {errors}."
        return (
            f"Skill '{name}' assigned to {agent}: {dest} ({len(copies)} file(s)), kept in "
            f"{persisted_root} and restored into new sandboxes. It is available to {agent} "
            "from its next run."
        )

    async def remove(self, name: str, agent: str, user_id: str) -> str:
        dest = f"{AGENT_SKILL_DIRS[agent]}{name}"
        stored = persisted_path(user_id, dest)
        mine = await self.files.adownload_files([stored + "/SKILL.md"])
        if mine[0].error is not None:
            return f"Error: {agent} has no skill '{name}' of yours to remove."
        store_result = await self.files.adelete(stored)
        sandbox_result = await self.sandbox.adelete(dest)
        if store_result.error:
            return f"Error: could not remove {stored}: {store_result.error}"
        note = "" if sandbox_result.error is None else f" (sandbox: {sandbox_result.error})"
        return f"Skill '{name}' removed from {agent}{note}."

    async def list(self, user_id: str) -> str:
        stored = await self._tree(self.files, f"{PERSISTED_ROOT}{user_id}/")
        assigned = sorted(
            p.removeprefix(f"{PERSISTED_ROOT}{user_id}/").removesuffix("/SKILL.md")
            for p in stored
            if p.endswith("/SKILL.md")
        )
        drafts_found = await self.sandbox.aglob("*/SKILL.md", path=DRAFTS_DIR)
        drafts = sorted(
            i["path"].removeprefix(DRAFTS_DIR).removesuffix("/SKILL.md")
            for i in drafts_found.matches or []
        )
        where = {v.strip("/").removeprefix("skills/"): k for k, v in AGENT_SKILL_DIRS.items()}
        lines = ["Assigned (kept across sessions):"]
        for rel in assigned:
            folder, _, skill = rel.rpartition("/")
            lines.append(f"- {skill} → {where.get(folder, folder)}")
        if not assigned:
            lines.append("- none")
        lines.append("Drafts in /skills/drafts/: " + (", ".join(drafts) or "none"))
        return "\n".join(lines)


def _reload_skills(text: str, runtime: ToolRuntime) -> str | Command[Any]:
    """``text``, plus a reload of deepagents' per-thread skills cache after a change."""
    state = runtime.state if isinstance(runtime.state, dict) else {}
    if text.startswith("Error") or "skills_metadata" not in state:
        return text
    message = ToolMessage(text, tool_call_id=runtime.tool_call_id or "", name="assign_skill")
    return Command(update={"messages": [message], "skills_metadata": None})


def make_assign_skill(
    *,
    sandbox: SandboxBackendProtocol | SandboxGetter,
    files: BackendProtocol,
    fetch: Fetch | None = None,
) -> BaseTool:
    """The ``assign_skill`` tool over the thread's ``sandbox`` and the Store (via ``files``).

    ``files`` must route ``/persisted-skills/`` to the Store (the graph's CompositeBackend);
    ``fetch`` downloads a URL (default: the SSRF-guarded ``fetch_url`` machinery).
    """
    skills = _Skills(sandbox, files, fetch or _default_fetch)

    async def run(
        action: str,
        runtime: ToolRuntime,
        name: str | None = None,
        agent: str | None = None,
        content: str | None = None,
        url: str | None = None,
    ) -> str | Command[Any]:
        fields = user_fields(runtime.context)
        if fields is None:
            return "Error: this run has no user_id in its context; skills are kept per user."
        user_id = fields[0]
        if action == "list":
            return await skills.list(user_id)
        if not name or not is_skill_name(name):
            return "Error: name must be lowercase letters, digits and '-' (e.g. 'moq-checker')."
        try:
            if action == "create":
                if not content:
                    return "Error: create needs content (the SKILL.md text)."
                return await skills.write_draft(name, content)
            if action == "download":
                if not url:
                    return "Error: download needs url."
                return await skills.download(name, url)
            if action == "test":
                return await skills.test(name)
            if agent is None:
                return f"Error: {action} needs agent (orchestrator, analyst or procurement-order)."
            if action == "assign":
                text = await skills.assign(name, agent, user_id)
            else:
                text = await skills.remove(name, agent, user_id)
            return _reload_skills(text, runtime)
        except Exception as exc:  # a tool answers the model; it does not take the run down
            logger.warning("assign_skill %s %s failed", action, name, exc_info=True)
            return f"Error: {action} failed: {exc}"

    return StructuredTool.from_function(
        # Async only (the Agent Server runs graphs async); the injected runtime is found
        # from the coroutine's signature.
        coroutine=run,
        name="assign_skill",
        description=ASSIGN_SKILL_DESCRIPTION,
        args_schema=AssignSkillInput,
    )
