"""The ``orchestrator`` graph: understands the request, delegates, keeps memory (DESIGN section 4).

- the analyst is an ``AsyncSubAgent`` on this deployment (no url: in-process ASGI),
  graph ``analyst``, which wakes this agent when it finishes;
- procurement-order is a sync subagent from ``subagents/procurement_order.yaml``,
  its MCP tools listed on first use, its committing tools checked with the ERP and paused
  for approval by its own stack (the ``order_review`` layer of ``graphs/stacks.py``).

``make_graph`` is cheap: nothing connects, and the compiled graph is cached per process.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from graphs.build_once import BuildOnce
from graphs.models import announce_model_choice
from graphs.prompts import ORCHESTRATOR_PROMPT
from graphs.settings import get_settings
from graphs.tracing import configure_tracing, graph_factory
from graphs.tracing import install as install_tracing_override

if TYPE_CHECKING:
    from deepagents.backends.protocol import BackendProtocol
    from deepagents.middleware.subagents import SubAgent
    from langchain_core.tools import BaseTool
    from langgraph.graph.state import CompiledStateGraph

__all__ = ["ORCHESTRATOR_TOOLS", "build_orchestrator", "compiled", "make_graph"]

logger = logging.getLogger(__name__)

# The Agent Server imports this module at start-up: say then whether a key is configured
# (settings only; nothing connects).
announce_model_choice()
install_tracing_override()  # LangSmith's hook bookkeeping inline while tracing is off

ORCHESTRATOR_TOOLS = ("web_search", "get_current_time", "calculator")
ORDER_AGENT_FILE = "procurement_order.yaml"
ANALYST_CARD_FILE = "analyst.yaml"


def _order_subagent(
    tools: dict[str, BaseTool], backend: BackendProtocol, sandbox: BackendProtocol
) -> SubAgent:
    from graphs.middleware.skills_pins import skills_layer
    from graphs.models import main_model
    from graphs.stacks import build_stack
    from graphs.toolbox import registry
    from subagents.loader import load_sync_subagent

    settings = get_settings()
    path = settings.subagents_dir / ORDER_AGENT_FILE
    reg = registry()
    spec = load_sync_subagent(
        path,
        local_tools=tools,
        mcp_tools=set(reg.declared_tools("procurement-order")),
    )
    allowed = set(spec["mcp_tools"])
    undeclared = allowed - set(reg.declared_tools(spec["name"]))
    if undeclared:
        msg = (
            f"{path}: tools {sorted(undeclared)} are not granted to {spec['name']} in {reg.source}"
        )
        raise ValueError(msg)
    stack = build_stack(
        "procurement-order",
        backend=backend,
        sandbox=sandbox,
        skills_dir=settings.skills_dir,
        registry=reg,
        mcp_timeout_s=settings.mcp_call_timeout_s,
        order_tools=spec["interrupt_on"],
    )
    # No ``interrupt_on`` here: deepagents would append its own approval step after the
    # stack, where it would ask before the ERP's check; the stack's order_review layer
    # holds the approval step instead, after the check.
    return {
        "name": spec["name"],
        "description": spec["description"],
        "system_prompt": spec["system_prompt"],
        "model": main_model(policy="procurement-order"),
        "tools": spec["tools"],
        # /skills/order/: where assign_skill puts this agent's skills (pinned once per run).
        "middleware": [*stack, skills_layer(backend, ["/skills/order/"])],
    }


def build_orchestrator() -> CompiledStateGraph[Any, Any, Any, Any]:
    """Assemble the orchestrator (synchronous; reads YAML and checks the sandbox)."""
    # Imported here, not at module import, so the Agent Server starts fast.
    from deepagents import create_deep_agent

    from graphs.context import Context
    from graphs.middleware.current_date import TODAY
    from graphs.middleware.skills_pins import skills_layer
    from graphs.models import main_model
    from graphs.stacks import ORCHESTRATOR, build_stack
    from graphs.state import ORCHESTRATOR_STATE
    from graphs.storage import make_backend, shared_sandbox
    from graphs.toolbox import local_tools
    from graphs.tools.artifacts import make_download_artifact
    from graphs.tools.skills import make_assign_skill
    from subagents.loader import load_async_card

    configure_tracing()
    settings = get_settings()
    tools = local_tools()
    backend = make_backend(skills_dir=settings.skills_dir)
    analyst_card = load_async_card(settings.subagents_dir / ANALYST_CARD_FILE)
    # The date is filled in at each model call (CurrentDate): this graph outlives a day.
    prompt = ORCHESTRATOR_PROMPT.format(today=TODAY)
    sandbox = shared_sandbox()
    model_calls = settings.orchestrator_model_call_limit or ORCHESTRATOR.limits["model_calls"]
    stack = build_stack(
        "orchestrator",
        backend=backend,
        sandbox=sandbox,
        skills_dir=settings.skills_dir,
        mcp_timeout_s=settings.mcp_call_timeout_s,
        limits={**ORCHESTRATOR.limits, "model_calls": model_calls},
    )
    return create_deep_agent(
        model=main_model(policy="orchestrator"),
        tools=[
            *(tools[name] for name in ORCHESTRATOR_TOOLS),
            make_assign_skill(sandbox=sandbox, files=backend),
            make_download_artifact(sandbox=sandbox),
        ],
        system_prompt=prompt,
        subagents=[_order_subagent(tools, backend, sandbox), analyst_card],
        backend=backend,
        memory=["/AGENTS.md"],  # the global guidelines SkillsSync seeds into the sandbox
        # Declared so Studio can read it on Python 3.11, and the wake-up message is marked.
        state_schema=ORCHESTRATOR_STATE,
        context_schema=Context,
        # Skills as deepagents loads them, pinned once per run (no node per model call).
        middleware=[*stack, skills_layer(backend, ["/skills/main/"])],
        name="orchestrator",
    )


_graph: BuildOnce[CompiledStateGraph[Any, Any, Any, Any]] = BuildOnce(build_orchestrator)


async def compiled() -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled ``orchestrator`` graph: built once per process, off the event loop."""
    return await _graph.get()


make_graph = graph_factory(_graph)
"""The ``orchestrator`` graph for langgraph.json."""
