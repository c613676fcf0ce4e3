"""A thread's sandbox calls take effect in the order they were issued (issue_order)."""

from __future__ import annotations

import asyncio

from graphs.sandbox.issue_order import IssueOrder


async def _call(
    order: IssueOrder,
    key: str,
    name: str,
    log: list[str],
    *,
    exclusive: bool,
    hold: asyncio.Event | None = None,
) -> None:
    async with order.turn(key, exclusive=exclusive):
        log.append(f"+{name}")
        # Yield at least once, so calls allowed to overlap do overlap.
        await (hold.wait() if hold is not None else asyncio.sleep(0))
        log.append(f"-{name}")


async def test_a_write_waits_for_earlier_calls_and_reads_issued_together_overlap() -> None:
    order = IssueOrder()
    log: list[str] = []
    release = asyncio.Event()
    tasks = [
        asyncio.create_task(_call(order, "t", "command", log, exclusive=True, hold=release)),
        asyncio.create_task(_call(order, "t", "ls", log, exclusive=False)),
        asyncio.create_task(_call(order, "t", "read", log, exclusive=False)),
        asyncio.create_task(_call(order, "t", "write", log, exclusive=True)),
        asyncio.create_task(_call(order, "other", "elsewhere", log, exclusive=True)),
    ]
    for _ in range(5):
        await asyncio.sleep(0)
    # Another thread's call is not held up; this thread's wait for the command.
    assert log == ["+command", "+elsewhere", "-elsewhere"]
    assert order.pending("t") == 4

    release.set()
    await asyncio.gather(*tasks)

    assert log[3:] == ["-command", "+ls", "+read", "-ls", "-read", "+write", "-write"]
    assert order.pending("t") == 0 and order.pending("other") == 0


async def test_a_cancelled_waiter_gives_up_its_turn() -> None:
    order = IssueOrder()
    log: list[str] = []
    release = asyncio.Event()
    first = asyncio.create_task(_call(order, "t", "first", log, exclusive=True, hold=release))
    cancelled = asyncio.create_task(_call(order, "t", "cancelled", log, exclusive=True))
    last = asyncio.create_task(_call(order, "t", "last", log, exclusive=False))
    await asyncio.sleep(0)

    cancelled.cancel()
    release.set()
    await asyncio.gather(first, last, cancelled, return_exceptions=True)

    assert cancelled.cancelled()
    assert log == ["+first", "-first", "+last", "-last"]
    assert order.pending("t") == 0


async def test_a_turn_is_given_back_when_the_call_fails() -> None:
    order = IssueOrder()

    async def failing() -> None:
        async with order.turn("t", exclusive=True):
            msg = "disk full"
            raise OSError(msg)

    results = await asyncio.gather(
        failing(), _call(order, "t", "after", [], exclusive=True), return_exceptions=True
    )

    assert isinstance(results[0], OSError) and results[1] is None
    assert order.pending("t") == 0
