"""The eight ERP tools through FastMCP's in-memory client, against the fake ERP."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs

import pytest
from fastmcp import Client

from tests.unit.test_mcp_erp_fake import FakeErp, pinned_settings

EXPECTED_TOOLS = [
    "supplier_query",
    "part_query",
    "part_search",
    "part_by_supplier",
    "order_create",
    "order_update",
    "order_search_details",
    "inventory_warning",
]
READS = {"supplier_query", "part_query", "part_search", "part_by_supplier"}
READS |= {"order_search_details", "inventory_warning"}


@pytest.fixture
def erp() -> FakeErp:
    return FakeErp()


@pytest.fixture
async def client(erp: FakeErp) -> AsyncIterator[Client[Any]]:
    from mcp_erp.server import create_server

    async with erp.client() as http:
        server = create_server(pinned_settings(), http_client=http)
        async with Client(server) as c:
            yield c


async def call(client: Client[Any], tool: str, **args: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, args)
    assert isinstance(result.data, dict), result
    return result.data


def last_query(erp: FakeErp) -> dict[str, list[str]]:
    return parse_qs(erp.queries[-1])


async def test_exactly_the_eight_tools_with_their_hints(client: Client[Any]) -> None:
    tools = {t.name: t for t in await client.list_tools()}
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


async def test_descriptions_are_short_and_parameters_described(client: Client[Any]) -> None:
    from mcp_erp import prompts

    tools = {t.name: t for t in await client.list_tools()}
    # Snapshot: a changed description is a deliberate change to what every model reads.
    assert {n: t.description for n, t in tools.items()} == {
        "supplier_query": prompts.SUPPLIER_QUERY,
        "part_query": prompts.PART_QUERY,
        "part_search": prompts.PART_SEARCH,
        "part_by_supplier": prompts.PART_BY_SUPPLIER,
        "order_create": prompts.ORDER_CREATE,
        "order_update": prompts.ORDER_UPDATE,
        "order_search_details": prompts.ORDER_SEARCH_DETAILS,
        "inventory_warning": prompts.INVENTORY_WARNING,
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


async def test_supplier_query_by_name_status_and_id(client: Client[Any], erp: FakeErp) -> None:
    found = await call(client, "supplier_query", name="博世")
    assert [s["code"] for s in found["items"]] == ["BOSCH"]
    assert "website" not in found["items"][0]  # None values are dropped
    assert found["has_more"] is False

    blocked = await call(client, "supplier_query", status="blocked")
    assert [s["code"] for s in blocked["items"]] == ["BLK"]
    assert last_query(erp)["status"] == ["blocked"]

    paged = await call(client, "supplier_query", size=2)
    assert (paged["total"], len(paged["items"]), paged["has_more"]) == (3, 2, True)
    second = await call(client, "supplier_query", size=2, page=2)
    assert [s["id"] for s in second["items"]] == [3] and second["has_more"] is False

    one = await call(client, "supplier_query", supplier_id=1)
    assert one["code"] == "NGK" and erp.requests[-1] == ("GET", "/suppliers/1")


async def test_part_query_one_part_with_offers_and_stock(client: Client[Any]) -> None:
    part = await call(client, "part_query", part_id=1)
    assert part["sku"] == "SP-CR7HSA"
    offers = {o["supplier_code"]: o for o in part["offers"]}
    assert offers["NGK"]["price_minor"] == 1850 and offers["NGK"]["price"] == "18.50"
    assert offers["BOSCH"]["min_order_qty"] == 50
    assert part["inventory"]["safety_stock"] == 50


async def test_part_query_filters_are_forwarded(client: Client[Any], erp: FakeErp) -> None:
    page = await call(client, "part_query", category="刹车片", supplier_id=2, size=5)
    assert [p["sku"] for p in page["items"]] == ["BP-FA196"]
    sent = last_query(erp)
    assert sent == {"category": ["刹车片"], "supplierId": ["2"], "page": ["1"], "size": ["5"]}


async def test_part_search_and_part_by_supplier(client: Client[Any], erp: FakeErp) -> None:
    hits = await call(client, "part_search", name="spark", limit=3)
    assert hits["total"] == 1 and hits["items"][0]["score"] == 0.9
    assert last_query(erp) == {"name": ["spark"], "limit": ["3"]}

    sold = await call(client, "part_by_supplier", supplier_id=2, size=2)
    assert sold["supplier"]["code"] == "BOSCH"
    assert (sold["total"], len(sold["items"]), sold["has_more"]) == (3, 2, True)
    assert sold["items"][0]["offer"]["supplier_id"] == 2


async def test_inventory_warning_largest_shortage_first(client: Client[Any]) -> None:
    warn = await call(client, "inventory_warning")
    assert [(w["sku"], w["shortage"]) for w in warn["items"]] == [
        ("SP-CR7HSA", 35),
        ("CH-428H", 8),
    ]
    chains = await call(client, "inventory_warning", category="chain")
    assert [w["sku"] for w in chains["items"]] == ["CH-428H"]


async def test_order_lifecycle(client: Client[Any], erp: FakeErp) -> None:
    args = {
        "idempotency_key": "order-test-0001",
        "supplier_id": 2,
        "lines": [{"part_id": 2, "quantity": 6}, {"part_id": 3, "quantity": 1}],
        "expected_date": "2026-12-18",
        "note": "下周五前到货",
    }
    order = await call(client, "order_create", **args)
    assert (order["status"], order["version"], order["currency"]) == ("draft", 1, "CNY")
    assert order["total_minor"] == 6 * 5430 + 9900 and order["total"] == "424.80"
    assert order["lines"][0]["amount"] == "325.80"  # display string added beside amount_minor
    assert "approved_by" not in order
    assert erp.bodies[-1] == {**args, "submit": False}

    again = await call(client, "order_create", **args)
    assert again["id"] == order["id"] and again["replayed"] is True
    assert len(erp.orders) == 1

    found = await call(client, "order_search_details", order_no=order["order_no"])
    assert found["total"] == 1 and len(found["items"][0]["lines"]) == 2
    assert found["items"][0]["lines"][1]["amount"] == "99.00"
    by_part = await call(
        client, "order_search_details", part_id=3, status="draft", date_from="2026-01-01"
    )
    assert [o["id"] for o in by_part["items"]] == [order["id"]]
    assert last_query(erp)["date_from"] == ["2026-01-01"]

    relined = await call(
        client,
        "order_update",
        order_id=order["id"],
        expected_version=1,
        lines=[{"part_id": 2, "quantity": 10}],
    )
    assert relined["version"] == 2 and relined["total"] == "543.00"
    submitted = await call(
        client,
        "order_update",
        order_id=order["order_no"],
        expected_version=2,
        status="pending_approval",
    )
    assert submitted["status"] == "pending_approval"
    approved = await call(
        client,
        "order_update",
        order_id=str(order["id"]),
        expected_version=3,
        status="approved",
        approved_by="王经理",
    )
    assert (approved["status"], approved["approved_by"]) == ("approved", "王经理")
    received = await call(
        client,
        "order_update",
        order_id=order["order_no"],
        expected_version=4,
        received=[{"part_id": 2, "quantity": 4}],
        actor="warehouse",
    )
    assert received["status"] == "partially_received" and received["version"] == 5
    assert erp.requests[-1] == ("PUT", f"/orders/update/{order['order_no']}")


async def test_submit_creates_pending_approval(client: Client[Any]) -> None:
    order = await call(
        client,
        "order_create",
        idempotency_key="order-test-0002",
        supplier_id=1,
        lines=[{"part_id": 1, "quantity": 10}],
        submit=True,
    )
    assert order["status"] == "pending_approval"


async def test_numeric_strings_are_accepted(client: Client[Any], erp: FakeErp) -> None:
    # Models often quote numbers; lenient validation turns "2" into 2 before the request.
    page = await call(client, "part_by_supplier", supplier_id="2", size="1")
    assert page["size"] == 1 and erp.requests[-1] == ("GET", "/parts/supplier/2")
