"""The ERP's REST API (docs/erp_api.md) as a Starlette app.

Handlers stay thin: they read parameters strictly, run the database work in a
worker thread (SQLAlchemy here is synchronous and must not block the event
loop), and turn every refusal into ``{"error": {code, message, details}}``.
Anything unexpected is logged with its traceback and answered with INTERNAL and
a sentence; a client never sees a stack trace.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypedDict, TypeVar

from pydantic import BaseModel, ValidationError
from sqlalchemy import text as sql_text
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp

from core.http_guard import HostOriginGuard
from sim.erp import audit, catalogue, equivalents, inventory, orders, params, spend, validation
from sim.erp.errors import ErpError, from_validation_error
from sim.erp.models import ORDER_STATUSES, SUPPLIER_STATUSES
from sim.erp.schemas import OrderChange, OrderCreate, OrderDraft, OrderUpdate
from sim.erp.service import Erp
from sim.erp.settings import ErpSettings

log = logging.getLogger("sim-erp.api")

MAX_BODY = 1_000_000
_INTERNAL = (
    "The ERP ran into an unexpected problem and changed nothing; try again, and tell the "
    "ERP administrator if it keeps happening."
)
M = TypeVar("M", bound=BaseModel)
Handler = Callable[[Request], Awaitable[Response]]


class State(TypedDict):
    """What the lifespan hands every request."""

    erp: Erp


def _erp(request: Request) -> Erp:
    erp: Erp = request.state.erp
    return erp


def error_response(err: ErpError) -> JSONResponse:
    """The JSON answer of a refusal."""
    return JSONResponse(err.body(), status_code=err.status)


def endpoint(handler: Handler) -> Handler:
    """Wrap a handler so an ErpError becomes its answer and anything else INTERNAL."""

    @functools.wraps(handler)
    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except ErpError as err:
            log.info("%s %s -> %s %s", request.method, request.url.path, err.code, err.message)
            return error_response(err)
        except Exception:
            log.exception("%s %s failed", request.method, request.url.path)
            return error_response(ErpError("INTERNAL", _INTERNAL))

    return wrapped


async def read_body(request: Request, model: type[M]) -> M:
    """The JSON body validated as ``model``; 400 when it is not JSON, 422 when invalid."""
    return parse(await read_raw(request), model)


def parse(raw: bytes, model: type[M]) -> M:
    """``raw`` validated as ``model`` (JSON rules: a date is a ``YYYY-MM-DD`` string);
    400 when it is not JSON, 422 naming each bad field."""
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        if any(e["type"] == "json_invalid" for e in exc.errors()):
            raise ErpError(
                "VALIDATION", "The request body is not valid JSON.", status=400
            ) from None
        raise from_validation_error(exc) from None


async def read_raw(request: Request) -> bytes:
    """The body's bytes; 413 when too large, 400 when empty."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > MAX_BODY:
            raise ErpError(
                "VALIDATION",
                f"The request body is larger than {MAX_BODY // 1_000_000} MB.",
                status=413,
            )
        chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw.strip():
        raise ErpError("VALIDATION", "The request needs a JSON object as its body.", status=400)
    return raw


def _names_an_order(raw: bytes) -> bool:
    """Whether the body is a JSON object with an ``order_id`` (a change, not a new order)."""
    try:
        decoded = json.loads(raw)
    except (ValueError, RecursionError):
        return False  # parse() reports it
    return isinstance(decoded, dict) and "order_id" in decoded


# ---------------------------------------------------------------- handlers


@endpoint
async def index(request: Request) -> Response:
    """What this service is and where its endpoints are."""
    return JSONResponse(
        {
            "service": "sim-erp",
            "docs": "docs/erp_api.md",
            "endpoints": [
                f"{' '.join(sorted(r.methods or ()))} {r.path}"
                for r in ROUTES
                if isinstance(r, Route) and r.path != "/"
            ],
        }
    )


@endpoint
async def health(request: Request) -> Response:
    """Alive, and the database answers."""
    erp = _erp(request)

    def ping() -> None:
        with erp.db.read() as session:
            session.execute(sql_text("SELECT 1"))

    await run_in_threadpool(ping)
    return JSONResponse({"status": "ok", "database": erp.db.dialect})


@endpoint
async def supplier_search(request: Request) -> Response:
    """GET /suppliers/search."""
    q = request.query_params
    number, size = params.page(q)
    found = catalogue.search_suppliers(
        _erp(request).master,
        params.text(q, "name"),
        params.choice(q, "status", SUPPLIER_STATUSES),
        number,
        size,
    )
    return JSONResponse(found)


@endpoint
async def supplier_get(request: Request) -> Response:
    """GET /suppliers/{id}."""
    supplier_id = params.path_id(request.path_params["id"], "supplier")
    return JSONResponse(catalogue.get_supplier(_erp(request).master, supplier_id))


@endpoint
async def category_list(request: Request) -> Response:
    """GET /categories."""
    return JSONResponse({"items": list(_erp(request).master.categories)})


@endpoint
async def part_list(request: Request) -> Response:
    """GET /parts."""
    q = request.query_params
    number, size = params.page(q)
    found = catalogue.list_parts(
        _erp(request).master,
        name=params.text(q, "name"),
        category=params.text(q, "category"),
        supplier_id=params.integer(q, "supplierId"),
        page=number,
        size=size,
    )
    return JSONResponse(found)


@endpoint
async def part_search(request: Request) -> Response:
    """GET /parts/search."""
    q = request.query_params
    name = params.text(q, "name")
    if name is None:
        raise ErpError(
            "VALIDATION",
            "name is required: a part name, SKU, model, brand or category, in Chinese or English.",
            {"field": "name"},
        )
    limit = params.integer(q, "limit", default=20, hi=100)
    assert limit is not None
    return JSONResponse(catalogue.search_parts(_erp(request).master, name, limit))


@endpoint
async def part_get(request: Request) -> Response:
    """GET /parts/{id}."""
    erp = _erp(request)
    part_id = params.path_id(request.path_params["id"], "part")
    return JSONResponse(await run_in_threadpool(catalogue.get_part, erp.db, erp.master, part_id))


MAX_PART_DETAILS = 50
"""How many ids one ``GET /parts/details`` may name."""


@endpoint
async def part_details(request: Request) -> Response:
    """GET /parts/details?ids=1,2,3: several parts' records, in the order asked."""
    erp = _erp(request)
    ids = params.id_list(request.query_params, "ids", max_count=MAX_PART_DETAILS)
    return JSONResponse(await run_in_threadpool(catalogue.get_parts, erp.db, erp.master, ids))


@endpoint
async def part_equivalents(request: Request) -> Response:
    """GET /parts/{part_id}/equivalents."""
    erp = _erp(request)
    part_id = params.path_id(request.path_params["part_id"], "part")
    brand = params.text(request.query_params, "brand", max_len=100)
    today = orders.utcnow().date()
    found = await run_in_threadpool(
        equivalents.equivalents_of, erp.db, erp.master, part_id, brand, today
    )
    return JSONResponse(found)


@endpoint
async def part_by_supplier(request: Request) -> Response:
    """GET /parts/supplier/{supplier_id}."""
    erp = _erp(request)
    supplier_id = params.path_id(request.path_params["supplier_id"], "supplier")
    number, size = params.page(request.query_params)
    today = orders.utcnow().date()
    found = await run_in_threadpool(
        catalogue.parts_of_supplier, erp.db, erp.master, supplier_id, number, size, today
    )
    return JSONResponse(found)


@endpoint
async def order_create(request: Request) -> Response:
    """POST /orders/create: 201 with the new order, 200 with a replayed one."""
    erp = _erp(request)
    payload = await read_body(request, OrderCreate)
    created = await run_in_threadpool(orders.create_order, erp.db, erp.master, payload, erp.rules)
    body: dict[str, Any] = {**created.order, "replayed": created.replayed}
    return JSONResponse(body, status_code=200 if created.replayed else 201)


@endpoint
async def order_update(request: Request) -> Response:
    """PUT /orders/update/{order_id}."""
    erp = _erp(request)
    ref = request.path_params["order_id"]
    payload = await read_body(request, OrderUpdate)
    updated = await run_in_threadpool(
        orders.update_order, erp.db, erp.master, ref, payload, erp.rules
    )
    return JSONResponse(updated)


@endpoint
async def order_validate(request: Request) -> Response:
    """POST /orders/validate: a dry run of an OrderCreate (no ``order_id``) or of an
    OrderUpdate (with ``order_id``); always 200 with the violations found, writes nothing."""
    erp = _erp(request)
    raw = await read_raw(request)
    if _names_an_order(raw):
        change = parse(raw, OrderChange)
        answer = await run_in_threadpool(
            validation.validate_change, erp.db, erp.master, erp.rules, change
        )
    else:
        draft = parse(raw, OrderDraft)
        today = orders.utcnow().date()
        answer = await run_in_threadpool(
            validation.validate_draft, erp.db, erp.master, erp.rules, draft, today
        )
    return JSONResponse(answer)


@endpoint
async def order_get(request: Request) -> Response:
    """GET /orders/{order_id} (numeric id or order number)."""
    erp = _erp(request)
    ref = request.path_params["order_id"]
    if ref == "create":
        raise ErpError("METHOD_NOT_ALLOWED", "Create an order with POST /orders/create.")
    return JSONResponse(await run_in_threadpool(orders.get_order, erp.db, erp.master, ref))


def _check_period(filters: orders.OrderFilters) -> None:
    """A period that ends before it starts is refused (VALIDATION), never answered empty."""
    if filters.date_from and filters.date_to and filters.date_from > filters.date_to:
        raise ErpError(
            "VALIDATION",
            f"date_from {filters.date_from.isoformat()} is after date_to "
            f"{filters.date_to.isoformat()}.",
            {"field": "date_from"},
        )


@endpoint
async def order_search(request: Request) -> Response:
    """GET /orders/search-details."""
    erp = _erp(request)
    q = request.query_params
    number, size = params.page(q)
    filters = orders.OrderFilters(
        order_no=params.text(q, "order_no", max_len=40),
        requested_by=params.text(q, "requested_by", max_len=100),
        approved_by=params.text(q, "approved_by", max_len=100),
        supplier_id=params.integer(q, "supplier_id"),
        supplier_name=params.text(q, "supplier_name"),
        part_id=params.integer(q, "part_id"),
        sku=params.text(q, "sku", max_len=64),
        status=params.choice(q, "status", ORDER_STATUSES),
        date_from=params.day(q, "date_from"),
        date_to=params.day(q, "date_to"),
    )
    _check_period(filters)
    found = await run_in_threadpool(orders.search_orders, erp.db, erp.master, filters, number, size)
    return JSONResponse(found)


@endpoint
async def order_summary(request: Request) -> Response:
    """GET /orders/summary."""
    erp = _erp(request)
    q = request.query_params
    filters = orders.OrderFilters(
        requested_by=params.text(q, "requested_by", max_len=100),
        approved_by=params.text(q, "approved_by", max_len=100),
        supplier_id=params.integer(q, "supplier_id"),
        part_id=params.integer(q, "part_id"),
        date_from=params.day(q, "date_from"),
        date_to=params.day(q, "date_to"),
    )
    _check_period(filters)
    category = params.text(q, "category")
    code = catalogue.resolve_category(erp.master, category) if category else None
    group_by = params.choice(q, "group_by", spend.GROUPINGS)
    found = await run_in_threadpool(
        spend.summarise, erp.db, erp.master, filters, category=code, group_by=group_by
    )
    return JSONResponse(found)


@endpoint
async def inventory_warnings(request: Request) -> Response:
    """GET /inventory/warnings."""
    erp = _erp(request)
    q = request.query_params
    number, size = params.page(q)
    category = params.text(q, "category")
    code = catalogue.resolve_category(erp.master, category) if category else None
    found = await run_in_threadpool(inventory.warnings, erp.db, erp.master, code, number, size)
    return JSONResponse(found)


@endpoint
async def audit_list(request: Request) -> Response:
    """GET /audit."""
    erp = _erp(request)
    q = request.query_params
    number, size = params.page(q)
    entity = params.choice(q, "entity", (orders.ENTITY,))
    entity_id = params.integer(q, "entity_id")
    found = await run_in_threadpool(audit.entries, erp.db, entity, entity_id, number, size)
    return JSONResponse(found)


@endpoint
async def admin_reset(request: Request) -> Response:
    """POST /admin/reset: back to the seed data."""
    counts = await run_in_threadpool(_erp(request).reset)
    return JSONResponse({"status": "reset", **counts})


ROUTES = [
    Route("/", index),
    Route("/health", health),
    Route("/suppliers/search", supplier_search),
    Route("/suppliers/{id}", supplier_get),
    Route("/categories", category_list),
    Route("/parts", part_list),
    Route("/parts/search", part_search),
    # Before /parts/{id}, which would take "details" for an id (and answer NOT_FOUND).
    Route("/parts/details", part_details),
    Route("/parts/supplier/{supplier_id}", part_by_supplier),
    Route("/parts/{part_id}/equivalents", part_equivalents),
    Route("/parts/{id}", part_get),
    Route("/orders/create", order_create, methods=["POST"]),
    Route("/orders/update/{order_id}", order_update, methods=["PUT"]),
    Route("/orders/validate", order_validate, methods=["POST"]),
    Route("/orders/search-details", order_search),
    Route("/orders/summary", order_summary),
    Route("/orders/{order_id}", order_get),
    Route("/inventory/warnings", inventory_warnings),
    Route("/audit", audit_list),
    Route("/admin/reset", admin_reset, methods=["POST"]),
]


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    if status == 404:
        err = ErpError("NOT_FOUND", f"There is no endpoint {request.url.path[:80]!r}.")
    elif status == 405:
        err = ErpError(
            "METHOD_NOT_ALLOWED",
            f"{request.method} is not allowed on {request.url.path[:80]!r}.",
        )
    else:
        err = ErpError("INTERNAL", _INTERNAL, status=status)
    return error_response(err)


async def _unexpected(request: Request, exc: Exception) -> Response:
    log.error("%s %s failed", request.method, request.url.path, exc_info=exc)
    return error_response(ErpError("INTERNAL", _INTERNAL))


def create_app(settings: ErpSettings | None = None, *, guard: bool = True) -> ASGIApp:
    """The ERP's ASGI app; the database is opened (and seeded if empty) at start-up."""
    settings = settings or ErpSettings()

    @asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[State]:
        erp = Erp(settings)
        try:
            await run_in_threadpool(erp.start)
            log.info("ERP ready on %s database", erp.db.dialect)
            yield {"erp": erp}
        finally:
            erp.close()

    app = Starlette(
        routes=ROUTES,
        lifespan=lifespan,
        exception_handlers={HTTPException: _http_error, Exception: _unexpected},
    )
    if not guard:
        return app
    return HostOriginGuard(
        app,
        allowed_hosts=settings.allowed_hosts,
        allowed_origins=settings.http_allowed_origins,
    )
