"""The ERP's read endpoints: shapes, filters, paging, inventory warnings, bad parameters."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from sim.catalog import REFERENCE_DATE, generate
from sim.erp.app import create_app
from tests.unit.erp_fixtures import (
    SEED,
    WatchedErp,
    assert_error,
    fingerprint,
)

CATALOG = generate(SEED)
SUPPLIER_KEYS = {
    "id", "code", "name_zh", "name_en", "kind", "status", "rating", "website", "country",
    "currency",
}  # fmt: skip
PART_KEYS = {
    "id", "sku", "model", "name_zh", "name_en", "category_code", "category_zh", "category_en",
    "brand", "brand_zh", "unit",
}  # fmt: skip
OFFER_KEYS = {
    "supplier_id", "supplier_code", "supplier_name_zh", "supplier_name_en", "price_minor",
    "price", "currency", "min_order_qty", "order_step", "lead_time_days", "valid_from",
    "valid_to",
}  # fmt: skip
INVENTORY_KEYS = {"on_hand", "reserved", "on_order", "safety_stock", "reorder_point"}
ORDER_KEYS = {
    "id", "order_no", "idempotency_key", "supplier_id", "supplier_code", "supplier_name_zh",
    "supplier_name_en", "status", "currency", "order_date", "expected_date", "requested_by", "note",
    "approved_by", "total_minor", "total", "version", "created_at", "updated_at", "lines",
}  # fmt: skip
LINE_KEYS = {
    "id", "line_no", "part_id", "sku", "name_zh", "name_en", "quantity", "received_qty",
    "unit_price_minor", "unit_price", "amount_minor",
}  # fmt: skip


@pytest.fixture(scope="module")
def erp(erp_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WatchedErp]:
    with WatchedErp.serving(erp_template, tmp_path_factory.mktemp("erp")) as erp:
        yield erp


@pytest.fixture(scope="module")
def client(erp: WatchedErp) -> TestClient:
    return erp.client


def get(client: TestClient, path: str, **query: Any) -> Any:
    response = client.get(path, params=query)
    assert response.status_code == 200, response.text
    return response.json()


def test_health_and_index(client: TestClient) -> None:
    assert get(client, "/health") == {"status": "ok", "database": "sqlite"}
    endpoints = get(client, "/")["endpoints"]
    assert "POST /orders/create" in endpoints
    assert "PUT /orders/update/{order_id}" in endpoints


def test_foreign_host_is_refused(client: TestClient) -> None:
    response = client.get("/health", headers={"host": "evil.example"})
    assert response.status_code == 403
    response = client.get("/health", headers={"origin": "http://evil.example"})
    assert response.status_code == 403


def test_supplier_search_in_both_languages(client: TestClient) -> None:
    for query, code in [
        ("ngk", "NGK"),
        ("博世", "BOSCH"),
        ("Brembo", "BREMBO"),
        ("重庆摩配", "CQMP"),
    ]:
        found = get(client, "/suppliers/search", name=query)
        assert found["items"][0]["code"] == code, query
        assert set(found["items"][0]) == SUPPLIER_KEYS


def test_supplier_search_all_pages_and_status(client: TestClient) -> None:
    first = get(client, "/suppliers/search", size=10)
    assert first["total"] == len(CATALOG.suppliers)
    assert (first["page"], first["size"], len(first["items"])) == (1, 10, 10)
    seen = []
    for page in range(1, 5):
        seen += [s["id"] for s in get(client, "/suppliers/search", size=10, page=page)["items"]]
    assert seen == [s.id for s in CATALOG.suppliers]
    held = get(client, "/suppliers/search", status="on_hold")
    assert {s["code"] for s in held["items"]} == {"CHAMPION", "FERODO"}
    assert get(client, "/suppliers/search", name="no such supplier xyz")["total"] == 0


def test_supplier_by_id(client: TestClient) -> None:
    assert get(client, "/suppliers/1")["code"] == "NGK"
    for bad in ("9999", "abc", "1.5", "-1"):
        assert_error(client.get(f"/suppliers/{bad}"), 404, "NOT_FOUND")


def test_categories(client: TestClient) -> None:
    items = get(client, "/categories")["items"]
    assert len(items) == len(CATALOG.categories) >= 12
    assert sum(c["part_count"] for c in items) == len(CATALOG.parts)
    assert {"code": "SP", "name_zh": "火花塞", "name_en": "Spark Plug", "unit": "个"}.items() <= (
        items[0].items()
    )


def test_parts_paging_covers_the_catalogue_once(client: TestClient) -> None:
    ids: list[int] = []
    page = 1
    while True:
        found = get(client, "/parts", page=page, size=100)
        assert found["total"] == len(CATALOG.parts)
        if not found["items"]:
            break
        ids += [p["id"] for p in found["items"]]
        page += 1
    assert ids == [p.id for p in CATALOG.parts]
    assert set(get(client, "/parts", size=1)["items"][0]) == PART_KEYS


@pytest.mark.parametrize("category", ["SP", "sp", "火花塞", "Spark Plug", "spark plugs"])
def test_parts_by_category_any_name(client: TestClient, category: str) -> None:
    found = get(client, "/parts", category=category, size=100)
    assert found["total"] == sum(1 for p in CATALOG.parts if p.category == "SP")
    assert {p["category_code"] for p in found["items"]} == {"SP"}


def test_parts_by_supplier_and_name(client: TestClient) -> None:
    sold = {p.part_id for p in CATALOG.prices if p.supplier_id == 1}
    found = get(client, "/parts", supplierId=1, size=100)
    assert {p["id"] for p in found["items"]} == sold
    named = get(client, "/parts", supplierId=1, name="火花塞帽", size=100)
    assert named["items"] and all(p["category_code"] == "PC" for p in named["items"])


def test_parts_unknown_category_or_supplier(client: TestClient) -> None:
    error = assert_error(client.get("/parts", params={"category": "rockets"}), 422, "VALIDATION")
    assert "SP" in error["details"]["categories"]
    assert_error(client.get("/parts", params={"supplierId": 9999}), 404, "NOT_FOUND")


def test_part_detail_has_offers_and_stock(client: TestClient) -> None:
    part = get(client, "/parts/1")
    assert set(part) == PART_KEYS | {"attributes", "offers", "inventory"}
    assert set(part["inventory"]) == INVENTORY_KEYS
    offers = part["offers"]
    assert len(offers) == sum(1 for p in CATALOG.prices if p.part_id == 1) >= 2
    assert set(offers[0]) == OFFER_KEYS
    prices = [o["price_minor"] for o in offers]
    assert prices == sorted(prices)
    assert offers[0]["price"] == f"{prices[0] // 100}.{prices[0] % 100:02d}"
    assert_error(client.get("/parts/99999"), 404, "NOT_FOUND")


def test_part_details_are_each_part_record_in_the_order_asked(client: TestClient) -> None:
    ids = [30, 1, 7, 12]
    found = get(client, "/parts/details", ids=",".join(map(str, ids)))
    assert set(found) == {"items", "missing"}
    assert found["missing"] == []
    assert [p["id"] for p in found["items"]] == ids
    for record in found["items"]:
        assert record == get(client, f"/parts/{record['id']}")
        assert record["offers"] and record["inventory"] is not None


def test_part_details_up_to_fifty_with_blanks_and_a_repeat(client: TestClient) -> None:
    ids = list(range(50, 0, -1))
    found = get(client, "/parts/details", ids=" , ".join(map(str, ids)))
    assert [p["id"] for p in found["items"]] == ids
    assert sum(len(p["offers"]) for p in found["items"]) == sum(
        1 for p in CATALOG.prices if p.part_id <= 50
    )
    repeated = get(client, "/parts/details", ids="5,3,5")
    assert [p["id"] for p in repeated["items"]] == [5, 3]


def test_part_details_name_unknown_ids_and_answer_the_others(client: TestClient) -> None:
    found = get(client, "/parts/details", ids="99999,2,88888")
    assert [p["id"] for p in found["items"]] == [2]
    assert found["items"][0] == get(client, "/parts/2")
    assert found["missing"] == [99999, 88888]
    assert get(client, "/parts/details", ids="99999") == {"items": [], "missing": [99999]}


@pytest.mark.parametrize(
    "ids", ["", "  ", "1,,2", "1,abc", "1.5", "-3", "0", "1;2", "99999999999", "１"]
)
def test_part_details_malformed_ids_are_validation(erp: WatchedErp, ids: str) -> None:
    before = erp.watch.state()
    error = assert_error(erp.client.get("/parts/details", params={"ids": ids}), 422, "VALIDATION")
    assert error["details"]["field"] == "ids"
    assert erp.watch.state() == before


def test_part_details_refuse_more_than_fifty(client: TestClient) -> None:
    error = assert_error(
        client.get("/parts/details", params={"ids": ",".join(map(str, range(1, 52)))}),
        422,
        "VALIDATION",
    )
    assert error["details"] == {"field": "ids", "max": 50, "count": 51}
    assert "50" in error["message"]
    assert_error(client.get("/parts/details"), 422, "VALIDATION")


def test_parts_of_a_supplier_with_offers(client: TestClient) -> None:
    found = get(client, "/parts/supplier/37", size=5)
    assert found["supplier"]["code"] == "HKGLOBAL"
    assert found["total"] == len({p.part_id for p in CATALOG.prices if p.supplier_id == 37})
    assert len(found["items"]) == 5
    item = found["items"][0]
    assert set(item) == PART_KEYS | {"offer"}
    assert item["offer"]["currency"] == "USD"
    assert_error(client.get("/parts/supplier/9999"), 404, "NOT_FOUND")


def test_inventory_warnings_are_short_items_largest_first(client: TestClient) -> None:
    found = get(client, "/inventory/warnings", size=100)
    expected = [i for i in CATALOG.inventory if i.on_hand - i.reserved < i.safety_stock]
    assert found["total"] == len(expected) > 0
    shortages = [w["shortage"] for w in found["items"]]
    assert shortages == sorted(shortages, reverse=True)
    for w in found["items"]:
        assert w["available"] == w["on_hand"] - w["reserved"] < w["safety_stock"]
        assert w["shortage"] == w["safety_stock"] - w["available"]
        assert set(w) == PART_KEYS | INVENTORY_KEYS | {"available", "shortage"}
    plugs = get(client, "/inventory/warnings", category="火花塞", size=100)
    assert plugs["total"] < found["total"]
    assert {w["category_code"] for w in plugs["items"]} <= {"SP"}


def test_order_history_search(client: TestClient) -> None:
    newest = get(client, "/orders/search-details", size=5)
    assert newest["total"] == len(CATALOG.orders)
    order = newest["items"][0]
    assert set(order) == ORDER_KEYS
    assert set(order["lines"][0]) == LINE_KEYS
    dates = [o["order_date"] for o in newest["items"]]
    assert dates == sorted(dates, reverse=True)
    by_no = get(client, "/orders/search-details", order_no=CATALOG.orders[0].order_no.lower())
    assert [o["order_no"] for o in by_no["items"]] == [CATALOG.orders[0].order_no]
    ngk = get(client, "/orders/search-details", supplier_name="NGK", size=100)
    assert ngk["total"] == sum(1 for o in CATALOG.orders if o.supplier_id == 1)
    assert {o["supplier_code"] for o in ngk["items"]} == {"NGK"}
    cancelled = get(client, "/orders/search-details", status="cancelled", size=100)
    assert cancelled["total"] == sum(1 for o in CATALOG.orders if o.status == "cancelled")
    sku = CATALOG.parts[0].sku
    with_part = get(client, "/orders/search-details", sku=sku, size=100)
    by_id = get(client, "/orders/search-details", part_id=1, size=100)
    assert (
        with_part["total"]
        == by_id["total"]
        == sum(1 for o in CATALOG.orders if any(ln.part_id == 1 for ln in o.lines))
    )
    month = get(
        client, "/orders/search-details", date_from="2026-11-01", date_to="2026-11-30", size=100
    )
    assert month["total"] == sum(
        1 for o in CATALOG.orders if o.order_date.month == 11 and o.order_date.year == 2026
    )
    assert get(client, "/orders/search-details", supplier_id=1)["total"] == ngk["total"]
    assert get(client, "/orders/search-details", sku="NO-SUCH-SKU")["total"] == 0


def test_seeded_prices_drift_over_the_year(client: TestClient) -> None:
    # A year of history with prices that move: some (supplier, part) bought at >1 price.
    by_pair: dict[tuple[int, int], set[int]] = {}
    for o in CATALOG.orders:
        for ln in o.lines:
            by_pair.setdefault((o.supplier_id, ln.part_id), set()).add(ln.unit_price_minor)
    assert any(len(v) > 1 for v in by_pair.values())
    oldest = min(o.order_date for o in CATALOG.orders)
    assert (REFERENCE_DATE - oldest).days >= 365


def test_audit_of_seed_is_empty(client: TestClient) -> None:
    assert get(client, "/audit")["total"] >= 0
    assert_error(client.get("/audit", params={"entity": "supplier"}), 422, "VALIDATION")


BAD_QUERIES = [
    ("/parts", {"size": 0}),
    ("/parts", {"size": 101}),
    ("/parts", {"page": 0}),
    ("/parts", {"page": "abc"}),
    ("/parts", {"page": "1.5"}),
    ("/parts", {"size": "99999999999999999999"}),
    ("/parts", {"name": "x" * 60_000}),  # httpx caps a query at 64 KB
    ("/parts/search", {}),
    ("/parts/search", {"name": "  "}),
    ("/parts/search", {"name": "ngk", "limit": 0}),
    ("/parts/search", {"name": "ngk", "limit": 101}),
    ("/parts/search", {"name": "火" * 300}),
    ("/suppliers/search", {"status": "gone"}),
    ("/suppliers/search", {"name": "y" * 60_000}),
    ("/orders/search-details", {"status": "shipped"}),
    ("/orders/search-details", {"date_from": "yesterday"}),
    ("/orders/search-details", {"date_from": "2026-12-01", "date_to": "2026-11-01"}),
    ("/orders/search-details", {"supplier_id": "NGK"}),
    ("/orders/search-details", {"part_id": "1 OR 1=1"}),
    ("/inventory/warnings", {"category": "' OR '1'='1"}),
    ("/audit", {"entity_id": "x"}),
    ("/orders/search-details", {"order_no": "PO\x00"}),
    ("/suppliers/search", {"name": "\x00"}),
]


@pytest.mark.parametrize(("path", "query"), BAD_QUERIES)
def test_bad_query_is_validation_and_changes_nothing(
    erp: WatchedErp, path: str, query: dict[str, Any]
) -> None:
    before = erp.watch.state()
    error = assert_error(erp.client.get(path, params=query), 422, "VALIDATION")
    assert len(str(error)) < 1000
    assert erp.watch.state() == before


@pytest.mark.parametrize(
    "text", ["' OR 1=1 --", "'; DROP TABLE part; --", "%", "_", "\\", "<script>"]
)
def test_hostile_search_text_is_just_text(erp: WatchedErp, text: str) -> None:
    client, url = erp.client, erp.url
    before = fingerprint(url)
    for path, key in [
        ("/parts/search", "name"),
        ("/parts", "name"),
        ("/suppliers/search", "name"),
        ("/orders/search-details", "supplier_name"),
        ("/orders/search-details", "order_no"),
    ]:
        response = client.get(path, params={key: text})
        assert response.status_code == 200, (path, response.text)
    assert get(client, "/orders/search-details", order_no="%")["total"] == 0
    assert fingerprint(url) == before
    assert get(client, "/health")["status"] == "ok"


def test_unknown_route_and_wrong_method(client: TestClient) -> None:
    assert_error(client.get("/nope"), 404, "NOT_FOUND")
    assert_error(client.get("/orders/create"), 405, "METHOD_NOT_ALLOWED")
    assert_error(client.delete("/parts"), 405, "METHOD_NOT_ALLOWED")
    assert_error(client.post("/orders/update/1", json={}), 405, "METHOD_NOT_ALLOWED")


def test_in_memory_sqlite_is_refused_at_start(tmp_path: Path) -> None:
    from sim.erp.settings import ErpSettings

    settings = ErpSettings(data_dir=tmp_path, database_url="sqlite://")
    with pytest.raises(ValueError, match="ERP_DATABASE_URL"):
        TestClient(create_app(settings)).__enter__()
