"""Orders through the REST API: create, idempotency, versions, the state machine, the audit.

Every refused request is checked to leave every table as it was.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sim.catalog import REFERENCE_DATE, generate
from sim.erp import orders
from sim.erp.errors import ErpError
from tests.concurrency import all_at_once
from tests.unit.erp_fixtures import (
    SEED,
    WatchedErp,
    assert_error,
    fingerprint,
    order_body,
    settings_for,
)

CATALOG = generate(SEED)


class Erp(WatchedErp):
    """A client plus the database URL, with helpers for the common steps."""

    def key(self) -> str:
        return self.next_key("test-key")

    def create(self, **overrides: Any) -> dict[str, Any]:
        response = self.client.post("/orders/create", json=order_body(self.key(), **overrides))
        assert response.status_code == 201, response.text
        order: dict[str, Any] = response.json()
        return order

    def update(self, order: dict[str, Any], **body: Any) -> dict[str, Any]:
        response = self.client.put(
            f"/orders/update/{order['id']}",
            json={"expected_version": order["version"], "actor": "tester", **body},
        )
        assert response.status_code == 200, response.text
        updated: dict[str, Any] = response.json()
        return updated

    def audit(self, order_id: int) -> list[dict[str, Any]]:
        response = self.client.get(
            "/audit", params={"entity": "purchase_order", "entity_id": order_id, "size": 100}
        )
        assert response.status_code == 200
        items: list[dict[str, Any]] = response.json()["items"]
        return items

    def refused(self, method: str, path: str, status: int, code: str, **kw: Any) -> dict[str, Any]:
        """Send a request that must be refused and must change nothing."""
        before = self.watch.state()
        response = self.client.request(method, path, **kw)
        error = assert_error(response, status, code)
        assert self.watch.state() == before, f"{method} {path} changed the database"
        return error

    def in_state(self, state: str) -> dict[str, Any]:
        """A fresh order (two lines) brought to ``state`` through the API."""
        lines = [{"part_id": 1, "quantity": 100}, {"part_id": 6, "quantity": 50}]
        order = self.create(lines=lines, submit=state != "draft")
        steps: dict[str, list[dict[str, Any]]] = {
            "draft": [],
            "pending_approval": [],
            "approved": [{"status": "approved", "approved_by": "boss"}],
            "partially_received": [
                {"status": "approved", "approved_by": "boss"},
                {"received": [{"part_id": 1, "quantity": 40}]},
            ],
            "received": [{"status": "approved", "approved_by": "boss"}, {"status": "received"}],
            "closed": [
                {"status": "approved", "approved_by": "boss"},
                {"status": "received"},
                {"status": "closed"},
            ],
            "cancelled": [{"status": "cancelled"}],
        }
        for step in steps[state]:
            order = self.update(order, **step)
        assert order["status"] == state
        return order


@pytest.fixture(scope="module")
def erp(erp_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Erp]:
    """One ERP for the module: tests make their own orders and check their own changes."""
    with Erp.serving(erp_template, tmp_path_factory.mktemp("erp")) as erp:
        yield erp


@pytest.fixture
def fresh_erp(erp_template: Path, tmp_path: Path) -> Iterator[Erp]:
    """An ERP in the seed state, for tests that depend on it."""
    with Erp.serving(erp_template, tmp_path) as erp:
        yield erp


# ---------------------------------------------------------------- create


def test_create_draft_prices_lines_and_writes_one_audit_row(fresh_erp: Erp) -> None:
    erp = fresh_erp
    before = fingerprint(erp.url)
    watched = erp.watch.state()
    order = erp.create(note="urgent", lines=[{"part_id": 1, "quantity": 120}])
    assert order["status"] == "draft"
    assert order["version"] == 1
    assert order["replayed"] is False
    assert order["supplier_code"] == "NGK"
    assert order["currency"] == "CNY"
    assert order["order_date"] == REFERENCE_DATE.isoformat()
    # Order numbers continue after the seeded history (605 orders).
    assert order["order_no"] == f"PO202612{len(CATALOG.orders) + 1:05d}"
    price = next(p for p in CATALOG.prices if p.supplier_id == 1 and p.part_id == 1)
    (line,) = order["lines"]
    assert line["unit_price_minor"] == price.price_minor
    assert line["amount_minor"] == 120 * price.price_minor
    assert order["total_minor"] == 120 * price.price_minor
    assert order["total"] == f"{120 * price.price_minor // 100}.{120 * price.price_minor % 100:02d}"
    assert order["expected_date"] is not None
    after = fingerprint(erp.url)
    # The cheap check used for refused requests does see a committed change.
    assert erp.watch.state() != watched
    assert after["purchase_order"][0] == before["purchase_order"][0] + 1
    assert after["purchase_order_line"][0] == before["purchase_order_line"][0] + 1
    assert after["audit_log"][0] == before["audit_log"][0] + 1
    (entry,) = erp.audit(order["id"])
    assert entry["action"] == "order.create"
    assert entry["actor"] == "tester"
    assert entry["before"] is None
    assert entry["after"]["status"] == "draft"
    assert erp.client.get(f"/orders/{order['id']}").json() == {
        k: v for k, v in order.items() if k != "replayed"
    }
    assert erp.client.get(f"/orders/{order['order_no']}").json()["id"] == order["id"]


def test_create_with_submit_is_pending_approval(erp: Erp) -> None:
    assert erp.create(submit=True)["status"] == "pending_approval"


def test_order_numbers_are_unique_and_increasing(erp: Erp) -> None:
    numbers = [erp.create()["order_no"] for _ in range(3)]
    assert len(set(numbers)) == 3
    assert numbers == sorted(numbers)


def test_same_key_and_payload_replays_the_same_order(erp: Erp) -> None:
    body = order_body("replay-key-1")
    first = erp.client.post("/orders/create", json=body)
    assert first.status_code == 201
    before = fingerprint(erp.url)
    # Key order and an explicit default do not make it another payload.
    again = erp.client.post(
        "/orders/create", json={**dict(reversed(list(body.items()))), "submit": False}
    )
    assert again.status_code == 200, again.text
    assert again.json()["replayed"] is True
    assert again.json()["id"] == first.json()["id"]
    assert fingerprint(erp.url) == before
    assert len(erp.audit(first.json()["id"])) == 1


def test_same_key_other_payload_is_idempotency_conflict(erp: Erp) -> None:
    order = erp.client.post("/orders/create", json=order_body("conflict-key")).json()
    error = erp.refused(
        "POST",
        "/orders/create",
        409,
        "IDEMPOTENCY_CONFLICT",
        json=order_body("conflict-key", lines=[{"part_id": 1, "quantity": 150}]),
    )
    assert error["details"]["order_no"] == order["order_no"]


def test_concurrent_creates_with_one_key_make_one_order(erp: Erp) -> None:
    body = order_body("race-key-0001")
    results = all_at_once(4, lambda _: erp.client.post("/orders/create", json=body))
    assert sorted(r.status_code for r in results) == [200, 200, 200, 201]
    assert len({r.json()["id"] for r in results}) == 1


def _unsold_part(supplier_id: int) -> int:
    sold = {p.part_id for p in CATALOG.prices if p.supplier_id == supplier_id}
    return next(p.id for p in CATALOG.parts if p.id not in sold)


def _expired_price() -> Any:
    return next(p for p in CATALOG.prices if p.valid_to < REFERENCE_DATE and p.supplier_id != 37)


def _supplier(code: str) -> int:
    return CATALOG.supplier(code).id


BAD_CREATES: list[tuple[str, dict[str, Any], int, str]] = [
    ("zero quantity", {"lines": [{"part_id": 1, "quantity": 0}]}, 422, "VALIDATION"),
    ("negative quantity", {"lines": [{"part_id": 1, "quantity": -5}]}, 422, "VALIDATION"),
    ("fractional quantity", {"lines": [{"part_id": 1, "quantity": 100.5}]}, 422, "VALIDATION"),
    ("quantity as text", {"lines": [{"part_id": 1, "quantity": "100"}]}, 422, "VALIDATION"),
    ("quantity as bool", {"lines": [{"part_id": 1, "quantity": True}]}, 422, "VALIDATION"),
    ("huge quantity", {"lines": [{"part_id": 1, "quantity": 10**30}]}, 422, "VALIDATION"),
    ("below MOQ", {"lines": [{"part_id": 1, "quantity": 49}]}, 422, "VALIDATION"),
    ("no lines", {"lines": []}, 422, "VALIDATION"),
    (
        "too many lines",
        {"lines": [{"part_id": i, "quantity": 100} for i in range(1, 52)]},
        422,
        "VALIDATION",
    ),
    ("repeated part", {"lines": [{"part_id": 1, "quantity": 50}] * 2}, 422, "VALIDATION"),
    ("supplier as text", {"supplier_id": "NGK"}, 422, "VALIDATION"),
    ("supplier null", {"supplier_id": None}, 422, "VALIDATION"),
    ("unknown supplier", {"supplier_id": 9999}, 404, "NOT_FOUND"),
    ("unknown part", {"lines": [{"part_id": 9999, "quantity": 100}]}, 404, "NOT_FOUND"),
    ("on-hold supplier", {"supplier_id": _supplier("CHAMPION")}, 422, "VALIDATION"),
    ("blocked supplier", {"supplier_id": _supplier("LIFAN")}, 422, "VALIDATION"),
    (
        "part not sold",
        {"lines": [{"part_id": _unsold_part(1), "quantity": 100}]},
        422,
        "VALIDATION",
    ),
    ("mixed currency", {"currency": "USD"}, 422, "VALIDATION"),
    ("bad currency", {"currency": "yuan"}, 422, "VALIDATION"),
    ("price not yet valid", {"order_date": "2020-01-01"}, 422, "VALIDATION"),
    ("expected before order", {"expected_date": "2026-11-01"}, 422, "VALIDATION"),
    ("bad date", {"order_date": "01/12/2026"}, 422, "VALIDATION"),
    ("short key", {"idempotency_key": "abc"}, 422, "VALIDATION"),
    ("long key", {"idempotency_key": "k" * 129}, 422, "VALIDATION"),
    ("100 KB note", {"note": "x" * 100_000}, 422, "VALIDATION"),
    (
        "SQL-like note too long",
        {"note": "'; DROP TABLE purchase_order; --" * 100},
        422,
        "VALIDATION",
    ),
    ("unknown field", {"qty": 5}, 422, "VALIDATION"),
    ("NUL in buyer", {"buyer": "a\x00b"}, 422, "VALIDATION"),
    ("submit as text", {"submit": "yes"}, 422, "VALIDATION"),
    ("lines not a list", {"lines": {"part_id": 1}}, 422, "VALIDATION"),
]


@pytest.mark.parametrize(
    ("why", "overrides", "status", "code"), BAD_CREATES, ids=[b[0] for b in BAD_CREATES]
)
def test_bad_create_is_refused_and_changes_nothing(
    erp: Erp, why: str, overrides: dict[str, Any], status: int, code: str
) -> None:
    error = erp.refused(
        "POST", "/orders/create", status, code, json=order_body(erp.key(), **overrides)
    )
    assert len(error["message"]) < 400
    assert "x" * 50 not in str(error)


def test_expired_price_is_refused(erp: Erp) -> None:
    sp = _expired_price()
    body = {
        "supplier_id": sp.supplier_id,
        "lines": [{"part_id": sp.part_id, "quantity": sp.min_order_qty}],
    }
    error = erp.refused(
        "POST", "/orders/create", 422, "VALIDATION", json=order_body(erp.key(), **body)
    )
    assert "valid" in error["message"]


def test_missing_fields_are_each_named(erp: Erp) -> None:
    error = erp.refused("POST", "/orders/create", 422, "VALIDATION", json={})
    fields = {e["field"] for e in error["details"]["errors"]}
    assert fields == {"idempotency_key", "supplier_id", "lines"}


@pytest.mark.parametrize(
    ("content", "status"),
    [
        (b"not json", 400),
        (b"", 400),
        (b'{"idempotency_key": ', 400),
        (b"[1, 2]", 422),
        (b"42", 422),
    ],
)
def test_body_that_is_not_an_object_is_refused(erp: Erp, content: bytes, status: int) -> None:
    erp.refused(
        "POST",
        "/orders/create",
        status,
        "VALIDATION",
        content=content,
        headers={"content-type": "application/json"},
    )


def test_huge_body_is_refused(erp: Erp) -> None:
    erp.refused("POST", "/orders/create", 413, "VALIDATION", content=b"x" * 1_100_000)


# ---------------------------------------------------------------- update


def test_update_bumps_version_and_audits(erp: Erp) -> None:
    order = erp.create()
    updated = erp.update(order, note="call before delivery", expected_date="2026-12-20", actor="li")
    assert updated["version"] == 2
    assert updated["note"] == "call before delivery"
    assert updated["expected_date"] == "2026-12-20"
    entries = erp.audit(order["id"])
    assert [e["action"] for e in entries] == ["order.update", "order.create"]
    assert entries[0]["actor"] == "li"
    assert entries[0]["before"]["version"] == 1
    assert entries[0]["after"]["version"] == 2
    assert entries[0]["after"]["note"] == "call before delivery"
    cleared = erp.update(updated, note=None, expected_date=None)
    assert (cleared["note"], cleared["expected_date"], cleared["version"]) == (None, None, 3)


def test_lines_replaced_in_draft_and_repriced(erp: Erp) -> None:
    order = erp.create()
    updated = erp.update(order, lines=[{"part_id": 6, "quantity": 60}])
    assert [(ln["part_id"], ln["quantity"], ln["line_no"]) for ln in updated["lines"]] == [
        (6, 60, 1)
    ]
    price = next(p for p in CATALOG.prices if p.supplier_id == 1 and p.part_id == 6)
    assert updated["total_minor"] == 60 * price.price_minor


def test_stale_version_is_version_conflict(erp: Erp) -> None:
    order = erp.create()
    erp.update(order, note="first")
    error = erp.refused(
        "PUT",
        f"/orders/update/{order['id']}",
        409,
        "VERSION_CONFLICT",
        json={"expected_version": 1, "note": "second"},
    )
    assert error["details"]["current_version"] == 2


def test_concurrent_updates_with_one_version_one_wins(erp: Erp) -> None:
    order = erp.create()
    results = all_at_once(
        5,
        lambda n: erp.client.put(
            f"/orders/update/{order['id']}",
            json={"expected_version": 1, "note": f"writer {n}", "actor": f"writer-{n}"},
        ),
    )
    codes = sorted(r.status_code for r in results)
    assert codes == [200, 409, 409, 409, 409]
    for r in results:
        if r.status_code == 409:
            assert r.json()["error"]["code"] == "VERSION_CONFLICT"
    final = erp.client.get(f"/orders/{order['id']}").json()
    assert final["version"] == 2
    assert len(erp.audit(order["id"])) == 2


@pytest.mark.parametrize(
    ("change", "status", "code"),
    [
        ({"lines": [{"part_id": 1, "quantity": 200}]}, 409, "INVALID_TRANSITION"),
        ({"status": "approved"}, 403, "APPROVAL_REQUIRED"),
    ],
    ids=["lines outside draft", "approve without approver"],
)
def test_refused_changes_to_a_submitted_order(
    erp: Erp, change: dict[str, Any], status: int, code: str
) -> None:
    order = erp.create(submit=True)
    erp.refused(
        "PUT",
        f"/orders/update/{order['id']}",
        status,
        code,
        json={"expected_version": 1, **change},
    )


def test_whole_life_of_an_order_moves_stock_and_audits_each_step(erp: Erp) -> None:
    stock = erp.client.get("/parts/1").json()["inventory"]
    order = erp.create(lines=[{"part_id": 1, "quantity": 100}], submit=True)
    order = erp.update(order, status="approved", approved_by="陈经理")
    assert order["approved_by"] == "陈经理"
    assert erp.client.get("/parts/1").json()["inventory"]["on_order"] == stock["on_order"] + 100
    order = erp.update(order, received=[{"part_id": 1, "quantity": 30}])
    assert order["status"] == "partially_received"
    assert order["lines"][0]["received_qty"] == 30
    order = erp.update(order, received=[{"part_id": 1, "quantity": 70}])
    assert order["status"] == "received"
    order = erp.update(order, status="closed")
    assert order["version"] == 5
    after = erp.client.get("/parts/1").json()["inventory"]
    assert after["on_hand"] == stock["on_hand"] + 100
    assert after["on_order"] == stock["on_order"]
    actions = [e["action"] for e in erp.audit(order["id"])]
    assert actions == [
        "order.status",
        "order.receive",
        "order.receive",
        "order.status",
        "order.create",
    ]


def test_receiving_more_than_ordered_is_invalid_transition(erp: Erp) -> None:
    order = erp.in_state("partially_received")
    erp.refused(
        "PUT",
        f"/orders/update/{order['id']}",
        409,
        "INVALID_TRANSITION",
        json={"expected_version": order["version"], "received": [{"part_id": 1, "quantity": 61}]},
    )


def test_receiving_a_part_not_on_the_order_is_validation(erp: Erp) -> None:
    order = erp.in_state("approved")
    erp.refused(
        "PUT",
        f"/orders/update/{order['id']}",
        422,
        "VALIDATION",
        json={"expected_version": order["version"], "received": [{"part_id": 2, "quantity": 1}]},
    )


@pytest.mark.parametrize("quantity", [0, -1, 1.5, "3"])
def test_bad_receipt_quantity_is_validation(erp: Erp, quantity: Any) -> None:
    order = erp.in_state("approved")
    erp.refused(
        "PUT",
        f"/orders/update/{order['id']}",
        422,
        "VALIDATION",
        json={
            "expected_version": order["version"],
            "received": [{"part_id": 1, "quantity": quantity}],
        },
    )


@pytest.mark.parametrize("state", ["cancelled", "closed"])
def test_updating_a_finished_order_is_invalid_transition(erp: Erp, state: str) -> None:
    order = erp.in_state(state)
    error = erp.refused(
        "PUT",
        f"/orders/update/{order['id']}",
        409,
        "INVALID_TRANSITION",
        json={"expected_version": order["version"], "note": "too late"},
    )
    assert state in error["message"]


BAD_UPDATES: list[tuple[str, dict[str, Any], int, str]] = [
    ("nothing to change", {}, 422, "VALIDATION"),
    ("only nulls", {"status": None, "lines": None, "received": None}, 422, "VALIDATION"),
    ("version missing", {"expected_version": None, "note": "x"}, 422, "VALIDATION"),
    ("version as text", {"expected_version": "1", "note": "x"}, 422, "VALIDATION"),
    ("unknown status", {"status": "shipped"}, 422, "VALIDATION"),
    ("approver without approving", {"approved_by": "boss"}, 422, "VALIDATION"),
    ("same status only", {"status": "draft"}, 422, "VALIDATION"),
    ("100 KB note", {"note": "n" * 100_000}, 422, "VALIDATION"),
    ("expected before order date", {"expected_date": "2020-01-01"}, 422, "VALIDATION"),
    ("zero quantity line", {"lines": [{"part_id": 1, "quantity": 0}]}, 422, "VALIDATION"),
    ("below MOQ line", {"lines": [{"part_id": 1, "quantity": 1}]}, 422, "VALIDATION"),
    ("unknown part line", {"lines": [{"part_id": 99999, "quantity": 100}]}, 404, "NOT_FOUND"),
    ("unknown field", {"state": "approved"}, 422, "VALIDATION"),
]


@pytest.mark.parametrize(
    ("why", "body", "status", "code"), BAD_UPDATES, ids=[b[0] for b in BAD_UPDATES]
)
def test_bad_update_is_refused_and_changes_nothing(
    erp: Erp, why: str, body: dict[str, Any], status: int, code: str
) -> None:
    order = erp.create()
    erp.refused(
        "PUT",
        f"/orders/update/{order['id']}",
        status,
        code,
        json={"expected_version": order["version"], **body},
    )


@pytest.mark.parametrize(
    "ref", ["99999", "PO000000000", "abc", "'; DROP TABLE purchase_order; --", "²"]
)
def test_unknown_order_is_not_found(erp: Erp, ref: str) -> None:
    erp.refused(
        "PUT", f"/orders/update/{ref}", 404, "NOT_FOUND", json={"expected_version": 1, "note": "x"}
    )
    erp.refused("GET", f"/orders/{ref}", 404, "NOT_FOUND")


ALLOWED = {(a, b) for a, targets in orders.TRANSITIONS.items() for b in targets}
STATES = list(orders.TRANSITIONS)


def test_the_transition_table_is_the_documented_one() -> None:
    documented = {
        ("draft", "pending_approval"),
        ("draft", "cancelled"),
        ("pending_approval", "approved"),
        ("pending_approval", "draft"),
        ("pending_approval", "cancelled"),
        ("approved", "partially_received"),
        ("approved", "received"),
        ("approved", "cancelled"),
        ("partially_received", "received"),
        ("received", "closed"),
    }
    assert documented == ALLOWED


def _transition_body(order: dict[str, Any], target: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "expected_version": order["version"],
        "status": target,
        "actor": "tester",
    }
    if target == "approved":
        body["approved_by"] = "boss"
    if target == "partially_received":
        body["received"] = [{"part_id": 1, "quantity": 10}]
    return body


@pytest.mark.parametrize("source", STATES)
def test_every_state_pair_follows_the_state_machine(erp: Erp, source: str) -> None:
    for target in STATES:
        if target == source:
            continue
        order = erp.in_state(source)
        path = f"/orders/update/{order['id']}"
        body = _transition_body(order, target)
        if (source, target) in ALLOWED:
            response = erp.client.put(path, json=body)
            assert response.status_code == 200, (source, target, response.text)
            assert response.json()["status"] == target
            assert erp.audit(order["id"])[0]["after"]["status"] == target
        else:
            erp.refused("PUT", path, 409, "INVALID_TRANSITION", json=body)


def test_unexpected_failure_is_internal_without_traceback(
    erp: Erp, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*_args: Any, **_kw: Any) -> None:
        raise RuntimeError("secret internals")

    monkeypatch.setattr(orders, "create_order", boom)
    error = erp.refused("POST", "/orders/create", 500, "INTERNAL", json=order_body(erp.key()))
    assert "secret" not in error["message"]
    assert erp.client.get("/health").status_code == 200


def test_service_stays_up_after_abuse(erp: Erp) -> None:
    for content in (b"\xff\xfe", b"{" * 10_000, b"null", b'"x"'):
        r = erp.client.post("/orders/create", content=content)
        assert r.status_code in (400, 422)
    assert erp.client.get("/health").json()["status"] == "ok"


def test_a_lost_insert_race_replays_the_winner(
    erp_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite serializes writers, so force the race Postgres can have: the key is not
    # seen by the look-up, and the unique index refuses the second insert.
    from sim.erp.schemas import OrderCreate
    from sim.erp.service import Erp as ErpService

    service = ErpService(settings_for(erp_template, tmp_path))
    service.start()
    try:
        body = OrderCreate.model_validate_json(json.dumps(order_body("race-lost-key")))
        first = orders.create_order(service.db, service.master, body)
        real = orders._by_key
        calls = {"n": 0}

        def blind_once(session: Any, key: str) -> Any:
            calls["n"] += 1
            return None if calls["n"] == 1 else real(session, key)

        monkeypatch.setattr(orders, "_by_key", blind_once)
        again = orders.create_order(service.db, service.master, body)
        assert again.replayed is True
        assert again.order["id"] == first.order["id"]
        other = OrderCreate.model_validate_json(
            json.dumps(order_body("race-lost-key", lines=[{"part_id": 1, "quantity": 200}]))
        )
        calls["n"] = 0
        with pytest.raises(ErpError) as refused:
            orders.create_order(service.db, service.master, other)
        assert refused.value.code == "IDEMPOTENCY_CONFLICT"
    finally:
        service.close()
