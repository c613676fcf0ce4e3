"""Issue 19 from a CAD client's side: part substitution over a real WebSocket to the
JSON-RPC adapter mounted in ``langgraph dev`` (product graphs, offline planner, real ERP).

The client lends ``fetch_bom_tool`` and ``apply_bom_changes`` and answers their
``agent.toolCall`` frames. Its BOM is built from the ERP's catalogue and cross-reference
(``GET /parts``, ``GET /parts/{id}/equivalents``): lines of the brand or category to replace
that have an exact equivalent, one that has none, and lines the request leaves alone.

- For several phrasings (Chinese and English; by brand or by category; target brand named
  or not; "同规格"): the table the client is shown proposes, for each affected line, one of
  the ERP's exact equivalents (of the brand named), lists the line without one and
  proposes nothing for the others; nothing reaches the apply tool before the approval
  (``agent.interrupt`` answered with ``agent.resume``); after it, the apply tool is called
  exactly once with the table's changes. A reject applies nothing.
- The BOM tool's other forms (a list at top level, ``item``/``position``, ``sku``/
  ``part_no``, ``quantity``, CSV or markdown text) give the same table.
- A client's apply tool of another shape (``update_bom {replacements: [{position,
  from_part, to_part}]}``) is called once, in its own argument names.
- Without an apply tool, the answer carries a batch-replace request; run through the
  adapter's ``POST /api/batch-replace`` it rewrites exactly the lines with an equivalent,
  each to an ERP equivalent; no other tool is called and the ERP gets no order.
- The reference protocol's example frames (register with ``fetch_bom_tool``, chat,
  toolCall, submitToolResult, response) run unchanged, in their exact shapes.
- Faults: a BOM tool that fails or answers garbage, a BOM with no line the request names:
  a plain answer, no approval card, nothing applied.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from tests.e2e.agents_stack import Stack
from tests.e2e.rpc_fixtures.cad_client import APPLY_TOOL_NAME as APPLY
from tests.e2e.rpc_fixtures.cad_client import BOM_TOOL_NAME as BOM
from tests.e2e.rpc_fixtures.cad_client import UPDATE_TOOL, CadClient
from tests.e2e.rpc_fixtures.ws import RawRpc
from tests.e2e.substitution import (
    ASKS,
    Case,
    Catalogue,
    batch_requests,
    check_changes,
    run_batch_replace,
    shown_rows,
    table_proposals,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def ws_url(stack: Stack) -> str:
    assert stack.agent is not None
    return f"ws://127.0.0.1:{stack.agent.port}/v1/ws?session_id={uuid.uuid4().hex}"


@pytest.fixture
async def rpc(served: Stack) -> AsyncIterator[RawRpc]:
    client = await RawRpc.connect(ws_url(served))
    try:
        yield client
    finally:
        await client.close()


def bom_of(case: Case) -> Any:
    def answer(arguments: dict[str, Any]) -> tuple[bool, Any]:
        return True, json.dumps(case.bom_json(), ensure_ascii=False)

    return answer


async def order_count(stack: Stack) -> int:
    found = await asyncio.to_thread(stack.erp_get, "/orders/search-details", size=1)
    return int(found["total"])


def approvals(cad: CadClient) -> list[dict[str, Any]]:
    return [c for c in cad.interrupts() if c.get("kind") == "approval"]


def decision(card: dict[str, Any], kind: str, **extra: Any) -> dict[str, Any]:
    """``agent.resume`` params deciding ``card`` (one decision per action when it has several)."""
    if card.get("actions"):
        return {
            "interrupt_id": card["interrupt_id"],
            "decisions": [{"type": kind, **extra} for _ in card["actions"]],
        }
    return {"interrupt_id": card["interrupt_id"], "decision": kind, **extra}


async def table_then_card(
    cad: CadClient, case: Case, catalogue: Catalogue
) -> tuple[dict[str, Any], dict[int, set[int]]]:
    """Ask for the substitution; check the table and that nothing was applied; the card."""
    await cad.register()
    chat = await cad.chat(case.request)
    frames = f"chat reply: {chat}\ncards: {cad.interrupts()}"
    assert cad.calls_of(BOM), f"the BOM tool was never called\n{frames}"
    others = [c for c in cad.calls if c["tool_name"] != BOM]
    assert others == [], f"client tools called before any approval\n{frames}"
    assert chat["result"]["status"] == "interrupted", frames
    cards = approvals(cad)
    assert len(cards) == 1, frames
    card = cards[0]
    proposals = table_proposals(case, catalogue, cad.shown())
    return card, proposals


@pytest.mark.parametrize("name", list(ASKS))
async def test_the_table_then_apply_once_after_approval(
    served: Stack, rpc: RawRpc, catalogue: Catalogue, cases: dict[str, Case], name: str
) -> None:
    case = cases[name]
    cad = CadClient(rpc, bom_of(case))
    card, proposals = await table_then_card(cad, case, catalogue)
    done = await cad.resume(decision(card, "approve"))
    assert done["result"]["status"] == "completed", done
    [applied] = cad.calls_of(APPLY)
    check_changes(case, catalogue, applied["arguments"]["changes"], proposals)
    await asyncio.sleep(2)  # a second apply would have been sent before the answer
    assert len(cad.calls_of(APPLY)) == 1
    assert [m for m in rpc.inbox if m.get("method") == "agent.toolCall"] == []


async def test_an_apply_tool_of_another_shape_gets_its_own_arguments(
    rpc: RawRpc, catalogue: Catalogue, cases: dict[str, Case]
) -> None:
    case = cases["zh-category-target"]
    cad = CadClient(rpc, bom_of(case), apply=UPDATE_TOOL)
    card, proposals = await table_then_card(cad, case, catalogue)
    done = await cad.resume(decision(card, "approve"))
    assert done["result"]["status"] == "completed", done
    [applied] = cad.calls_of(UPDATE_TOOL["name"])
    replacements = applied["arguments"]["replacements"]
    required = set(UPDATE_TOOL["parameters"]["properties"]["replacements"]["items"]["required"])
    assert all(required <= set(r) for r in replacements), f"not the tool's schema: {applied}"
    changes = [
        {"line": r["position"], "old_part": r["from_part"], "new_part": r["to_part"]}
        for r in replacements
    ]
    check_changes(case, catalogue, changes, proposals)


BOM_SHAPES = {
    "list-item-sku-quantity": lambda case: json.dumps(
        case.bom_json(line="item", part="sku", qty="quantity")["lines"], ensure_ascii=False
    ),
    "lines-position-part_no": lambda case: json.dumps(
        case.bom_json(line="position", part="part_no"), ensure_ascii=False
    ),
    "csv-text": lambda case: case.bom_csv(),
    "markdown-text": lambda case: case.bom_markdown("en"),
}


@pytest.mark.parametrize("shape", list(BOM_SHAPES))
async def test_bom_shapes_other_clients_send(
    rpc: RawRpc, catalogue: Catalogue, cases: dict[str, Case], shape: str
) -> None:
    # The contract's other BOM forms: the same table, and still nothing applied before a
    # decision.
    case = cases["en-category-any-brand"]
    text = BOM_SHAPES[shape](case)
    cad = CadClient(rpc, lambda _: (True, text))
    card, _ = await table_then_card(cad, case, catalogue)
    done = await cad.resume(decision(card, "reject", message="not now"))
    assert done["result"]["status"] == "completed", done
    assert cad.calls_of(APPLY) == []


async def test_a_reject_applies_nothing(
    served: Stack, rpc: RawRpc, catalogue: Catalogue, cases: dict[str, Case]
) -> None:
    case = cases["zh-brand-target-same-spec"]
    cad = CadClient(rpc, bom_of(case))
    card, _ = await table_then_card(cad, case, catalogue)
    done = await cad.resume(decision(card, "reject", message="先不换，等供应商报价"))
    assert done["result"]["status"] == "completed", done
    assert cad.calls_of(APPLY) == []
    assert approvals(cad) == [card]  # not asked again


async def test_without_an_apply_tool_the_answer_is_a_batch_replace_request(
    served: Stack, rpc: RawRpc, catalogue: Catalogue, cases: dict[str, Case]
) -> None:
    case = cases["en-brand-another-supplier"]
    before = await order_count(served)
    cad = CadClient(rpc, bom_of(case), apply=None)
    await cad.register()
    reply = await cad.chat(case.request)
    proposals = table_proposals(case, catalogue, cad.shown())
    if reply["result"]["status"] == "interrupted":
        [card] = approvals(cad)
        reply = await cad.resume(decision(card, "approve"))
    assert reply["result"]["status"] == "completed", reply
    requests = batch_requests([reply["result"], reply["result"].get("content", "")])
    assert requests, f"no batch-replace request ({{old, new, tasks}}) in {reply}"
    async with httpx.AsyncClient(base_url=served.url, timeout=60) as http:
        rewritten = await run_batch_replace(http, case, catalogue, requests)
    for line, new in rewritten.items():
        assert new & proposals[line], (line, "the request is not the table's")
    assert [c["tool_name"] for c in cad.calls] == [BOM] * len(cad.calls)
    assert await order_count(served) == before


async def test_the_reference_example_frames_run_unchanged(served: Stack, rpc: RawRpc) -> None:
    # The reference protocol's own example: a CAD client with a breaker BOM. The ERP sells
    # no breakers, so there is nothing to replace them with; the frames are the point.
    await rpc.send(
        {
            "jsonrpc": "2.0",
            "method": "agent.register",
            "params": {
                "client_id": "cad-client-001",
                "agent_id": "orchestrator",
                "tools": [
                    {
                        "name": "fetch_bom_tool",
                        "description": "获取当前图纸的 BOM（物料清单）",
                        "input_schema": {
                            "type": "object",
                            "properties": {"drawing_id": {"type": "string"}},
                        },
                    }
                ],
            },
            "id": 1,
        }
    )
    registered = await rpc.wait_for(lambda m: m.get("id") == 1, wait=60)
    assert set(registered) == {"jsonrpc", "id", "result"} and registered["jsonrpc"] == "2.0"
    assert registered["result"]["status"] == "registered"
    assert registered["result"]["tools_synced"][0] == "fetch_bom_tool"

    await rpc.send(
        {
            "jsonrpc": "2.0",
            "method": "agent.chat",
            "params": {"message": "把所有NDM2断路器替换为正泰NXM系列"},
            "id": 2,
        }
    )
    call = await rpc.wait_for(
        lambda m: m.get("method") == "agent.toolCall" or (m.get("id") == 2 and "method" not in m),
        wait=180,
    )
    assert call.get("method") == "agent.toolCall", f"answered without reading the BOM: {call}"
    assert set(call) == {"jsonrpc", "method", "params"}  # a notification: no id
    params = call["params"]
    assert params["tool_name"] == "fetch_bom_tool"
    assert isinstance(params["call_id"], str) and isinstance(params["arguments"], dict)
    bom = [
        {"序号": 1, "型号": "NDM2-63 C32", "名称": "塑壳断路器", "数量": 4},
        {"序号": 2, "型号": "NDM2-125 C100", "名称": "塑壳断路器", "数量": 2},
        {"序号": 3, "型号": "NXB-63 C16", "名称": "小型断路器", "数量": 10},
    ]
    await rpc.send(
        {
            "jsonrpc": "2.0",
            "method": "agent.submitToolResult",
            "params": {
                "call_id": params["call_id"],
                "tool_name": "fetch_bom_tool",
                "success": True,
                "result": json.dumps(bom, ensure_ascii=False),
            },
            "id": 3,
        }
    )
    accepted = await rpc.wait_for(lambda m: m.get("id") == 3 and "method" not in m, wait=30)
    assert set(accepted) == {"jsonrpc", "id", "result"}, accepted
    chat = await rpc.wait_for(lambda m: m.get("id") == 2 and "method" not in m, wait=180)
    assert set(chat) == {"jsonrpc", "id", "result"}, chat
    assert chat["result"]["status"] == "completed", chat
    response = await rpc.notification("agent.response", wait=10)
    assert set(response) == {"jsonrpc", "method", "params"}
    assert response["params"]["content"] == chat["result"]["content"]
    assert response["params"]["content"].strip()
    assert rpc.notifications("agent.toolCall") == []  # nothing else asked of the client
    assert rpc.notifications("agent.interrupt") == []  # nothing to approve


@pytest.mark.parametrize(
    ("success", "result"),
    [
        (False, "CAD document is locked by another user"),
        (True, "<html><body><h1>502 Bad Gateway</h1></body></html>"),
        (True, json.dumps({"status": "ok", "rows": None})),
    ],
    ids=["tool-fails", "html-garbage", "json-without-lines"],
)
async def test_a_broken_bom_tool_gets_a_plain_answer_and_nothing_applied(
    served: Stack, rpc: RawRpc, cases: dict[str, Case], success: bool, result: str
) -> None:
    case = cases["zh-brand-target-same-spec"]
    cad = CadClient(rpc, lambda _: (success, result))
    await cad.register()
    reply = await cad.chat(case.request)
    assert cad.calls_of(BOM), reply
    assert cad.calls_of(APPLY) == [] and approvals(cad) == [], reply
    said = plain_answer(cad, reply)
    assert any(word in said for word in ("BOM", "物料清单", "fetch_bom_tool")), said


def plain_answer(cad: CadClient, reply: dict[str, Any]) -> str:
    """The answer or the question the client got (no approval card: nothing to approve)."""
    result = reply["result"]
    if result["status"] == "interrupted":
        assert {c.get("kind") for c in cad.interrupts()} == {"question"}, reply
        said = "\n".join(str(c.get("description") or "") for c in cad.interrupts())
    else:
        assert result["status"] == "completed", reply
        said = str(result.get("content") or "")
    assert said.strip() and "Traceback" not in said, reply
    return said


async def test_a_bom_without_the_requested_parts_changes_nothing(
    served: Stack, rpc: RawRpc, catalogue: Catalogue, cases: dict[str, Case]
) -> None:
    case = cases["zh-brand-target-same-spec"]
    named = case.role("replace")[0].part
    # The same request on a BOM whose lines are all of other categories and brands.
    others = Case(
        case.request,
        [
            ln
            for ln in case.lines
            if ln.role == "keep"
            and ln.part["category_code"] != named["category_code"]
            and ln.part["brand"] != named["brand"]
        ],
    )
    assert others.lines, "the BOM builder gave no line of another category"
    cad = CadClient(rpc, bom_of(others))
    await cad.register()
    reply = await cad.chat(case.request)
    assert cad.calls_of(BOM), reply
    assert cad.calls_of(APPLY) == [] and approvals(cad) == [], reply
    plain_answer(cad, reply)
    # nothing is proposed: no part of the brand asked for is named
    target = {p["id"] for p in catalogue.parts.values() if p["brand"] == case.target_brand}
    proposed = set().union(*map(catalogue.mentions, shown_rows(cad.shown()))) & target
    assert not proposed, sorted(catalogue.parts[i]["sku"] for i in proposed)
