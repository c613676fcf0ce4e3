"""Judging one planner run against a corpus entry: intent, entities, outcome, language, ERP.

What the planner understood is read from what it did: the background analyses it
started (their 【分析范围】 scope), the order operation it handed over, the ERP tools it
called, the question it asked, the approval card it put up, the sentence it refused with.
"The latest order with X" is computed from the ERP at check time, never written down.
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

from graphs.offline import MARKS
from graphs.offline.scope import read_scope
from tests.unit.planner_harness import PlannerWorld, Run

_ASK_FIELDS = {"order_no": "order", "supplier": "supplier", "part": "part",
               "quantity": "quantity", "expected_date": "due"}  # fmt: skip


def _delegated_intent(run: Run) -> str | None:
    m = re.search(r"【分析范围】\s*(\{.*?\})", run.handed_over or "", re.S)
    if not m:
        return None
    data = json.loads(m.group(1))
    return str(data.get("intent")) if isinstance(data, dict) else None


def observed_intent(run: Run) -> str:
    """The intent the planner acted on."""
    orchestrator = [s.note for s in run.steps if s.agent == "orchestrator"]
    if run.called("plan_substitution") or any(
        n.startswith("substitution") or n in ("ask:bom", "ask:substitution") for n in orchestrator
    ):
        return "substitution"
    if run.delegations or "ask:category" in orchestrator:
        return "analysis"
    if run.called("check_async_task"):
        return "analysis_status"
    if run.called("cancel_async_task"):
        return "analysis_cancel"
    if run.called("assign_skill"):
        return "skills"
    if run.handed_over is not None:
        return _delegated_intent(run) or "order?"
    if any(n.startswith("inventory") for n in orchestrator) or (
        orchestrator and orchestrator[-1] == "ask:part"
    ):
        return "inventory"
    if run.final_note == "no-task":
        return "analysis_status_or_cancel"
    return {"greeting": "small_talk", "out-of-scope": "out_of_scope"}.get(
        run.final_note, f"?{run.final_note}"
    )


def observed_outcome(run: Run) -> str:
    """act, ask or refuse, as the planner ended."""
    if run.proposal is not None or run.delegations:
        return "act"
    if run.question is not None or run.final_note.startswith("ask:"):
        return "ask"
    if run.order_final_note == "refused":
        return "refuse"
    return "act"


def _scopes(run: Run) -> list[Any]:
    return [read_scope(d) for d in run.delegations]


def _names_in(text: str, records: list[dict[str, Any]]) -> set[str]:
    return {
        str(r["code"])
        for r in records
        if any(n and str(n) in text for n in (r.get("name_zh"), r.get("name_en")))
        or re.search(rf"(?<![A-Za-z0-9-]){re.escape(str(r['code']))}(?![A-Za-z0-9-])", text)
    }


async def _suppliers_seen(run: Run, world: PlannerWorld, outcome: str) -> set[str]:
    listed = await world.suppliers()
    by_id = {int(s["id"]): s for s in listed}
    # The supplier the planner understood: the one whose catalogue it read, whose orders it
    # searched, or that the order it checked or proposed is for.
    scoped = ("part_by_supplier", "part_query", "order_search_details", "order_validate")
    ids = {int(a["supplier_id"]) for tool in scoped for a in run.called(tool)
           if "supplier_id" in a}  # fmt: skip
    if run.proposal and "supplier_id" in run.proposal[1]:
        ids.add(int(run.proposal[1]["supplier_id"]))
    seen = {str(by_id[i]["code"]) for i in ids if i in by_id}
    if not seen and outcome == "refuse":
        # A part's name carries its brand ("NGK 火花塞 IU7"), which is no supplier named.
        text = run.final
        for part in await _catalogue_names(world):
            text = text.replace(part, " ")
        seen = _names_in(text, listed)
    return seen


async def _catalogue_names(world: PlannerWorld) -> list[str]:
    names: list[str] = []
    page = 1
    while True:
        found = await world.erp("/parts", page=page, size=100)
        names += [str(p[k]) for p in found["items"] for k in ("name_zh", "name_en") if p.get(k)]
        if page * 100 >= found["total"]:
            return sorted(names, key=len, reverse=True)
        page += 1


def _parts_seen(run: Run, world_parts: dict[int, str]) -> set[str]:
    seen: set[str] = set()
    if run.proposal and run.proposal[0] == "order_create":
        seen |= {world_parts.get(int(ln["part_id"]), "") for ln in run.proposal[1]["lines"]}
    asked = [a["part_id"] for a in run.called("part_query") if "part_id" in a]
    asked += [i for a in run.called("part_query") for i in a.get("part_ids") or []]
    seen |= {world_parts.get(int(i), "") for i in asked}
    seen |= {s.part for s in _scopes(run) if s.part}
    text = run.final + json.dumps(run.question or {}, ensure_ascii=False)
    seen |= {sku for sku in world_parts.values() if sku and sku in text}
    return seen


async def _latest_order(world: PlannerWorld, supplier: str | None, sku: str | None) -> str | None:
    query: dict[str, Any] = {"size": 1}
    if supplier:
        listed = await world.suppliers()
        query["supplier_id"] = next(s["id"] for s in listed if s["code"] == supplier)
    if sku:
        query["sku"] = sku
    found = (await world.erp("/orders/search-details", **query))["items"]
    return str(found[0]["order_no"]) if found else None


def _written_in_chinese(text: str) -> bool:
    """The buyer writes Chinese when Chinese words outnumber English ones or carry the
    sentence (a particle, a measure word); judged here without the planner's own rule."""
    runs = re.findall(r"[\u4e00-\u9fff]+", text)
    latin = re.findall(r"[A-Za-z][A-Za-z]+", text)
    return bool(runs) and (len("".join(runs)) >= 4 or len(runs) >= len(latin))


def _check_language(entry: dict[str, Any], run: Run) -> list[str]:
    # Model numbers and SKUs (CB-KEIHIN-PE28, x40) are in no language.
    zh = _written_in_chinese(re.sub(r"[\w.-]*\d[\w.-]*", "", entry["text"], flags=re.ASCII))
    mark = MARKS[zh]
    problems = []
    text = run.last_text
    if not text.startswith(mark):
        problems.append(f"reply not marked {mark}")
    if sum(text.count(m) for m in MARKS.values()) != 1:
        problems.append("the offline mark is not there exactly once")
    body = text.removeprefix(mark)
    if zh != _written_in_chinese(re.sub(r"[\w.-]*\d[\w.-]*", "", body[:60])):
        problems.append("reply not in the buyer's language")
    return problems


def _check_outcome(entry: dict[str, Any], run: Run) -> list[str]:
    expected = entry.get("outcome", "act")
    got = observed_outcome(run)
    problems = [] if got == expected else [f"outcome {got}"]
    if expected == "ask" and got == "ask":
        asked = {_ASK_FIELDS.get(f, f) for f in (run.question or {}).get("fields", [])}
        if run.final_note.startswith("ask:"):  # ask:category, ask:part, ask:bom ...
            asked.add(run.final_note.removeprefix("ask:"))
        missing = set(entry.get("asks") or []) - asked
        if missing:
            problems.append(f"the question does not ask for {sorted(missing)} (asked {asked})")
    if expected == "refuse" and got == "refuse" and len(run.final.strip()) < 12:
        problems.append("the refusal has no sentence")
    return problems


async def judge(entry: dict[str, Any], run: Run, world: PlannerWorld, today: date) -> list[str]:
    """What is wrong with ``run`` as an answer to ``entry`` (empty: right)."""
    problems: list[str] = []
    intent = observed_intent(run)
    if intent != entry["intent"]:
        problems.append(f"intent {intent}")
    problems += _check_outcome(entry, run)
    problems += _check_language(entry, run)
    problems += await _check_entities(entry, run, world, today)
    return problems


async def _check_entities(
    entry: dict[str, Any], run: Run, world: PlannerWorld, today: date
) -> list[str]:
    problems: list[str] = []
    scopes = _scopes(run)
    outcome = observed_outcome(run)
    if "categories" in entry:
        want = set(entry["categories"])
        if entry["intent"] == "inventory":
            got = {str(a["category"]) for a in run.called("inventory_warning") if "category" in a}
        elif entry["intent"] == "analysis":
            got = {c for s in scopes for c in s.categories}
        else:  # an order question names the category it understood
            categories = (await world.erp("/categories"))["items"]
            text = json.dumps(run.question or {}, ensure_ascii=False) + run.final
            got = _names_in(text, categories) & want if want else set()
        if got != want:
            problems.append(f"categories {sorted(got)}")
    if "brands" in entry and {b for s in scopes for b in s.brands} != set(entry["brands"]):
        problems.append(f"brands {sorted({b for s in scopes for b in s.brands})}")
    if "window_months" in entry and {s.window_months for s in scopes} != {entry["window_months"]}:
        problems.append(f"window {[s.window_months for s in scopes]}")
    if "suppliers" in entry:
        seen = await _suppliers_seen(run, world, outcome)
        if seen != set(entry["suppliers"]):
            problems.append(f"suppliers {sorted(seen)}")
    if "part" in entry or "parts" in entry:
        catalogue = await _catalogue(world)
        seen = _parts_seen(run, catalogue)
        for sku in [entry.get("part"), *(entry.get("parts") or [])]:
            if sku and sku not in seen:
                problems.append(f"part {sku} not understood (saw {sorted(seen)[:4]})")
    problems += await _check_order(entry, run, world)
    return problems


async def _catalogue(world: PlannerWorld) -> dict[int, str]:
    out: dict[int, str] = {}
    page = 1
    while True:
        found = await world.erp("/parts", page=page, size=100)
        out.update({int(p["id"]): str(p["sku"]) for p in found["items"]})
        if page * 100 >= found["total"]:
            return out
        page += 1


async def _check_order(entry: dict[str, Any], run: Run, world: PlannerWorld) -> list[str]:
    problems: list[str] = []
    proposal = run.proposal[1] if run.proposal else {}
    if entry.get("order_no"):
        named = {a.get("order_no") for a in run.called("order_search_details")}
        if entry["order_no"] not in named and proposal.get("order_id") != entry["order_no"]:
            problems.append(f"order {entry['order_no']} not looked up")
    if entry.get("latest"):
        suppliers = entry.get("suppliers") or [None]
        want = await _latest_order(world, suppliers[0], entry.get("part"))
        meant = proposal.get("order_id") if run.proposal else None
        if meant != want and (want is None or want not in run.last_text):
            problems.append(f"not the latest order {want} (got {meant})")
    if "quantity" in entry and run.proposal:
        lines = proposal.get("lines") or []
        quantities = {int(ln["quantity"]) for ln in lines}
        if entry["quantity"] not in quantities:
            problems.append(f"quantity {sorted(quantities)}")
    if "due" in entry and run.proposal and str(proposal.get("expected_date")) != str(entry["due"]):
        problems.append(f"due {proposal.get('expected_date')}")
    if entry.get("outcome") == "refuse" and (run.proposal or run.question):
        problems.append("refused request still proposed or asked")
    return problems
