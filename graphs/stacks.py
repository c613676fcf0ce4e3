"""Each agent's middleware stack and call limits, declared once: one table per agent.

DESIGN section 4's layers, in the order a table lists them:

- ``authenticated_user`` (``before_agent``): with auth on, the context's user becomes the
  authenticated caller before any layer reads it (the one layer that fails closed);
- ``context_injection`` (``before_agent``), ``skills_sync`` (``before_agent``),
  ``user_skills_restore`` (``abefore_agent``);
- ``summarization``: deepagents' summarization plus ``compact_conversation`` (two objects,
  one engine); named ``SummarizationMiddleware``, it replaces deepagents' default in place;
- ``memory_update`` (``aafter_agent``): only the orchestrator, which owns the conversation;
- ``limits``: the model-call and the tool-call limit, with the table's numbers;
- ``files``: deepagents' FilesystemMiddleware (file tools, large results evicted to files)
  with our eviction threshold; named like deepagents' default, it replaces it in place;

- ``order_review``: the order agent's approval step (LangChain's human-in-the-loop, with
  the card and the approval policy) and, after it, the guard that checks each proposed
  order with the ERP first (``after_model`` hooks run last-listed first); both fail closed;

and beside them ``user_context`` (the user's id and paths in the analyst's prompt),
``mcp_tools`` (the agent's MCP tools, listed on first use), ``client_tools`` (a JSON-RPC
client's own tools, DESIGN section 8), ``substitution`` (part substitution in a BOM: the
table, its approval and its one application, issue 19), ``current_date`` (today's date in
the prompt at each call), ``analyst_progress`` (the analyst's stages as ``custom`` stream
events) and ``analysis_outcome`` (an analysis that could not be done ends its run in error, not as
"finished"; innermost, so deepagents' notifier reports the error to the parent).
Every layer but ``authenticated_user``, ``order_review``, ``substitution`` (its approval)
and ``analysis_outcome`` fails soft. The notes some layers have for the model (user
context, synced or restored skills) go into each model request, never into the thread's
messages.

:func:`build_stack` turns a table into the list for ``create_deep_agent(middleware=...)``
(or a subagent's ``middleware``); deepagents adds its own core middleware before it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from graphs.middleware.limits import Limits
from graphs.middleware.skills_sync import AGENTS_MD

if TYPE_CHECKING:
    from deepagents.backends.protocol import BackendProtocol
    from langchain.agents.middleware.types import AgentMiddleware
    from langchain_core.language_models import BaseChatModel

    from graphs.mcp_registry import McpRegistry
    from graphs.memory.suppliers import SupplierSource
    from graphs.storage import SandboxGetter

__all__ = ["ANALYST", "ORCHESTRATOR", "PROCUREMENT_ORDER", "TABLES", "AgentTable", "build_stack"]

AgentName = Literal["orchestrator", "analyst", "procurement-order"]
Layer = Literal[
    "authenticated_user",
    "context_injection",
    "skills_sync",
    "user_skills_restore",
    "summarization",
    "memory_update",
    "limits",
    "user_context",
    "mcp_tools",
    "client_tools",
    "substitution",
    "current_date",
    "order_review",
    "files",
    "analyst_progress",
    "analysis_outcome",
]


@dataclass(frozen=True)
class AgentTable:
    """One agent's middleware, in order, and its per-run call limits."""

    name: AgentName
    layers: tuple[Layer, ...]
    limits: Limits


_CORE: tuple[Layer, ...] = (
    "files",
    "authenticated_user",
    "context_injection",
    "skills_sync",
    "user_skills_restore",
    "summarization",
)

ORCHESTRATOR = AgentTable(
    name="orchestrator",
    # mcp_tools: the read-only ERP tools mcp_servers.yaml grants it (grounding, stock answers).
    # substitution after client_tools: its request rewrite sees (and withholds) the
    # client's apply tool.
    layers=(
        "mcp_tools",
        *_CORE,
        "memory_update",
        "limits",
        "client_tools",
        "substitution",
        "current_date",
    ),
    limits={"model_calls": 50, "tool_calls": 200},
)
ANALYST = AgentTable(
    name="analyst",
    layers=(
        "user_context",
        "mcp_tools",
        *_CORE,
        "limits",
        "current_date",
        "analyst_progress",
        "analysis_outcome",
    ),
    limits={"model_calls": 50, "tool_calls": 200},
)
PROCUREMENT_ORDER = AgentTable(
    name="procurement-order",
    layers=("mcp_tools", *_CORE, "limits", "current_date", "order_review"),
    limits={"model_calls": 20, "tool_calls": 50},
)
TABLES: dict[AgentName, AgentTable] = {
    t.name: t for t in (ORCHESTRATOR, ANALYST, PROCUREMENT_ORDER)
}


@dataclass
class _Parts:
    """What the layers are made of; the models and the MCP registry resolved on demand."""

    agent: AgentName
    backend: BackendProtocol
    sandbox: BackendProtocol | SandboxGetter
    skills_dir: Path
    agents_md: Path | None
    limits: Limits
    summary_model: BaseChatModel | None
    memory_model: BaseChatModel | None
    suppliers: SupplierSource | None
    registry: McpRegistry | None
    mcp_timeout_s: float
    order_tools: tuple[str, ...]
    evict_tokens: int | None

    def mcp(self) -> McpRegistry:
        if self.registry is None:
            from graphs.toolbox import registry

            self.registry = registry()
        return self.registry

    def summarizer(self) -> BaseChatModel:
        if self.summary_model is None:
            from graphs.models import summary_model

            self.summary_model = summary_model()
        return self.summary_model

    def memory(self) -> tuple[BaseChatModel, SupplierSource]:
        if self.memory_model is None:
            from graphs.models import summary_model

            # SUMMARY_MODEL, or the offline planner's memory policy without a key.
            self.memory_model = summary_model(policy="memory")
        if self.suppliers is None:
            from graphs.memory.suppliers import McpSupplierDirectory

            self.suppliers = McpSupplierDirectory(self.mcp())
        return self.memory_model, self.suppliers


def _erp_layer(layer: Layer, parts: _Parts) -> list[AgentMiddleware[Any, Any, Any]]:
    """The layers that reach the ERP through the MCP registry."""
    from graphs.middleware import analyst_progress, mcp_tools, order_approval, order_guard
    from graphs.middleware import substitution as substitution_mw

    match layer:
        case "mcp_tools":
            return [
                mcp_tools.McpToolsMiddleware(
                    parts.mcp(), agent=parts.agent, timeout=parts.mcp_timeout_s
                )
            ]
        case "substitution":
            return [
                substitution_mw.Substitution(
                    parts.mcp(), agent=parts.agent, timeout=parts.mcp_timeout_s
                )
            ]
        case "order_review":
            return [
                order_approval.OrderApproval(parts.order_tools),
                order_guard.OrderGuard(
                    parts.mcp(),
                    agent=parts.agent,
                    tools=parts.order_tools,
                    timeout=parts.mcp_timeout_s,
                ),
            ]
        case "analyst_progress":
            data_tools = parts.mcp().declared_tools(parts.agent)
            return [analyst_progress.AnalystProgress(data_tools=data_tools)]
    msg = f"{layer} is not an ERP layer"
    raise ValueError(msg)


def _layer(layer: Layer, parts: _Parts) -> list[AgentMiddleware[Any, Any, Any]]:
    """The middleware of one table entry (imported here: building a graph is when they load)."""
    from graphs.middleware import (
        analysis_outcome,
        authenticated_user,
        client_tools,
        context_injection,
        current_date,
        limits,
        memory_update,
        skills_sync,
        summarization,
        user_context,
        user_skills_restore,
    )

    match layer:
        case "files":
            from deepagents.middleware.filesystem import FilesystemMiddleware

            # Large tool results (pages, ERP answers, file reads) go to files in the
            # sandbox, not into the thread's state, which every checkpoint copies.
            evict = parts.evict_tokens or _evict_tokens()
            return [
                FilesystemMiddleware(backend=parts.backend, tool_token_limit_before_evict=evict)
            ]
        case "authenticated_user":
            return [authenticated_user.AuthenticatedUser()]
        case "context_injection":
            return [context_injection.ContextInjection()]
        case "skills_sync":
            return [
                skills_sync.SkillsSync(
                    sandbox=parts.sandbox, skills_dir=parts.skills_dir, agents_md=parts.agents_md
                )
            ]
        case "user_skills_restore":
            return [
                user_skills_restore.UserSkillsRestore(files=parts.backend, sandbox=parts.sandbox)
            ]
        case "summarization":
            return summarization.build_summarization(parts.summarizer(), parts.backend)
        case "memory_update":
            model, suppliers = parts.memory()
            return [
                memory_update.MemoryUpdate(files=parts.backend, model=model, suppliers=suppliers)
            ]
        case "limits":
            return list(limits.build_limits(parts.limits))
        case "user_context":
            return [user_context.UserContextMiddleware()]
        case "client_tools":
            return [client_tools.ClientToolsMiddleware()]
        case "current_date":
            return [current_date.CurrentDate()]
        case "analysis_outcome":
            return [analysis_outcome.AnalysisOutcome()]
        case "mcp_tools" | "substitution" | "order_review" | "analyst_progress":
            return _erp_layer(layer, parts)


def _evict_tokens() -> int:
    from graphs.settings import get_settings

    return get_settings().tool_result_evict_tokens


def build_stack(
    agent: AgentName,
    *,
    backend: BackendProtocol,
    sandbox: BackendProtocol | SandboxGetter,
    skills_dir: Path,
    summary_model: BaseChatModel | None = None,
    memory_model: BaseChatModel | None = None,
    suppliers: SupplierSource | None = None,
    registry: McpRegistry | None = None,
    mcp_timeout_s: float = 60.0,
    agents_md: Path | None = AGENTS_MD,
    limits: Limits | None = None,
    order_tools: Sequence[str] = ("order_create", "order_update"),
    evict_tokens: int | None = None,
) -> list[AgentMiddleware[Any, Any, Any]]:
    """The middleware of ``agent``'s table, in order.

    Args:
        agent: whose table.
        backend: the graph's CompositeBackend (Store routes for memories and skills,
            conversation-history offload).
        sandbox: the sandbox backend itself (or a getter), for ``/skills/`` and
            ``/AGENTS.md``.
        skills_dir: the checkout's ``skills/`` folder.
        summary_model: summarises (default: ``graphs.models.summary_model()``).
        memory_model: extracts memories (default: ``SUMMARY_MODEL``, or the offline
            planner's memory policy when no key is configured).
        suppliers: the ERP's supplier names for MemoryUpdate (default: through the ERP
            MCP tools of ``registry``).
        registry: the MCP servers (default: ``graphs.toolbox.registry()``).
        mcp_timeout_s: longest wait for one MCP tool call.
        agents_md: the global guidelines seeded as ``/AGENTS.md`` (``None``: none).
        limits: other call limits than the table's (a setting, or a test).
        order_tools: the committing tools the ``order_review`` layer checks and puts up for
            approval (the subagent YAML's ``interrupt_on``).
        evict_tokens: tool results longer than this (tokens) go to files (default: the
            ``TOOL_RESULT_EVICT_TOKENS`` setting).
    """
    table = TABLES[agent]
    parts = _Parts(
        agent=agent,
        backend=backend,
        sandbox=sandbox,
        skills_dir=skills_dir,
        agents_md=agents_md,
        limits=limits or table.limits,
        summary_model=summary_model,
        memory_model=memory_model,
        suppliers=suppliers,
        registry=registry,
        mcp_timeout_s=mcp_timeout_s,
        order_tools=tuple(order_tools),
        evict_tokens=evict_tokens,
    )
    return [mw for layer in table.layers for mw in _layer(layer, parts)]
