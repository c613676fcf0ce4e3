"""CurrentDate: the date in the system prompt is the date of each model call, not of the build."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from deepagents import create_deep_agent
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.outputs import ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from graphs import prompts
from graphs.middleware import current_date
from graphs.middleware.current_date import TODAY, CurrentDate, _fill
from tests.unit.test_mw_support import ScriptedChatModel, make_env, thread


class RecordingModel(ScriptedChatModel):
    """Answers ``ok`` and keeps the system text of every call."""

    seen: list[str] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.seen.append(" ".join(m.text for m in messages if isinstance(m, SystemMessage)))
        return super()._generate(messages, *args, **kwargs)


def test_fill_handles_text_and_content_blocks() -> None:
    assert _fill("今天是 {today}。", "2027-01-01") == "今天是 2027-01-01。"
    assert _fill("no placeholder", "2027-01-01") is None
    blocks = [{"type": "text", "text": "A {today}", "cache_control": {"type": "x"}}, "b {today}"]
    assert _fill(blocks, "2027-01-01") == [
        {"type": "text", "text": "A 2027-01-01", "cache_control": {"type": "x"}},
        "b 2027-01-01",
    ]
    assert _fill([{"type": "text", "text": "none"}], "2027-01-01") is None


def test_the_agent_sees_the_date_of_each_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = make_env(tmp_path)
    model = RecordingModel(messages=iter([AIMessage(content="ok"), AIMessage(content="ok")]))
    graph = create_deep_agent(
        model=model,
        system_prompt=prompts.ORCHESTRATOR_PROMPT.format(today=TODAY),
        middleware=[CurrentDate()],
        backend=env.backend,
        store=env.store,
        checkpointer=InMemorySaver(),
        subagents=[],
    )
    config = thread()
    monkeypatch.setattr(current_date, "_today", lambda: "2026-12-31")
    graph.invoke({"messages": [{"role": "user", "content": "你好"}]}, config)
    monkeypatch.setattr(current_date, "_today", lambda: "2027-01-01")  # the same graph, next day
    graph.invoke({"messages": [{"role": "user", "content": "再问一次"}]}, config)
    assert len(model.seen) == 2
    assert "今天是 2026-12-31。" in model.seen[0] and "今天是 2027-01-01。" in model.seen[1]
    assert all(TODAY not in seen for seen in model.seen)


def test_a_prompt_without_the_placeholder_passes_unchanged() -> None:
    from langchain.agents.middleware import ModelRequest

    request = ModelRequest(
        model=ScriptedChatModel(messages=iter([])),
        messages=[],
        system_message=SystemMessage(content="plain"),
    )
    seen: list[Any] = []

    def handler(passed: Any) -> Any:
        seen.append(passed)
        return AIMessage(content="answer")

    CurrentDate().wrap_model_call(request, handler)
    assert seen == [request]
