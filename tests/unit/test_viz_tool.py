"""``generate_visualization`` against the real gateway through FastMCP's in-memory client:
description size, chart_type resolution, schema validation, errors as ToolMessages,
server down, the cached tool list, and a non-blocking ``ainvoke``."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client
from langchain_core.messages import HumanMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately

from graphs.tools import visualization
from graphs.tools.prompts import GENERATE_VISUALIZATION_DESCRIPTION
from graphs.tools.visualization import make_generate_visualization, short_name
from tests.blocking import no_blocking_calls
from viz_gateway.examples import EXAMPLES
from viz_gateway.schemas import TOOLS
from viz_gateway.settings import VizSettings


@pytest.fixture
def gateway(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Route the tool's MCP client to an in-memory gateway; count tools/list calls."""
    from viz_gateway.server import create_server

    mcp = create_server(VizSettings(data_dir=tmp_path, render_workers=1), warm_up=False)
    mcp.list_calls = 0  # type: ignore[attr-defined]
    mcp.clients = []  # type: ignore[attr-defined]

    class CountingClient(Client[Any]):
        def __init__(self, *a: Any, **kw: Any) -> None:
            super().__init__(*a, **kw)
            mcp.clients.append(self)  # type: ignore[attr-defined]

        async def list_tools(self, *a: Any, **kw: Any) -> Any:
            mcp.list_calls += 1  # type: ignore[attr-defined]
            return await super().list_tools(*a, **kw)

    monkeypatch.setattr(visualization._VizServer, "_client", lambda self: CountingClient(mcp))
    yield mcp


def call(args: dict[str, Any]) -> dict[str, Any]:
    return {"name": "generate_visualization", "args": args, "id": "call-1", "type": "tool_call"}


class Down:
    """Stands in for the MCP client of a chart server that is not there."""

    async def __aenter__(self) -> Any:
        raise httpx.ConnectError("All connection attempts failed")

    async def __aexit__(self, *exc: Any) -> None:
        return None


def test_description_is_compact_and_covers_every_type() -> None:
    tokens = count_tokens_approximately([HumanMessage(GENERATE_VISUALIZATION_DESCRIPTION)])
    assert tokens <= 850, tokens
    # A stricter count too: one token per CJK character, ~4 characters per token otherwise.
    text = GENERATE_VISUALIZATION_DESCRIPTION
    cjk = sum(1 for ch in text if ord(ch) > 0x2E80)
    assert cjk + (len(text) - cjk) / 3.5 <= 850
    for tool in TOOLS:
        assert short_name(tool) in text, short_name(tool)
    for group in ("Category-value", "Time-value", "Distribution", "flow / sets", "Special", "Maps"):
        assert group in text
    assert "chart_params.md" in text


def test_building_the_tool_connects_to_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(self: Any) -> Any:
        raise AssertionError("connected at build time")

    monkeypatch.setattr(visualization._VizServer, "_client", boom)
    tool = make_generate_visualization("http://127.0.0.1:1/mcp")
    assert tool.name == "generate_visualization"
    assert set(tool.args) == {"chart_type", "chart_config"}


async def test_makes_a_chart_and_returns_its_url(gateway: Any) -> None:
    tool = make_generate_visualization("http://viz.test/mcp")
    msg = await tool.ainvoke(
        call({"chart_type": "column", "chart_config": EXAMPLES["generate_column_chart"]})
    )
    assert isinstance(msg, ToolMessage) and msg.status == "success"
    assert "Chart ready: http://127.0.0.1:1122/charts/" in msg.content
    assert "![各供应商链条报价对比](" in msg.content
    assert msg.artifact["tool"] == "generate_column_chart"
    assert msg.artifact["spec_format"] == "vega-lite" and msg.artifact["spec"]["data"]
    png = await asyncio.to_thread(Path(msg.artifact["path"]).read_bytes)
    assert png.startswith(b"\x89PNG")


@pytest.mark.parametrize(
    ("given", "tool"),
    [
        ("dual_axes", "generate_dual_axes_chart"),
        ("Mind-Map", "generate_mind_map"),
        ("generate_word_cloud_chart", "generate_word_cloud_chart"),
        ("org_chart", "generate_organization_chart"),
        ("fishbone", "generate_fishbone_diagram"),
        ("word cloud", "generate_word_cloud_chart"),
    ],
)
async def test_chart_type_names_resolve(gateway: Any, given: str, tool: str) -> None:
    t = make_generate_visualization("http://viz.test/mcp")
    msg = await t.ainvoke(call({"chart_type": given, "chart_config": EXAMPLES[tool]}))
    assert msg.status == "success", msg.content
    assert msg.artifact["tool"] == tool


async def test_unknown_chart_type_lists_the_valid_ones(gateway: Any) -> None:
    tool = make_generate_visualization("http://viz.test/mcp")
    msg = await tool.ainvoke(call({"chart_type": "pyramid", "chart_config": {"data": []}}))
    assert msg.status == "error"
    assert "unknown chart_type 'pyramid'" in msg.content
    for name in ("bar", "line", "dual_axes", "mind_map", "sankey", "pin_map"):
        assert name in msg.content


async def test_every_field_error_at_once_before_any_call(gateway: Any) -> None:
    tool = make_generate_visualization("http://viz.test/mcp")
    bad = {"data": [{"category": 1}, {"category": "博世", "value": "贵"}], "width": "wide"}
    msg = await tool.ainvoke(call({"chart_type": "bar", "chart_config": bad}))
    assert msg.status == "error"
    for line in (
        "- data[0].category: 1 is not of type 'string'",
        "- data[0].value: required field is missing",
        "- data[1].value: '贵' is not of type 'number'",
        "- width: 'wide' is not of type 'number'",
    ):
        assert line in msg.content, msg.content
    assert gateway.gateway.renders == 0


async def test_nan_and_huge_data_are_refused_locally(gateway: Any) -> None:
    tool = make_generate_visualization("http://viz.test/mcp")
    nan = {"data": [{"time": "2026-01", "value": float("nan")}]}
    msg = await tool.ainvoke(call({"chart_type": "line", "chart_config": nan}))
    assert msg.status == "error" and "data[0].value: nan is not a finite number" in msg.content
    huge = {"data": [{"category": "a", "value": 1}] * 1_000_000}
    renders = gateway.gateway.renders
    msg = await tool.ainvoke(call({"chart_type": "column", "chart_config": huge}))
    assert msg.status == "error" and "too many" in msg.content
    assert gateway.gateway.renders == renders  # refused up front, not rendered


async def test_server_side_errors_come_back_as_error_messages(gateway: Any) -> None:
    tool = make_generate_visualization("http://viz.test/mcp")
    cyclic = {
        "data": [
            {"source": "A", "target": "B", "value": 1},
            {"source": "B", "target": "A", "value": 2},
        ]
    }
    msg = await tool.ainvoke(call({"chart_type": "sankey", "chart_config": cyclic}))
    assert msg.status == "error" and "cycle" in msg.content
    maps = await tool.ainvoke(
        call({"chart_type": "pin_map", "chart_config": EXAMPLES["generate_pin_map"]})
    )
    assert maps.status == "error" and "online geodata" in maps.content


async def test_chart_config_as_json_text_is_accepted(gateway: Any) -> None:
    import json

    tool = make_generate_visualization("http://viz.test/mcp")
    text = json.dumps(EXAMPLES["generate_funnel_chart"], ensure_ascii=False)
    msg = await tool.ainvoke(call({"chart_type": "funnel", "chart_config": text}))
    assert msg.status == "success", msg.content


async def test_tool_list_is_fetched_once_and_again_after_an_outage(
    gateway: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = make_generate_visualization("http://viz.test/mcp")
    for chart in ("pie", "funnel", "liquid"):
        msg = await tool.ainvoke(
            call({"chart_type": chart, "chart_config": EXAMPLES[f"generate_{chart}_chart"]})
        )
        assert msg.status == "success"
    assert gateway.list_calls == 1
    assert len(gateway.clients) == 1  # one session for every call
    working = visualization._VizServer._client
    monkeypatch.setattr(visualization._VizServer, "_client", lambda self: Down())
    for client in gateway.clients:  # the server goes away: its session ends
        await client.close()
    msg = await tool.ainvoke(
        call({"chart_type": "pie", "chart_config": EXAMPLES["generate_pie_chart"]})
    )
    assert msg.status == "error" and "Chart ready" not in msg.content
    monkeypatch.setattr(visualization._VizServer, "_client", working)
    msg = await tool.ainvoke(
        call({"chart_type": "pie", "chart_config": EXAMPLES["generate_pie_chart"]})
    )
    assert msg.status == "success"
    assert gateway.list_calls == 2  # listed again once the server was back


async def test_server_down_names_the_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(visualization._VizServer, "_client", lambda self: Down())
    tool = make_generate_visualization("http://charts.internal:1122/mcp")
    msg = await tool.ainvoke(call({"chart_type": "bar", "chart_config": {"data": []}}))
    assert msg.status == "error"
    assert "http://charts.internal:1122/mcp is unreachable" in msg.content
    assert "python -m viz_gateway" in msg.content


def test_mcp_url_defaults_to_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    server = visualization._VizServer(None, 5)
    monkeypatch.setenv("VIZ_MCP_URL", "http://viz.example:9000/mcp")
    assert server.url == "http://viz.example:9000/mcp"
    monkeypatch.delenv("VIZ_MCP_URL")
    assert server.url == visualization.DEFAULT_VIZ_MCP_URL


async def test_ainvoke_does_not_block_the_event_loop(gateway: Any) -> None:
    tool = make_generate_visualization("http://viz.test/mcp")
    # The first call builds the client and lists the tools: that path is checked too. Only
    # the tool's side counts: the in-memory gateway stands in for a separate process.
    with no_blocking_calls(["graphs"]):
        msg = await tool.ainvoke(
            call({"chart_type": "violin", "chart_config": EXAMPLES["generate_violin_chart"]})
        )
    assert msg.status == "success", msg.content
    assert gateway.gateway.renders == 1


def test_sync_invoke_works_inside_and_outside_a_loop(gateway: Any) -> None:
    tool = make_generate_visualization("http://viz.test/mcp")
    out = tool.invoke({"chart_type": "liquid", "chart_config": EXAMPLES["generate_liquid_chart"]})
    assert "Chart ready" in out


# sha256 of each text: a change to what the model reads is deliberate. Review the new text,
# then update the hash here.
SNAPSHOT = {
    "GENERATE_VISUALIZATION_DESCRIPTION": (
        "230c4ee92a3379e698956cab85998bb9fcf62cf794beb9219fa499ce4ef5acda"
    ),
    "VIZ_INVALID_CONFIG": "307a8fc2f79ce17bfa438099f544d5154b4005e716b15178a7682c6655af5b22",
    "VIZ_SERVER_DOWN": "263ade818f2ab29c9550521902e57c8b4093b6f50e60a3ec231d313e9676605d",
    "VIZ_UNKNOWN_TYPE": "ed710ea9f5efb104182d211c5db5fd201d0c674b6323dfde5126a6949f1cfb4a",
}


def test_texts_match_the_snapshot() -> None:
    import hashlib

    from graphs.tools import prompts

    for name, digest in SNAPSHOT.items():
        text = getattr(prompts, name)
        assert hashlib.sha256(text.encode()).hexdigest() == digest, f"{name} changed:\n{text}"
    tool = make_generate_visualization("http://viz.test/mcp")
    assert tool.description == prompts.GENERATE_VISUALIZATION_DESCRIPTION
