"""AnalystProgress: the analyst's stages as ``custom`` stream events, read from tool calls."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.tools import tool

from graphs.context import Context
from graphs.middleware.analyst_progress import EVENT_TYPE, AnalystProgress, stage_of
from tests.unit.test_mw_support import agent, call, make_env, scripted, thread


@tool
def fetch_url(url: str) -> str:
    """A stand-in for the web fetch tool."""
    return f"| part | price |\n| IU7 | 38.5 | ({url})"


@tool
def supplier_query(name: str) -> str:
    """A stand-in for the ERP's supplier read."""
    return '{"items": [{"code": "NGK"}]}'


@tool
def generate_visualization(chart_type: str) -> str:
    """A stand-in for the chart tool."""
    return "http://charts/abc.png"


@pytest.mark.parametrize(
    ("name", "args", "stage"),
    [
        ("ls", {"path": "/skills/procurement/"}, 1),
        ("read_file", {"file_path": "/skills/procurement/procurement-analysis/SKILL.md"}, 1),
        ("read_file", {"file_path": "/skills/procurement/supplier-price-urls/data/urls.yaml"}, 2),
        # Searching the quote-URL table is collecting data too, wherever the search starts.
        ("grep", {"pattern": "  NGK-IU7:", "path": "/skills/p/supplier-price-urls/data/"}, 2),
        ("grep", {"pattern": "IU7", "path": "/skills/procurement/prices/table.csv"}, 2),
        # A skill's own notes are reading the skill, not data.
        ("read_file", {"file_path": "/skills/p/web-content-fetcher/reading-prices.md"}, 1),
        ("grep", {"pattern": "fetch", "path": "/skills/procurement/"}, 1),
        ("glob", {"pattern": "**/SKILL.md", "path": "/skills/"}, 1),
        ("supplier_query", {"name": "NGK"}, 2),
        ("fetch_url", {"url": "http://shop/x"}, 2),
        ("execute", {"command": "python /data/analyze.py"}, 3),
        ("write_file", {"file_path": "/data/analyze.py", "content": ""}, 3),
        ("generate_visualization", {"chart_type": "bar"}, 4),
        ("write_file", {"file_path": "/analysis/report_20261203.md", "content": ""}, 5),
        ("read_file", {"file_path": "/memories/u1/preferences.md"}, None),
        ("write_todos", {}, None),
    ],
)  # fmt: skip
def test_stage_of_a_tool_call(name: str, args: dict[str, Any], stage: int | None) -> None:
    assert stage_of(name, args, data_tools={"supplier_query"}) == stage


async def test_a_run_streams_each_stage_once_and_every_tool(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    turns = [
        [call("ls", {"path": "/skills/"}, 0)],
        # two data calls in one turn: the data stage starts once
        [call("supplier_query", {"name": "NGK"}, 1), call("fetch_url", {"url": "http://s/1"}, 2)],
        [call("write_file", {"file_path": "/data/analyze.py", "content": "print(1)"}, 3)],
        [call("generate_visualization", {"chart_type": "bar"}, 4)],
        [call("write_file", {"file_path": "/analysis/report_x.md", "content": "# R"}, 5)],
        "done",
    ]
    graph = agent(
        env,
        scripted(*turns),
        [AnalystProgress(data_tools={"supplier_query"})],
        tools=[fetch_url, supplier_query, generate_visualization],
    )
    events: list[dict[str, Any]] = []
    async for chunk in graph.astream(
        {"messages": [HumanMessage("compare spark plugs")]},
        thread(),
        context=Context(user_id="u1"),
        stream_mode="custom",
    ):
        events.append(chunk)
    assert all(e["type"] == EVENT_TYPE for e in events)
    stages = [e["stage"] for e in events if e["event"] == "stage"]
    assert stages == [1, 2, 3, 4, 5]
    assert {e["label"] for e in events if e["event"] == "stage"} >= {"绘制图表 / Drawing charts"}
    tools = [(e["tool"], e["status"]) for e in events if e["event"] == "tool"]
    assert tools.count(("fetch_url", "started")) == 1 and ("fetch_url", "done") in tools
    assert ("generate_visualization", "done") in tools
    assert events[-1] == {"type": EVENT_TYPE, "event": "finished", "stages": [1, 2, 3, 4, 5]}


async def test_stages_started_in_one_turn_are_announced_in_order(tmp_path: Path) -> None:
    # The offline analyst reads the skills and the ERP's first page in one turn, and draws
    # the charts with the index read: the stages still start in the calls' order.
    env = make_env(tmp_path)
    skill = "/skills/procurement/procurement-analysis/SKILL.md"
    turns = [
        [call("ls", {"path": "/skills/"}, 0), call("read_file", {"file_path": skill}, 1),
         call("supplier_query", {"name": ""}, 2)],
        [call("write_file", {"file_path": "/data/analyze.py", "content": "print(1)"}, 3)],
        [call("generate_visualization", {"chart_type": "bar"}, 4),
         call("read_file", {"file_path": "/reports/u1/index.md"}, 5)],
        [call("write_file", {"file_path": "/analysis/report_x.md", "content": "# R"}, 6)],
        "done",
    ]  # fmt: skip
    graph = agent(
        env,
        scripted(*turns),
        [AnalystProgress(data_tools={"supplier_query"})],
        tools=[fetch_url, supplier_query, generate_visualization],
    )
    events = [
        chunk
        async for chunk in graph.astream(
            {"messages": [HumanMessage("compare spark plugs")]},
            thread(),
            context=Context(user_id="u1"),
            stream_mode="custom",
        )
    ]
    assert [e["stage"] for e in events if e["event"] == "stage"] == [1, 2, 3, 4, 5]
    assert events[-1]["stages"] == [1, 2, 3, 4, 5]
