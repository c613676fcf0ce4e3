"""Graph factories: cheap, connect to nothing, and wire the pieces DESIGN section 4 names."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel

from graphs import models
from graphs.offline import OfflinePlanner
from graphs.order_keys import order_idempotency_key
from graphs.sandbox import check_bubblewrap
from graphs.settings import GraphSettings, get_settings

# scripts/setup installs bubblewrap; its absence is a failure here, never a skip.
check_bubblewrap()


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for key in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("MODEL", "deepseek:deepseek-v4-pro")
    monkeypatch.setenv("ERP_MCP_URL", "http://127.0.0.1:9/mcp")  # nothing listens: must not matter
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_no_key_means_the_offline_planner_announced_once(
    offline: None, caplog: pytest.LogCaptureFixture
) -> None:
    monkey_announced = models._announced
    models._announced = False
    try:
        first = models.main_model("orchestrator")
        second = models.main_model("analyst")
    finally:
        models._announced = monkey_announced or True
    assert isinstance(first, OfflinePlanner) and first.policy == "orchestrator"
    assert isinstance(second, OfflinePlanner) and second.policy == "analyst"
    assert sum("OFFLINE PLANNER" in r.message for r in caplog.records) == 1


def test_a_key_selects_the_configured_provider() -> None:
    settings = GraphSettings(
        MODEL="deepseek:deepseek-v4-pro", DEEPSEEK_API_KEY="sk-test", MODEL_TEMPERATURE=1.1
    )  # type: ignore[call-arg]
    model = models.resolve_model("main", policy="orchestrator", settings=settings)
    assert isinstance(model, BaseChatModel) and not isinstance(model, OfflinePlanner)
    assert type(model).__name__ == "ChatDeepSeek"


def test_an_openai_compatible_endpoint_needs_only_a_base_url() -> None:
    settings = GraphSettings(
        MODEL="openai:qwen-plus",  # type: ignore[call-arg]
        OPENAI_BASE_URL="http://127.0.0.1:1/v1",
    )
    model = models.resolve_model("main", policy="orchestrator", settings=settings)
    assert type(model).__name__ == "ChatOpenAI"
    assert str(getattr(model, "openai_api_base", "")).startswith("http://127.0.0.1:1")


async def test_both_graphs_build_without_any_server(offline: None) -> None:
    # How fast is scripts/bench/bench_cold_start.py's business, not a test's.
    from graphs import analyst, orchestrator

    orchestrator._graph.reset()
    analyst._graph.reset()
    orch, ana = await asyncio.gather(orchestrator.compiled(), analyst.compiled())
    assert (await orchestrator.compiled()) is orch  # cached per process
    assert set(orch.nodes) >= {"model", "tools"} and set(ana.nodes) >= {"model", "tools"}
    orchestrator._graph.reset()
    analyst._graph.reset()


def test_the_orchestrator_wires_its_subagents_and_limits(offline: None) -> None:
    from graphs.orchestrator import build_orchestrator

    graph = build_orchestrator()
    hooks = {name.split(".")[0] for name in graph.nodes}
    assert {"AsyncSubAgentMiddleware", "_ParentNotifierMiddleware"} <= hooks
    # The call limits wrap the model call (tests/e2e/test_agents_limits.py): no node of
    # their own, so no superstep, checkpoint or stream event per model call.
    assert not {h for h in hooks if "Limit" in h}
    # Skills are loaded and pinned at the start of a run (skills_pins), not before each call,
    # in the order agent (a subagent graph behind ``task``; deepagents is pinned) as well.
    task = graph.nodes["tools"].bound.tools_by_name["task"]  # type: ignore[attr-defined]
    subgraphs = inspect.getclosurevars(task.coroutine).nonlocals["subagent_graphs"]
    for g in (graph, subgraphs["procurement-order"]):
        nodes = set(g.get_graph().nodes)
        assert "SkillsMiddleware.before_agent" in nodes
        assert "SkillsMiddleware.before_model" not in nodes
    tools = set(graph.nodes["tools"].bound.tools_by_name)  # type: ignore[attr-defined]
    assert {"start_async_task", "check_async_task", "task", "web_search", "calculator",
            "get_current_time"} <= tools  # fmt: skip
    assert not tools & {"order_create", "part_query"}  # never calls ERP tools itself


def test_the_analyst_has_its_tools_but_no_order_tools(offline: None) -> None:
    from graphs.analyst import build_analyst

    graph = build_analyst()
    # One superstep per model call fewer: the skills' pins are taken at the run's start.
    assert "SkillsMiddleware.before_agent" in graph.nodes
    assert "SkillsMiddleware.before_model" not in graph.nodes
    tools = set(graph.nodes["tools"].bound.tools_by_name)  # type: ignore[attr-defined]
    assert {"generate_visualization", "fetch_url", "web_search", "execute", "write_file"} <= tools
    assert "task" in tools or "start_async_task" not in tools
    assert not tools & {"order_create", "order_update"}


def test_idempotency_key_is_stable_and_content_sensitive() -> None:
    order = {"supplier_id": 1, "lines": [{"part_id": 1, "quantity": 200}], "note": "n"}
    same = {"note": "n", "lines": [{"quantity": 200, "part_id": 1}], "supplier_id": 1}
    key = order_idempotency_key("thread-1", order)
    assert key == order_idempotency_key("thread-1", same)
    assert 8 <= len(key) <= 128
    assert key != order_idempotency_key("thread-2", order)
    assert key != order_idempotency_key(
        "thread-1", {**order, "lines": [{"part_id": 1, "quantity": 300}]}
    )
    assert key == order_idempotency_key("thread-1", {**order, "idempotency_key": "model-made"})


async def test_the_order_key_comes_from_the_running_thread() -> None:
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    from graphs.order_keys import fill_order_key

    class S(TypedDict):
        args: dict[str, Any]

    def node(state: S) -> S:
        return {"args": fill_order_key(state["args"])}

    graph = StateGraph(S).add_node("n", node).add_edge(START, "n").add_edge("n", END).compile()
    order = {"supplier_id": 1, "lines": [{"part_id": 1, "quantity": 5}]}
    out = await graph.ainvoke({"args": order}, {"configurable": {"thread_id": "t-9"}})
    assert out["args"]["idempotency_key"] == order_idempotency_key("t-9", order)
