"""The ERP tools through FastMCP's in-memory client, against the real ERP app.

The ERP (``sim.erp`` on a fresh copy of its seed) runs in-process behind
tests/unit/erp_inprocess.py's transport: each tool's answer is checked against what
the ERP itself holds (its REST answer, the generator's catalogue, its database rows).
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from typing import Any

from fastmcp import Client

from mcp_erp.shapes import money
from sim.catalog import generate
from tests.unit.erp_fixtures import SEED
from tests.unit.erp_inprocess import InProcessErp

EXPECTED_TOOLS = [
    "supplier_query",
    "part_query",
    "part_search",
    "part_by_supplier",
    "order_create",
    "order_update",
    "order_validate",
    "order_search_details",
    "order_summary",
    "inventory_warning",
    "category_list",
    "part_equivalents",
]
READS = {"supplier_query", "part_query", "part_search", "part_by_supplier"}
READS |= {"order_validate", "order_search_details", "inventory_warning", "category_list"}
READS |= {"part_equivalents", "order_summary"}
CATALOG = generate(SEED)


async def call(client: Client[Any], tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert isinstance(result.data, dict), result
    return result.data


def without_none(value: Any) -> Any:
    """``value`` with every None-valued key dropped, as the tools hand ERP answers on."""
    if isinstance(value, dict):
        return {k: without_none(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [without_none(v) for v in value]
    return value


def last_sent(erp: InProcessErp) -> tuple[str, str, dict[str, list[str]]]:
    sent = erp.transport.sent[-1]
    return sent.method, sent.path, sent.query


async def test_exactly_the_erp_tools_with_their_hints(erp_mcp: Client[Any]) -> None:
    tools = {t.name: t for t in await erp_mcp.list_tools()}
    assert sorted(tools) == sorted(EXPECTED_TOOLS)
    for name in READS:
        hints = tools[name].annotations
        assert hints is not None
        assert (hints.readOnlyHint, hints.openWorldHint) == (True, False), name
    create, update = tools["order_create"].annotations, tools["order_update"].annotations
    assert create is not None and update is not None
    assert (create.readOnlyHint, create.destructiveHint, create.idempotentHint) == (
        False,
        False,
        True,
    )
    assert (update.readOnlyHint, update.destructiveHint, update.idempotentHint) == (
        False,
        True,
        False,
    )
    assert create.openWorldHint is False and update.openWorldHint is False
    lookup = tools["part_equivalents"].annotations
    assert lookup is not None and lookup.idempotentHint is True


async def test_descriptions_are_short_and_parameters_described(erp_mcp: Client[Any]) -> None:
    from mcp_erp import prompts

    tools = {t.name: t for t in await erp_mcp.list_tools()}
    # Snapshot: a changed description is a deliberate change to what every model reads.
    assert {n: t.description for n, t in tools.items()} == {
        "supplier_query": prompts.SUPPLIER_QUERY,
        "part_query": prompts.PART_QUERY,
        "part_search": prompts.PART_SEARCH,
        "part_by_supplier": prompts.PART_BY_SUPPLIER,
        "order_create": prompts.ORDER_CREATE,
        "order_update": prompts.ORDER_UPDATE,
        "order_validate": prompts.ORDER_VALIDATE,
        "order_search_details": prompts.ORDER_SEARCH_DETAILS,
        "order_summary": prompts.ORDER_SUMMARY,
        "inventory_warning": prompts.INVENTORY_WARNING,
        "category_list": prompts.CATEGORY_LIST,
        "part_equivalents": prompts.PART_EQUIVALENTS,
    }
    assert prompts.PART_SEARCH == (
        "Fuzzy part search in Chinese or English over name, sku, model, brand and category; "
        "best match first."
    )
    for tool in tools.values():
        assert tool.description is not None and len(tool.description) <= 250
        assert "ctx" not in tool.inputSchema["properties"]
    create = tools["order_create"].inputSchema
    assert create["required"] == ["idempotency_key", "supplier_id", "lines"]
    line = create["properties"]["lines"]["items"]
    assert line["properties"]["quantity"]["exclusiveMinimum"] == 0
    assert tools["part_query"].inputSchema["properties"]["size"]["maximum"] == 100
    part_ids = tools["part_query"].inputSchema["properties"]["part_ids"]
    assert any(
        option.get("maxItems") == 50 and option.get("minItems") == 1
        for option in part_ids.get("anyOf", [part_ids])
    ), part_ids


async def test_supplier_query_by_name_status_and_id(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    found = await call(erp_mcp, "supplier_query", name="博世")
    assert [s["code"] for s in found["items"]] == ["BOSCH"]
    assert found["has_more"] is False
    # What the ERP holds, None values dropped: nothing renamed, nothing rounded.
    assert found["items"] == without_none(
        (await real_erp.get("/suppliers/search", name="博世"))["items"]
    )

    blocked = await call(erp_mcp, "supplier_query", status="blocked")
    assert [s["code"] for s in blocked["items"]] == [
        s.code for s in CATALOG.suppliers if s.status == "blocked"
    ]
    assert last_sent(real_erp)[2]["status"] == ["blocked"]

    paged = await call(erp_mcp, "supplier_query", size=5)
    assert (paged["total"], len(paged["items"]), paged["has_more"]) == (
        len(CATALOG.suppliers),
        5,
        True,
    )
    last_page = math.ceil(paged["total"] / 5)
    last = await call(erp_mcp, "supplier_query", size=5, page=last_page)
    assert [s["code"] for s in last["items"]] == [
        s.code for s in CATALOG.suppliers[(last_page - 1) * 5 :]
    ]
    assert last["has_more"] is False

    one = await call(erp_mcp, "supplier_query", supplier_id=1)
    assert one["code"] == CATALOG.suppliers[0].code
    assert last_sent(real_erp)[:2] == ("GET", "/suppliers/1")


async def test_part_query_one_part_with_offers_and_stock(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    part = await call(erp_mcp, "part_query", part_id=1)
    assert part["sku"] == CATALOG.parts[0].sku
    assert part == without_none(await real_erp.get("/parts/1"))
    assert part["offers"] and "safety_stock" in part["inventory"]
    for offer in part["offers"]:
        assert offer["price"] == money(offer["price_minor"], offer["currency"])
        assert offer["min_order_qty"] >= 1


async def test_part_query_many_parts_in_one_request(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    before = len(real_erp.transport.sent)
    found = await call(erp_mcp, "part_query", part_ids=[12, 1, 99999, 7])
    assert len(real_erp.transport.sent) == before + 1
    assert last_sent(real_erp) == ("GET", "/parts/details", {"ids": ["12,1,99999,7"]})
    assert [p["id"] for p in found["items"]] == [12, 1, 7]
    assert found["missing"] == [99999]
    for part in found["items"]:
        # Each record is the one a single part_id call gives.
        assert part == await call(erp_mcp, "part_query", part_id=part["id"])
        assert part["offers"] and "safety_stock" in part["inventory"]

    fifty = await call(erp_mcp, "part_query", part_ids=list(range(1, 51)))
    assert [p["id"] for p in fifty["items"]] == list(range(1, 51))
    assert fifty["missing"] == []


async def test_the_analysts_batches_stay_in_the_conversation(erp_mcp: Client[Any]) -> None:
    """Every category's detail batches, as the offline analyst asks them, come back under
    the size the graphs move to a file (the planner would not read an evicted answer)."""
    from graphs.offline.policies.analyst.run import DETAILS_BATCH, MAX_DETAILS
    from tests.unit.planner_harness import EVICTED_CHARS

    largest = 0
    for category in (await call(erp_mcp, "category_list"))["items"]:
        listed = await call(erp_mcp, "part_query", category=category["code"], size=100)
        ids = [p["id"] for p in listed["items"]][:MAX_DETAILS]
        for n in range(0, len(ids), DETAILS_BATCH):
            answer = await erp_mcp.call_tool("part_query", {"part_ids": ids[n : n + DETAILS_BATCH]})
            text = answer.content[0].text  # type: ignore[union-attr]
            largest = max(largest, len(text))
    assert 0 < largest < 0.8 * EVICTED_CHARS, largest


async def test_part_query_filters_are_forwarded(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    page = await call(erp_mcp, "part_query", category="火花塞", supplier_id=2, size=5)
    assert page["items"] and {p["category_zh"] for p in page["items"]} == {"火花塞"}
    sold_by_bosch = {p["id"] for p in (await real_erp.get("/parts/supplier/2", size=100))["items"]}
    assert {p["id"] for p in page["items"]} <= sold_by_bosch
    assert last_sent(real_erp) == (
        "GET",
        "/parts",
        {"category": ["火花塞"], "supplierId": ["2"], "page": ["1"], "size": ["5"]},
    )


async def test_part_search_and_part_by_supplier(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    hits = await call(erp_mcp, "part_search", name="spark", limit=3)
    assert len(hits["items"]) == 3 and hits["total"] > 3
    assert all(isinstance(h["score"], float) for h in hits["items"])
    assert hits == without_none(await real_erp.get("/parts/search", name="spark", limit=3))
    assert last_sent(real_erp)[2] == {"name": ["spark"], "limit": ["3"]}

    sold = await call(erp_mcp, "part_by_supplier", supplier_id=2, size=2)
    assert sold["supplier"]["code"] == "BOSCH"
    assert len(sold["items"]) == 2 and sold["has_more"] is (sold["total"] > 2)
    assert {item["offer"]["supplier_id"] for item in sold["items"]} == {2}
    assert sold["items"] == without_none((await real_erp.get("/parts/supplier/2", size=2))["items"])


async def test_inventory_warning_largest_shortage_first(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    warn = await call(erp_mcp, "inventory_warning", size=100)
    shortages = [w["shortage"] for w in warn["items"]]
    assert shortages and shortages == sorted(shortages, reverse=True)
    for w in warn["items"]:
        assert w["shortage"] == w["safety_stock"] - w["available"] > 0
    assert warn["items"] == without_none(
        (await real_erp.get("/inventory/warnings", size=100))["items"]
    )
    chains = await call(erp_mcp, "inventory_warning", category="链条")
    assert chains["items"] and {w["category_code"] for w in chains["items"]} == {"CH"}
    assert {w["sku"] for w in chains["items"]} < {w["sku"] for w in warn["items"]}


async def _two_parts_of(erp: InProcessErp, supplier_id: int) -> list[dict[str, Any]]:
    sold = (await erp.get(f"/parts/supplier/{supplier_id}", size=2))["items"]
    assert len(sold) == 2
    return sold


async def test_order_lifecycle(erp_mcp: Client[Any], real_erp: InProcessErp) -> None:
    first, second = await _two_parts_of(real_erp, 2)
    lines = [
        {
            "part_id": first["id"],
            "quantity": first["offer"]["min_order_qty"] + first["offer"]["order_step"],
        },
        {"part_id": second["id"], "quantity": second["offer"]["min_order_qty"]},
    ]
    args = {
        "idempotency_key": "order-test-0001",
        "supplier_id": 2,
        "lines": lines,
        # The ERP dates an order today and refuses an expected date before that.
        "expected_date": (datetime.now(UTC).date() + timedelta(days=30)).isoformat(),
        "note": "下周五前到货",
        "requested_by": "li.lei",
    }
    order = await call(erp_mcp, "order_create", **args)
    assert (order["status"], order["version"], order["currency"]) == ("draft", 1, "CNY")
    amounts = [
        line["quantity"] * part["offer"]["price_minor"]
        for line, part in zip(lines, (first, second), strict=True)
    ]
    assert [line["amount_minor"] for line in order["lines"]] == amounts
    assert order["total_minor"] == sum(amounts) and order["total"] == money(sum(amounts), "CNY")
    # The display string is added beside amount_minor.
    assert [line["amount"] for line in order["lines"]] == [money(a, "CNY") for a in amounts]
    assert "approved_by" not in order
    assert real_erp.transport.sent[-1].body == {**args, "submit": False}

    again = await call(erp_mcp, "order_create", **args)
    assert again["id"] == order["id"] and again["replayed"] is True
    stored = await real_erp.get("/orders/search-details", supplier_id=2, size=100)
    assert [o["idempotency_key"] for o in stored["items"]].count(args["idempotency_key"]) == 1

    found = await call(erp_mcp, "order_search_details", order_no=order["order_no"])
    assert found["total"] == 1 and len(found["items"][0]["lines"]) == 2
    assert found["items"][0]["lines"][1]["amount"] == money(amounts[1], "CNY")
    today = order["order_date"]
    by_part = await call(
        erp_mcp, "order_search_details", part_id=second["id"], status="draft", date_from=today
    )
    assert order["id"] in [o["id"] for o in by_part["items"]]
    for o in by_part["items"]:
        assert o["status"] == "draft" and o["order_date"] >= today
        assert second["id"] in [line["part_id"] for line in o["lines"]]
    assert last_sent(real_erp)[2]["date_from"] == [today]

    relined = await call(
        erp_mcp,
        "order_update",
        order_id=order["id"],
        expected_version=1,
        lines=[{"part_id": first["id"], "quantity": 2 * first["offer"]["min_order_qty"]}],
        actor="li.lei",
    )
    relined_total = 2 * first["offer"]["min_order_qty"] * first["offer"]["price_minor"]
    assert relined["version"] == 2 and relined["total"] == money(relined_total, "CNY")
    submitted = await call(
        erp_mcp,
        "order_update",
        order_id=order["order_no"],
        expected_version=2,
        status="pending_approval",
        actor="li.lei",
    )
    assert submitted["status"] == "pending_approval"
    approved = await call(
        erp_mcp,
        "order_update",
        order_id=str(order["id"]),
        expected_version=3,
        status="approved",
        approved_by="王经理",
    )
    assert (approved["status"], approved["approved_by"]) == ("approved", "王经理")
    received = await call(
        erp_mcp,
        "order_update",
        order_id=order["order_no"],
        expected_version=4,
        received=[{"part_id": first["id"], "quantity": 4}],
        actor="warehouse",
    )
    assert received["status"] == "partially_received" and received["version"] == 5
    assert received["lines"][0]["received_qty"] == 4
    assert last_sent(real_erp)[:2] == ("PUT", f"/orders/update/{order['order_no']}")
    held = await real_erp.get(f"/orders/{order['id']}")
    assert (held["status"], held["version"], held["approved_by"]) == (
        "partially_received",
        5,
        "王经理",
    )


async def test_submit_creates_pending_approval(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    part, _ = await _two_parts_of(real_erp, 1)
    order = await call(
        erp_mcp,
        "order_create",
        idempotency_key="order-test-0002",
        supplier_id=1,
        lines=[{"part_id": part["id"], "quantity": part["offer"]["min_order_qty"]}],
        submit=True,
        requested_by="li.lei",
    )
    assert order["status"] == "pending_approval"
    assert (await real_erp.get(f"/orders/{order['id']}"))["status"] == "pending_approval"


async def test_numeric_strings_are_accepted(erp_mcp: Client[Any], real_erp: InProcessErp) -> None:
    # Models often quote numbers; lenient validation turns "2" into 2 before the request.
    page = await call(erp_mcp, "part_by_supplier", supplier_id="2", size="1")
    assert page["size"] == 1 and last_sent(real_erp)[:2] == ("GET", "/parts/supplier/2")


async def test_category_list_carries_the_aliases_search_understands(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    listed = await call(erp_mcp, "category_list")
    by_code = {c["code"]: c for c in listed["items"]}
    assert set(by_code) == {c.code for c in CATALOG.categories}
    assert "火嘴" in by_code["SP"]["aliases"] and "tyre" in by_code["TY"]["aliases"]
    # An alias names the category wherever the ERP takes a category, and finds its parts.
    for alias, code in (("火嘴", "SP"), ("电瓶", "BT"), ("tyres", "TY"), ("碟盘", "BD")):
        page = await call(erp_mcp, "part_query", category=alias, size=5)
        assert page["items"] and {p["category_code"] for p in page["items"]} == {code}
        found = await call(erp_mcp, "part_search", name=alias, limit=5)
        assert found["items"] and found["items"][0]["category_code"] == code, alias
    warned = await call(erp_mcp, "inventory_warning", category="刹车皮", size=100)
    assert all(p["category_code"] == "BP" for p in warned["items"])


async def test_order_validate_returns_the_erps_dry_run_and_writes_nothing(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    before = real_erp.fingerprint()
    checked = await call(
        erp_mcp, "order_validate", supplier_id=1, lines=[{"part_id": 1, "quantity": 20}]
    )
    sent = real_erp.transport.sent[-1]
    assert (sent.method, sent.path) == ("POST", "/orders/validate")
    assert sent.body == {"supplier_id": 1, "lines": [{"part_id": 1, "quantity": 20}]}
    truth = (await real_erp.resend(sent)).json()
    assert checked == without_none(truth)  # the ERP's answer, nothing renamed
    assert [v["code"] for v in checked["violations"]] == ["BELOW_MOQ"]
    assert checked["violations"][0]["suggested"] == {"quantity": 50}
    assert checked["order"]["lines"][0]["unit_price"] == "54.30"
    assert real_erp.fingerprint() == before

    # A change to an existing order: the state machine is checked, nothing is written.
    async with real_erp.rest() as rest:
        created = await rest.post(
            "/orders/create",
            json={"idempotency_key": "validate-mcp-01", "supplier_id": 1,
                  "lines": [{"part_id": 1, "quantity": 100}], "requested_by": "li.lei"},
        )  # fmt: skip
    order = created.json()
    before = real_erp.fingerprint()
    change = await call(erp_mcp, "order_validate", order_id=order["order_no"], status="received")
    assert change["kind"] == "update" and change["ok"] is False
    assert [v["code"] for v in change["violations"]] == ["TRANSITION_NOT_ALLOWED"]
    assert change["current"]["order_no"] == order["order_no"]
    assert real_erp.fingerprint() == before


async def test_order_validate_passes_the_erps_warnings_on(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    # "1万个" of a part ordered a few hundred at a time: one zero too many, most likely.
    checked = await call(
        erp_mcp, "order_validate", supplier_id=1, lines=[{"part_id": 1, "quantity": 10000}]
    )
    truth = (await real_erp.resend(real_erp.transport.sent[-1])).json()
    assert checked == without_none(truth)
    assert checked["ok"] is True
    [warning] = [w for w in checked["warnings"] if w["code"] == "QUANTITY_UNUSUAL"]
    assert warning["severity"] == "warning" and warning["details"]["quantity"] == 10000
    assert warning["details"]["usual"] > 0 and warning["message"] and warning["fix"]


async def test_order_validate_needs_a_new_order_or_an_order_id(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    result = await erp_mcp.call_tool("order_validate", {"supplier_id": 1}, raise_on_error=False)
    assert result.is_error
    assert result.content[0].text.startswith("VALIDATION: send supplier_id and lines")  # type: ignore[union-attr]
    assert real_erp.transport.count() == 0


async def test_order_validate_is_retried_like_a_read(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    real_erp.transport.fail("POST", "/orders/validate", 503, times=1)
    checked = await call(
        erp_mcp, "order_validate", supplier_id=1, lines=[{"part_id": 1, "quantity": 100}]
    )
    assert checked["ok"] is True
    assert real_erp.transport.count("POST", "/orders/validate") == 2


async def test_orders_are_searched_by_requester(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    async with real_erp.rest() as rest:
        for n, who in enumerate(("li.lei", "han.mei", "li.lei")):
            answer = await rest.post(
                "/orders/create",
                json={"idempotency_key": f"by-requester-{n:03d}", "supplier_id": 1,
                      "lines": [{"part_id": 1, "quantity": 100 + 10 * n}],
                      "requested_by": who},
            )  # fmt: skip
            assert answer.status_code == 201, answer.text
    found = await call(erp_mcp, "order_search_details", requested_by="li.lei")
    assert found["total"] == 2
    assert {o["requested_by"] for o in found["items"]} == {"li.lei"}
    assert last_sent(real_erp)[2]["requested_by"] == ["li.lei"]


async def _every_order(client: Client[Any], **filters: Any) -> list[dict[str, Any]]:
    """Every matching order, page by page (the slow way a spend answer must agree with)."""
    out: list[dict[str, Any]] = []
    page = 1
    while True:
        found = await call(client, "order_search_details", page=page, size=100, **filters)
        out += found["items"]
        if not found["has_more"]:
            return out
        page += 1


async def test_order_summary_adds_up_every_order_of_the_period(erp_mcp: Client[Any]) -> None:
    span = {"date_from": "2026-01-01", "date_to": "2026-12-03"}
    orders = await _every_order(erp_mcp, **span)
    placed = [o for o in orders if o["status"] != "cancelled"]
    assert len(orders) > 240  # more than one answer's pages could hold
    expected: dict[str, int] = {}
    by_supplier: dict[int, int] = {}
    for o in placed:
        expected[o["currency"]] = expected.get(o["currency"], 0) + o["total_minor"]
        if o["currency"] == "CNY":
            by_supplier[o["supplier_id"]] = by_supplier.get(o["supplier_id"], 0) + o["total_minor"]
    summary = await call(erp_mcp, "order_summary", group_by="supplier", **span)
    assert {t["currency"]: t["amount_minor"] for t in summary["totals"]} == expected
    assert summary["orders"] == len(placed)
    assert summary["cancelled_orders"] == len(orders) - len(placed)
    top = summary["groups"][0]
    assert top["key"] == max(by_supplier, key=lambda k: by_supplier[k]) and top["code"]


async def test_order_summary_by_requester_adds_up_each_ones_orders(erp_mcp: Client[Any]) -> None:
    span = {"date_from": "2026-01-01", "date_to": "2026-12-03"}
    by_user: dict[str, dict[str, int]] = {}
    counts: dict[str, int] = {}
    for o in await _every_order(erp_mcp, **span):
        if o["status"] != "cancelled":
            sums = by_user.setdefault(o["requested_by"], {})
            sums[o["currency"]] = sums.get(o["currency"], 0) + o["total_minor"]
            counts[o["requested_by"]] = counts.get(o["requested_by"], 0) + 1
    summary = await call(erp_mcp, "order_summary", group_by="requester", **span)
    groups = {g["key"]: g for g in summary["groups"]}
    assert set(groups) == set(by_user) and len(groups) > 1
    for user, sums in by_user.items():
        assert {t["currency"]: t["amount_minor"] for t in groups[user]["totals"]} == sums
        assert groups[user]["orders"] == counts[user]
    ranked = [g["key"] for g in summary["groups"]]
    assert ranked[0] == max(by_user, key=lambda u: by_user[u].get("CNY", 0))


async def test_order_summary_by_part_gives_each_parts_quantity(erp_mcp: Client[Any]) -> None:
    # "哪些零件半年没订过": which parts were bought over a period, and how many of each.
    span = {"date_from": "2026-06-04", "date_to": "2026-12-03"}
    quantity: dict[str, int] = {}
    orders: dict[str, set[int]] = {}
    for o in await _every_order(erp_mcp, **span):
        if o["status"] != "cancelled":
            for line in o["lines"]:
                quantity[line["sku"]] = quantity.get(line["sku"], 0) + line["quantity"]
                orders.setdefault(line["sku"], set()).add(o["id"])
    summary = await call(erp_mcp, "order_summary", group_by="part", **span)
    groups = {g["sku"]: g for g in summary["groups"]}
    assert set(groups) == set(quantity) and len(groups) > 10
    for sku, g in groups.items():
        assert g["quantity"] == quantity[sku] and g["orders"] == len(orders[sku]), sku
        assert g["name_zh"] and g["category_code"] == sku.split("-", 1)[0]


async def test_orders_are_searched_and_summed_by_approver(erp_mcp: Client[Any]) -> None:
    # "陈静批了哪些单": who approved is a filter and a grouping, like who asked.
    span = {"date_from": "2026-01-01", "date_to": "2026-12-03"}
    by_user: dict[str | None, dict[str, int]] = {}
    for o in await _every_order(erp_mcp, **span):
        if o["status"] != "cancelled":
            sums = by_user.setdefault(o["approved_by"], {})
            sums[o["currency"]] = sums.get(o["currency"], 0) + o["total_minor"]
    approvers = [u for u in by_user if u]
    assert approvers
    summary = await call(erp_mcp, "order_summary", group_by="approver", **span)
    groups = {g["key"]: g for g in summary["groups"]}
    assert set(groups) == set(by_user)
    for user, sums in by_user.items():
        assert {t["currency"]: t["amount_minor"] for t in groups[user]["totals"]} == sums
    one = approvers[0]
    theirs = await _every_order(erp_mcp, approved_by=one, **span)
    assert theirs and {o["approved_by"] for o in theirs} == {one}
    alone = await call(erp_mcp, "order_summary", approved_by=one, **span)
    assert {t["currency"]: t["amount_minor"] for t in alone["totals"]} == by_user[one]
    nobody = await call(erp_mcp, "order_search_details", approved_by="no.such.person")
    assert nobody["total"] == 0 and nobody["items"] == []


async def test_order_summary_of_a_category_counts_only_its_lines(erp_mcp: Client[Any]) -> None:
    category = (await call(erp_mcp, "category_list"))["items"][0]
    skus = set()
    page = 1
    while True:
        parts = await call(erp_mcp, "part_query", category=category["code"], page=page, size=50)
        skus |= {p["sku"] for p in parts["items"]}
        if not parts["has_more"]:
            break
        page += 1
    span = {"date_from": "2025-01-01", "date_to": "2025-12-31"}
    expected: dict[str, int] = {}
    for o in await _every_order(erp_mcp, **span):
        if o["status"] == "cancelled":
            continue
        for line in o["lines"]:
            if line["sku"] in skus:
                expected[o["currency"]] = expected.get(o["currency"], 0) + line["amount_minor"]
    summary = await call(erp_mcp, "order_summary", category=category["name_zh"], **span)
    assert {t["currency"]: t["amount_minor"] for t in summary["totals"]} == expected


async def test_order_summary_refuses_a_reversed_period(erp_mcp: Client[Any]) -> None:
    result = await erp_mcp.call_tool(
        "order_summary", {"date_from": "2026-12-01", "date_to": "2026-01-01"}, raise_on_error=False
    )
    assert result.is_error and "date_from" in str(result.content[0])
