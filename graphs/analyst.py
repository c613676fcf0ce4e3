"""The ``analyst`` graph: the background procurement analysis (DESIGN section 4).

Started by the orchestrator's ``start_async_task`` on its own thread; deepagents'
parent notifier wakes the orchestrator when the run ends. Five stages: skills →
data (ERP through MCP, quote pages through fetch_url) → a Python analysis in the
sandbox → 2-4 charts → the report, also kept in the Store under ``/reports/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphs.build_once import BuildOnce
from graphs.prompts import ANALYST_PROMPT
from graphs.settings import get_settings
from graphs.tracing import configure_tracing, graph_factory
from graphs.tracing import install as install_tracing_override

if TYPE_CHECKING:
    from langgraph.graph.state import CompiledStateGraph

__all__ = ["ANALYST_TOOLS", "build_analyst", "compiled", "make_graph"]

ANALYST_TOOLS = ("generate_visualization", "web_search", "fetch_url")

install_tracing_override()  # LangSmith's hook bookkeeping inline while tracing is off


def build_analyst() -> CompiledStateGraph[Any, Any, Any, Any]:
    """Assemble the analyst (synchronous; checks the sandbox, connects to nothing)."""
    # Imported here, not at module import, so the Agent Server starts fast.
    from deepagents import create_deep_agent

    from graphs.context import Context
    from graphs.middleware.current_date import TODAY
    from graphs.middleware.skills_pins import skills_layer
    from graphs.models import main_model
    from graphs.stacks import build_stack
    from graphs.state import ANALYST_STATE
    from graphs.storage import make_backend, shared_sandbox
    from graphs.toolbox import local_tools, registry
    from graphs.tools.artifacts import make_download_artifact
    from graphs.tools.artifacts_report import make_export_report, make_save_chart
    from graphs.tools.web.settings import WebSettings

    configure_tracing()
    settings = get_settings()
    tools = local_tools()
    backend = make_backend(skills_dir=settings.skills_dir)
    sandbox = shared_sandbox()
    stack = build_stack(
        "analyst",
        backend=backend,
        sandbox=sandbox,
        skills_dir=settings.skills_dir,
        mcp_timeout_s=settings.mcp_call_timeout_s,
    )
    return create_deep_agent(
        model=main_model(policy="analyst"),
        tools=[
            *(tools[name] for name in ANALYST_TOOLS),
            make_download_artifact(sandbox=sandbox),
            # The report made portable: charts beside it, HTML and PDF exports (issue 15).
            make_save_chart(backend=backend, chart_url=registry().url("viz")),
            make_export_report(backend=backend),
        ],
        # The date is filled in at each model call (CurrentDate): this graph outlives a day.
        system_prompt=ANALYST_PROMPT.format(
            today=TODAY, sites=WebSettings().supplier_sites_url.rstrip("/")
        ),
        backend=backend,
        memory=["/AGENTS.md"],  # the global guidelines SkillsSync seeds into the sandbox
        # Declared so Studio can read it on Python 3.11, and the wake-up message is marked.
        state_schema=ANALYST_STATE,
        context_schema=Context,
        # Skills as deepagents loads them, pinned once per run (no node per model call).
        middleware=[*stack, skills_layer(backend, ["/skills/procurement/"])],
        name="analyst",
    )


_graph: BuildOnce[CompiledStateGraph[Any, Any, Any, Any]] = BuildOnce(build_analyst)


async def compiled() -> CompiledStateGraph[Any, Any, Any, Any]:
    """The compiled ``analyst`` graph: built once per process, off the event loop."""
    return await _graph.get()


make_graph = graph_factory(_graph)
"""The ``analyst`` graph for langgraph.json."""
