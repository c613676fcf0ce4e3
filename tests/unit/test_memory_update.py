"""MemoryUpdate: merge rules, small talk, offline-planner extraction, ERP list, fails soft."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from deepagents.backends import CompositeBackend, StoreBackend
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.context import Context
from graphs.middleware.memory_update import (
    BLOCK_BEGIN,
    BLOCK_END,
    MAX_QUERIES,
    MAX_SUPPLIERS,
    ErpSupplierDirectory,
    Extraction,
    McpSupplierDirectory,
    MemorySettings,
    MemoryUpdate,
    last_exchange,
    merge_preferences,
    merge_recent,
    parse_block,
)
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


# -- pure merge rules ----------------------------------------------------------------


def test_merge_recent_newest_first_no_duplicates_capped() -> None:
    assert merge_recent(["A", "B"], ["C", "a"], 10) == ["C", "a", "B"]
    many = [f"S{i}" for i in range(15)]
    assert merge_recent([], many, MAX_SUPPLIERS) == many[:10]
    assert merge_recent(["x"] * 3, [], 5) == ["x"]
    assert merge_recent(["old"], ["  "], 5) == ["old"]


def test_new_file_then_merge_keeps_user_text_byte_for_byte() -> None:
    first = merge_preferences(None, Extraction(["博世"], "比价火花塞"))
    recent, span = parse_block(first)
    assert recent.suppliers == ["博世"] and recent.queries == ["比价火花塞"] and span

    user_text = "# 我的偏好\n\n- 预算优先，交期其次\n- 不要用 X 公司\n"
    mine = user_text + "\n" + first[span[0] : span[1]] + "\n\n尾注：手写的。\n"
    merged = merge_preferences(mine, Extraction(["电装", "博世"], "下单刹车片"))
    recent2, span2 = parse_block(merged)
    assert recent2.suppliers == ["电装", "博世"]
    assert recent2.queries == ["下单刹车片", "比价火花塞"]
    assert span2 is not None
    assert merged[: span2[0]] == user_text + "\n"
    assert merged[span2[1] :] == "\n\n尾注：手写的。\n"


def test_user_file_without_block_gets_one_appended() -> None:
    text = "只用人民币报价。"
    merged = merge_preferences(text, Extraction(["Bosch"], None))
    assert merged.startswith("只用人民币报价。\n\n" + BLOCK_BEGIN)
    assert merged.rstrip().endswith(BLOCK_END)
    assert parse_block(merged)[0].queries == []


def test_caps_over_many_updates() -> None:
    text: str | None = None
    for i in range(12):
        text = merge_preferences(text, Extraction([f"S{i}"], f"q{i}"))
    assert text is not None
    recent, _ = parse_block(text)
    assert recent.suppliers == [f"S{i}" for i in range(11, 1, -1)]
    assert recent.queries == [f"q{i}" for i in range(11, 11 - MAX_QUERIES, -1)]


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


# -- the ERP supplier list ---------------------------------------------------------------


async def test_erp_directory_pages_and_caches() -> None:
    calls: list[str] = []
    rows = [
        {"id": i, "code": f"S{i}", "name_zh": f"供应商{i}", "name_en": f"Sup {i}"}
        for i in range(150)
    ]

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(str(request.url))
        page = int(request.url.params["page"])
        size = int(request.url.params["size"])
        items = rows[(page - 1) * size : page * size]
        return httpx.Response(
            200, json={"items": items, "total": len(rows), "page": page, "size": size}
        )

    directory = ErpSupplierDirectory(
        MemorySettings(erp_base_url="http://erp.test"), transport=httpx.MockTransport(handler)
    )
    first = await directory()
    assert len(first) == 150 and first[0] == {
        "code": "S0",
        "name_zh": "供应商0",
        "name_en": "Sup 0",
    }
    assert len(calls) == 2
    await directory()
    assert len(calls) == 2  # cached


async def test_erp_directory_down_is_an_empty_list() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    directory = ErpSupplierDirectory(
        MemorySettings(erp_base_url="http://erp.test"), transport=httpx.MockTransport(handler)
    )
    assert await directory() == []


class FakeRegistry:
    """Stands in for McpRegistry: supplier_query pages as the ERP MCP server returns them."""

    def __init__(self, rows: list[dict[str, Any]], *, down: bool = False) -> None:
        self.rows = rows
        self.down = down
        self.calls: list[dict[str, Any]] = []

    def server_for(self, agent: str, tool: str) -> str | None:
        return "erp" if agent == "procurement-order" and tool == "supplier_query" else None

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, call_timeout_s: float = 60
    ) -> str:
        self.calls.append(arguments)
        if self.down:
            return "The MCP server 'erp' is unreachable: connection refused."
        page, size = arguments["page"], arguments["size"]
        items = self.rows[(page - 1) * size : page * size]
        return json.dumps({"items": items, "total": len(self.rows), "page": page, "size": size})


async def test_mcp_directory_pages_through_supplier_query() -> None:
    rows = [
        {"id": i, "code": f"S{i}", "name_zh": f"供应商{i}", "name_en": None} for i in range(130)
    ]
    reg = FakeRegistry(rows)
    directory = McpSupplierDirectory(reg)
    found = await directory()
    assert len(found) == 130 and found[5] == {"code": "S5", "name_zh": "供应商5", "name_en": None}
    assert [c["page"] for c in reg.calls] == [1, 2]
    await directory()
    assert len(reg.calls) == 2


async def test_mcp_directory_down_is_an_empty_list() -> None:
    assert await McpSupplierDirectory(FakeRegistry([], down=True))() == []


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
