"""What a LangSmith trace may carry (graphs/tracing.py): trimmed, scrubbed, state once."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from langchain.agents.middleware.types import ModelResponse
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs import tracing
from graphs.settings import get_settings
from graphs.tracing import MAX_TRACE_CHARS, STATE_MESSAGES, scrub, scrub_metadata, trace_headers


def test_long_strings_are_trimmed_with_their_length() -> None:
    page = "| part | price |\n" * 2000
    out = scrub({"output": page})["output"]
    assert len(out) < MAX_TRACE_CHARS + 80
    assert f"{len(page) - MAX_TRACE_CHARS} more characters" in out


def test_local_paths_and_secret_values_are_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERP_API_TOKEN", "tok-0123456789abcdef")
    monkeypatch.setenv("AGENT_AUTH_TOKENS", "alice:alice-token-0123456789,bob:bob-token-0123456789")
    data_dir = str(get_settings().data_dir.resolve())
    checkout = str(Path(tracing.__file__).resolve().parents[1])
    raw = {
        "chart": f"{data_dir}/charts/abc.png",
        "error": f'File "{checkout}/graphs/tools/web/tool.py", line 3',
        "said": ["the token is tok-0123456789abcdef", "bob-token-0123456789"],
    }
    text = str(scrub(raw))
    assert data_dir not in text and checkout not in text
    assert "<DATA_DIR>/charts/abc.png" in text and "<app>/graphs/tools/web/tool.py" in text
    assert "tok-0123456789abcdef" not in text and "bob-token-0123456789" not in text
    assert text.count("<redacted>") == 2


def test_a_state_snapshot_keeps_its_newest_messages_a_model_call_all() -> None:
    history = [HumanMessage(f"m{i}") for i in range(10)]
    node = scrub({"messages": history, "files": {}})
    kept = node["messages"]
    assert kept[0] == f"[{10 - STATE_MESSAGES} earlier messages: see the model spans]"
    assert [m["content"] for m in kept[1:]] == [f"m{i}" for i in range(10 - STATE_MESSAGES, 10)]
    model_call = scrub({"messages": [[m.model_dump() for m in history]]})
    assert len(model_call["messages"][0]) == 10


def test_a_wrappers_model_response_points_at_the_model_span() -> None:
    answer = AIMessage("x" * 50_000, tool_calls=[])
    out: dict[str, Any] = scrub({"output": ModelResponse(result=[answer])})
    assert out["output"] == "[the model's answer: see the model span]"
    assert scrub({"output": {"model_response": {"result": []}}})["output"] == {
        "model_response": "[the model's answer: see the model span]"
    }
    tool = scrub({"output": ToolMessage("y" * 10, tool_call_id="c")})
    assert tool["output"]["content"] == "y" * 10


def test_metadata_keeps_ids_drops_headers_and_constants() -> None:
    meta = {
        "thread_id": "t",
        "run_id": "r",
        "graph_id": "analyst",
        "user_id": "u",
        "langsmith-trace": "20261203T1Z1.20261203T1Z2",
        "langgraph_api_url": "http://127.0.0.1:2024",
        "langgraph_version": "1.2.24",
    }
    assert scrub_metadata(meta) == {
        "thread_id": "t",
        "run_id": "r",
        "graph_id": "analyst",
        "user_id": "u",
    }


def test_trace_headers_come_from_the_runs_configurable() -> None:
    config = {"configurable": {"langsmith-trace": "20261203T1Z1", "langsmith-project": "p q"}}
    assert trace_headers(config) == {
        "langsmith-trace": "20261203T1Z1",
        "baggage": "langsmith-project=p%20q",
    }
    assert trace_headers({"configurable": {}}) is None and trace_headers(None) is None


def test_a_run_started_with_headers_is_traced_under_its_caller() -> None:
    import langsmith

    parent = "20261203T120000000000Z0195a6b2-0000-7000-8000-000000000001"
    config = {"configurable": {"langsmith-trace": parent, "__is_for_execution__": True}}
    with tracing.traced_under_caller(config):
        found = langsmith.get_tracing_context()["parent"]
        assert found is not None and str(found.id) == "0195a6b2-0000-7000-8000-000000000001"
    assert langsmith.get_tracing_context()["parent"] is None
    # reading schemas or state (not executing) changes nothing
    with tracing.traced_under_caller({"configurable": {"langsmith-trace": parent}}):
        assert langsmith.get_tracing_context()["parent"] is None
