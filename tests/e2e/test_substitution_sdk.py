"""Issue 19 from an SDK client's side: the BOM pasted into the message (a markdown table or
CSV), the orchestrator in ``langgraph dev`` on the offline planner, the real ERP.

- The replacement table the buyer is shown proposes, for each affected line, one of the
  ERP's exact equivalents (``GET /parts/{id}/equivalents``; of the brand named), lists
  the line without one and proposes nothing for the lines the request leaves alone.
- The approval (a human-in-the-loop interrupt, resumed with ``Command(resume=...)``)
  gives a batch-replace request: run through ``POST /api/batch-replace`` it rewrites
  exactly the lines with an equivalent, to the parts the table proposed. A reject gives
  none. No ERP order is created by either.
- "And order them" after the approval hands the new lines to the order agent: an order
  approval card, and after approving it exactly one new ERP order, for the new parts.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
from langgraph_sdk.client import LangGraphClient

from runstack.threads import interrupts, message_text, thread_messages
from tests.e2e.agents_stack import Stack
from tests.e2e.substitution import (
    Case,
    Catalogue,
    batch_requests,
    run_batch_replace,
    table_proposals,
)

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


@dataclass
class Conversation:
    """One buyer's thread with the orchestrator through the SDK."""

    client: LangGraphClient
    thread_id: str
    user: str = field(default_factory=lambda: f"buyer-19-{uuid.uuid4().hex[:6]}")
    seen: int = 0  # messages already read

    async def say(self, text: str) -> list[Any]:
        """Send ``text``; what the buyer is shown back (answers and pending cards)."""
        message: dict[str, Any] = {"messages": [{"role": "user", "content": text}]}
        await self.client.runs.wait(
            self.thread_id, "orchestrator", input=message, context={"user_id": self.user}
        )
        return await self.shown()

    async def decide(self, decide: Callable[[dict[str, Any]], Any]) -> list[Any]:
        """Resume every pending interrupt with ``decide(interrupt value)``; what is shown."""
        pending = await self.pending()
        assert pending, "no interrupt to resume"
        resume: Any = (
            decide(pending[0]["value"])
            if len(pending) == 1
            else {i["id"]: decide(i["value"]) for i in pending}
        )
        await self.client.runs.wait(
            self.thread_id,
            "orchestrator",
            command={"resume": resume},
            context={"user_id": self.user},
        )
        return await self.shown()

    async def pending(self) -> list[dict[str, Any]]:
        """The interrupts the thread waits on."""
        return interrupts(await self.client.threads.get(self.thread_id))

    async def shown(self) -> list[Any]:
        """What the buyer is shown: the new AI messages' text and the pending interrupts'
        values (card text and arguments)."""
        messages = await thread_messages(self.client, self.thread_id)
        new, self.seen = messages[self.seen :], len(messages)
        shown: list[Any] = [message_text(m) for m in new if m["type"] == "ai"]
        shown += [i["value"] for i in await self.pending()]
        return shown


def approve(value: dict[str, Any]) -> dict[str, Any]:
    return {"decisions": [{"type": "approve"} for _ in value.get("action_requests") or [{}]]}


def reject(value: dict[str, Any]) -> dict[str, Any]:
    return {
        "decisions": [
            {"type": "reject", "message": "暂不替换"} for _ in value.get("action_requests") or [{}]
        ]
    }


async def conversation(client: LangGraphClient) -> Conversation:
    return Conversation(client, str((await client.threads.create())["thread_id"]))


async def orders_of(stack: Stack, user: str) -> list[dict[str, Any]]:
    """The ERP orders requested by ``user`` (the order agent records who asked)."""
    found = await asyncio.to_thread(
        stack.erp_get, "/orders/search-details", requested_by=user, size=100
    )
    return list(found["items"])


async def order_total(stack: Stack) -> int:
    found = await asyncio.to_thread(stack.erp_get, "/orders/search-details", size=1)
    return int(found["total"])


async def approved_table(
    served: Stack, client: LangGraphClient, catalogue: Catalogue, case: Case, bom: str
) -> tuple[Conversation, dict[int, set[int]]]:
    """The request with ``bom`` pasted below it; the table checked, then approved; the batch
    request checked against the table. No order is made on the way."""
    before = await order_total(served)
    talk = await conversation(client)
    table = await talk.say(f"{case.request}\n\n{bom}")
    proposals = table_proposals(case, catalogue, table)
    answer = table
    if await talk.pending():
        answer = await talk.decide(approve)
    requests = batch_requests(answer)
    assert requests, f"no batch-replace request ({{old, new, tasks}}) in:\n{answer}"
    async with httpx.AsyncClient(base_url=served.url, timeout=60) as http:
        rewritten = await run_batch_replace(http, case, catalogue, requests)
    for line, new in rewritten.items():
        assert new & proposals[line], (line, "the batch request is not the table's")
    assert await talk.pending() == []
    assert await order_total(served) == before
    return talk, proposals


async def test_a_markdown_bom_in_chinese(
    served: Stack, client: LangGraphClient, catalogue: Catalogue, cases: dict[str, Case]
) -> None:
    case = cases["zh-brand-target-same-spec"]
    await approved_table(served, client, catalogue, case, case.bom_markdown())


async def test_a_csv_bom_in_english(
    served: Stack, client: LangGraphClient, catalogue: Catalogue, cases: dict[str, Case]
) -> None:
    case = cases["en-category-any-brand"]
    await approved_table(served, client, catalogue, case, f"```csv\n{case.bom_csv()}```")


async def test_a_reject_gives_no_batch_request(
    served: Stack, client: LangGraphClient, catalogue: Catalogue, cases: dict[str, Case]
) -> None:
    case = cases["en-brand-another-supplier"]
    before = await order_total(served)
    talk = await conversation(client)
    table = await talk.say(f"{case.request}\n\n{case.bom_csv()}")
    table_proposals(case, catalogue, table)
    assert await talk.pending(), "nothing to approve or reject"
    answer = await talk.decide(reject)
    assert batch_requests(answer) == [], answer
    assert await talk.pending() == []
    assert await order_total(served) == before


async def test_and_order_them_after_the_approval(
    served: Stack, client: LangGraphClient, catalogue: Catalogue, cases: dict[str, Case]
) -> None:
    case = cases["zh-category-target"]
    bom = case.bom_markdown("en")
    talk, proposals = await approved_table(served, client, catalogue, case, bom)
    before = await order_total(served)
    card = await talk.say("好的，把这些新型号下单")
    pending = await talk.pending()
    assert len(pending) == 1, f"not one order approval card:\n{card}"
    names = [r["name"] for r in pending[0]["value"].get("action_requests") or []]
    assert names == ["order_create"], pending
    assert await orders_of(served, talk.user) == []  # nothing before the approval
    await talk.decide(approve)
    [order] = await orders_of(served, talk.user)
    assert await order_total(served) == before + 1
    wanted = set().union(*proposals.values())
    qty = {pid: ln.qty for ln in case.role("replace") for pid in proposals[ln.line]}
    assert order["lines"]
    for line in order["lines"]:
        assert line["part_id"] in wanted, (line, "not a part of the approved table")
        assert line["quantity"] >= qty[line["part_id"]], line
