"""``POST /orders/validate``: every rule, its fix, and the promise to write nothing.

Each hard violation the dry run reports is also checked against ``POST /orders/create``:
the ERP refuses exactly what the dry run flags, with the same code in its details, and
changes nothing. Expected values come from the generator's catalogue (the truth the
seed was made from), not from the rules under test.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator
from contextlib import closing
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from sim.catalog import REFERENCE_DATE, generate
from sim.erp.schemas import MAX_QUANTITY
from sim.erp.seed import order_step
from tests.unit.erp_fixtures import (
    SEED,
    WatchedErp,
    client_for,
    settings_for,
)

CATALOG = generate(SEED)
DAY = REFERENCE_DATE.isoformat()  # every check is made as of the seed's reference date


class Erp(WatchedErp):
    """A client with the dry-run and create calls, and a watch on the database."""

    def validate(self, **body: Any) -> dict[str, Any]:
        """The dry run's answer, after checking it changed nothing."""
        before = self.watch.state()
        response = self.client.post("/orders/validate", json=body)
        assert response.status_code == 200, response.text
        assert self.watch.state() == before, "the dry run wrote to the database"
        answer: dict[str, Any] = response.json()
        return answer

    def draft(self, **body: Any) -> dict[str, Any]:
        return self.validate(**{"order_date": DAY, **body})

    def create(self, **body: Any) -> Any:
        payload = {
            "idempotency_key": self.next_key("validate"),
            "order_date": DAY,
            "requested_by": "li.lei",
            **body,
        }
        return self.client.post("/orders/create", json=payload)


@pytest.fixture(scope="module")
def erp(erp_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Erp]:
    with Erp.serving(erp_template, tmp_path_factory.mktemp("erp")) as erp:
        yield erp


def codes(answer: dict[str, Any], kind: str = "violations") -> list[str]:
    return [i["code"] for i in answer[kind]]


def refused_alike(erp: Erp, answer: dict[str, Any], body: dict[str, Any], code: str) -> None:
    """Create refuses ``body`` with ``code`` as the dry run said, and changes nothing."""
    before = erp.watch.state()
    response = erp.create(**body)
    assert erp.watch.state() == before
    assert response.status_code in (404, 409, 422), response.text
    error = response.json()["error"]
    assert error["details"]["violation"] == code == answer["violations"][0]["code"]
    assert error["message"] == answer["violations"][0]["message"]


def offer(supplier: str, part_id: int) -> Any:
    sid = CATALOG.supplier(supplier).id
    return next(p for p in CATALOG.prices if p.supplier_id == sid and p.part_id == part_id)


def sellers(part_id: int, *, besides: int) -> set[str]:
    """Codes of the active suppliers with a price for ``part_id`` valid on DAY."""
    by_id = {s.id: s for s in CATALOG.suppliers}
    return {
        by_id[p.supplier_id].code
        for p in CATALOG.prices
        if p.part_id == part_id
        and p.supplier_id != besides
        and by_id[p.supplier_id].status == "active"
        and p.valid_from <= REFERENCE_DATE <= p.valid_to
    }


# ---------------------------------------------------------------- new orders


def test_a_valid_order_is_ok_with_a_priced_preview(erp: Erp) -> None:
    ngk = offer("NGK", 1)
    answer = erp.draft(supplier_id=1, lines=[{"part_id": 1, "quantity": 200}])
    assert answer["kind"] == "create" and answer["ok"] is True
    assert answer["violations"] == []
    order = answer["order"]
    assert order["supplier"]["code"] == "NGK" and order["currency"] == "CNY"
    [line] = order["lines"]
    assert (line["sku"], line["quantity"], line["unit"]) == ("SP-NGK-IU7", 200, "个")
    assert line["unit_price_minor"] == ngk.price_minor
    assert line["amount_minor"] == order["total_minor"] == 200 * ngk.price_minor
    assert (line["min_order_qty"], line["order_step"]) == (
        ngk.min_order_qty,
        order_step(ngk.min_order_qty),
    )
    lead = ngk.lead_time_days
    assert order["earliest_date"] == (REFERENCE_DATE + timedelta(days=lead)).isoformat()
    expedited = REFERENCE_DATE + timedelta(days=math.ceil(lead / 2))
    assert order["expedited_date"] == expedited.isoformat()
    assert order["status"] == "draft" and answer["current"] is None


@pytest.mark.parametrize(
    ("code", "supplier"), [("SUPPLIER_ON_HOLD", "CHAMPION"), ("SUPPLIER_BLOCKED", "LIFAN")]
)
def test_a_held_supplier_is_refused_with_other_sellers(erp: Erp, code: str, supplier: str) -> None:
    held = CATALOG.supplier(supplier)
    part = next(p.part_id for p in CATALOG.prices if p.supplier_id == held.id)
    qty = offer(supplier, part).min_order_qty
    body = {"supplier_id": held.id, "lines": [{"part_id": part, "quantity": qty}]}
    answer = erp.draft(**body)
    assert answer["ok"] is False and codes(answer)[0] == code
    issue = answer["violations"][0]
    assert held.status.replace("_", " ") in issue["message"]
    others = {a["supplier_code"] for a in issue["alternatives"]}
    assert others and others <= sellers(part, besides=held.id)
    assert issue["alternatives"][0]["supplier_code"] in issue["fix"]
    refused_alike(erp, answer, body, code)


def test_an_unknown_supplier_or_part_is_not_found(erp: Erp) -> None:
    body = {"supplier_id": 9999, "lines": [{"part_id": 1, "quantity": 100}]}
    answer = erp.draft(**body)
    assert codes(answer) == ["SUPPLIER_NOT_FOUND"] and answer["order"]["supplier"] is None
    refused_alike(erp, answer, body, "SUPPLIER_NOT_FOUND")
    body = {"supplier_id": 1, "lines": [{"part_id": 99999, "quantity": 100}]}
    answer = erp.draft(**body)
    assert codes(answer) == ["PART_NOT_FOUND"]
    refused_alike(erp, answer, body, "PART_NOT_FOUND")


def test_a_part_the_supplier_does_not_sell_names_who_does(erp: Erp) -> None:
    sold = {p.part_id for p in CATALOG.prices if p.supplier_id == 1}
    part = next(p.id for p in CATALOG.parts if p.id not in sold)
    body = {"supplier_id": 1, "lines": [{"part_id": part, "quantity": 100}]}
    answer = erp.draft(**body)
    assert codes(answer) == ["PART_NOT_SUPPLIED"]
    issue = answer["violations"][0]
    assert issue["line"] == 0
    listed = [a["supplier_code"] for a in issue["alternatives"]]
    assert set(listed) == sellers(part, besides=1)
    prices = [a["price_minor"] for a in issue["alternatives"] if a["currency"] == "CNY"]
    assert prices == sorted(prices)  # cheapest first
    assert listed[0] in issue["fix"] and issue["alternatives"][0]["price"] in issue["fix"]
    refused_alike(erp, answer, body, "PART_NOT_SUPPLIED")


def test_an_inactive_part_is_refused(erp: Erp, erp_template: Path, tmp_path: Path) -> None:
    settings = settings_for(erp_template, tmp_path)
    path = make_url(settings.resolved_database_url).database
    assert path
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE part SET active = 0 WHERE id = 1")
    with client_for(settings) as client:
        mine = Erp(client, settings.resolved_database_url)
        body = {"supplier_id": 1, "lines": [{"part_id": 1, "quantity": 100}]}
        answer = mine.draft(**body)
        assert codes(answer) == ["PART_INACTIVE"]
        refused_alike(mine, answer, body, "PART_INACTIVE")
        mine.watch.close()


def test_no_price_valid_on_the_order_date(erp: Erp) -> None:
    lapsed = next(p for p in CATALOG.prices if p.valid_to < REFERENCE_DATE and p.currency == "CNY")
    body = {
        "supplier_id": lapsed.supplier_id,
        "lines": [{"part_id": lapsed.part_id, "quantity": lapsed.min_order_qty}],
    }
    answer = erp.draft(**body)
    assert codes(answer)[0] == "NO_VALID_PRICE"
    issue = answer["violations"][0]
    assert issue["details"]["valid_to"] == lapsed.valid_to.isoformat()
    assert {a["supplier_code"] for a in issue["alternatives"]} <= sellers(
        lapsed.part_id, besides=lapsed.supplier_id
    )
    refused_alike(erp, answer, body, "NO_VALID_PRICE")


def test_another_currency_is_refused(erp: Erp) -> None:
    body = {"supplier_id": 1, "currency": "USD", "lines": [{"part_id": 1, "quantity": 100}]}
    answer = erp.draft(**body)
    assert codes(answer) == ["CURRENCY_MISMATCH"]
    assert answer["violations"][0]["suggested"] == {"currency": "CNY"}
    refused_alike(erp, answer, body, "CURRENCY_MISMATCH")


def test_below_the_moq_suggests_the_moq_and_who_sells_that_few(erp: Erp) -> None:
    ngk = offer("NGK", 1)
    body = {"supplier_id": 1, "lines": [{"part_id": 1, "quantity": 20}]}
    answer = erp.draft(**body)
    assert codes(answer) == ["BELOW_MOQ"]
    issue = answer["violations"][0]
    assert issue["suggested"] == {"quantity": ngk.min_order_qty}
    assert issue["details"]["min_order_qty"] == ngk.min_order_qty
    by_id = {s.id: s for s in CATALOG.suppliers}
    small = {
        by_id[p.supplier_id].code
        for p in CATALOG.prices
        if p.part_id == 1 and p.supplier_id != 1 and p.min_order_qty <= 20
        and 20 % order_step(p.min_order_qty) == 0 and by_id[p.supplier_id].status == "active"
    }  # fmt: skip
    assert {a["supplier_code"] for a in issue["alternatives"]} == small
    assert f"Raise the quantity to {ngk.min_order_qty}" in issue["fix"]
    # The line is still priced, so the buyer sees what it would cost.
    assert answer["order"]["lines"][0]["unit_price_minor"] == ngk.price_minor
    refused_alike(erp, answer, body, "BELOW_MOQ")


def test_off_the_order_step_suggests_whole_steps(erp: Erp) -> None:
    ngk = offer("NGK", 1)
    step = order_step(ngk.min_order_qty)
    assert step > 1
    qty = ngk.min_order_qty * 2 + 1
    body = {"supplier_id": 1, "lines": [{"part_id": 1, "quantity": qty}]}
    answer = erp.draft(**body)
    assert codes(answer) == ["NOT_ORDER_STEP"]
    issue = answer["violations"][0]
    up = math.ceil(qty / step) * step
    assert issue["suggested"] == {"quantity": up}
    assert str(up) in issue["fix"] and str(qty - qty % step) in issue["fix"]
    refused_alike(erp, answer, body, "NOT_ORDER_STEP")


def test_delivery_dates(erp: Erp) -> None:
    lead = offer("NGK", 1).lead_time_days
    earliest = REFERENCE_DATE + timedelta(days=lead)
    expedited = REFERENCE_DATE + timedelta(days=math.ceil(lead / 2))
    line = [{"part_id": 1, "quantity": 100}]

    before = {"supplier_id": 1, "lines": line, "expected_date": "2026-11-20"}
    answer = erp.draft(**before)
    assert codes(answer) == ["DATE_BEFORE_ORDER_DATE"]
    refused_alike(erp, answer, before, "DATE_BEFORE_ORDER_DATE")

    too_soon = (expedited - timedelta(days=1)).isoformat()
    body = {"supplier_id": 1, "lines": line, "expected_date": too_soon}
    answer = erp.draft(**body)
    assert codes(answer) == ["DATE_UNREACHABLE"]
    issue = answer["violations"][0]
    assert issue["suggested"] == {"expected_date": earliest.isoformat()}
    assert earliest.isoformat() in issue["fix"]
    # Other sellers fast enough for that date are offered, and only those.
    for alt in issue["alternatives"]:
        assert alt["earliest_date"] <= too_soon
    fast = {
        s
        for s in sellers(1, besides=1)
        if REFERENCE_DATE + timedelta(days=offer(s, 1).lead_time_days)
        <= date.fromisoformat(too_soon)
    }
    assert {a["supplier_code"] for a in issue["alternatives"]} == fast
    refused_alike(erp, answer, body, "DATE_UNREACHABLE")

    tight = {"supplier_id": 1, "lines": line, "expected_date": expedited.isoformat()}
    answer = erp.draft(**tight)
    assert answer["ok"] is True and codes(answer, "warnings") == ["DATE_INSIDE_LEAD_TIME"]
    assert answer["warnings"][0]["suggested"] == {"expected_date": earliest.isoformat()}
    assert (
        erp.draft(supplier_id=1, lines=line, expected_date=earliest.isoformat())["warnings"] == []
    )


def _average_paid(part_id: int, currency: str) -> float | None:
    """What the generated history paid on average for the part in the 12 months before DAY."""
    since = REFERENCE_DATE - timedelta(days=365)
    by_id = {s.id: s for s in CATALOG.suppliers}
    spent = units = 0
    for o in CATALOG.orders:
        if o.status == "cancelled" or not since <= o.order_date < REFERENCE_DATE:
            continue
        if by_id[o.supplier_id].currency != currency:
            continue
        for ln in o.lines:
            if ln.part_id == part_id:
                spent += ln.quantity * ln.unit_price_minor
                units += ln.quantity
    return spent / units if units else None


def test_a_price_above_the_12_month_average_is_a_warning(erp: Erp) -> None:
    by_id = {s.id: s for s in CATALOG.suppliers}
    for p in CATALOG.prices:
        average = _average_paid(p.part_id, "CNY")
        if (
            average
            and p.currency == "CNY"
            and by_id[p.supplier_id].status == "active"
            and p.valid_from <= REFERENCE_DATE <= p.valid_to
            and p.price_minor > round(average) * 1.1 + 1
        ):
            break
    else:
        pytest.fail("the seed has no price above its 12-month average")
    body = {
        "supplier_id": p.supplier_id,
        "lines": [{"part_id": p.part_id, "quantity": p.min_order_qty}],
    }
    answer = erp.draft(**body)
    assert answer["ok"] is True
    [warning] = [w for w in answer["warnings"] if w["code"] == "PRICE_ABOVE_AVERAGE"]
    assert warning["details"]["average_price_minor"] == round(average)
    assert warning["details"]["percent_above"] > 10
    for alt in warning["alternatives"]:
        assert alt["price_minor"] < p.price_minor
    # A warning does not stop the ERP from taking the order.
    assert erp.create(**body).status_code == 201


def test_the_warning_threshold_is_a_setting(erp_template: Path, tmp_path: Path) -> None:
    settings = settings_for(erp_template, tmp_path)
    settings.price_warning_percent = 1000
    with client_for(settings) as client:
        mine = Erp(client, settings.resolved_database_url)
        for p in CATALOG.prices[:60]:
            if p.valid_from <= REFERENCE_DATE <= p.valid_to:
                body = {"supplier_id": p.supplier_id,
                        "lines": [{"part_id": p.part_id, "quantity": p.min_order_qty}]}  # fmt: skip
                assert "PRICE_ABOVE_AVERAGE" not in codes(mine.draft(**body), "warnings")
        mine.watch.close()


# ---------------------------------------------------------------- a quantity far above the usual


def usual_in_db(url: str, part_id: int) -> dict[str, int]:
    """What the ERP's database holds for the part: its largest quantity on one order line
    (orders not cancelled, any supplier) in the 12 months before DAY, its stock on hand and
    its safety stock; ``usual``: the largest of the three."""
    path = make_url(url).database
    assert path
    since = (REFERENCE_DATE - timedelta(days=365)).isoformat()
    with closing(sqlite3.connect(path)) as conn:
        (largest,) = conn.execute(
            "SELECT MAX(l.quantity) FROM purchase_order_line l "
            "JOIN purchase_order o ON o.id = l.order_id "
            "WHERE l.part_id = ? AND o.status != 'cancelled' "
            "AND o.order_date >= ? AND o.order_date < ?",
            (part_id, since, DAY),
        ).fetchone()
        on_hand, safety = conn.execute(
            "SELECT on_hand, safety_stock FROM inventory WHERE part_id = ?", (part_id,)
        ).fetchone()
    facts = {"largest_order_qty": largest or 0, "on_hand": on_hand, "safety_stock": safety}
    return facts | {"usual": max(facts.values())}


def ngk_offers() -> dict[int, Any]:
    """NGK's price-list rows valid on DAY, by part."""
    return {
        p.part_id: p
        for p in CATALOG.prices
        if p.supplier_id == 1
        and p.currency == "CNY"
        and p.valid_from <= REFERENCE_DATE <= p.valid_to
    }


def above(limit: float, moq: int) -> int:
    """The smallest quantity the supplier takes (≥ MOQ, whole order steps) above ``limit``."""
    step = order_step(moq)
    return max(moq, (int(limit) // step + 1) * step)


def unusual(answer: dict[str, Any]) -> list[dict[str, Any]]:
    return [w for w in answer["warnings"] if w["code"] == "QUANTITY_UNUSUAL"]


def test_a_quantity_far_above_the_parts_usual_is_a_warning(erp: Erp) -> None:
    facts = usual_in_db(erp.url, 1)
    assert facts["usual"] > 0
    moq = ngk_offers()[1].min_order_qty
    qty = above(10 * facts["usual"], moq)
    body = {"supplier_id": 1, "lines": [{"part_id": 1, "quantity": qty}]}
    answer = erp.draft(**body)
    assert answer["ok"] is True and answer["violations"] == []
    [warning] = unusual(answer)
    assert (warning["severity"], warning["line"]) == ("warning", 0)
    details = warning["details"]
    times = details.pop("times")
    assert details == {"part_id": 1, "sku": "SP-NGK-IU7", "quantity": qty, "factor": 10, **facts}
    assert qty / facts["usual"] - 0.1 < times <= qty / facts["usual"]  # one decimal, not up
    assert str(qty) in warning["message"] and str(facts["usual"]) in warning["message"]
    assert warning["fix"].startswith("Check the quantity") and f"{times:g} times" in warning["fix"]

    # Not more than factor × usual: no warning (the largest such quantity the supplier takes).
    step = order_step(moq)
    at_most = 10 * facts["usual"] // step * step
    assert unusual(erp.draft(supplier_id=1, lines=[{"part_id": 1, "quantity": at_most}])) == []

    # A warning does not stop the ERP from taking the order: the row is written.
    before = erp.watch.state()
    response = erp.create(**body)
    assert response.status_code == 201, response.text
    order = response.json()
    assert [ln["quantity"] for ln in order["lines"]] == [qty]
    assert erp.watch.state()[1]["purchase_order"] == before[1]["purchase_order"] + 1
    assert erp.client.get(f"/orders/{order['id']}").status_code == 200


def test_the_usual_level_is_the_largest_of_history_stock_and_safety_stock(erp: Erp) -> None:
    offers = ngk_offers()
    facts = {part: usual_in_db(erp.url, part) for part in offers}
    # Stock above anything ordered in a year: ten times the history is still usual.
    stocked = next(
        part
        for part, f in facts.items()
        if f["largest_order_qty"] > 0
        and above(10 * f["largest_order_qty"], offers[part].min_order_qty) <= 10 * f["usual"]
    )
    # Never ordered in a year, but kept in stock: compared with the stock.
    unordered = next(
        part for part, f in facts.items() if f["largest_order_qty"] == 0 and f["usual"] > 0
    )
    stocked_qty = above(10 * facts[stocked]["largest_order_qty"], offers[stocked].min_order_qty)
    unordered_qty = above(10 * facts[unordered]["usual"], offers[unordered].min_order_qty)
    lines = [
        {"part_id": 1, "quantity": offers[1].min_order_qty},
        {"part_id": stocked, "quantity": stocked_qty},
        {"part_id": unordered, "quantity": unordered_qty},
    ]
    answer = erp.draft(supplier_id=1, lines=lines)
    assert answer["ok"] is True
    [warning] = unusual(answer)
    assert warning["line"] == 2
    assert warning["details"]["usual"] == facts[unordered]["usual"]
    assert warning["details"]["largest_order_qty"] == 0


def test_a_part_with_nothing_to_compare_gets_no_quantity_warning(
    erp_template: Path, tmp_path: Path
) -> None:
    settings = settings_for(erp_template, tmp_path)
    offers = ngk_offers()
    unordered = next(
        p
        for p in offers
        if usual_in_db(settings.resolved_database_url, p)["largest_order_qty"] == 0
    )
    path = make_url(settings.resolved_database_url).database
    assert path
    with closing(sqlite3.connect(path)) as conn, conn:
        conn.execute(
            "UPDATE inventory SET on_hand = 0, safety_stock = 0 WHERE part_id = ?", (unordered,)
        )
    step = order_step(offers[unordered].min_order_qty)
    huge = MAX_QUANTITY // step * step
    body = {"supplier_id": 1, "lines": [{"part_id": unordered, "quantity": huge}]}
    with client_for(settings) as client:
        mine = Erp(client, settings.resolved_database_url)
        answer = mine.draft(**body)
        assert answer["ok"] is True and unusual(answer) == []
        # One unit in stock is something to compare with.
        with closing(sqlite3.connect(path)) as conn, conn:
            conn.execute("UPDATE inventory SET on_hand = 1 WHERE part_id = ?", (unordered,))
        [warning] = unusual(mine.draft(**body))
        assert (warning["details"]["usual"], warning["details"]["on_hand"]) == (1, 1)
        mine.watch.close()


def test_the_quantity_factor_is_a_setting(
    erp_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SIM_ERP_QUANTITY_WARNING_FACTOR", "20")
    settings = settings_for(erp_template, tmp_path)
    assert settings.quantity_warning_factor == 20
    usual = usual_in_db(settings.resolved_database_url, 1)["usual"]
    moq = ngk_offers()[1].min_order_qty
    with client_for(settings) as client:
        mine = Erp(client, settings.resolved_database_url)
        ten_times = [{"part_id": 1, "quantity": above(10 * usual, moq)}]
        assert unusual(mine.draft(supplier_id=1, lines=ten_times)) == []
        twenty_times = [{"part_id": 1, "quantity": above(20 * usual, moq)}]
        [warning] = unusual(mine.draft(supplier_id=1, lines=twenty_times))
        assert warning["details"]["factor"] == 20 and warning["details"]["times"] >= 20
        mine.watch.close()


def test_every_line_is_checked(erp: Erp) -> None:
    sold = {p.part_id for p in CATALOG.prices if p.supplier_id == 1}
    unsold = next(p.id for p in CATALOG.parts if p.id not in sold)
    answer = erp.draft(
        supplier_id=1,
        lines=[
            {"part_id": 1, "quantity": 20},
            {"part_id": unsold, "quantity": 100},
            {"part_id": 99999, "quantity": 1},
        ],
    )
    assert codes(answer) == ["BELOW_MOQ", "PART_NOT_SUPPLIED", "PART_NOT_FOUND"]
    assert [v["line"] for v in answer["violations"]] == [0, 1, 2]


def test_bad_bodies_are_refused(erp: Erp) -> None:
    for body, status in (
        ({"supplier_id": 1}, 422),
        ({"supplier_id": 1, "lines": [{"part_id": 1, "quantity": 0}]}, 422),
        ({"order_id": "PO1", "status": "shipped"}, 422),
        ({"supplier_id": 1, "lines": [], "qty": 1}, 422),
    ):
        before = erp.watch.state()
        response = erp.client.post("/orders/validate", json=body)
        assert response.status_code == status, response.text
        assert response.json()["error"]["code"] == "VALIDATION"
        assert erp.watch.state() == before
    not_json = erp.client.post("/orders/validate", content=b"{nope")
    assert not_json.status_code == 400


# ---------------------------------------------------------------- changes


def _placed(erp: Erp, **extra: Any) -> dict[str, Any]:
    response = erp.create(supplier_id=1, lines=[{"part_id": 1, "quantity": 100}], **extra)
    assert response.status_code == 201, response.text
    order: dict[str, Any] = response.json()
    return order


def test_a_change_is_checked_like_update(erp: Erp) -> None:
    draft = _placed(erp)
    ok = erp.validate(order_id=draft["order_no"], lines=[{"part_id": 1, "quantity": 300}])
    assert ok["kind"] == "update" and ok["ok"] is True
    assert ok["current"]["order_no"] == draft["order_no"]
    assert ok["order"]["total_minor"] == 300 * offer("NGK", 1).price_minor
    assert ok["order"]["lines"][0]["quantity"] == 300

    cases: list[tuple[dict[str, Any], str]] = [
        ({"order_id": "PO000000000", "note": "x"}, "ORDER_NOT_FOUND"),
        ({"order_id": draft["id"]}, "NOTHING_TO_CHANGE"),
        ({"order_id": draft["id"], "expected_version": 7, "note": "x"}, "VERSION_STALE"),
        ({"order_id": draft["id"], "status": "received"}, "TRANSITION_NOT_ALLOWED"),
        ({"order_id": draft["id"], "lines": [{"part_id": 1, "quantity": 10}]}, "BELOW_MOQ"),
        ({"order_id": draft["id"], "expected_date": "2026-12-02"}, "DATE_UNREACHABLE"),
    ]
    for body, code in cases:
        answer = erp.validate(**body)
        assert codes(answer) == [code], (body, answer["violations"])
        assert answer["violations"][0]["message"] and answer["violations"][0]["fix"]

    submitted = _placed(erp, submit=True)
    locked = erp.validate(order_id=submitted["id"], lines=[{"part_id": 1, "quantity": 200}])
    assert codes(locked) == ["LINES_LOCKED"]
    cancelled = _placed(erp)
    response = erp.client.put(
        f"/orders/update/{cancelled['id']}",
        json={"expected_version": 1, "status": "cancelled", "actor": "li.lei"},
    )
    assert response.status_code == 200
    assert codes(erp.validate(order_id=cancelled["id"], note="x")) == ["ORDER_LOCKED"]


def test_a_draft_whose_quantity_grows_tenfold_is_warned_and_still_updated(erp: Erp) -> None:
    draft = _placed(erp)
    qty = above(10 * usual_in_db(erp.url, 1)["usual"], ngk_offers()[1].min_order_qty)
    change = {"lines": [{"part_id": 1, "quantity": qty}]}
    answer = erp.validate(order_id=draft["id"], **change)
    assert answer["kind"] == "update" and answer["ok"] is True
    [warning] = unusual(answer)
    assert warning["details"]["quantity"] == qty
    response = erp.client.put(
        f"/orders/update/{draft['id']}",
        json={"expected_version": draft["version"], "actor": "li.lei", **change},
    )
    assert response.status_code == 200, response.text
    assert [ln["quantity"] for ln in response.json()["lines"]] == [qty]


def test_update_refuses_what_the_dry_run_flags(erp: Erp) -> None:
    draft = _placed(erp)
    for body, code in (
        ({"lines": [{"part_id": 1, "quantity": 101}]}, "NOT_ORDER_STEP"),
        ({"expected_date": "2026-12-02"}, "DATE_UNREACHABLE"),
    ):
        flagged = erp.validate(order_id=draft["id"], **body)
        assert codes(flagged) == [code]
        before = erp.watch.state()
        response = erp.client.put(
            f"/orders/update/{draft['id']}",
            json={"expected_version": draft["version"], "actor": "li.lei", **body},
        )
        assert response.status_code == 422, response.text
        assert response.json()["error"]["details"]["violation"] == code
        assert erp.watch.state() == before


# ---------------------------------------------------------------- who asked, who approved


def test_requester_approver_and_actor_are_recorded(erp: Erp) -> None:
    response = erp.create(
        supplier_id=1,
        lines=[{"part_id": 1, "quantity": 100}],
        requested_by="li.lei",
        approved_by="chen.jing",
        actor="chen.jing",
    )
    assert response.status_code == 201, response.text
    order = response.json()
    assert (order["requested_by"], order["approved_by"], order["status"]) == (
        "li.lei",
        "chen.jing",
        "approved",
    )
    audit = erp.client.get("/audit", params={"entity_id": order["id"]}).json()["items"]
    assert [(e["action"], e["actor"]) for e in audit] == [("order.create", "chen.jing")]
    found = erp.client.get("/orders/search-details", params={"requested_by": "li.lei"}).json()
    assert order["id"] in [o["id"] for o in found["items"]]
    assert {o["requested_by"] for o in found["items"]} == {"li.lei"}


def test_a_write_without_a_person_is_refused(erp: Erp) -> None:
    before = erp.watch.state()
    response = erp.client.post(
        "/orders/create",
        json={"idempotency_key": "nobody-0001", "supplier_id": 1,
              "lines": [{"part_id": 1, "quantity": 100}]},
    )  # fmt: skip
    assert response.status_code == 422
    assert response.json()["error"]["details"] == {"field": "requested_by"}
    order = _placed(erp)
    response = erp.client.put(
        f"/orders/update/{order['id']}", json={"expected_version": 1, "note": "who?"}
    )
    assert response.status_code == 422
    assert response.json()["error"]["details"] == {"field": "actor"}
    assert erp.watch.state() != before  # only _placed wrote
    assert erp.client.get(f"/orders/{order['id']}").json()["note"] is None


def test_the_old_field_name_buyer_still_works(erp: Erp) -> None:
    response = erp.client.post(
        "/orders/create",
        json={"idempotency_key": "old-client-01", "supplier_id": 1, "buyer": "wang.qiang",
              "lines": [{"part_id": 1, "quantity": 100}], "order_date": DAY},
    )  # fmt: skip
    assert response.status_code == 201, response.text
    assert response.json()["requested_by"] == "wang.qiang"
