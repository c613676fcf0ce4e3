"""``langgraph dev`` killed during an analysis, and during an order, under
``scripts/stack up --detach`` (issue 17): the launcher starts it again, the background run
resumes where its last saved checkpoint left it and ends, the parent (the orchestrator's
thread) is told once, and nothing is made twice: one report, one Store entry, one ERP order.

The in-memory runtime writes its state to disk every 10 seconds (and at a clean stop), so
a SIGKILL loses what changed since the last write. The kill tests wait for a write after
the analysis got under way; that is the durability ``langgraph dev`` offers (README,
"Security"), with :mod:`server.dev_persistence` making it hold for checkpoints too. A
shop's quote pages are slowed down here so that the analysis is surely still running
when the server dies.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from runstack.threads import (
    FLAGSHIP_REQUEST,
    REPORT,
    Analysis,
    message_text,
    poll,
    start_analysis,
    thread_messages,
    woken_answer,
)
from tests.e2e.launched import (
    APPROVE,
    Launched,
    launched,
    notifications,
    order_waiting_for_approval,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

USER = {"user_id": "buyer-restart", "username": "Restart Tester"}


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Launched]:
    # DENSO's quote pages take 20 s (and fetch_url waits for them): the analysis is long
    # enough to be killed in the middle of, after the runtime has saved it once.
    slow = {"SIM_SUPPLIERS_SLOW_SECONDS": "20", "WEB_TIMEOUT": "40", "WEB_TOTAL_BUDGET": "60"}
    with launched(tmp_path_factory.mktemp("agent-restart"), **slow) as running:
        yield running


CHECKPOINT_FILES = {f".langgraph_checkpoint.{n}.pckl" for n in (1, 2, 3)}


def saved_since(stack: Launched, moment: float) -> bool:
    """Whether the in-memory runtime has written all its files to disk since ``moment``,
    the threads' checkpoints among them."""
    folder = stack.data_dir / "agent-server" / ".langgraph_api"
    files = list(folder.glob(".langgraph_*.pckl"))
    return {f.name for f in files} >= CHECKPOINT_FILES and all(
        f.stat().st_mtime > moment for f in files
    )


async def fetching(client: LangGraphClient, task_id: str) -> str | None:
    """The analyst's run id once it is fetching quote pages (the slow step), else None."""
    messages = await thread_messages(client, task_id)
    calls = [c for m in messages for c in (m.get("tool_calls") or [])]
    if not any(c["name"] == "fetch_url" for c in calls):
        return None
    runs = [r for r in await client.runs.list(task_id) if r["status"] == "running"]
    return str(runs[0]["run_id"]) if runs else None


async def analysis_midway(stack: Launched, client: LangGraphClient) -> tuple[Analysis, str]:
    """An analysis fetching its quote pages, saved to disk since it started fetching."""
    started = await start_analysis(client, FLAGSHIP_REQUEST, USER)

    async def check() -> str | None:
        return await fetching(client, started.task_id)

    run_id = await poll(check, 120, "the analyst to fetch quote pages", every=0.2)
    moment = time.time()

    async def saved() -> bool:
        return saved_since(stack, moment)

    await poll(saved, 30, "the runtime to save its state", every=0.2)
    [running] = [r for r in await client.runs.list(started.task_id) if r["status"] == "running"]
    assert running["run_id"] == run_id  # still in the middle of it
    return started, run_id


async def check_resumed_once(
    stack: Launched, client: LangGraphClient, started: Analysis, run_id: str
) -> None:
    """The analysis ended with its report, from the same run, and nothing happened twice."""

    async def woken() -> str | None:
        return await woken_answer(client, started.thread_id, naming=REPORT)

    answer = await poll(woken, 400, "the orchestrator to be woken with the report", every=1)
    runs = await client.runs.list(started.task_id)
    assert [(r["run_id"], r["status"]) for r in runs] == [(run_id, "success")]  # resumed
    parent = await thread_messages(client, started.thread_id)
    assert message_text(parent[0]) == FLAGSHIP_REQUEST  # the parent kept its state
    assert len(await notifications(client, started.thread_id)) == 1  # told once
    analyst = await thread_messages(client, started.task_id)
    ids = [m["tool_call_id"] for m in analyst if m.get("type") == "tool"]
    assert len(ids) == len(set(ids))  # no tool result recorded twice
    [report] = list((stack.workspace(started.task_id) / "analysis").glob("report_*.md"))
    assert report.name in answer
    filed = await client.store.search_items(["files", "reports"], limit=100)
    user = USER["user_id"]
    mine = [i["key"] for i in filed["items"] if i["key"].startswith(f"/{user}/")]
    # One report filed (beside it: its exports, its charts and the archive's index)...
    assert [k for k in mine if re.fullmatch(rf"/{user}/report_\w+\.md", k)] == [
        f"/{user}/{report.name}"
    ]
    index = await client.store.get_item(["files", "reports"], key=f"/{user}/index.md")
    assert index is not None and index["value"]["content"].count(f"[{report.name}]") == 1


async def test_killed_during_an_analysis_it_resumes_and_tells_the_parent_once(
    stack: Launched,
) -> None:
    async with get_client(url=stack.agent_url, timeout=120) as client:
        started, run_id = await analysis_midway(stack, client)
    restarts = stack.service("agent-server")["restarts"]
    stack.kill("agent-server")
    stack.wait_state("agent-server", "running", restarts=restarts + 1)
    async with get_client(url=stack.agent_url, timeout=120) as client:
        await check_resumed_once(stack, client, started, run_id)
    for name in ("sim-erp", "erp-mcp", "viz-gateway", "sim-suppliers"):
        assert stack.service(name)["restarts"] == 0  # only the Agent Server was restarted


async def test_restarted_on_request_during_an_analysis_it_resumes(stack: Launched) -> None:
    async with get_client(url=stack.agent_url, timeout=120) as client:
        # Another day's report would be the same file: start from an empty archive.
        for item in (await client.store.search_items(["files", "reports"], limit=100))["items"]:
            await client.store.delete_item(["files", "reports"], key=item["key"])
        started, run_id = await analysis_midway(stack, client)
    restarted = stack.stack("restart", "agent-server")  # SIGTERM: a clean stop
    assert restarted.returncode == 0, restarted.stdout + restarted.stderr
    async with get_client(url=stack.agent_url, timeout=120) as client:
        await check_resumed_once(stack, client, started, run_id)


async def test_killed_right_after_an_approved_order_it_is_placed_once(stack: Launched) -> None:
    request = "给 NGK 下单 460 个火花塞 IU7"
    async with get_client(url=stack.agent_url, timeout=120) as client:
        thread_id, card_args = await order_waiting_for_approval(client, request, USER)
        moment = time.time()

        async def saved() -> bool:
            return saved_since(stack, moment)

        await poll(saved, 30, "the runtime to save the waiting approval", every=0.2)
        await client.runs.create(thread_id, "orchestrator", command=APPROVE, context=USER)

        async def placed() -> list[dict[str, Any]]:
            return stack.erp_orders(card_args)

        [order] = await poll(placed, 120, "the order in the ERP", every=0.1)
    restarts = stack.service("agent-server")["restarts"]
    stack.kill("agent-server")  # before the runtime saved the approval's run
    stack.wait_state("agent-server", "running", restarts=restarts + 1)
    async with get_client(url=stack.agent_url, timeout=120) as client:
        thread: Any = await client.threads.get(thread_id)
        if thread["status"] == "interrupted":
            # The run was newer than the runtime's last save: the approval is asked for
            # again, and approving again replays the order already placed.
            await client.runs.wait(thread_id, "orchestrator", command=APPROVE, context=USER)

        async def finished() -> dict[str, Any] | None:
            thread = await client.threads.get(thread_id)
            return thread if thread["status"] == "idle" else None  # type: ignore[return-value]

        await poll(finished, 300, "the approved run to end", every=1)
        answer = message_text((await thread_messages(client, thread_id))[-1])
    assert [o["order_no"] for o in stack.erp_orders(card_args)] == [order["order_no"]]
    assert order["order_no"] in answer
