"""What must be true after an attempt, computed from the ERP when the attempt is checked.

``expect`` keys (all optional):

- ``new_orders``: the orders the attempt created, ``[{supplier: CODE, lines: [[SKU, qty]],
  due: "next friday" | "end of month" | "in 14 days" | "2026-12-20"}]``; ``[]``: none;
- ``changed``: ``{order: {latest_of: CODE} | ORDER_NO, due: ..., quantity: N, status: S}``:
  that order now has these values (``latest_of``: the supplier's newest order when the
  attempt began);
- ``erp_unchanged: true``: not one row written (the audit log did not grow);
- ``analyses``: background analyses started,
  ``[{category: CODE, brands: [CODE], window_months: N}]`` (``[]``: none);
- ``asks``: the agent asked (a question interrupt) for at least these fields;
  ``asks_category: true``: its reply asks which category, naming the ERP's categories;
- ``says``: statements the last reply makes, each ``{order_of: {latest_of: CODE}}``,
  ``{order: ORDER_NO}``, ``{stock_of: SKU}`` (its on-hand number), ``{below_safety: CODE}``
  (the category's largest shortage, by SKU) or ``{any: [text, ...]}``;
- ``one_sentence: true``: the reply is one line.

Every reply must be in the language of the buyer's first turn and carry the offline mark at
most once (on the offline planner).
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

import httpx

from scripts.agent_eval.runner import Attempt
from scripts.agent_eval.tasks import Task

__all__ = ["Before", "check", "due_date", "snapshot"]

_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_MARKS = ("〔离线〕", "[offline]")


def due_date(spec: str, today: date) -> date:
    """A date written relative to ``today`` in a task file."""
    words = spec.strip().lower()
    m = re.fullmatch(r"next (\w+)", words)
    if m and m.group(1) in _WEEKDAYS:
        monday = today - timedelta(days=today.weekday())
        found = monday + timedelta(days=7 + _WEEKDAYS.index(m.group(1)))
        return found if found > today else found + timedelta(days=7)
    if words == "end of month":
        return date(today.year, today.month, calendar.monthrange(today.year, today.month)[1])
    m = re.fullmatch(r"in (\d+) days?", words)
    if m:
        return today + timedelta(days=int(m.group(1)))
    if words == "tomorrow":
        return today + timedelta(days=1)
    return date.fromisoformat(words)


@dataclass
class Before:
    """The ERP when the attempt began: the newest order id, orders by supplier, audit size."""

    max_order_id: int = 0
    audit_total: int = 0
    latest: dict[str, dict[str, Any]] = field(default_factory=dict)
    suppliers: dict[str, dict[str, Any]] = field(default_factory=dict)


async def _get(http: httpx.AsyncClient, path: str, **params: Any) -> Any:
    response = await http.get(path, params=params)
    response.raise_for_status()
    return response.json()


def _codes(value: Any) -> list[str]:
    """Supplier codes a task's expectation refers to with ``latest_of``."""
    found: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            found += [str(v)] if k == "latest_of" else _codes(v)
    elif isinstance(value, list):
        for v in value:
            found += _codes(v)
    return found


async def snapshot(http: httpx.AsyncClient, task: Task) -> Before:
    """What the checks compare against, read before the attempt."""
    before = Before()
    before.max_order_id = max(await _order_ids(http), default=0)
    before.audit_total = int((await _get(http, "/audit", size=1))["total"])
    listed = await _get(http, "/suppliers/search", name="", size=100)
    before.suppliers = {s["code"]: s for s in listed["items"]}
    for code in _codes(task.expect):
        supplier = before.suppliers[code]
        found = await _get(http, "/orders/search-details", supplier_id=supplier["id"], size=1)
        if found["items"]:
            before.latest[code] = found["items"][0]
    return before


async def _order_ids(http: httpx.AsyncClient) -> list[int]:
    ids: list[int] = []
    page = 1
    while True:
        found = await _get(http, "/orders/search-details", page=page, size=100)
        ids += [int(o["id"]) for o in found["items"]]
        if page * 100 >= int(found["total"]):
            return ids
        page += 1


def _order_ref(ref: Any, before: Before, made: list[dict[str, Any]] | None = None) -> str | None:
    if isinstance(ref, dict) and "created" in ref:  # the n-th order this attempt created
        n = int(ref["created"])
        return str(made[n - 1]["order_no"]) if made and len(made) >= n else None
    if isinstance(ref, dict) and "latest_of" in ref:
        order = before.latest.get(str(ref["latest_of"]))
        return str(order["order_no"]) if order else None
    return str(ref) if ref else None


async def _made(http: httpx.AsyncClient, before: Before) -> list[dict[str, Any]]:
    """The orders this attempt created, oldest first."""
    new = sorted(i for i in await _order_ids(http) if i > before.max_order_id)
    return [await _get(http, f"/orders/{i}") for i in new]


async def _new_orders(http: httpx.AsyncClient, task: Task, before: Before, today: date
                      ) -> list[str]:  # fmt: skip
    made = await _made(http, before)
    want = task.expect["new_orders"]
    if len(made) != len(want):
        return [f"{len(made)} new orders, expected {len(want)}"]
    problems = []
    for order, spec in zip(made, want, strict=True):
        lines = [[ln["sku"], ln["quantity"]] for ln in order["lines"]]
        if order["supplier_code"] != spec["supplier"] or lines != spec["lines"]:
            problems.append(f"order {order['supplier_code']} {lines}, expected {spec}")
        if "due" in spec and order.get("expected_date") != due_date(spec["due"], today).isoformat():
            problems.append(f"due {order.get('expected_date')}, expected {spec['due']}")
    return problems


async def _changed(http: httpx.AsyncClient, task: Task, before: Before, today: date) -> list[str]:
    spec = task.expect["changed"]
    order_no = _order_ref(spec.get("order"), before, await _made(http, before))
    if order_no is None:
        return ["the order to change does not exist"]
    order = await _get(http, f"/orders/{order_no}")
    problems = []
    if "status" in spec and order["status"] != spec["status"]:
        problems.append(f"{order_no} status {order['status']}")
    if "due" in spec and order.get("expected_date") != due_date(spec["due"], today).isoformat():
        problems.append(f"{order_no} due {order.get('expected_date')}")
    if "quantity" in spec and spec["quantity"] not in [ln["quantity"] for ln in order["lines"]]:
        problems.append(f"{order_no} quantities {[ln['quantity'] for ln in order['lines']]}")
    return problems


async def _statement(http: httpx.AsyncClient, spec: dict[str, Any], text: str, before: Before
                     ) -> str | None:  # fmt: skip
    if "order_of" in spec or "order" in spec:
        order_no = _order_ref(spec.get("order_of") or spec.get("order"), before)
        return None if order_no and order_no in text else f"does not name order {order_no}"
    if "stock_of" in spec:
        part = (await _get(http, "/parts/search", name=spec["stock_of"], limit=1))["items"][0]
        stock = (await _get(http, f"/parts/{part['id']}"))["inventory"]
        found = re.search(rf"(?<!\d){stock['on_hand']}(?!\d)", text)
        return None if found else f"does not say the stock of {spec['stock_of']}"
    if "below_safety" in spec:
        code = spec["below_safety"]
        where = {"category": code} if code != "all" else {}
        short = (await _get(http, "/inventory/warnings", **where, size=1))["items"]
        return None if not short or short[0]["sku"] in text else f"misses {short[0]['sku']}"
    options = spec.get("any") or []
    return None if any(o in text for o in options) else f"says none of {options}"


def _language(task: Task, attempt: Attempt) -> list[str]:
    # Chinese sentence structure: particles, measure words, the verbs of asking.
    structure = r"[的了吗呢吧个给把帮请要是在和一下哪些么从向跟找订买查改取消比分析看做还有多少]"
    first = task.turns[0]
    runs = re.findall(r"[\u4e00-\u9fff]+", first)
    chinese = bool(runs) and (
        bool(re.search(structure, first)) or len(runs) >= len(re.findall(r"[A-Za-z]\w*", first))
    )
    text = attempt.final
    problems = []
    if sum(text.count(m) for m in _MARKS) > 1:
        problems.append("the offline mark appears more than once")
    head = re.sub(r"[\w.-]*\d[\w.-]*|〔离线〕|\[offline\]", "", text)[:80]
    if text and chinese != bool(re.search(r"[\u4e00-\u9fff]{2}", head)):
        problems.append("the reply is not in the buyer's language")
    return problems


async def check(http: httpx.AsyncClient, task: Task, attempt: Attempt, before: Before,
                today: date) -> list[str]:  # fmt: skip
    """What is wrong with ``attempt`` (empty: the task passed)."""
    expect = task.expect
    problems = [f"error: {attempt.error}"] if attempt.error else []
    problems += _language(task, attempt)
    if "new_orders" in expect:
        problems += await _new_orders(http, task, before, today)
    if "changed" in expect:
        problems += await _changed(http, task, before, today)
    if expect.get("erp_unchanged"):
        after = int((await _get(http, "/audit", size=1))["total"])
        if after != before.audit_total:
            problems.append("the ERP changed")
    problems += _check_analyses(expect, attempt)
    problems += _check_questions(expect, attempt)
    for spec in expect.get("says") or []:
        wrong = await _statement(http, spec, attempt.final, before)
        if wrong:
            problems.append(wrong)
    if expect.get("one_sentence") and attempt.final.strip().count("\n"):
        problems.append("more than one sentence")
    return problems


def _check_analyses(expect: dict[str, Any], attempt: Attempt) -> list[str]:
    if "analyses" not in expect:
        return []
    scopes = [_scope(a.get("description", "")) for a in attempt.analyses]
    want = expect["analyses"]
    if len(scopes) != len(want):
        return [f"{len(scopes)} analyses started, expected {len(want)}"]
    problems = []
    for spec in want:
        if not any(_fits(spec, s) for s in scopes):
            problems.append(f"no analysis with {spec} (started {scopes})")
    return problems


def _scope(description: str) -> dict[str, Any]:
    import json

    m = re.search(r"【分析范围】\s*(\{.*?\})", description, re.S)
    try:
        return json.loads(m.group(1)) if m else {}
    except json.JSONDecodeError:
        return {}


def _fits(spec: dict[str, Any], scope: dict[str, Any]) -> bool:
    if spec.get("category") not in (scope.get("categories") or []):
        return False
    if "brands" in spec and sorted(spec["brands"]) != sorted(scope.get("brands") or []):
        return False
    return "window_months" not in spec or spec["window_months"] == scope.get("window_months")


def _check_questions(expect: dict[str, Any], attempt: Attempt) -> list[str]:
    problems = []
    if "asks" in expect:
        asked = {f for q in attempt.questions for f in q.get("fields") or []}
        missing = set(expect["asks"]) - asked
        if missing:
            problems.append(f"did not ask for {sorted(missing)} (asked {sorted(asked)})")
    listed = max(attempt.final.count("、"), attempt.final.count(", "))
    if expect.get("asks_category") and (attempt.analyses or listed < 3):
        problems.append("did not ask which category, naming the ERP's")
    return problems
