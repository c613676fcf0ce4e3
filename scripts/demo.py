"""The main job of ``scripts/run``: the flagship demo through the running stack.

A buyer asks the orchestrator, through the LangGraph SDK, for a spark-plug supplier
comparison. The orchestrator answers at once with a task id while the analyst works in
the background on its own thread; the demo joins the analyst's run stream and prints
each stage and tool as the analyst's ``custom`` progress events arrive, then joins the
orchestrator's wake-up run (the analyst's end starts it) and prints the result, where the
report and charts are, then places an order for the analysis' best offer (checked by the
ERP first), shows the approval card, approves it, and shows the ERP row it created with
who asked for it and who approved it. Nothing is polled.

``--erp-tour`` runs the older scripted ERP tour through the MCP server instead.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
from fastmcp import Client
from langgraph_sdk.client import LangGraphClient

from core.agent_client import agent_client
from runstack.services import agent_server_auth
from runstack.threads import (
    FLAGSHIP_REQUEST,
    REPORT,
    Analysis,
    follow_run,
    interrupts,
    message_text,
    runs_since,
    start_analysis,
    thread_messages,
    woken_answer,
)
from scripts.stack import read_state

USER = {"user_id": "demo-buyer", "username": "演示采购员"}
# The charts the orchestrator shows: Markdown images on the artifacts route (signed links).
CHART = re.compile(r"!\[[^\]]*\]\((\S+?\.png(?:\?[^)\s]*)?)\)")
ANALYSIS_TIMEOUT_S = 600

_T0 = time.monotonic()


def _say(msg: str) -> None:
    print(f"[demo {time.monotonic() - _T0:6.1f}s] {msg}", flush=True)


def _first_line(text: str, width: int = 110) -> str:
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return line if len(line) <= width else line[: width - 1] + "…"


def _describe(event: Any) -> str | None:
    """One progress line for an analyst ``custom`` event, or None to skip it."""
    if not isinstance(event, dict) or event.get("type") != "analyst_progress":
        return None
    kind = event.get("event")
    if kind == "stage":
        return f"stage {event.get('stage')}/5: {event.get('label')}"
    if kind == "tool" and event.get("status") == "started":
        stage = f" (stage {event['stage']})" if event.get("stage") else ""
        return f"  analyst → {event.get('tool')}{stage}"
    if kind == "tool" and event.get("status") == "error":
        return f"  tool {event.get('tool')} error"
    if kind == "finished":
        return f"analyst finished; stages {event.get('stages')}"
    return None


async def follow_analyst(client: LangGraphClient, started: Analysis) -> str:
    """Follow the analyst's run and then the orchestrator's wake-up run as they stream;
    return the orchestrator's final text."""
    [run] = await client.runs.list(started.task_id, limit=1)
    _say(f"analyst thread {started.task_id} (parent_thread_id = {started.thread_id})")
    async with asyncio.timeout(ANALYSIS_TIMEOUT_S):
        async for part in follow_run(client, started.task_id, run["run_id"]):
            if part.event == "custom" and (line := _describe(part.data)):
                _say(line)
            elif part.event == "error":
                msg = f"the analysis failed: {part.data}"
                raise RuntimeError(msg)
        # The analyst's end started a run on the orchestrator's thread: follow it too.
        for wake in await runs_since(client, started.thread_id, started.run_id):
            _say(f"orchestrator woken (run {wake['run_id']}); following it")
            async for part in follow_run(client, started.thread_id, wake["run_id"]):
                if part.event == "error":
                    msg = f"the orchestrator's follow-up failed: {part.data}"
                    raise RuntimeError(msg)
    final = await woken_answer(client, started.thread_id, naming=REPORT)
    if final is None:
        msg = "the orchestrator was not woken with the report"
        raise RuntimeError(msg)
    return final


async def _run(client: LangGraphClient, thread_id: str, **kwargs: Any) -> dict[str, Any]:
    await client.runs.wait(thread_id, "orchestrator", context=dict(USER), **kwargs)
    thread: Any = await client.threads.get(thread_id)
    return dict(thread)


def _best_offer(data_dir: Path, task_id: str) -> dict[str, Any] | None:
    """The best-ranked (part, supplier) of the analysis result in the analyst's workspace."""
    from graphs.sandbox.workspace import workspace_path

    path = workspace_path(data_dir / "sandboxes", task_id) / "data/analysis_result.json"
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    for part in result.get("parts", []):
        for row in part.get("suppliers", []):
            if row.get("rank") == 1:
                return {"part": part, "supplier": row, "path": path}
    return None


async def analyse(client: LangGraphClient) -> tuple[str, str]:
    """Ask for the analysis and follow it; ``(the analyst's task id, the final answer)``."""
    _say(f"buyer → orchestrator: {FLAGSHIP_REQUEST}")
    started = await start_analysis(
        client, FLAGSHIP_REQUEST, USER, metadata={"user_id": USER["user_id"]}
    )
    _say(f"orchestrator answered in {started.answered_in:.1f}s: {_first_line(started.answer)}")
    _say(f"background task {started.task_id}; the buyer could keep chatting meanwhile")
    final = await follow_analyst(client, started)
    _say("orchestrator was woken by the analyst and told the buyer:")
    for line in final.splitlines()[:12]:
        if line.strip():
            print(f"      {line}", flush=True)
    return started.task_id, final


def show_report(final: str, data_dir: Path, agent_url: str) -> None:
    """Print where the report named in ``final`` is, and the charts it shows (as URLs on
    the Agent Server at ``agent_url`` when the answer gives the route's path)."""
    report = REPORT.search(final)
    if not report:
        return
    found = sorted((data_dir / "sandboxes").glob(f"*/{report.group(0).lstrip('/')}"))
    _say(
        f"report: {found[-1] if found else report.group(0)} (also in the Store under "
        f"/reports/{USER['user_id']}/)"
    )
    for url in CHART.findall(final):
        _say(f"chart: {agent_url.rstrip('/')}{url}" if url.startswith("/") else f"chart: {url}")


async def place_order(client: LangGraphClient, offer: dict[str, Any]) -> str:
    """Order ``offer`` through the orchestrator, answering its questions and approving;
    the orchestrator's last answer."""
    part, row = offer["part"], offer["supplier"]
    qty = max(200, int(row.get("moq") or row.get("min_order_qty") or 1))
    # A delivery date the supplier's lead time can meet, so the ERP's check passes.
    weeks = int(row.get("lead_time_days") or 0) // 7 + 2
    order_request = (
        f"给 {row.get('supplier_name_zh') or row['supplier_code']} 下单 {qty} 个 "
        f"{part['sku']}，{weeks}周内到货"
    )
    order_thread = (await client.threads.create(metadata={"user_id": USER["user_id"]}))["thread_id"]
    _say(f"buyer → orchestrator: {order_request}")
    order_prompt: Any = {"messages": [{"role": "user", "content": order_request}]}
    thread = await _run(client, order_thread, input=order_prompt)
    for _ in range(3):  # answer questions for missing fields, then the approval
        pending = interrupts(thread)
        if not pending:
            break
        value = pending[0]["value"]
        if value.get("type") == "request_order_info":
            _say(f"order agent asks for {value.get('fields')}; answering quantity {qty}")
            thread = await _run(client, order_thread, command={"resume": {"quantity": qty}})
            continue
        action = value["action_requests"][0]
        _say(f"approval requested: {action['name']}; the card the buyer sees:")
        for line in str(action.get("description", "")).splitlines():
            print(f"      {line}", flush=True)
        _say("the demo buyer approves")
        thread = await _run(
            client, order_thread,
            command={"resume": {"decisions": [{"type": "approve"}]}},
        )  # fmt: skip
    answer = message_text((await thread_messages(client, order_thread))[-1])
    _say(f"orchestrator: {_first_line(answer)}")
    return answer


async def show_erp_row(erp_url: str, answer: str) -> None:
    """Print the ERP's row of the order ``answer`` names; ``RuntimeError`` when it names none."""
    order_no = re.search(r"PO\d{11}", answer)
    if not order_no:
        msg = f"the order was not placed: {answer[:300]}"
        raise RuntimeError(msg)
    async with httpx.AsyncClient(base_url=erp_url, timeout=10) as erp:
        found = (
            await erp.get("/orders/search-details", params={"order_no": order_no.group(0)})
        ).json()
    for order in found.get("items", []):
        _say(
            f"ERP row: {order['order_no']} {order['supplier_code']} {order['status']} "
            f"total {order['total']} {order['currency']} "
            + ", ".join(f"{ln['sku']}×{ln['quantity']}" for ln in order["lines"])
            + f"; requested by {order.get('requested_by')}, approved by {order.get('approved_by')}"
        )


async def flagship(agent_url: str, erp_url: str, data_dir: Path) -> None:
    """Run the analysis and the approved order; raise when a step does not happen."""
    # With the server's auth on, the demo runs as a service account acting for its buyer.
    client = agent_client(agent_url, timeout=120, headers=agent_server_auth()[1])
    try:
        task_id, final = await analyse(client)
        offer = _best_offer(data_dir, task_id)
        show_report(final, data_dir, agent_url)
        if offer is None:
            _say("no ranked offer in the analysis result; skipping the order step")
            return
        await show_erp_row(erp_url, await place_order(client, offer))
    finally:
        await client.aclose()


def _data(result: Any) -> Any:
    if result.structured_content is not None:
        sc = result.structured_content
        return sc.get("result", sc) if isinstance(sc, dict) and len(sc) == 1 else sc
    text = "".join(getattr(c, "text", "") for c in result.content)
    return json.loads(text) if text else None


async def erp_tour(mcp_url: str) -> None:
    """Walk the ERP through its MCP server: suppliers, parts, offers, stock, one order."""
    async with Client(mcp_url) as client:
        tools = await client.list_tools()
        _say(f"connected to {mcp_url}: {len(tools)} tools ({', '.join(t.name for t in tools)})")
        ngk = _data(await client.call_tool("supplier_query", {"name": "NGK"}))["items"][0]
        _say(f"supplier_query NGK → {ngk['code']} {ngk['name_zh']} ({ngk['status']})")
        parts = _data(await client.call_tool("part_search", {"name": "火花塞", "limit": 5}))
        _say(
            f"part_search 火花塞 → {parts['total']} matches; first: "
            + ", ".join(p["sku"] for p in parts["items"][:5])
        )
        offers = _data(await client.call_tool("part_by_supplier",
                                              {"supplier_id": ngk["id"], "size": 5}))  # fmt: skip
        first = offers["items"][0]
        _say(
            f"part_by_supplier {ngk['code']} → {offers['total']} parts; e.g. {first['sku']} "
            f"{first['offer']['price']} {first['offer']['currency']}"
        )
        warn = _data(await client.call_tool("inventory_warning", {"size": 3}))
        _say(f"inventory_warning → {warn['total']} parts below safety stock")
        few = max(1, first["offer"]["min_order_qty"] - 1)
        checked = _data(await client.call_tool("order_validate", {
            "supplier_id": ngk["id"],
            "lines": [{"part_id": first["id"], "quantity": few}]}))  # fmt: skip
        found = "; ".join(f"{v['code']}: {v['fix']}" for v in checked["violations"])
        _say(f"order_validate {few} × {first['sku']} (a dry run) → {found or 'ok'}")
        create = {
            "idempotency_key": f"demo-{uuid.uuid4().hex[:12]}", "supplier_id": ngk["id"],
            "lines": [{"part_id": first["id"], "quantity": first["offer"]["min_order_qty"]}],
            "requested_by": USER["user_id"],
        }  # fmt: skip
        order = _data(await client.call_tool("order_create", create))
        again = _data(await client.call_tool("order_create", create))
        _say(
            f"order_create → {order['order_no']} {order['status']}; same key again → "
            f"{again['order_no']} (no duplicate)"
        )
        upd = _data(await client.call_tool("order_update", {
            "order_id": order["order_no"], "expected_version": order["version"],
            "status": "cancelled", "actor": USER["user_id"]}))  # fmt: skip
        _say(f"order_update → {upd['order_no']} {upd['status']} (version {upd['version']})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--erp-tour", action="store_true", help="only tour the ERP through MCP")
    args = parser.parse_args(argv)
    state = read_state()
    services = (state or {}).get("services", {})
    if args.erp_tour:
        if "erp-mcp" not in services:
            print("[demo] the ERP MCP server is not running: scripts/stack up", file=sys.stderr)
            return 1
        asyncio.run(erp_tour(services["erp-mcp"]["links"]["MCP"]))
        return 0
    needed = {"agent-server", "sim-erp", "erp-mcp", "viz-gateway", "sim-suppliers"}
    if not needed <= set(services):
        missing = ", ".join(sorted(needed - set(services)))
        print(f"[demo] not running: {missing}; start the stack with scripts/stack up",
              file=sys.stderr)  # fmt: skip
        return 1
    from core.settings import CommonSettings

    agent_url = services["agent-server"]["url"]
    try:
        asyncio.run(flagship(agent_url, services["sim-erp"]["url"], CommonSettings().data_dir))
    except (RuntimeError, TimeoutError) as exc:
        print(f"[demo] failed: {exc}", file=sys.stderr)
        return 1
    _say(f"done. LangGraph Studio: https://smith.langchain.com/studio/?baseUrl={agent_url}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
