"""The graphs' declared state (graphs/state.py): schemas a client can read on Python 3.11, and
deepagents' wake-up message stored under a ``do-not-render-`` id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from deepagents import create_deep_agent
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from graphs.messages import DO_NOT_RENDER, NOTIFICATION_KEY, is_notification
from graphs.state import ANALYST_STATE, ORCHESTRATOR_STATE
from tests.unit.test_mw_support import make_env, scripted, thread

WAKE_UP = {
    "role": "user",
    "content": [{"type": "text", "text": "[SYSTEM NOTIFICATION - NOT USER INPUT] task done"}],
    NOTIFICATION_KEY: {"task_id": "t-1", "agent_name": "analyst", "status": "success"},
}


@pytest.mark.parametrize("build", ["orchestrator", "analyst"])
def test_both_graphs_publish_every_schema(build: str) -> None:
    from graphs import analyst, orchestrator

    graph: Any = (
        orchestrator.build_orchestrator if build == "orchestrator" else analyst.build_analyst
    )()
    schemas = {
        "input": graph.get_input_jsonschema(),
        "output": graph.get_output_jsonschema(),
        "context": graph.get_context_jsonschema(),
    }
    assert "messages" in schemas["input"]["properties"]  # Studio's form has its field
    assert "messages" in schemas["output"]["properties"]
    assert "user_id" in schemas["context"]["properties"]
    if build == "orchestrator":
        assert "async_tasks" in schemas["output"]["properties"]


def _agent(tmp_path: Path, state: Any, *answers: str) -> Any:
    env = make_env(tmp_path)
    return create_deep_agent(
        model=scripted(*answers),
        backend=env.backend,
        store=env.store,
        checkpointer=InMemorySaver(),
        subagents=[],
        state_schema=state,
    )


async def test_the_wake_up_message_is_stored_for_no_ui(tmp_path: Path) -> None:
    graph = _agent(tmp_path, ORCHESTRATOR_STATE, "the report is ready", "ok")
    config = thread()
    result = await graph.ainvoke({"messages": [WAKE_UP]}, config)
    woken, answer = result["messages"]
    assert woken.id.startswith(DO_NOT_RENDER) and len(woken.id) > len(DO_NOT_RENDER)
    assert is_notification(woken) and woken.additional_kwargs[NOTIFICATION_KEY]["task_id"] == "t-1"
    assert woken.text.startswith("[SYSTEM NOTIFICATION")
    assert not answer.id.startswith(DO_NOT_RENDER)
    # the channel replays its writes on every read: the same id each time
    again = (await graph.aget_state(config)).values["messages"]
    assert [m.id for m in again] == [woken.id, answer.id]
    # a rewrite of the message (deepagents does it for a superseded run) replaces it in place
    rewritten = woken.model_copy(update={"content": "superseded"})
    after = await graph.ainvoke({"messages": [rewritten, HumanMessage("and now?")]}, config)
    assert [m.id for m in after["messages"]][:2] == [woken.id, answer.id]
    assert after["messages"][0].text == "superseded"


def test_stored_writes_replay_to_the_same_ids() -> None:
    from graphs.state import mark_notifications

    def plain(state: Any, writes: Any) -> Any:
        return [*(state or []), *(m for w in writes for m in (w if isinstance(w, list) else [w]))]

    reduce = mark_notifications(plain)
    # a checkpointer that stores messages as JSON hands them back as dicts
    stored = {
        "type": "human",
        "id": "abc",
        "content": "done",
        "additional_kwargs": {NOTIFICATION_KEY: {"task_id": "t"}},
    }
    raw = {**WAKE_UP, "id": "abc"}
    assert [m["id"] for m in reduce([], [[stored], [raw]])] == [DO_NOT_RENDER + "abc"] * 2
    assert reduce([], [[{"type": "human", "id": "u", "content": "hi"}]])[0]["id"] == "u"


async def test_the_users_messages_keep_their_ids(tmp_path: Path) -> None:
    graph = _agent(tmp_path, ANALYST_STATE, "hello")
    result = await graph.ainvoke({"messages": [HumanMessage("hi", id="mine")]}, thread())
    assert result["messages"][0].id == "mine"
