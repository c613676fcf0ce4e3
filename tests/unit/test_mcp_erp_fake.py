"""A small in-memory ERP following docs/erp_api.md, for the mcp_erp unit tests.

It serves only what the eight tools use, with the documented shapes, error
envelope and order rules, and it records every request and can be told to fail
the next ones, so tests can count retries. The tests at the bottom keep the fake
honest about the contract it stands in for.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any, ClassVar

import httpx
from pydantic_settings import SettingsConfigDict
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from mcp_erp.settings import ErpMcpSettings

BASE_URL = "http://erp.test"


class _NoDotEnvSettings(ErpMcpSettings):
    model_config = SettingsConfigDict({**ErpMcpSettings.model_config, "env_file": None})


def pinned_settings(**overrides: Any) -> ErpMcpSettings:
    """Server settings that ignore a developer's .env and pin what the tests count on."""
    values: dict[str, Any] = {
        "read_attempts": 3,
        "retry_wait": 0,
        "connect_timeout": 2.0,
        "read_timeout": 10.0,
        "allowed_hosts": ["127.0.0.1", "localhost", "::1"],
        **overrides,
    }
    return _NoDotEnvSettings(**values)


SUPPLIERS: list[dict[str, Any]] = [
    {
        "id": 1,
        "code": "NGK",
        "name_zh": "日本特殊陶业",
        "name_en": "NGK Spark Plug",
        "kind": "maker",
        "status": "active",
        "rating": 4.6,
        "website": "https://ngk.example",
        "country": "JP",
        "currency": "CNY",
    },
    {
        "id": 2,
        "code": "BOSCH",
        "name_zh": "博世",
        "name_en": "Bosch",
        "kind": "maker",
        "status": "active",
        "rating": 4.4,
        "website": None,
        "country": "DE",
        "currency": "CNY",
    },
    {
        "id": 3,
        "code": "BLK",
        "name_zh": "停用供应商",
        "name_en": "Blocked Parts Co",
        "kind": "distributor",
        "status": "blocked",
        "rating": 2.0,
        "website": None,
        "country": "CN",
        "currency": "CNY",
    },
]
PARTS: list[dict[str, Any]] = [
    {
        "id": 1,
        "sku": "SP-CR7HSA",
        "model": "CR7HSA",
        "name_zh": "火花塞",
        "name_en": "Spark plug",
        "category_code": "spark_plug",
        "category_zh": "火花塞",
        "category_en": "Spark plugs",
        "brand": "NGK",
        "brand_zh": "NGK",
        "unit": "pcs",
    },
    {
        "id": 2,
        "sku": "BP-FA196",
        "model": "FA196",
        "name_zh": "刹车片",
        "name_en": "Brake pad",
        "category_code": "brake_pad",
        "category_zh": "刹车片",
        "category_en": "Brake pads",
        "brand": "Bosch",
        "brand_zh": "博世",
        "unit": "set",
    },
    {
        "id": 3,
        "sku": "CH-428H",
        "model": "428H",
        "name_zh": "链条",
        "name_en": "Chain",
        "category_code": "chain",
        "category_zh": "链条",
        "category_en": "Chains",
        "brand": "Bosch",
        "brand_zh": "博世",
        "unit": "pcs",
    },
]
# (supplier_id, part_id) -> price_minor, min_order_qty, lead_time_days
OFFERS: dict[tuple[int, int], tuple[int, int, int]] = {
    (1, 1): (1850, 10, 7),
    (2, 1): (2100, 50, 14),
    (2, 2): (5430, 5, 10),
    (2, 3): (9900, 1, 21),
    (3, 3): (8000, 1, 30),
}
INVENTORY: dict[int, dict[str, int]] = {
    1: {"on_hand": 20, "reserved": 5, "on_order": 0, "safety_stock": 50, "reorder_point": 80},
    2: {"on_hand": 300, "reserved": 0, "on_order": 0, "safety_stock": 40, "reorder_point": 60},
    3: {"on_hand": 2, "reserved": 0, "on_order": 10, "safety_stock": 10, "reorder_point": 15},
}
TRANSITIONS = {
    "draft": {"pending_approval", "cancelled"},
    "pending_approval": {"approved", "draft", "cancelled"},
    "approved": {"cancelled", "closed"},
    "partially_received": set(),
    "received": {"closed"},
    "closed": set(),
    "cancelled": set(),
}


class ErpRefusal(Exception):
    """An error the fake answers with the documented envelope."""

    STATUS: ClassVar[dict[str, int]] = {
        "VALIDATION": 422,
        "NOT_FOUND": 404,
        "INVALID_TRANSITION": 409,
        "IDEMPOTENCY_CONFLICT": 409,
        "VERSION_CONFLICT": 409,
        "APPROVAL_REQUIRED": 403,
    }

    def __init__(self, code: str, message: str, **details: Any) -> None:
        super().__init__(message)
        self.code, self.message, self.details = code, message, details


def _refusals(handler: Any) -> Any:
    """Turn a handler's return value or ErpRefusal into the documented JSON answers."""

    async def wrapped(self: Any, request: Request) -> Response:
        try:
            result = await handler(self, request)
        except ErpRefusal as exc:
            return JSONResponse(
                {"error": {"code": exc.code, "message": exc.message, "details": exc.details}},
                ErpRefusal.STATUS[exc.code],
            )
        body, status = result if isinstance(result, tuple) else (result, 200)
        return JSONResponse(body, status)

    return wrapped


def _int_param(request: Request, name: str, default: int, lo: int, hi: int) -> int:
    raw = request.query_params.get(name)
    try:
        value = default if raw is None else int(raw)
    except ValueError:
        raise ErpRefusal("VALIDATION", f"{name} must be a whole number.") from None
    if not lo <= value <= hi:
        raise ErpRefusal("VALIDATION", f"{name} must be between {lo} and {hi}.")
    return value


async def _json_body(request: Request) -> dict[str, Any]:
    try:
        body = json.loads(await request.body())
    except ValueError:
        raise ErpRefusal("VALIDATION", "The request body is not JSON.") from None
    if not isinstance(body, dict):
        raise ErpRefusal("VALIDATION", "The request body must be a JSON object.")
    return body


@dataclass
class Fault:
    """Answer the next ``times`` requests to ``method path`` with ``status`` instead."""

    method: str
    path: str
    status: int
    times: int
    body: bytes = b'{"detail": "injected"}'


@dataclass
class FakeErp:
    """The fake ERP: ``app`` to serve, ``requests`` seen, ``fail()`` to inject faults."""

    requests: list[tuple[str, str]] = field(default_factory=list)
    queries: list[str] = field(default_factory=list)
    bodies: list[Any] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)
    orders: list[dict[str, Any]] = field(default_factory=list)
    keys: dict[str, tuple[Any, int]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.app = Starlette(
            routes=[
                Route("/health", self.health),
                Route("/suppliers/search", self.suppliers_search),
                Route("/suppliers/{id}", self.supplier_one),
                Route("/parts", self.parts_list),
                Route("/parts/search", self.parts_search),
                Route("/parts/supplier/{id}", self.parts_by_supplier),
                Route("/parts/{id}", self.part_one),
                Route("/orders/create", self.order_create, methods=["POST"]),
                Route("/orders/update/{id}", self.order_update, methods=["PUT"]),
                Route("/orders/search-details", self.orders_search),
                Route("/orders/{id}", self.order_one),
                Route("/inventory/warnings", self.inventory_warnings),
            ],
            middleware=[],
        )
        inner = self.app

        async def recording(scope: Any, receive: Any, send: Any) -> None:
            if scope["type"] == "http":
                self.requests.append((scope["method"], scope["path"]))
                self.queries.append(scope["query_string"].decode())
                for fault in self.faults:
                    if fault.times and (fault.method, fault.path) == (
                        scope["method"],
                        scope["path"],
                    ):
                        fault.times -= 1
                        await Response(fault.body, fault.status, media_type="application/json")(
                            scope, receive, send
                        )
                        return
            await inner(scope, receive, send)

        self.asgi = recording

    # -- test controls -------------------------------------------------------

    def fail(self, method: str, path: str, status: int = 503, times: int = 1, **kw: Any) -> None:
        """Make the next ``times`` calls of ``method path`` answer ``status``."""
        self.faults.append(Fault(method, path, status, times, **kw))

    def count(self, method: str | None = None, path: str | None = None) -> int:
        """How many requests matched ``method`` and ``path`` (None = any)."""
        return sum(
            1
            for m, p in self.requests
            if (method is None or m == method) and (path is None or p == path)
        )

    def client(self) -> httpx.AsyncClient:
        """An httpx client that reaches this fake in-process (no sockets)."""
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=self.asgi), base_url=BASE_URL)

    # -- helpers ---------------------------------------------------------------

    @staticmethod
    def _paged(request: Request, items: list[Any]) -> dict[str, Any]:
        page = _int_param(request, "page", 1, 1, 10_000)
        size = _int_param(request, "size", 20, 1, 100)
        start = (page - 1) * size
        return {
            "items": items[start : start + size],
            "total": len(items),
            "page": page,
            "size": size,
        }

    @staticmethod
    def _supplier(supplier_id: Any) -> dict[str, Any]:
        for s in SUPPLIERS:
            if str(s["id"]) == str(supplier_id):
                return s
        raise ErpRefusal("NOT_FOUND", f"There is no supplier with id {supplier_id}.")

    @staticmethod
    def _part(part_id: Any) -> dict[str, Any]:
        for p in PARTS:
            if str(p["id"]) == str(part_id):
                return p
        raise ErpRefusal("NOT_FOUND", f"There is no part with id {part_id}.")

    @staticmethod
    def _offer(supplier_id: int, part_id: int) -> dict[str, Any]:
        s = FakeErp._supplier(supplier_id)
        price, moq, lead = OFFERS[(supplier_id, part_id)]
        return {
            "supplier_id": supplier_id,
            "supplier_code": s["code"],
            "supplier_name_zh": s["name_zh"],
            "supplier_name_en": s["name_en"],
            "price_minor": price,
            "price": f"{price // 100}.{price % 100:02d}",
            "currency": "CNY",
            "min_order_qty": moq,
            "lead_time_days": lead,
            "valid_from": "2026-01-01",
            "valid_to": None,
        }

    def _find_order(self, order_id: str) -> dict[str, Any]:
        for o in self.orders:
            if str(o["id"]) == order_id or o["order_no"] == order_id:
                return o
        raise ErpRefusal("NOT_FOUND", f"There is no order {order_id}.")

    def _priced_lines(self, supplier_id: int, lines: Any) -> list[dict[str, Any]]:
        if not isinstance(lines, list) or not 1 <= len(lines) <= 50:
            raise ErpRefusal("VALIDATION", "An order needs between 1 and 50 lines.")
        priced = []
        for n, line in enumerate(lines, 1):
            qty = line.get("quantity") if isinstance(line, dict) else None
            if not isinstance(qty, int) or isinstance(qty, bool) or qty <= 0:
                raise ErpRefusal(
                    "VALIDATION", f"Line {n}: the quantity must be a whole number > 0."
                )
            part = self._part(line.get("part_id"))
            if (supplier_id, part["id"]) not in OFFERS:
                raise ErpRefusal(
                    "VALIDATION", f"Line {n}: this supplier does not sell {part['sku']}."
                )
            price, moq, _ = OFFERS[(supplier_id, part["id"])]
            if qty < moq:
                raise ErpRefusal(
                    "VALIDATION",
                    f"Line {n}: {qty} is below the minimum order quantity of {moq}.",
                    line=n,
                    min_order_qty=moq,
                )
            priced.append(
                {
                    "id": n,
                    "line_no": n,
                    "part_id": part["id"],
                    "sku": part["sku"],
                    "name_zh": part["name_zh"],
                    "name_en": part["name_en"],
                    "quantity": qty,
                    "received_qty": 0,
                    "unit_price_minor": price,
                    "unit_price": f"{price // 100}.{price % 100:02d}",
                    "amount_minor": price * qty,
                }
            )
        return priced

    @staticmethod
    def _total(order: dict[str, Any]) -> None:
        total = sum(line["amount_minor"] for line in order["lines"])
        order["total_minor"] = total
        order["total"] = f"{total // 100}.{total % 100:02d}"

    # -- endpoints -------------------------------------------------------------

    async def health(self, request: Request) -> Response:
        return JSONResponse({"status": "ok", "database": "memory"})

    @_refusals
    async def suppliers_search(self, request: Request) -> Any:
        name = request.query_params.get("name", "").lower()
        status = request.query_params.get("status")
        hits = [
            s
            for s in SUPPLIERS
            if (not name or name in f"{s['code']} {s['name_zh']} {s['name_en']}".lower())
            and (status is None or s["status"] == status)
        ]
        return self._paged(request, hits)

    @_refusals
    async def supplier_one(self, request: Request) -> Any:
        return self._supplier(request.path_params["id"])

    @_refusals
    async def parts_list(self, request: Request) -> Any:
        q = request.query_params
        name, category = q.get("name", "").lower(), q.get("category")
        supplier = q.get("supplierId")
        hits = [
            p
            for p in PARTS
            if (not name or name in f"{p['name_zh']} {p['name_en']}".lower())
            and (category is None or category in (p["category_code"], p["category_zh"]))
            and (supplier is None or (int(supplier), p["id"]) in OFFERS)
        ]
        return self._paged(request, hits)

    @_refusals
    async def parts_search(self, request: Request) -> Any:
        name = request.query_params.get("name", "").lower()
        limit = _int_param(request, "limit", 20, 1, 100)
        hits = [
            {**p, "score": 0.9}
            for p in PARTS
            if name in f"{p['sku']} {p['name_zh']} {p['name_en']} {p['brand']}".lower()
        ]
        return {"items": hits[:limit], "total": len(hits)}

    @_refusals
    async def part_one(self, request: Request) -> Any:
        part = self._part(request.path_params["id"])
        offers = [self._offer(s, p) for (s, p) in OFFERS if p == part["id"]]
        return {**part, "offers": offers, "inventory": INVENTORY[part["id"]]}

    @_refusals
    async def parts_by_supplier(self, request: Request) -> Any:
        supplier = self._supplier(request.path_params["id"])
        items = [
            {**p, "offer": self._offer(supplier["id"], p["id"])}
            for p in PARTS
            if (supplier["id"], p["id"]) in OFFERS
        ]
        return {"supplier": supplier, **self._paged(request, items)}

    @_refusals
    async def inventory_warnings(self, request: Request) -> Any:
        category = request.query_params.get("category")
        rows = []
        for p in PARTS:
            inv = INVENTORY[p["id"]]
            available = inv["on_hand"] - inv["reserved"]
            if available < inv["safety_stock"] and category in (None, p["category_code"]):
                rows.append(
                    {
                        **p,
                        **inv,
                        "available": available,
                        "shortage": inv["safety_stock"] - available,
                    }
                )
        rows.sort(key=lambda r: -r["shortage"])
        return self._paged(request, rows)

    @_refusals
    async def order_create(self, request: Request) -> Any:
        body = await _json_body(request)
        self.bodies.append(body)
        key = body.get("idempotency_key")
        if not isinstance(key, str) or not 8 <= len(key) <= 128:
            raise ErpRefusal("VALIDATION", "idempotency_key must be 8 to 128 characters.")
        if key in self.keys:
            payload, order_id = self.keys[key]
            if payload != body:
                raise ErpRefusal(
                    "IDEMPOTENCY_CONFLICT",
                    "This idempotency key was already used for a different order.",
                )
            return {**self._find_order(str(order_id)), "replayed": True}, 200
        supplier = self._supplier(body.get("supplier_id"))
        if supplier["status"] != "active":
            raise ErpRefusal("VALIDATION", f"Supplier {supplier['code']} is {supplier['status']}.")
        lines = self._priced_lines(supplier["id"], body.get("lines"))
        note = body.get("note")
        if note is not None and len(note) > 2000:
            raise ErpRefusal("VALIDATION", "The note is longer than 2000 characters.")
        number = len(self.orders) + 1
        now = datetime.now(UTC).isoformat()
        order = {
            "id": number,
            "order_no": f"PO-2026-{number:04d}",
            "idempotency_key": key,
            "supplier_id": supplier["id"],
            "supplier_code": supplier["code"],
            "supplier_name_zh": supplier["name_zh"],
            "supplier_name_en": supplier["name_en"],
            "status": "pending_approval" if body.get("submit") else "draft",
            "currency": body.get("currency") or supplier["currency"],
            "order_date": date.today().isoformat(),
            "expected_date": body.get("expected_date"),
            "buyer": body.get("buyer"),
            "note": note,
            "approved_by": None,
            "version": 1,
            "created_at": now,
            "updated_at": now,
            "lines": lines,
        }
        self._total(order)
        self.orders.append(order)
        self.keys[key] = (body, number)
        return order, 201

    @_refusals
    async def order_update(self, request: Request) -> Any:
        body = await _json_body(request)
        self.bodies.append(body)
        order = self._find_order(request.path_params["id"])
        if body.get("expected_version") != order["version"]:
            raise ErpRefusal(
                "VERSION_CONFLICT",
                f"Order {order['order_no']} was changed meanwhile; it is now at version "
                f"{order['version']}.",
                current_version=order["version"],
            )
        changed = dict(order)
        if "lines" in body:
            if order["status"] != "draft":
                raise ErpRefusal("INVALID_TRANSITION", "Lines can only be edited in draft.")
            changed["lines"] = self._priced_lines(order["supplier_id"], body["lines"])
        status = body.get("status")
        if status is not None and status != order["status"]:
            if status not in TRANSITIONS[order["status"]]:
                raise ErpRefusal(
                    "INVALID_TRANSITION",
                    f"An order in {order['status']} cannot move to {status}.",
                )
            if status == "approved" and not body.get("approved_by"):
                raise ErpRefusal("APPROVAL_REQUIRED", "Approving an order needs approved_by.")
            changed["status"] = status
        for name in ("expected_date", "note", "approved_by"):
            if name in body:
                changed[name] = body[name]
        if "received" in body:
            if order["status"] not in ("approved", "partially_received"):
                raise ErpRefusal("INVALID_TRANSITION", "Only approved orders can be received.")
            by_part = {line["part_id"]: dict(line) for line in changed["lines"]}
            for r in body["received"]:
                line = by_part[r["part_id"]]
                line["received_qty"] += r["quantity"]
                if line["received_qty"] > line["quantity"]:
                    raise ErpRefusal("INVALID_TRANSITION", "More received than ordered.")
            changed["lines"] = list(by_part.values())
            done = all(line["received_qty"] == line["quantity"] for line in changed["lines"])
            changed["status"] = "received" if done else "partially_received"
        changed["version"] = order["version"] + 1
        changed["updated_at"] = datetime.now(UTC).isoformat()
        self._total(changed)
        order.clear()
        order.update(changed)
        return order

    @_refusals
    async def orders_search(self, request: Request) -> Any:
        q = request.query_params
        hits = [
            o
            for o in reversed(self.orders)
            if q.get("order_no") in (None, o["order_no"])
            and q.get("supplier_id") in (None, str(o["supplier_id"]))
            and q.get("status") in (None, o["status"])
            and (
                q.get("part_id") is None
                or any(str(line["part_id"]) == q["part_id"] for line in o["lines"])
            )
            and (q.get("sku") is None or any(line["sku"] == q["sku"] for line in o["lines"]))
            and (q.get("date_from") is None or o["order_date"] >= q["date_from"])
            and (q.get("date_to") is None or o["order_date"] <= q["date_to"])
        ]
        return self._paged(request, hits)

    @_refusals
    async def order_one(self, request: Request) -> Any:
        return self._find_order(request.path_params["id"])


# -- the fake keeps to the contract --------------------------------------------


async def test_fake_pages_and_errors_as_documented() -> None:
    erp = FakeErp()
    async with erp.client() as http:
        page = (await http.get("/suppliers/search", params={"size": 2})).json()
        assert set(page) == {"items", "total", "page", "size"}
        assert (page["total"], page["page"], page["size"], len(page["items"])) == (3, 1, 2, 2)
        missing = await http.get("/suppliers/99")
        assert missing.status_code == 404
        assert missing.json()["error"]["code"] == "NOT_FOUND"


async def test_fake_create_is_idempotent_and_update_checks_version() -> None:
    erp = FakeErp()
    body = {
        "idempotency_key": "k-00000001",
        "supplier_id": 1,
        "lines": [{"part_id": 1, "quantity": 10}],
    }
    async with erp.client() as http:
        first = await http.post("/orders/create", json=body)
        again = await http.post("/orders/create", json=body)
        assert (first.status_code, again.status_code) == (201, 200)
        assert again.json()["replayed"] is True and again.json()["id"] == first.json()["id"]
        stale = await http.put("/orders/update/1", json={"expected_version": 7, "note": "x"})
        assert stale.status_code == 409 and stale.json()["error"]["code"] == "VERSION_CONFLICT"


async def test_fake_fault_injection_counts_requests() -> None:
    erp = FakeErp()
    erp.fail("GET", "/parts", 503, times=1)
    async with erp.client() as http:
        assert (await http.get("/parts")).status_code == 503
        assert (await http.get("/parts")).status_code == 200
    assert erp.count("GET", "/parts") == 2
