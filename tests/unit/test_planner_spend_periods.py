"""Spend over two periods side by side, and a follow-up naming another period, through the
planner's real decision path against the real seeded ERP (each expected figure added up
here from the ERP's own order pages).

From a red-team round: "Q3 vs Q2", "今年和去年的采购金额比一下" answered the first period
only; after a spend answer, "去年呢" and "跟二季度比呢" were "out of scope".
"""

from __future__ import annotations

import pytest

from tests.unit.planner_harness import TODAY, PlannerWorld

Q2 = ("2026-04-01", "2026-06-30")
Q3 = ("2026-07-01", "2026-09-30")
Y2025 = ("2025-01-01", "2025-12-31")
Y2026 = ("2026-01-01", TODAY.isoformat())  # this year, to the tests' today
NOV = ("2026-11-01", "2026-11-30")
OCT = ("2026-10-01", "2026-10-31")


async def _cny(world: PlannerWorld, period: tuple[str, str]) -> int:
    """The CNY spent over ``period`` on orders not cancelled, page by page."""
    total, page = 0, 1
    while True:
        found = await world.erp("/orders/search-details", date_from=period[0],
                                date_to=period[1], page=page, size=100)  # fmt: skip
        total += sum(o["total_minor"] for o in found["items"]
                     if o["status"] != "cancelled" and o["currency"] == "CNY")  # fmt: skip
        if page * 100 >= found["total"]:
            return total
        page += 1


def _money(minor: int) -> str:
    return f"{minor / 100:,.2f}"


def _line_of(text: str, period: tuple[str, str]) -> str:
    return next((ln for ln in text.splitlines() if period[0] in ln and period[1] in ln), "")


@pytest.mark.parametrize(
    ("asked", "periods"),
    [
        ("2026年三季度和二季度的采购额对比", (Q3, Q2)),
        ("Q3 vs Q2 spend", (Q3, Q2)),
        ("2026年三季度采购金额跟2025年比一下", (Q3, Y2025)),
        # the nineteenth red-team round: last year's spend only, or "out of scope"
        ("我们今年花了多少钱，比去年多还是少", (Y2026, Y2025)),
        ("今年花的钱比去年多吗", (Y2026, Y2025)),
        ("did we spend more this year than last year?", (Y2026, Y2025)),
        ("上个月花了多少，比10月份高还是低", (NOV, OCT)),
    ],
)
async def test_two_periods_side_by_side(
    world: PlannerWorld, asked: str, periods: tuple[tuple[str, str], tuple[str, str]]
) -> None:
    first, second = [await _cny(world, p) for p in periods]
    run = await world.run(asked)
    text = run.last_text
    for period, spent in zip(periods, (first, second), strict=True):
        assert _money(spent) in _line_of(text, period), text
    sign = "+" if first >= second else "-"
    assert f"{sign}{_money(abs(first - second))} CNY" in text, text
    assert run.proposal is None and not run.delegations


@pytest.mark.parametrize(
    ("asked", "then", "shown"),
    [
        ("2026年三季度花了多少钱", "去年呢", (Y2025,)),
        ("how much did we spend in Q3 2026?", "what about Q2?", (Q2,)),
        ("2026年三季度花了多少钱", "跟二季度比呢", (Q3, Q2)),
        ("how much did we spend in Q3 2026?", "compare with Q2", (Q3, Q2)),
    ],
)
async def test_a_follow_up_names_another_period(
    world: PlannerWorld, asked: str, then: str, shown: tuple[tuple[str, str], ...]
) -> None:
    await world.run(asked)
    before = world.fingerprint()
    run = await world.run(then, history=world.thread())
    text = run.last_text
    for period in shown:
        assert _money(await _cny(world, period)) in _line_of(text, period), text
    assert (Q3 in shown) == (Q3[0] in text), text  # the first period again only to compare
    assert run.proposal is None and not run.delegations
    assert world.fingerprint() == before


async def test_thanks_after_a_spend_answer_is_no_period(world: PlannerWorld) -> None:
    await world.run("上个月花了多少钱")
    run = await world.run("好的谢谢", history=world.thread())
    assert not run.called("task"), run.calls


async def test_an_erp_that_cannot_add_up_stops_the_answer_with_its_error(
    world: PlannerWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The ERP's summary read failing (the server down) is said once, with its error, and
    nothing is read again in a loop or answered with made-up figures."""
    real = world._erp_tool  # the one place the harness reaches the ERP

    async def failing(agent: str, name: str, args: dict[str, object]) -> str | None:
        if name == "order_summary":
            return "Error: MCP server 'erp' is unreachable (connection refused)"
        return await real(agent, name, args)

    monkeypatch.setattr(world, "_erp_tool", failing)
    run = await world.run("2026年三季度花了多少钱")
    assert len(run.called("order_summary")) == 1, run.notes
    assert "order_summary" in run.last_text and "unreachable" in run.last_text, run.last_text
    assert "CNY" not in run.last_text
