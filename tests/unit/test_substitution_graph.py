"""The substitution flow as a real agent graph runs it (issue 19): the offline planner, the
ERP's MCP tools, a JSON-RPC client's BOM and apply tools (ClientTools interrupts), the
approval in LangChain's standard human-in-the-loop shape, and the checkpointer.

What the adapter would send the client is read from the interrupts: the client's BOM
tool is called, the table is put up for approval (its card is the table), the apply tool
is called exactly once after approval with the plan's changes, never after a rejection,
and the client's apply tool is never offered to the model itself.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Command

from core.client_tools import is_client_tool_interrupt
from core.interrupts import is_approval_request
from graphs.middleware.client_tools import ClientToolsMiddleware
from graphs.middleware.mcp_tools import McpToolsMiddleware
from graphs.middleware.substitution import Substitution
from graphs.offline import OfflinePlanner
from tests.unit.planner_harness import PlannerWorld, planner_world

FETCH = {"name": "fetch_bom_tool", "description": "Fetch the bill of materials (BOM) of a product",
         "parameters": {"type": "object", "properties": {"product": {"type": "string"}},
                        "required": ["product"]}}  # fmt: skip
APPLY = {"name": "apply_bom_changes", "description": "Apply part replacements to the BOM",
         "parameters": {"type": "object", "properties": {"changes": {"type": "array", "items": {
             "type": "object", "properties": {"line": {"type": "integer"},
                                              "old_part": {"type": "string"},
                                              "new_part": {"type": "string"}}}}}}}  # fmt: skip


OFFERED: list[set[str]] = []  # the tool names each model call was offered


class Recorder(OfflinePlanner):
    """The offline planner, remembering the tool names each call offered it."""

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        names = set()
        for t in tools:
            fn = t.get("function") if isinstance(t, dict) else None
            names.add(fn["name"] if fn else getattr(t, "name", ""))
        OFFERED.append(names)
        return super().bind_tools(tools, **kwargs)


@pytest.fixture
async def world(erp_template: Path, tmp_path: Path) -> AsyncIterator[PlannerWorld]:
    async with planner_world(erp_template, tmp_path / "erp", date(2026, 12, 3)) as w:
        yield w


async def _bom(world: PlannerWorld) -> tuple[dict[str, Any], str]:
    """A BOM of two chains of one brand with exact equivalents of another, plus a spark
    plug; the other brand's English name."""
    chains = (await world.erp("/parts", category="CH", size=100))["items"]
    for part in chains:
        eqs = (await world.erp(f"/parts/{part['id']}/equivalents"))["equivalents"]
        exact = [e for e in eqs if e["match"] == "exact" and e["offers"]]
        if exact:
            brand, target = part["brand"], exact[0]["part"]["brand"]
            break
    same = [p for p in chains if p["brand"] == brand]
    plug = (await world.erp("/parts", category="SP", size=1))["items"][0]
    lines = [(10, same[0]), (20, plug), (30, same[1])]
    rows = [{"line": n, "part": p["sku"], "description": p["name_en"], "qty": 2} for n, p in lines]
    bom = {"product": "P-100", "lines": rows}
    return bom, f"replace the {brand} chains in the BOM of P-100 with {target} equivalents"


def _agent(world: PlannerWorld) -> Any:
    return create_agent(
        model=Recorder(policy="orchestrator"),
        middleware=[
            McpToolsMiddleware(world.registry, agent="orchestrator"),
            ClientToolsMiddleware(),
            Substitution(world.registry),
        ],
        checkpointer=InMemorySaver(),
    )


def _only_interrupt(out: dict[str, Any]) -> Any:
    [pending] = out["__interrupt__"]
    return pending.value


async def _to_approval(world: PlannerWorld, agent: Any, cfg: dict[str, Any]) -> Any:
    bom, text = await _bom(world)
    out = await agent.ainvoke({"messages": [HumanMessage(content=text)]}, cfg)
    fetch = _only_interrupt(out)
    assert is_client_tool_interrupt(fetch)
    [call] = fetch["calls"]
    assert (call["tool_name"], call["arguments"]) == ("fetch_bom_tool", {"product": "P-100"})
    resume = {call["call_id"]: {"success": True, "result": json.dumps(bom)}}
    out = await agent.ainvoke(Command(resume=resume), cfg)
    return _only_interrupt(out)


async def test_approved_the_clients_apply_tool_runs_once(world: PlannerWorld) -> None:
    agent = _agent(world)
    cfg = {"configurable": {"thread_id": "t1", "client_tools": [FETCH, APPLY]}}
    OFFERED.clear()
    card = await _to_approval(world, agent, cfg)

    assert is_approval_request(card)
    [action] = card["action_requests"]
    assert action["name"] == "apply_substitution"
    assert "| Line |" in action["description"] and "apply_bom_changes" in action["description"]
    state = (await agent.aget_state(cfg)).values
    [plan] = state["substitution_plans"].values()
    assert {r["line"] for r in plan["rows"]} == {"10", "30"}, "the plug is not touched"
    assert not state.get("substitutions_applied")
    # Offered the BOM tool, never the apply tool (only the approved path applies).
    assert all("fetch_bom_tool" in o and "apply_bom_changes" not in o for o in OFFERED)

    out = await agent.ainvoke(Command(resume={"decisions": [{"type": "approve"}]}), cfg)
    apply = _only_interrupt(out)
    assert is_client_tool_interrupt(apply)
    [call] = apply["calls"]
    expected = [{"line": int(r["line"]), "old_part": r["bom_part"], "new_part": r["new"]["sku"]}
                for r in plan["rows"]]  # fmt: skip
    assert call["tool_name"] == "apply_bom_changes"
    assert call["arguments"] == {"changes": expected}

    done = {call["call_id"]: {"success": True, "result": '{"applied": 2}'}}
    out = await agent.ainvoke(Command(resume=done), cfg)
    assert "__interrupt__" not in out
    final = out["messages"][-1]
    assert isinstance(final, AIMessage) and "apply_bom_changes" in str(final.content)
    assert "Replaced 2 line(s)" in str(final.content)

    # The same answer delivered again (a client retry) applies nothing more.
    again = await agent.ainvoke(Command(resume=done), cfg)
    assert "__interrupt__" not in again
    state = (await agent.aget_state(cfg)).values
    assert len(state["substitutions_applied"]) == 1
    applies = [m for m in state["messages"] if getattr(m, "name", None) == "apply_substitution"]
    assert len(applies) == 1


async def test_rejected_nothing_reaches_the_client(world: PlannerWorld) -> None:
    agent = _agent(world)
    cfg = {"configurable": {"thread_id": "t2", "client_tools": [FETCH, APPLY]}}
    await _to_approval(world, agent, cfg)
    out = await agent.ainvoke(Command(resume={"decisions": [{"type": "reject"}]}), cfg)
    assert "__interrupt__" not in out
    assert "nothing in the BOM changed" in str(out["messages"][-1].content)
    state = (await agent.aget_state(cfg)).values
    assert not state.get("substitutions_applied")


async def test_without_an_apply_tool_the_answer_is_a_batch_replace_request(
    world: PlannerWorld,
) -> None:
    agent = _agent(world)
    cfg = {"configurable": {"thread_id": "t3", "client_tools": [FETCH]}}
    card = await _to_approval(world, agent, cfg)
    assert "batch-replace" in card["action_requests"][0]["description"]
    out = await agent.ainvoke(Command(resume={"decisions": [{"type": "approve"}]}), cfg)
    assert "__interrupt__" not in out
    text = str(out["messages"][-1].content)
    request = json.loads(text.split("```json", 1)[1].split("```", 1)[0])
    assert len(request["changes"]) == 2
    assert all(set(b) == {"old", "new", "tasks"} for b in request["batch_replace"])


async def test_an_edit_applies_only_the_lines_kept(world: PlannerWorld) -> None:
    agent = _agent(world)
    cfg = {"configurable": {"thread_id": "t4", "client_tools": [FETCH, APPLY]}}
    card = await _to_approval(world, agent, cfg)
    [action] = card["action_requests"]
    kept = {"name": action["name"], "args": {**action["args"], "lines": ["30"]}}
    edit = {"type": "edit", "edited_action": kept}
    out = await agent.ainvoke(Command(resume={"decisions": [edit]}), cfg)
    [call] = _only_interrupt(out)["calls"]
    assert [c["line"] for c in call["arguments"]["changes"]] == [30]
    out = await agent.ainvoke(Command(resume={call["call_id"]: {"success": True}}), cfg)
    state = (await agent.aget_state(cfg)).values
    [applied] = state["substitutions_applied"].values()
    assert [c["line"] for c in applied["changes"]] == ["30"]
