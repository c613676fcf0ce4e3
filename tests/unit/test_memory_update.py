"""MemoryUpdate: small talk, offline-planner extraction, the exchange it reads, fails soft."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from deepagents.backends import CompositeBackend, StoreBackend
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.context import Context
from graphs.memory.preferences import parse_block
from graphs.middleware.memory_update import MemoryUpdate, last_exchange
from graphs.offline import OfflinePlanner
from tests.unit.test_mw_support import (
    Boom,
    ScriptedChatModel,
    agent,
    call,
    make_env,
    scripted,
    thread,
)

KNOWN = [
    {"code": "SUP-NGK", "name_zh": "恩吉客火花塞", "name_en": "NGK Spark Plug"},
    {"code": "SUP-BOS", "name_zh": "博世", "name_en": "Bosch"},
    {"code": "SUP-DEN", "name_zh": "电装", "name_en": "Denso"},
]


async def known() -> list[dict[str, Any]]:
    return KNOWN


def _prefs(env: Any, user: str) -> str | None:
    item = env.store.get(("files", "memories"), f"/{user}/preferences.md")
    return None if item is None else str(item.value["content"])


def test_last_exchange() -> None:
    msgs = [HumanMessage("a"), AIMessage("b"), HumanMessage("c"), AIMessage("d")]
    assert [m.text for m in last_exchange(msgs)] == ["c", "d"]
    assert last_exchange([AIMessage("x")]) == []
    woken = HumanMessage("analyst finished", additional_kwargs={"deepagents_notification": {}})
    assert last_exchange([*msgs, woken, AIMessage("报告在 /analysis/")]) == []


# -- through an agent on the offline planner's memory policy ---------------------------


def _mw(env: Any, **kw: Any) -> MemoryUpdate:
    kw.setdefault("model", OfflinePlanner(policy="memory"))
    kw.setdefault("suppliers", known)
    return MemoryUpdate(files=env.backend, **kw)


@pytest.mark.parametrize("text", ["你好", "在吗", "你是谁", "hello", "谢谢，再见"])
async def test_small_talk_changes_nothing(tmp_path: Path, text: str) -> None:
    env = make_env(tmp_path)
    graph = agent(env, scripted("你好！"), [_mw(env)])
    await graph.ainvoke({"messages": [HumanMessage(text)]}, thread(), context=Context(user_id="u1"))
    assert _prefs(env, "u1") is None


async def test_small_talk_that_reads_preferences_is_still_small_talk(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    model = scripted(
        [call("read_file", {"file_path": "/memories/u1/preferences.md"})], "你好！有什么可以帮你？"
    )
    graph = agent(env, model, [_mw(env)])
    await graph.ainvoke(
        {"messages": [HumanMessage("你好")]}, thread(), context=Context(user_id="u1")
    )
    assert _prefs(env, "u1") is None


async def test_procurement_exchange_is_remembered(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    ask = "帮我对摩托车火花塞做供应商比价分析，重点看博世和电装"
    model = scripted(
        [call("calculator", {"expression": "1+1"})],
        "已启动后台分析。",
    )
    graph = agent(env, model, [_mw(env)])
    await graph.ainvoke({"messages": [HumanMessage(ask)]}, thread(), context=Context(user_id="u1"))
    text = _prefs(env, "u1")
    assert text is not None
    recent, _ = parse_block(text)
    assert recent.suppliers == ["博世", "电装"]
    assert recent.queries == [ask]


async def test_domain_tool_activity_alone_makes_it_meaningful(tmp_path: Path) -> None:
    env = make_env(tmp_path)

    async def fake_start(description: str) -> str:
        return "task-1"

    from langchain_core.tools import StructuredTool

    tool = StructuredTool.from_function(
        coroutine=fake_start, name="start_async_task", description="start"
    )
    model = scripted([call("start_async_task", {"description": "火花塞比价"})], "已启动。")
    graph = agent(env, model, [_mw(env)], tools=[tool])
    ask = "帮我对摩托车火花塞做供应商比价分析"
    await graph.ainvoke({"messages": [HumanMessage(ask)]}, thread(), context=Context(user_id="u1"))
    recent, _ = parse_block(_prefs(env, "u1") or "")
    assert recent.queries == [ask] and recent.suppliers == []


async def test_two_users_two_files(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    for user, ask in (("u1", "给博世下单 200 个火花塞"), ("u2", "分析电装刹车片的报价")):
        graph = agent(env, scripted("好的"), [_mw(env)])
        await graph.ainvoke(
            {"messages": [HumanMessage(ask)]}, thread(), context=Context(user_id=user)
        )
    assert parse_block(_prefs(env, "u1") or "")[0].suppliers == ["博世"]
    assert parse_block(_prefs(env, "u2") or "")[0].suppliers == ["电装"]


async def test_real_model_answer_is_canonicalised(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    extractor = ScriptedChatModel(
        messages=iter([AIMessage(json.dumps({"suppliers": ["bosch", "Acme"], "query": "比价"}))])
    )
    mw = _mw(env, model=extractor)
    graph = agent(env, scripted("好的"), [mw])
    await graph.ainvoke(
        {"messages": [HumanMessage("比较 Bosch 和 Acme 的火花塞")]},
        thread(),
        context=Context(user_id="u1"),
    )
    recent, _ = parse_block(_prefs(env, "u1") or "")
    assert recent.suppliers == ["博世", "Acme"] and recent.queries == ["比价"]


async def test_extractor_failure_falls_back_to_local_matching(tmp_path: Path) -> None:
    env = make_env(tmp_path)

    class Broken(ScriptedChatModel):
        async def ainvoke(self, *a: Any, **k: Any) -> Any:
            raise Boom("model down")

    mw = _mw(env, model=Broken(messages=iter([])))
    graph = agent(env, scripted("好的"), [mw])
    ask = "给博世下单 200 个火花塞"
    await graph.ainvoke({"messages": [HumanMessage(ask)]}, thread(), context=Context(user_id="u1"))
    recent, _ = parse_block(_prefs(env, "u1") or "")
    assert recent.suppliers == ["博世"] and recent.queries == [ask]


async def test_tool_output_listing_every_supplier_is_not_a_mention(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    files = CompositeBackend(
        default=env.sandbox,
        routes={
            "/memories/": StoreBackend(namespace=lambda _rt: ("files", "memories"), store=env.store)
        },
    )
    mw = MemoryUpdate(files=files, model=OfflinePlanner(policy="memory"), suppliers=known)
    msgs = [
        HumanMessage("给博世下单 200 个火花塞"),
        AIMessage("", tool_calls=[call("supplier_query", {"name": "博世"})]),
        ToolMessage("博世, 电装, NGK Spark Plug", tool_call_id="call_supplier_query_0"),
        AIMessage("已为你准备博世的订单。"),
    ]
    got = await mw.update(msgs, "u1")
    assert got is not None and "电装" not in got.suppliers


async def test_fails_soft_when_the_store_write_breaks(tmp_path: Path) -> None:
    env = make_env(tmp_path)

    class BrokenFiles:
        async def adownload_files(self, paths: list[str]) -> Any:
            raise Boom("store down")

    mw = MemoryUpdate(files=BrokenFiles(), model=None, suppliers=known)  # type: ignore[arg-type]
    graph = agent(env, scripted("好的"), [mw])
    result = await graph.ainvoke(
        {"messages": [HumanMessage("给博世下单 200 个火花塞")]},
        thread(),
        context=Context(user_id="u1"),
    )
    assert result["messages"][-1].text == "好的"


async def test_no_user_no_memory(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    graph = agent(env, scripted("好的"), [_mw(env)], context_schema=None)
    await graph.ainvoke({"messages": [HumanMessage("给博世下单")]}, thread(), context=None)
    assert env.store.search(("files", "memories")) == []


def test_sync_invoke_runs_the_async_hook(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    graph = agent(env, scripted("好的"), [_mw(env, model=None)])
    graph.invoke(
        {"messages": [HumanMessage("给博世下单 200 个火花塞")]},
        thread(),
        context=Context(user_id="u1"),
    )
    recent, _ = parse_block(_prefs(env, "u1") or "")
    assert recent.suppliers == ["博世"]
