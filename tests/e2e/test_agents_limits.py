"""A run past the orchestrator's model-call limit stops with a message that says so.

The real orchestrator graph on the offline planner, served by ``langgraph dev`` with
``ORCHESTRATOR_MODEL_CALL_LIMIT=1``: an analysis request takes several model calls (check
its names in the ERP, launch the analyst, tell the user), so the second is refused by the
call limits (``graphs/middleware/limits.py``) and the run ends with their notice instead of
an error. The ERP and chart servers are left unreachable on purpose: the
limit must not depend on them.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from runstack.agent_server import PRODUCT_CONFIG
from runstack.processes import HOST, ServiceHandle, free_port
from tests.e2e.rpc_fixtures.server import langgraph_dev

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def server() -> Iterator[ServiceHandle]:
    closed = f"http://{HOST}:{free_port()}/mcp"  # nothing listens there
    with tempfile.TemporaryDirectory(prefix="limits-e2e-", ignore_cleanup_errors=True) as data:
        env = {
            "MODEL": "offline",
            "ORCHESTRATOR_MODEL_CALL_LIMIT": "1",
            "DATA_DIR": data,
            "ERP_MCP_URL": closed,
            "VIZ_MCP_URL": closed,
        }
        with langgraph_dev(env, config=PRODUCT_CONFIG, timeout=120) as svc:
            yield svc


async def test_a_run_past_the_model_call_limit_ends_with_a_clear_message(
    server: ServiceHandle,
) -> None:
    async with get_client(url=server.url) as client:
        await _check_the_limit(client)


async def _check_the_limit(client: LangGraphClient) -> None:
    thread = await client.threads.create()
    state = await client.runs.wait(
        thread["thread_id"],
        "orchestrator",
        input={"messages": [{"role": "user", "content": "帮我对摩托车火花塞做供应商比价分析"}]},
        context={"user_id": "limits-user"},
        raise_error=True,
    )
    assert isinstance(state, dict)
    messages = state["messages"]
    planner_turns = [
        m for m in messages if m["type"] == "ai" and m["response_metadata"].get("offline_planner")
    ]
    # one model call was allowed: it looked the request's names up in the ERP (unreachable
    # here, so those calls fail); the next one was refused
    assert len(planner_turns) == 1
    names = {c["name"] for c in planner_turns[0]["tool_calls"]}
    assert names == {"category_list", "supplier_query"}
    assert not any(m["type"] == "tool" and m["name"] == "start_async_task" for m in messages)
    final = messages[-1]
    assert final["type"] == "ai" and not final.get("tool_calls")
    text = str(final["content"])
    # one notice, in the buyer's language (Chinese here), with the count reached
    assert text.count("〔本轮已达到调用上限") == 1 and "模型调用 1/1" in text, text
    assert "limit" not in text.lower()  # the developers' English sentence is kept in metadata
    assert "model call limit" in final["response_metadata"]["limit"].lower()
    # the run ended normally (no error status), so the thread is usable again
    runs = await client.runs.list(thread["thread_id"])
    assert runs[0]["status"] == "success"
