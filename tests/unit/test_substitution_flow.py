"""The substitution flow through the offline planner's real decision path, against the real
seeded ERP (issue 19): the BOM in the message or from a client's BOM tool, the replacement
table checked against the ERP's own cross-reference, nothing applied before approval,
applied once after it, nothing after a rejection, questions when the request or the BOM is
missing. The graph's own substitution tools run (the harness calls them as the tool node
would)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from graphs.substitution.plan import order_quantity
from tests.unit.planner_harness import PlannerWorld, Script


async def _parts(world: PlannerWorld, category: str) -> list[dict[str, Any]]:
    return list((await world.erp("/parts", category=category, size=100))["items"])


async def _equivalents(world: PlannerWorld, part: dict[str, Any], brand: str | None = None) -> Any:
    query = {"brand": brand} if brand else {}
    return (await world.erp(f"/parts/{part['id']}/equivalents", **query))["equivalents"]


async def _with_and_without(
    world: PlannerWorld, category: str, brand: str, target: str | None
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Parts of ``brand`` with an exact equivalent (of ``target``, if given), and without any."""
    found: list[dict[str, Any]] = []
    none: list[dict[str, Any]] = []
    for part in await _parts(world, category):
        if part["brand"] != brand:
            continue
        eqs = await _equivalents(world, part, target)
        if any(e["match"] == "exact" and e["offers"] for e in eqs):
            found.append(part)
        elif not eqs:
            none.append(part)
    return found, none


def _table(lines: list[tuple[dict[str, Any], int]]) -> str:
    rows = [f"| {10 * (i + 1)} | {p['sku']} | {p['name_en']} | {qty} |"
            for i, (p, qty) in enumerate(lines)]  # fmt: skip
    return "\n".join(["| line | part | description | qty |", "|---|---|---|---|", *rows])


def _plan(world: PlannerWorld) -> dict[str, Any]:
    [plan] = world.substitution_state["substitution_plans"].values()
    return dict(plan)


async def _brand_pair(world: PlannerWorld, category: str) -> tuple[dict[str, Any], str]:
    """A part of ``category`` with an exact equivalent of another brand (with offers), and
    that brand: the seed decides which brands, the test does not."""
    for part in await _parts(world, category):
        for e in await _equivalents(world, part):
            if e["match"] == "exact" and e["offers"]:
                return part, str(e["part"]["brand"])
    raise AssertionError(f"no exact equivalent in category {category}")


async def test_a_chinese_request_gets_the_erps_equivalents_of_the_target_brand(
    world: PlannerWorld,
) -> None:
    first, target = await _brand_pair(world, "SP")
    brand = first["brand"]
    found, none = await _with_and_without(world, "SP", brand, target)
    target_zh = (await _equivalents(world, first, target))[0]["part"]["brand_zh"]
    chain = (await _parts(world, "CH"))[0]
    lines = [(found[0], 4), (chain, 1)] + [(p, 6) for p in found[1:2]]
    if none:
        lines.append((none[0], 2))
    before = world.fingerprint()

    text = f"把这个 BOM 里所有{first['brand_zh']}火花塞换成 {target_zh} 的同规格型号\n"
    run = await world.run(text + _table(lines))

    # Nothing applied: the run stops at the approval, with the table as the answer.
    assert run.proposal is not None and run.proposal[0] == "apply_substitution"
    assert not world.substitution_state.get("substitutions_applied")
    assert world.fingerprint() == before
    plan = _plan(world)
    rows = {r["line"]: r for r in plan["rows"]}
    assert "20" not in rows, "the chain line is not touched"
    for i, (part, _qty) in enumerate(lines):
        line = str(10 * (i + 1))
        if part["brand"] != brand:
            continue
        exact = {e["part"]["sku"] for e in await _equivalents(world, part, target)
                 if e["match"] == "exact" and e["offers"]}  # fmt: skip
        if exact:
            assert rows[line]["status"] == "exact" and rows[line]["new"]["sku"] in exact
            assert rows[line]["new"]["name_zh"] in run.last_text  # names, not ids
        else:
            assert rows[line]["status"] in ("none", "partial")
            assert "无等效件" in run.last_text or "部分等效" in run.last_text
        assert part["sku"] not in run.last_text
    assert "替换方案" in run.last_text and "| 行 |" in run.last_text


async def test_an_english_request_approved_returns_a_batch_replace_request_once(
    world: PlannerWorld,
) -> None:
    brembo, _ = await _with_and_without(world, "BP", "Brembo", None)
    plug = (await _parts(world, "SP"))[0]
    lines = [(brembo[0], 2), (plug, 4)]
    text = "replace every Brembo pad in this BOM with an equivalent from another supplier\n"
    run = await world.run(text + _table(lines), script=Script(decisions=[{"type": "approve"}]))

    assert run.final_note == "substitution-applied"
    [applied] = world.substitution_state["substitutions_applied"].values()
    [change] = applied["changes"]
    row = _plan(world)["rows"][0]
    assert change == {"line": "10", "old_part": brembo[0]["sku"], "new_part": row["new"]["sku"],
                      "new_sku": row["new"]["sku"], "qty": 2,
                      "supplier": row["new_offer"]["supplier_code"],
                      "order_qty": order_quantity(2, row["new_offer"])}  # fmt: skip
    assert change["order_qty"] >= 2
    assert row["new"]["brand"] != "Brembo"
    request = json.loads(run.final.split("```json", 1)[1].split("```", 1)[0])
    assert request["batch_replace"] == [
        {"old": brembo[0]["sku"], "new": row["new"]["sku"], "tasks": [brembo[0]["sku"]]}
    ]
    assert "Approved" in run.final and "[offline]" in run.final

    # The same plan again is not applied a second time.
    plan_id = _plan(world)["plan_id"]
    again = await world._substitute(run, "apply_substitution", {"plan_id": plan_id},
                                    Script(decisions=[{"type": "approve"}]))  # fmt: skip
    assert again is not None and "already applied" in again
    assert len(world.substitution_state["substitutions_applied"]) == 1


async def test_a_rejected_table_changes_nothing(world: PlannerWorld) -> None:
    brembo, _ = await _with_and_without(world, "BP", "Brembo", None)
    text = f"把BOM里的布雷博刹车片都换掉\n{_table([(brembo[0], 2)])}"
    run = await world.run(text, script=Script(decisions=[{"type": "reject"}]))
    assert run.final_note == "substitution-rejected"
    assert "没有任何改动" in run.final
    assert not world.substitution_state.get("substitutions_applied")


async def test_the_bom_comes_from_the_clients_bom_tool(world: PlannerWorld) -> None:
    kmc = [p for p in await _parts(world, "CH") if p["brand"] == "KMC"][:2]
    plug = (await _parts(world, "SP"))[0]
    bom = {"product": "P-100", "lines": [
        {"line": 10, "part": kmc[0]["model"], "description": kmc[0]["name_en"], "qty": 1},
        {"line": 20, "part": plug["model"], "description": plug["name_en"], "qty": 4},
        {"line": 30, "part": kmc[1]["model"], "description": kmc[1]["name_en"],
         "qty": 1}]}  # fmt: skip
    calls: list[dict[str, Any]] = []

    def answer(name: str, args: dict[str, Any]) -> str:
        calls.append({"name": name, **args})
        return json.dumps(bom)

    world.client_tools = [{
        "name": "fetch_bom_tool", "description": "Fetch the bill of materials (BOM) of a product",
        "parameters": {"type": "object", "properties": {"product": {"type": "string"}},
                       "required": ["product"]}}]  # fmt: skip
    world.client_answer = answer
    run = await world.run("把P-100的BOM里的KMC链条都换掉")

    assert calls == [{"name": "fetch_bom_tool", "product": "P-100"}]
    assert run.proposal is not None or run.final_note == "substitution-none"
    lines = {r["line"] for r in _plan(world)["rows"]}
    assert lines == {"10", "30"}, "only the KMC chains"


async def test_no_bom_and_no_bom_tool_asks_for_the_bom(world: PlannerWorld) -> None:
    run = await world.run("replace all the Bosch spark plugs in our BOM with NGK equivalents")
    assert run.final_note == "ask:bom"
    assert not run.called("plan_substitution") and run.proposal is None
    assert "attach" in run.final


async def test_nothing_in_the_bom_matches_asks_naming_what_is_there(world: PlannerWorld) -> None:
    plug = (await _parts(world, "SP"))[0]
    run = await world.run(f"把 BOM 里的倍耐力轮胎换成同规格的\n{_table([(plug, 4)])}")
    assert run.final_note == "ask:substitution"
    assert plug["brand_zh"] in run.final and "火花塞" in run.final
    assert run.proposal is None


async def test_nothing_named_to_replace_asks_what(world: PlannerWorld) -> None:
    plug = (await _parts(world, "SP"))[0]
    run = await world.run(f"把这个 BOM 换成同规格的\n{_table([(plug, 4)])}")
    assert run.final_note == "ask:substitution"
    assert run.proposal is None


async def test_and_order_them_hands_each_new_line_to_the_order_agent(
    world: PlannerWorld,
) -> None:
    brembo, _ = await _with_and_without(world, "BP", "Brembo", None)
    lines = [(brembo[0], 40), (brembo[1], 60)]
    text = f"把这个 BOM 里的布雷博刹车片换成别家的等效件\n{_table(lines)}"
    first = await world.run(text, script=Script(decisions=[{"type": "approve"}]))
    assert first.final_note == "substitution-applied"
    [applied] = world.substitution_state["substitutions_applied"].values()
    history = world._messages[1:]  # the conversation so far, without the system prompt
    approvals = [{"type": "approve"}] * len(applied["changes"])

    run = await world.run("把这些新件下单", history=history, script=Script(decisions=approvals))

    orders = (await world.erp("/orders/search-details", size=50))["items"]
    made = {(ln["sku"], ln["quantity"]) for o in orders if o.get("requested_by") == "buyer-harness"
            for ln in o["lines"]}  # fmt: skip
    for change in applied["changes"]:
        assert (change["new_sku"], change["order_qty"]) in made
        assert change["order_qty"] >= change["qty"]
    assert len(run.called("task")) == len(applied["changes"])
    assert run.final_note == "substitution-ordered"


@pytest.mark.parametrize(
    ("qty", "moq", "step", "expected"),
    [(4, 10, 1, 10), (12, 10, 5, 15), (15, 10, 5, 15), (3.5, 1, 1, 4), (100, 20, 20, 100)],
)
def test_an_order_covers_the_bom_quantity_in_what_the_offer_allows(
    qty: float, moq: int, step: int, expected: int
) -> None:
    assert order_quantity(qty, {"min_order_qty": moq, "order_step": step}) == expected


async def test_a_boms_parts_are_read_in_one_call_with_each_rows_current_price(
    world: PlannerWorld, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Equivalents per part, then every part's offers in one ``part_query(part_ids=...)``:
    a 4-line BOM is one offers call, not four, and each row still quotes its part's own
    cheapest current offer from the ERP."""
    brembo, _ = await _with_and_without(world, "BP", "Brembo", None)
    lines = [(brembo[0], 2), *[(p, 3) for p in (await _parts(world, "SP"))[:2]]]
    lines.append(((await _parts(world, "CH"))[0], 1))
    calls: list[tuple[str, dict[str, Any]]] = []
    real = world.registry.call

    async def counted(server: str, tool: str, args: dict[str, Any], **kw: Any) -> str:
        calls.append((tool, dict(args)))
        return await real(server, tool, args, **kw)

    monkeypatch.setattr(world.registry, "call", counted)
    text = "replace every Brembo pad in this BOM with an equivalent from another supplier\n"
    await world.run(text + _table(lines))

    reads = [args for tool, args in calls if tool == "part_query"]
    assert len(reads) == 1
    assert sorted(reads[0]["part_ids"]) == sorted({p["id"] for p, _ in lines})
    rows = {r["line"]: r for r in _plan(world)["rows"]}
    assert "10" in rows  # the Brembo line
    for i, (part, _qty) in enumerate(lines):
        row = rows.get(str(10 * (i + 1)))
        if row is None:
            continue  # a line the request does not touch
        detail = await world.erp(f"/parts/{part['id']}")
        live = [o for o in detail["offers"] if o.get("supplier_status", "active") == "active"]
        cheapest = min(live, key=lambda o: int(o["price_minor"]))
        assert row["old_offer"]["price_minor"] == cheapest["price_minor"]
        assert row["old_offer"]["supplier_code"] == cheapest["supplier_code"]
