"""A sidecar killed during an analysis and during an order, under ``scripts/stack up --detach``
(issue 17, break 5): the launcher stops nothing else, the Agent Server keeps serving, the
tools report the outage naming the server and what to do, and once the service is back
the same Agent Server process uses it again.

Each sidecar in turn (the ERP, the ERP MCP server, the chart gateway, the supplier shops)
is killed with SIGKILL while an order waits for its approval and an analysis runs. The
launcher's restart delay is set long here (``STACK_RESTART_DELAY``), so the outage lasts
until the test brings the service back with ``scripts/stack restart NAME``: the tools
meet it for certain, however fast the analysis goes. (Restarts after the ordinary short
delay are tested in tests/integration/test_stack.py.)
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient
from PIL import Image

from runstack.threads import (
    FLAGSHIP_REQUEST,
    REPORT,
    analyst_thread,
    message_text,
    poll,
    start_analysis,
    thread_messages,
    woken_answer,
)
from tests.e2e.launched import (
    APPROVE,
    ORDER_NO,
    Launched,
    launched,
    order_waiting_for_approval,
    run,
    tool_texts,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

USER = {"user_id": "buyer-faults", "username": "Fault Tester"}
# What the tools say while each service is down (the analyst's tool messages).
OUTAGE = {
    "sim-erp": ("ERP_UNREACHABLE: the ERP at ", "scripts/stack status"),
    "erp-mcp": ("MCP server 'erp' at ", "scripts/stack restart erp-mcp"),
    "viz-gateway": ("the chart server at ", "python -m viz_gateway"),
    "sim-suppliers": ("could not connect to 127.0.0.1:", ""),
}
QUANTITY = {"sim-erp": 410, "erp-mcp": 420, "viz-gateway": 430, "sim-suppliers": 440}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Launched]:
    # A killed service stays down until `scripts/stack restart` brings it back.
    with launched(tmp_path_factory.mktemp("sidecar-faults"), STACK_RESTART_DELAY="900") as s:
        yield s


async def analysis_outcome(client: LangGraphClient, parent: str, task_id: str) -> dict[str, Any]:
    """Once the analyst has finished and woken its parent: its tool messages, its final
    answer and the parent's answer."""

    async def woken() -> str | None:
        return await woken_answer(client, parent)

    parent_answer = await poll(woken, 400, "the orchestrator to be woken", every=1)
    messages = await thread_messages(client, task_id)
    return {
        "tools": tool_texts(messages),
        "final": message_text(messages[-1]),
        "parent": parent_answer,
        "runs": await client.runs.list(task_id),
    }


def report_charts(stack: Launched, task_id: str) -> list[str]:
    """The charts of the analyst's report (saved beside it in its sandbox), each checked to
    decode."""
    folder = stack.workspace(task_id) / "analysis"
    [report] = list(folder.glob("report_*.md"))
    charts = re.findall(r"!\[[^\]]*\]\((charts/[^)]+\.png)\)", report.read_text(encoding="utf-8"))
    for chart in charts:
        Image.open(folder / chart).load()
    return charts


@pytest.mark.parametrize("name", list(OUTAGE))
async def test_a_sidecar_killed_during_an_analysis_and_an_order(stack: Launched, name: str) -> None:
    others = {n: stack.service(n)["pid"] for n in stack.state()["services"] if n != name}
    counts = {n: stack.service(n)["restarts"] for n in others}
    restarts = stack.service(name)["restarts"]
    request = f"给 NGK 下单 {QUANTITY[name]} 个火花塞 IU7"
    async with get_client(url=stack.agent_url, timeout=120) as client:
        order_thread, card_args = await order_waiting_for_approval(client, request, USER)
        started = await start_analysis(client, FLAGSHIP_REQUEST, USER)

        async def running() -> dict[str, Any] | None:
            return await analyst_thread(client, started.thread_id)

        await poll(running, 60, "the analyst's thread", every=0.2)
        stack.kill(name)
        stack.wait_state(name, "backoff", restarts=restarts)

        # The Agent Server keeps serving: the order's approval goes on, the analysis ends.
        ordered = await run(client, order_thread, USER, command=APPROVE)
        outcome = await analysis_outcome(client, started.thread_id, started.task_id)
        assert ordered["status"] == "idle"
        order_answer = message_text((await thread_messages(client, order_thread))[-1])
        said, advice = OUTAGE[name]
        found = [t for t in outcome["tools"] if said in t]
        assert found, (name, outcome["tools"][-8:])
        assert advice in found[0]
        if name in ("sim-erp", "erp-mcp"):
            # No data, no analysis: the run ends in error, never "finished".
            assert [r["status"] for r in outcome["runs"]] == ["error"]
            # The ERP is out of reach: the buyer is told why (no order: checked once it is back).
            assert said in order_answer or "ERP" in order_answer, order_answer
            assert not REPORT.search(outcome["final"])  # the analysis could not be made
        else:
            assert [r["status"] for r in outcome["runs"]] == ["success"]
            [order] = stack.erp_orders(card_args)  # the order does not need this service
            assert order["order_no"] in order_answer
            assert REPORT.search(outcome["final"])  # a report, without what was down

        # Nothing else was stopped or restarted by the launcher.
        assert {n: stack.service(n)["pid"] for n in others} == others
        assert {n: stack.service(n)["restarts"] for n in others} == counts

        restarted = stack.stack("restart", name)
        assert restarted.returncode == 0, restarted.stdout + restarted.stderr
        status = stack.stack("status")
        assert status.returncode == 0, status.stdout
        assert re.search(rf"{name}\s+running .* restarts {restarts + 1} ", status.stdout)

        # Back: the same Agent Server uses the service again.
        if name in ("sim-erp", "erp-mcp"):
            assert stack.erp_orders(card_args) == []  # the approval during the outage made none
            again = await run(
                client,
                order_thread,
                USER,
                input={"messages": [{"role": "user", "content": request}]},
            )
            assert again["status"] == "interrupted"
            await run(client, order_thread, USER, command=APPROVE)
            [order] = stack.erp_orders(card_args)
            answer = message_text((await thread_messages(client, order_thread))[-1])
            assert order["order_no"] in answer and ORDER_NO.search(answer)
        else:
            after = await start_analysis(client, FLAGSHIP_REQUEST, USER)
            recovered = await analysis_outcome(client, after.thread_id, after.task_id)
            assert not [t for t in recovered["tools"] if said in t]
            assert REPORT.search(recovered["final"])
            assert len(report_charts(stack, after.task_id)) >= 2


def test_the_launcher_reported_each_outage(stack: Launched) -> None:
    log = "".join(p.read_text() for p in (stack.data_dir / "logs").glob("stack.out*"))
    for name in OUTAGE:
        assert re.search(
            rf"{name} \(pid \d+\) stopped: signal SIGKILL; starting it again in 900 s", log
        )
        assert f"{name}: restart requested; starting it now" in log
    assert not re.search(r"agent-server \(pid \d+\) stopped", log)  # it never stopped
    assert Path(stack.service("agent-server")["log"]).exists()
