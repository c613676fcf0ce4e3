"""The MCP registry: config errors name the file; tools load lazily; a down server fails soft.

Servers are FastMCP apps reached in memory (no sockets); "down" is a client factory
that fails to connect.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client, FastMCP

from graphs.mcp_registry import McpRegistry, ServerSpec, load_registry
from graphs.settings import REPO_ROOT

SPEC: ServerSpec = {
    "name": "erp",
    "transport": "streamable_http",
    "url": "${TEST_ERP_MCP_URL:-http://127.0.0.1:1/mcp}",
    "hint": "start it with `python -m mcp_erp`",
    "hidden_args": {"order_create": ["idempotency_key"]},
    "agents": {
        "procurement-order": {"tools": ["order_create", "part_search"]},
        "analyst": {"prefixes": ["part_"]},
    },
}


def make_server() -> FastMCP:
    server = FastMCP("fake-erp")

    @server.tool
    def part_search(name: str) -> dict[str, Any]:
        """Parts matching name."""
        return {"items": [{"sku": f"SK-{name.upper()}"}]}

    @server.tool
    def order_create(idempotency_key: str, supplier_id: int) -> dict[str, Any]:
        """Create an order."""
        return {"order_no": "PO1", "key": idempotency_key, "supplier_id": supplier_id}

    @server.tool
    async def part_slow(seconds: float) -> dict[str, Any]:
        """A part query that takes its time."""
        await asyncio.sleep(seconds)
        return {"items": []}

    @server.tool(annotations={"readOnlyHint": True})
    def part_lookup(sku: str) -> dict[str, Any]:
        """One part by SKU (the server says it only reads)."""
        return {"sku": f"SK-{sku.upper()}"}

    @server.tool
    def inventory_warning() -> dict[str, Any]:
        """Not granted to anyone in SPEC."""
        return {}

    return server


class Switch:
    """A client factory whose server can be taken down (ending its open sessions) and
    brought back."""

    def __init__(self) -> None:
        self.up = False
        self.server = make_server()
        self.connects = 0
        self.clients: list[Client[Any]] = []

    def __call__(self, name: str, timeout: float) -> Client[Any]:
        self.connects += 1
        if not self.up:
            raise ConnectionError("All connection attempts failed")
        client: Client[Any] = Client(self.server)
        self.clients.append(client)
        return client

    async def down(self) -> None:
        self.up = False
        for client in self.clients:
            await client.close()


def test_the_repo_file_loads_and_grants_the_order_agent_its_tools() -> None:
    registry = load_registry(REPO_ROOT / "mcp_servers.yaml")
    assert registry.server_names == ["erp", "viz"]
    tools = registry.declared_tools("procurement-order")
    assert {"order_create", "order_update", "order_search_details"} <= set(tools)
    # The orchestrator only reads (grounding names, stock answers); it never writes.
    granted = set(registry.declared_tools("orchestrator"))
    assert "category_list" in granted and "inventory_warning" in granted
    assert not granted & {"order_create", "order_update"}


def test_urls_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    registry = McpRegistry([SPEC])
    assert registry.url("erp") == "http://127.0.0.1:1/mcp"
    monkeypatch.setenv("TEST_ERP_MCP_URL", "http://erp.example:9000/mcp")
    assert registry.url("erp") == "http://erp.example:9000/mcp"


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("servers: 3", "'servers' list"),
        ("servers:\n  - {name: a, transport: stdio}", "needs a 'command'"),
        ("servers:\n  - {name: a, transport: ftp, url: x}", "unknown transport"),
        ("servers:\n  - {name: a, url: x, agents: {analyst: {names: [x]}}}", "'tools'"),
        ("servers:\n  - {name: a, url: x}\n  - {name: a, url: y}", "listed twice"),
    ],
)
def test_config_mistakes_raise_naming_the_file(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "mcp_servers.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=fragment) as caught:
        load_registry(path)
    assert str(path) in str(caught.value)


async def test_nothing_connects_until_tools_are_asked_for() -> None:
    switch = Switch()
    registry = McpRegistry([SPEC], client_factory=switch)
    assert registry.server_for("analyst", "part_search") == "erp"
    assert switch.connects == 0


async def test_a_down_server_gives_stand_ins_whose_error_names_it() -> None:
    switch = Switch()
    registry = McpRegistry([SPEC], client_factory=switch)
    tools = {t.name: t for t in await registry.tools_for("procurement-order")}
    assert set(tools) == {"order_create", "part_search"}
    answer = await tools["part_search"].ainvoke({"name": "x"})
    assert "MCP server 'erp'" in answer and "python -m mcp_erp" in answer
    assert "unreachable" in answer


async def test_the_server_coming_back_is_picked_up(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("graphs.mcp_registry._RETRY_AFTER_S", 0.0)
    switch = Switch()
    registry = McpRegistry([SPEC], client_factory=switch)
    stand_in = {t.name: t for t in await registry.tools_for("procurement-order")}["part_search"]
    switch.up = True
    # The stand-in itself forwards once the server answers ...
    assert "SK-NGK" in await stand_in.ainvoke({"name": "ngk"})
    # ... and the next listing has the real tools with their schemas.
    tools = {t.name: t for t in await registry.tools_for("procurement-order")}
    assert "name" in tools["part_search"].args


async def test_filters_and_hidden_args() -> None:
    switch = Switch()
    switch.up = True
    registry = McpRegistry([SPEC], client_factory=switch)
    analyst = {t.name for t in await registry.tools_for("analyst")}
    assert analyst == {"part_search", "part_slow", "part_lookup"}  # prefix part_ only
    order = {t.name: t for t in await registry.tools_for("procurement-order")}
    assert "idempotency_key" not in order["order_create"].args  # the graph fills it in
    created = await order["order_create"].ainvoke({"supplier_id": 3, "idempotency_key": "k" * 10})
    assert '"order_no":"PO1"' in created.replace(" ", "")


async def test_tool_errors_come_back_as_text() -> None:
    switch = Switch()
    switch.up = True
    registry = McpRegistry([SPEC], client_factory=switch)
    order = {t.name: t for t in await registry.tools_for("procurement-order")}
    answer = await order["order_create"].ainvoke({"supplier_id": "not a number"})
    assert answer.startswith("Error from erp.order_create")


async def test_a_call_that_finds_the_server_gone_reports_it() -> None:
    switch = Switch()
    switch.up = True
    registry = McpRegistry([SPEC], client_factory=switch)
    tool = {t.name: t for t in await registry.tools_for("procurement-order")}["part_search"]
    await switch.down()
    answer = await tool.ainvoke({"name": "x"})
    assert "MCP server 'erp'" in answer and "unreachable" in answer


async def test_hidden_args_are_filled_in_per_call() -> None:
    switch = Switch()
    switch.up = True
    filled: list[dict[str, Any]] = []

    def fill(args: dict[str, Any]) -> dict[str, Any]:
        filled.append(args)
        return {**args, "idempotency_key": "po-derived-key"}

    registry = McpRegistry([SPEC], client_factory=switch, fillers={"order_create": fill})
    order = {t.name: t for t in await registry.tools_for("procurement-order")}
    created = await order["order_create"].ainvoke({"supplier_id": 3})
    assert '"key":"po-derived-key"' in created.replace(" ", "")
    assert filled == [{"supplier_id": 3}]


async def test_every_call_shares_one_session() -> None:
    switch = Switch()
    switch.up = True
    registry = McpRegistry([SPEC], client_factory=switch)
    try:
        tool = {t.name: t for t in await registry.tools_for("procurement-order")}["part_search"]
        for i in range(60):
            assert f"SK-P{i}" in await tool.ainvoke({"name": f"p{i}"})
        answers = await asyncio.gather(*(tool.ainvoke({"name": f"c{i}"}) for i in range(40)))
        assert all(f"SK-C{i}" in a for i, a in enumerate(answers))
        assert switch.connects == 1
        assert registry.sessions.opened["erp"] == 1
    finally:
        await registry.aclose()


async def test_a_broken_session_is_replaced_once_for_all_callers() -> None:
    switch = Switch()
    switch.up = True
    registry = McpRegistry([SPEC], client_factory=switch)
    try:
        tool = {t.name: t for t in await registry.tools_for("procurement-order")}["part_search"]
        await switch.down()
        switch.up = True  # the server restarted: the old session is gone, a new one works
        answers = await asyncio.gather(*(tool.ainvoke({"name": f"r{i}"}) for i in range(20)))
        assert all(f"SK-R{i}" in a for i, a in enumerate(answers)), answers
        assert switch.connects == 2
        assert registry.sessions.opened["erp"] == 2
    finally:
        await registry.aclose()


async def test_a_call_that_times_out_fails_alone() -> None:
    # A slow answer is that call's error; the server's other tools keep working at once.
    switch = Switch()
    switch.up = True
    registry = McpRegistry([SPEC], client_factory=switch)
    try:
        tools = {t.name: t for t in await registry.tools_for("analyst", call_timeout_s=0.3)}
        answer = await tools["part_slow"].ainvoke({"seconds": 3})
        assert "part_slow" in answer and "did not answer within" in answer
        assert "unreachable" not in answer
        again = {t.name: t for t in await registry.tools_for("analyst", call_timeout_s=0.3)}
        assert not again["part_search"].metadata.get("stand_in")  # type: ignore[union-attr]
        assert "SK-FAST" in await again["part_search"].ainvoke({"name": "fast"})
        assert registry.sessions.opened["erp"] == 1  # the session was kept
    finally:
        await registry.aclose()


async def test_one_broken_call_does_not_take_the_server_down_for_others(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A connection reset halfway through one call (the server may have run it: not
    # repeated) is that call's error; the next run lists the server again and works.
    switch = Switch()
    switch.up = True
    registry = McpRegistry([SPEC], client_factory=switch)
    try:
        tool = {t.name: t for t in await registry.tools_for("procurement-order")}["part_search"]
        real = registry.sessions.run
        broken = [True]

        async def reset_once(server: str, op: Any, **kwargs: Any) -> Any:
            if broken.pop() if broken else False:
                raise httpx.RemoteProtocolError("peer closed connection mid-response")
            return await real(server, op, **kwargs)

        monkeypatch.setattr(registry.sessions, "run", reset_once)
        answer = await tool.ainvoke({"name": "x"})
        assert "MCP server 'erp'" in answer and "unreachable" in answer
        # the very next run, within the outage window of a real outage, gets real tools
        tools = {t.name: t for t in await registry.tools_for("procurement-order")}
        assert not tools["part_search"].metadata.get("stand_in")  # type: ignore[union-attr]
        assert "SK-NEXT" in await tools["part_search"].ainvoke({"name": "next"})
    finally:
        await registry.aclose()


class BreaksOnce(Switch):
    """Sessions whose connection breaks under the first call of each tool (a reset or a
    keep-alive connection the server closed as the request went out)."""

    def __init__(self) -> None:
        super().__init__()
        self.up = True
        self.broke: set[str] = set()

    def __call__(self, name: str, timeout: float) -> Client[Any]:
        client = super().__call__(name, timeout)
        real = client.call_tool_mcp
        broke = self.broke

        async def call_tool_mcp(tool: str, arguments: dict[str, Any], **kwargs: Any) -> Any:
            if tool not in broke:
                broke.add(tool)
                raise httpx.ReadError("[Errno 104] Connection reset by peer")
            return await real(tool, arguments, **kwargs)

        client.call_tool_mcp = call_tool_mcp  # type: ignore[method-assign]
        return client


async def test_a_read_only_tool_is_asked_again_when_its_connection_breaks() -> None:
    switch = BreaksOnce()
    registry = McpRegistry([SPEC], client_factory=switch)
    try:
        tools = {t.name: t for t in await registry.tools_for("analyst")}
        # The server marks part_lookup read-only: sent again on a new session, answered.
        assert "SK-A1" in await tools["part_lookup"].ainvoke({"sku": "a1"})
        assert registry.sessions.opened["erp"] == 2
        # part_search does not say so: the broken call is that call's error (it may have
        # run), naming the server; the next call works.
        answer = await tools["part_search"].ainvoke({"name": "x"})
        assert "MCP server 'erp'" in answer and "Connection reset by peer" in answer
        assert "SK-Y" in await tools["part_search"].ainvoke({"name": "y"})
    finally:
        await registry.aclose()
