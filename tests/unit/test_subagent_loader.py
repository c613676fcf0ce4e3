"""The subagent loader: tool names resolve against the tools that exist, or loading fails."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.tools import tool

from subagents.loader import SUBAGENTS_DIR, load_async_card, load_sync_subagent


@tool
def request_order_info(question: str) -> str:
    """Stand-in local tool."""
    return question


@tool
def web_search(query: str) -> str:
    """Stand-in local tool."""
    return query


LOCAL = {"request_order_info": request_order_info, "web_search": web_search}
MCP = {"order_create", "order_update", "order_validate", "order_search_details",
       "order_summary",
       "part_search", "part_query", "part_by_supplier", "supplier_query", "category_list",
       "inventory_warning", "part_equivalents"}  # fmt: skip


def write(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "agent.yaml"
    path.write_text(body, encoding="utf-8")
    return path


def test_the_order_agent_spec_loads_with_its_tools() -> None:
    spec = load_sync_subagent(
        SUBAGENTS_DIR / "procurement_order.yaml", local_tools=LOCAL, mcp_tools=MCP
    )
    assert spec["name"] == "procurement-order"
    assert [t.name for t in spec["tools"]] == ["web_search", "request_order_info"]
    assert "order_create" in spec["mcp_tools"] and "order_update" in spec["mcp_tools"]
    assert spec["interrupt_on"] == ["order_create", "order_update"]


def test_an_unknown_tool_is_refused_naming_the_file_and_the_tool(tmp_path: Path) -> None:
    path = write(tmp_path, "name: x\ndescription: d\nsystem_prompt: p\n"
                 "tools: [web_search, order_teleport]\n")  # fmt: skip
    with pytest.raises(ValueError) as caught:
        load_sync_subagent(path, local_tools=LOCAL, mcp_tools=MCP)
    message = str(caught.value)
    assert str(path) in message and "'order_teleport'" in message


def test_interrupt_on_must_name_listed_tools(tmp_path: Path) -> None:
    path = write(tmp_path, "name: x\ndescription: d\nsystem_prompt: p\ntools: [web_search]\n"
                 "interrupt_on: [order_create]\n")  # fmt: skip
    with pytest.raises(ValueError, match="interrupt_on"):
        load_sync_subagent(path, local_tools=LOCAL, mcp_tools=MCP)


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ("description: d\nsystem_prompt: p\n", "'name' is required"),
        ("name: x\nsystem_prompt: p\n", "'description' is required"),
        ("name: x\ndescription: d\nsystem_prompt: p\ntools: web_search\n", "list of tool names"),
        ("name: x\ndescription: d\nsystem_prompt: p\nlimits: {model_calls: 5}\n", "agent's table"),
        ("[1, 2]", "mapping"),
        ("name: [unclosed", "not valid YAML"),
    ],
)
def test_malformed_specs_raise_naming_the_file(tmp_path: Path, body: str, fragment: str) -> None:
    path = write(tmp_path, body)
    with pytest.raises(ValueError, match=fragment) as caught:
        load_sync_subagent(path, local_tools=LOCAL, mcp_tools=MCP)
    assert str(path) in str(caught.value)


def test_the_analyst_card_is_an_in_process_async_subagent() -> None:
    card = load_async_card(SUBAGENTS_DIR / "analyst.yaml")
    assert card["name"] == "analyst" and card["graph_id"] == "analyst"
    assert "url" not in card  # no url: the SDK reaches it in-process over ASGI
    assert card["description"]
