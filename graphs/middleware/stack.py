"""The middleware stack of DESIGN section 4, in order, for each agent.

0. AuthenticatedUser (``before_agent``): with auth on, the context's user becomes the
   authenticated caller before any layer reads it (the one layer that fails closed)
1. ContextInjection (``before_agent``)
2. SkillsSync (``before_agent``)
3. UserSkillsRestore (``abefore_agent``)
4. Summarization + ``compact_conversation`` (two objects sharing one engine)
5. MemoryUpdate (``aafter_agent``; the orchestrator's by default)
6. the model-call limit, 7. the tool-call limit

Every other layer fails soft. Pass the list as ``create_deep_agent(middleware=...)`` (or a
subagent's ``middleware``): the summarization layer is named
``SummarizationMiddleware`` and replaces deepagents' default one in place; the others
are added after deepagents' core middleware, in this order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepagents.backends.protocol import BackendProtocol
from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.language_models import BaseChatModel

from graphs.middleware.authenticated_user import AuthenticatedUser
from graphs.middleware.context_injection import ContextInjection
from graphs.middleware.limits import AgentName, Limits, build_limits
from graphs.middleware.memory_update import MemoryUpdate, SupplierSource
from graphs.middleware.skills_sync import AGENTS_MD, SandboxGetter, SkillsSync
from graphs.middleware.summarization import build_summarization
from graphs.middleware.user_skills_restore import UserSkillsRestore

__all__ = ["build_stack"]


def build_stack(
    agent: AgentName,
    *,
    backend: BackendProtocol,
    sandbox: BackendProtocol | SandboxGetter,
    skills_dir: Path,
    summary_model: BaseChatModel | None = None,
    memory_model: BaseChatModel | None = None,
    suppliers: SupplierSource | None = None,
    memory: bool | None = None,
    agents_md: Path | None = AGENTS_MD,
    limits: Limits | None = None,
) -> list[AgentMiddleware[Any, Any, Any]]:
    """The stack of ``agent``, in DESIGN's order.

    Args:
        agent: which agent (sets the limits: 50/200, or 20/50 for procurement-order).
        backend: the graph's CompositeBackend (Store routes for memories and skills,
            conversation-history offload).
        sandbox: the sandbox backend itself (or a getter), for ``/skills/`` and
            ``/AGENTS.md``.
        skills_dir: the checkout's ``skills/`` folder.
        summary_model: summarises (``SUMMARY_MODEL``; default ``graphs.models.summary_model()``).
        memory_model: extracts memories (default: ``SUMMARY_MODEL`` with the offline
            planner's memory policy when no key is configured).
        suppliers: the ERP supplier list source (default: the ERP REST, cached).
        memory: include MemoryUpdate (default: only for the orchestrator, which owns
            the conversation with the user).
        agents_md: the global guidelines seeded as ``/AGENTS.md`` (``None``: none).
        limits: override the agent's call limits.
    """
    if summary_model is None or (memory_model is None and (memory or agent == "orchestrator")):
        from graphs import models  # the model factory reads settings: only when needed

        summary_model = summary_model or models.summary_model()
        if memory_model is None:
            memory_model = models.summary_model(policy="memory")
    stack: list[AgentMiddleware[Any, Any, Any]] = [
        AuthenticatedUser(),
        ContextInjection(),
        SkillsSync(sandbox=sandbox, skills_dir=skills_dir, agents_md=agents_md),
        UserSkillsRestore(files=backend, sandbox=sandbox),
        *build_summarization(summary_model, backend),
    ]
    if memory if memory is not None else agent == "orchestrator":
        stack.append(MemoryUpdate(files=backend, model=memory_model, suppliers=suppliers))
    stack.extend(build_limits(agent, limits=limits))
    return stack
