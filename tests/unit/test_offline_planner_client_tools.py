"""The orchestrator's offline policy and the tools a JSON-RPC client lends it.

Client tools reach the planner the way ClientToolsMiddleware binds them (OpenAI-form
dicts); the planner must call one when the request names what it provides, with
arguments from its schema, and answer with its result or say that it failed.
"""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.offline import OfflinePlanner
from graphs.offline.client_tools import build_arguments, match_client_tool
from tests.unit.test_offline_world import tools

BOM = {
    "name": "fetch_bom_tool",
    "description": "Fetch the bill of materials (BOM) of a product",
    "parameters": {
        "type": "object",
        "properties": {"product_id": {"type": "string", "description": "Product code"}},
        "required": ["product_id"],
    },
}
WEATHER = {
    "name": "get_weather",
    "description": "Current weather for a city",
    "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}
DRAWING = {
    "name": "open_drawing",
    "description": "打开 CAD 图纸并返回图纸的尺寸标注",
    "parameters": {
        "type": "object",
        "properties": {"drawing_no": {"type": "string"}, "scale": {"type": "number"}},
        "required": ["drawing_no"],
    },
}


def _openai(spec: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": spec}


def step(messages: list[Any], client: list[dict[str, Any]]) -> AIMessage:
    model = OfflinePlanner(policy="orchestrator").bind_tools(
        [*tools(), *(_openai(c) for c in client)]
    )
    reply = model.invoke(messages)
    assert isinstance(reply, AIMessage)
    return reply


@pytest.mark.parametrize(
    ("request_text", "product"),
    [
        ("What is in the BOM of product P-100?", "P-100"),
        ("查一下产品P-100的BOM", "P-100"),
        ("Show me the bill of materials for AX-7", "AX-7"),
        ("What is in the BOM of product P1? Use my CAD system.", "P1"),
    ],
)
def test_a_request_for_what_a_client_tool_provides_calls_it(
    request_text: str, product: str
) -> None:
    reply = step([HumanMessage(content=request_text)], [BOM, WEATHER])
    [call] = reply.tool_calls
    assert call["name"] == "fetch_bom_tool"
    assert call["args"] == {"product_id": product}
    assert reply.response_metadata["step"] == "client-tool-call"


def test_the_tool_description_in_chinese_is_matched_too() -> None:
    reply = step([HumanMessage(content="帮我打开图纸 DWG-204 看看尺寸")], [BOM, DRAWING])
    [call] = reply.tool_calls
    assert call["name"] == "open_drawing"
    assert call["args"] == {"drawing_no": "DWG-204"}


@pytest.mark.parametrize(
    "request_text",
    ["帮我对摩托车火花塞做供应商比价分析", "给 NGK 下单 200 个火花塞", "hello", "tell me a joke"],
)
def test_requests_about_something_else_do_not_call_client_tools(request_text: str) -> None:
    reply = step([HumanMessage(content=request_text)], [BOM, WEATHER])
    assert all(c["name"] not in ("fetch_bom_tool", "get_weather") for c in reply.tool_calls)


def test_graph_tools_are_not_mistaken_for_client_tools() -> None:
    # "task" and "web_search" are graph tools (BaseTool objects), not lent by a client.
    model = OfflinePlanner(policy="orchestrator").bind_tools(tools())
    reply = model.invoke([HumanMessage(content="search the web for a task list")])
    assert isinstance(reply, AIMessage)
    # At most the ERP reads that check whether the words name a part or a supplier (a
    # name alone gets a question, not "out of scope"): never "task" or "web_search".
    called = {c["name"] for c in reply.tool_calls}
    assert called <= {"category_list", "supplier_query", "part_search"}, called


def test_a_required_argument_the_request_lacks_is_asked_for() -> None:
    reply = step([HumanMessage(content="What's the weather like today?")], [WEATHER])
    assert reply.tool_calls == []
    assert "city" in str(reply.content)


def _after(result: ToolMessage, request: str) -> AIMessage:
    first = step([HumanMessage(content=request)], [BOM])
    call_id = first.tool_calls[0]["id"] or "x"
    result.tool_call_id = call_id
    return step([HumanMessage(content=request), first, result], [BOM])


def test_the_answer_carries_the_client_tools_result() -> None:
    result = ToolMessage(
        content='{"rows": [["spark plug", 4]]}', tool_call_id="x", name="fetch_bom_tool"
    )
    reply = _after(result, "What is in the BOM of product P-100?")
    assert reply.tool_calls == []
    assert '"spark plug", 4' in str(reply.content)
    assert reply.response_metadata["step"] == "client-tool-answer"


def test_a_client_tool_error_is_reported_and_not_retried() -> None:
    result = ToolMessage(
        content="Client tool fetch_bom_tool timed out: no answer within 60 s",
        tool_call_id="x",
        name="fetch_bom_tool",
        status="error",
    )
    reply = _after(result, "查一下产品P-100的BOM")
    assert reply.tool_calls == []
    assert "失败" in str(reply.content) and "timed out" in str(reply.content)
    assert reply.response_metadata["step"] == "client-tool-error"


def test_arguments_follow_the_schema() -> None:
    schema = {
        "type": "object",
        "properties": {
            "product": {"type": "string"},
            "levels": {"type": "integer"},
            "query": {"type": "string"},
            "unit": {"type": "string", "enum": ["pcs", "kg"]},
            "note": {"type": "string"},
        },
        "required": ["product", "query"],
    }
    args, missing = build_arguments("BOM of P-100 in kg, 3 levels", schema)
    assert missing == []
    assert args == {
        "product": "P-100",
        "query": "BOM of P-100 in kg, 3 levels",
        "levels": 3,
        "unit": "kg",
    }


def test_one_shared_generic_word_is_not_a_match() -> None:
    tools_ = {"fetch_bom_tool": BOM, "get_weather": WEATHER}
    assert match_client_tool("fetch me the product list", tools_) is None


def test_each_tool_object_is_shown_with_its_own_schema_every_time() -> None:
    from langchain_core.tools import tool

    @tool
    def lookup(sku: str) -> str:
        """Look a part up by SKU."""
        return sku

    first = OfflinePlanner(policy="orchestrator").bind_tools([lookup])
    again = OfflinePlanner(policy="orchestrator").bind_tools([lookup])
    assert isinstance(first, OfflinePlanner) and isinstance(again, OfflinePlanner)
    assert first.tool_schemas == again.tool_schemas
    assert set(first.tool_schemas["lookup"]["properties"]) == {"sku"}
    first.tool_schemas["lookup"]["required"] = ["changed"]  # one binding's copy only
    assert OfflinePlanner().bind_tools([lookup]).tool_schemas == again.tool_schemas  # type: ignore[attr-defined]

    @tool("lookup")
    def lookup_by_id(part_id: int) -> str:
        """Look a part up by id."""
        return str(part_id)

    other = OfflinePlanner(policy="orchestrator").bind_tools([lookup_by_id])
    assert set(other.tool_schemas["lookup"]["properties"]) == {"part_id"}  # type: ignore[attr-defined]
