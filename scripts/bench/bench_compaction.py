"""Benchmark: tokens of a long thread before and after ``compact_conversation``.

Run from the checkout: ``.venv/bin/python -m scripts.bench.bench_compaction [--turns 40]``.
It builds a long procurement thread (buyer requests, tool calls with ERP-sized JSON
results, answers), runs one agent turn in which the model calls
``compact_conversation`` (the middleware of ``graphs.middleware.summarization`` on the
offline planner's summary policy, so no key is needed), and prints the context the
model sees before and after, counted with langchain_core's
``count_tokens_approximately`` (tiktoken cannot download its encodings here).
A real ``SUMMARY_MODEL`` writes a shorter, better summary than the offline digest:
the offline number is an upper bound on what remains.
This is a measurement, not a test: it exits 0 unless something fails.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from deepagents import create_deep_agent
from deepagents.backends import FilesystemBackend
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately
from langgraph.checkpoint.memory import InMemorySaver

from graphs.middleware.summarization import SoftSummarization, build_summarization
from graphs.offline import OfflinePlanner
from scripts.bench.fixtures import compact_then_answer

PARTS = ["火花塞", "刹车片", "链条", "空气滤清器", "机油滤清器"]
SUPPLIERS = ["恩吉客", "博世", "电装", "冠军", "铃木配件"]


def long_thread(turns: int) -> list[BaseMessage]:
    """A buyer's thread: each turn a request, an ERP tool call with a sizeable result, an answer."""
    messages: list[BaseMessage] = []
    for i in range(turns):
        part = PARTS[i % len(PARTS)]
        messages.append(HumanMessage(f"帮我查一下{part}的供应商报价和最近三个月的订单，第 {i} 次"))
        call_id = f"call_{i}"
        messages.append(
            AIMessage(
                "",
                tool_calls=[
                    {
                        "name": "part_search",
                        "args": {"name": part},
                        "id": call_id,
                        "type": "tool_call",
                    }
                ],
            )
        )
        rows = [
            {
                "sku": f"SKU-{i:03d}-{j:02d}",
                "name": f"{part} 型号 {j}",
                "supplier": SUPPLIERS[j % len(SUPPLIERS)],
                "price_minor": 1200 + 37 * j + i,
                "currency": "CNY",
                "moq": 50 + j,
                "lead_time_days": 7 + j % 5,
            }
            for j in range(12)
        ]
        messages.append(
            ToolMessage(
                json.dumps(rows, ensure_ascii=False), tool_call_id=call_id, name="part_search"
            )
        )
        messages.append(
            AIMessage(
                f"{part}共有 12 个报价，最低价来自{SUPPLIERS[i % len(SUPPLIERS)]}，"
                "交期 7-11 天。需要我启动比价分析或者下单吗？"
            )
        )
    return messages


async def run(turns: int) -> None:
    """Build the thread, compact it, print the numbers."""
    history = long_thread(turns)
    with tempfile.TemporaryDirectory(prefix="bench-compaction-") as tmp:
        backend = FilesystemBackend(root_dir=Path(tmp), virtual_mode=True)
        before_tokens = count_tokens_approximately(history)
        # Eligible once the thread is past half the trigger: put the trigger at the
        # thread's size, as a long session reaching the auto-summarisation point would.
        summ = build_summarization(
            OfflinePlanner(policy="summary"),
            backend,
            trigger=("tokens", before_tokens),
            keep=("messages", 6),
        )
        engine = summ[0]
        assert isinstance(engine, SoftSummarization)
        graph: Any = create_deep_agent(
            model=compact_then_answer(),
            backend=backend,
            middleware=summ,
            subagents=[],
            checkpointer=InMemorySaver(),
        )
        config: Any = {"configurable": {"thread_id": f"bench-{uuid.uuid4().hex[:8]}"}}
        started = time.perf_counter()
        await graph.ainvoke({"messages": [*history, HumanMessage("压缩一下上下文")]}, config)
        elapsed = (time.perf_counter() - started) * 1000
        state = (await graph.aget_state(config)).values
        event = state.get("_summarization_event")
        if event is None:
            print("compact_conversation did not compact (not eligible)")
            return
        everything = state["messages"]
        effective = engine._apply_event_to_messages(everything, event)
        before = count_tokens_approximately(everything)
        after = count_tokens_approximately(effective)
        print(f"thread: {turns} turns, {len(everything)} messages")
        print(f"before compact_conversation: {before:7d} tokens ({len(everything)} messages)")
        print(f"after  compact_conversation: {after:7d} tokens ({len(effective)} messages)")
        print(f"reduction: {before / after:.1f}x ({100 * (1 - after / before):.0f}% fewer tokens)")
        print(f"compaction run (offline summary model): {elapsed:.0f} ms")


def main() -> None:
    """Parse arguments and run."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=40, help="buyer turns in the thread")
    args = parser.parse_args()
    asyncio.run(run(args.turns))


if __name__ == "__main__":
    main()
