"""Benchmark: the fixed prompt overhead of each agent's model call (system prompt + tools).

Run from the checkout: ``.venv/bin/python -m scripts.bench.bench_prompt_overhead``.

The real graphs are built on the offline planner and driven to their first model call
(orchestrator: a greeting; procurement-order: an order request through ``task``;
analyst: an analysis request); the planner records what the model is shown there (the
system message the middleware assembled and every bound tool, ERP tools listed from a
real ``mcp_erp`` process on a free port). Tokens are counted with langchain_core's
``count_tokens_approximately`` over the system text and the serialized tool schemas
(tiktoken cannot download its encodings here); at 4 characters a token it
undercounts Chinese text, which real tokenizers take at about one token a character.
The analyst's overhead is then compared with the chart gateway's tools exposed one
by one instead of the merged ``generate_visualization`` (the gateway's own
``tools/list``, in memory).
This is a measurement, not a test: it exits 0 unless something fails.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from runstack.processes import HOST, free_port
from scripts.bench.fixtures import scratch, services

MERGED = "generate_visualization"
REQUESTS = {
    "orchestrator": "你好",
    "procurement-order": "给 NGK 下单 200 个火花塞，下周五前到货",
    "analyst": "帮我对摩托车火花塞做供应商比价分析",
}


class _Captured(Exception):
    """Raised by the planner once the policy the bench waits for has been seen."""


def _tokens_system(text: str) -> int:
    return count_tokens_approximately([SystemMessage(text)]) if text else 0


def _tokens_tools(tools: list[dict[str, Any]]) -> int:
    return (
        count_tokens_approximately([], tools=list[BaseTool | dict[str, Any]](tools)) if tools else 0
    )


async def _chart_tools(data_dir: Path) -> list[dict[str, Any]]:
    """The gateway's chart tools as a model would get them one by one (OpenAI form)."""
    from fastmcp import Client

    from viz_gateway.server import create_server
    from viz_gateway.settings import VizSettings

    server = create_server(VizSettings(data_dir=data_dir), warm_up=False)
    async with Client(server) as client:
        listed = await client.list_tools()
    return [
        {
            "type": "function",
            "function": {
                "name": t.name,
                "description": t.description or "",
                "parameters": t.inputSchema,
            },
        }
        for t in listed
    ]


async def _capture(data_dir: Path) -> dict[str, tuple[str, list[dict[str, Any]]]]:
    """Drive each agent to its first model call; what it saw, per policy."""
    from graphs.messages import message_text
    from graphs.offline.model import OfflinePlanner

    seen: dict[str, tuple[str, list[dict[str, Any]]]] = {}
    bound_tools: dict[int, list[dict[str, Any]]] = {}  # id of a bound planner -> its tools
    waiting_for: list[str] = []
    original_bind, original_decide = OfflinePlanner.bind_tools, OfflinePlanner._decide

    def bind_tools(self: OfflinePlanner, tools: Any, **kwargs: Any) -> Any:
        bound = original_bind(self, tools, **kwargs)
        bound_tools[id(bound)] = [convert_to_openai_tool(t) for t in tools]
        return bound

    def decide(self: OfflinePlanner, messages: list[BaseMessage]) -> Any:
        if self.policy not in seen and self.policy in REQUESTS:
            system = "\n".join(message_text(m) for m in messages if isinstance(m, SystemMessage))
            seen[self.policy] = (system, bound_tools.get(id(self), []))
        if waiting_for and waiting_for[0] in seen:
            raise _Captured
        return original_decide(self, messages)

    OfflinePlanner.bind_tools = bind_tools  # type: ignore[method-assign]
    OfflinePlanner._decide = decide  # type: ignore[method-assign]
    try:
        from langgraph.checkpoint.memory import InMemorySaver
        from langgraph.store.memory import InMemoryStore

        from graphs.analyst import build_analyst
        from graphs.orchestrator import build_orchestrator

        orchestrator = build_orchestrator()
        analyst = build_analyst()
        plan = [
            ("orchestrator", orchestrator),
            ("procurement-order", orchestrator),
            ("analyst", analyst),
        ]
        for i, (policy, graph) in enumerate(plan):
            waiting_for[:] = [policy]
            runnable = graph.copy(
                update={"checkpointer": InMemorySaver(), "store": InMemoryStore()}
            )
            try:
                await runnable.ainvoke(
                    {"messages": [{"role": "user", "content": REQUESTS[policy]}]},
                    {"configurable": {"thread_id": f"bench-{i}"}},
                    context={"user_id": "bench"},
                )
            except _Captured:
                pass
            except Exception:  # a sub-run may wrap it: what matters is the capture
                if policy not in seen:
                    raise
    finally:
        OfflinePlanner.bind_tools = original_bind  # type: ignore[method-assign]
        OfflinePlanner._decide = original_decide  # type: ignore[method-assign]
    return seen


def _row(label: str, system: int, tools: int, n_tools: int) -> str:
    return f"{label:<34} {system:>8} {tools:>8} {system + tools:>8} {n_tools:>7}"


async def main() -> None:
    """Print the per-agent overhead and the merged-vs-separate chart tool ratio."""
    with scratch("bench-prompt-") as data:
        closed = f"http://{HOST}:{free_port()}"
        # Only the ERP tools' listing is needed: the ERP behind the MCP server stays closed.
        with services(["erp-mcp"], data, ERP_BASE_URL=closed) as running:
            os.environ.update(
                {
                    "MODEL": "offline",
                    "DATA_DIR": str(data),
                    "ERP_MCP_URL": f"{running['erp-mcp'].url}/mcp",
                    "VIZ_MCP_URL": f"{closed}/mcp",
                    "LANGSMITH_TRACING": "false",
                }
            )
            for key in ("DEEPSEEK_API_KEY", "OPENAI_API_KEY"):
                os.environ.pop(key, None)
            seen = await _capture(data)
        charts = await _chart_tools(data / "viz")

    print("fixed prompt overhead per model call (count_tokens_approximately)")
    print(f"{'agent':<34} {'system':>8} {'tools':>8} {'total':>8} {'#tools':>7}")
    totals: dict[str, int] = {}
    for policy in REQUESTS:
        system, tools = seen[policy]
        s, t = _tokens_system(system), _tokens_tools(tools)
        totals[policy] = s + t
        print(_row(policy, s, t, len(tools)))
    system, tools = seen["analyst"]
    names = [tl["function"]["name"] for tl in tools]
    merged = next((tl for tl in tools if tl["function"]["name"] == MERGED), None)
    separate = [tl for tl in tools if tl["function"]["name"] != MERGED] + charts
    s = _tokens_system(system)
    sep_tokens = _tokens_tools(separate)
    print(_row("analyst, chart tools separately", s, sep_tokens, len(separate)))
    print()
    merged_tokens = _tokens_tools([merged]) if merged else 0
    charts_tokens = _tokens_tools(charts)
    print(f"analyst tools bound: {', '.join(names)}")
    print(f"{MERGED} alone: {merged_tokens} tokens")
    print(f"the gateway's {len(charts)} chart tools: {charts_tokens} tokens")
    print(f"chart tools, separate / merged: {charts_tokens / max(merged_tokens, 1):.1f}x")
    print(
        f"analyst per-call overhead, separate / merged: "
        f"{(s + sep_tokens) / totals['analyst']:.2f}x "
        f"({s + sep_tokens} vs {totals['analyst']} tokens)"
    )


if __name__ == "__main__":
    asyncio.run(main())
