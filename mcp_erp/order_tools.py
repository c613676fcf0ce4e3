"""Purchase-order tools: create and update (one try each), validate and search (retried reads).

Who acts (``requested_by``, ``approved_by``, ``actor``: user ids) travels as ordinary
arguments; an agent's graph fills them in itself and hides them from its model
(``hidden_args`` in mcp_servers.yaml), so the ERP records the real people.
"""

import logging
from typing import Annotated, Any, Literal

from fastmcp import Context
from fastmcp.exceptions import ToolError
from pydantic import Field

from mcp_erp import shapes
from mcp_erp.erp_client import erp_from, path_segment
from mcp_erp.params import (
    Day,
    OrderLine,
    OrderStatus,
    Page,
    PartId,
    ReceiptLine,
    Size,
    SupplierId,
    Text,
)

Person = Annotated[str, Field(min_length=1, max_length=100, description="A user id.")]
Note = Annotated[str, Field(max_length=2000, description="Free text, up to 2000 characters.")]


async def order_create(
    ctx: Context,
    idempotency_key: Annotated[
        str,
        Field(
            min_length=8,
            max_length=128,
            description="Unique per intended order (8-128 chars); reuse it to retry safely.",
        ),
    ],
    supplier_id: SupplierId,
    lines: Annotated[list[OrderLine], Field(min_length=1, max_length=50, description="1-50.")],
    expected_date: Annotated[Day | None, Field(description="Wanted delivery date.")] = None,
    currency: Annotated[
        str | None,
        Field(pattern=r"^[A-Z]{3}$", description="ISO 4217; default the supplier's."),
    ] = None,
    note: Note | None = None,
    requested_by: Annotated[Person | None, Field(description="Who asks for the order.")] = None,
    approved_by: Annotated[
        Person | None, Field(description="Who approved it; the order is then created approved.")
    ] = None,
    actor: Annotated[Person | None, Field(description="Who sends it (default: requester).")] = None,
    submit: Annotated[bool, Field(description="true: send for approval.")] = False,
) -> dict[str, Any]:
    """The created order (or, for a replayed key and payload, the same order again)."""
    body: dict[str, Any] = {
        "idempotency_key": idempotency_key,
        "supplier_id": supplier_id,
        "lines": [line.model_dump() for line in lines],
        "submit": submit,
    }
    optional = {
        "expected_date": expected_date.isoformat() if expected_date else None,
        "currency": currency,
        "note": note,
        "requested_by": requested_by,
        "approved_by": approved_by,
        "actor": actor,
    }
    body.update({k: v for k, v in optional.items() if v is not None})
    answer = await erp_from(ctx).post(
        "/orders/create",
        body,
        on_timeout=(
            "The order may or may not have been created: call order_create again with the "
            "same idempotency_key and payload, which never creates a second order."
        ),
    )
    return shapes.order(answer)


async def order_update(
    ctx: Context,
    order_id: Annotated[
        Annotated[int, Field(ge=1)] | Annotated[str, Field(min_length=1, max_length=64)],
        Field(description="Numeric id or order_no."),
    ],
    expected_version: Annotated[int, Field(ge=0, description="The order's current version.")],
    status: Annotated[OrderStatus | None, Field(description="New status.")] = None,
    lines: Annotated[
        list[OrderLine] | None,
        Field(min_length=1, max_length=50, description="Replaces all lines; draft only."),
    ] = None,
    expected_date: Day | None = None,
    note: Note | None = None,
    approved_by: Annotated[Person | None, Field(description="Needed to approve.")] = None,
    received: Annotated[
        list[ReceiptLine] | None,
        Field(min_length=1, max_length=50, description="Records a goods receipt."),
    ] = None,
    actor: Annotated[Person | None, Field(description="Who makes the change.")] = None,
) -> dict[str, Any]:
    """The updated order, its version one higher."""
    fields: dict[str, Any] = {
        "status": status,
        "lines": [line.model_dump() for line in lines] if lines else None,
        "expected_date": expected_date.isoformat() if expected_date else None,
        "note": note,
        "approved_by": approved_by,
        "received": [line.model_dump() for line in received] if received else None,
        "actor": actor,
    }
    body: dict[str, Any] = {"expected_version": expected_version}
    body.update({k: v for k, v in fields.items() if v is not None})
    answer = await erp_from(ctx).put(
        f"/orders/update/{path_segment(order_id)}",
        body,
        on_timeout=(
            "The update may have been applied: look the order up with order_search_details "
            "and compare its version before trying again."
        ),
    )
    return shapes.order(answer)


async def order_validate(
    ctx: Context,
    supplier_id: SupplierId | None = None,
    lines: Annotated[
        list[OrderLine] | None,
        Field(min_length=1, max_length=50, description="New order's lines, or replacements."),
    ] = None,
    expected_date: Annotated[Day | None, Field(description="Wanted delivery date.")] = None,
    currency: Annotated[
        str | None, Field(pattern=r"^[A-Z]{3}$", description="ISO 4217; new orders only.")
    ] = None,
    order_id: Annotated[
        Annotated[int, Field(ge=1)] | Annotated[str, Field(min_length=1, max_length=40)] | None,
        Field(description="To check a change: the order's id or order_no."),
    ] = None,
    expected_version: Annotated[int | None, Field(ge=1, description="Changes only.")] = None,
    status: Annotated[OrderStatus | None, Field(description="Changes only: new status.")] = None,
    note: Note | None = None,
) -> dict[str, Any]:
    """The ERP's dry run: violations and warnings (code, message, fix) and a priced preview."""
    if order_id is None and (supplier_id is None or not lines):
        raise ToolError(
            "VALIDATION: send supplier_id and lines to check a new order, or order_id (with "
            "what changes) to check a change.",
            log_level=logging.DEBUG,
        )
    body: dict[str, Any]
    if order_id is not None:
        body = {"order_id": order_id, "expected_version": expected_version, "status": status}
    else:
        body = {"supplier_id": supplier_id, "currency": currency}
    body |= {
        "lines": [line.model_dump() for line in lines] if lines else None,
        "expected_date": expected_date.isoformat() if expected_date else None,
        "note": note,
    }
    # A dry run writes nothing, so it is retried like a read.
    answer = await erp_from(ctx).post_read(
        "/orders/validate", {k: v for k, v in body.items() if v is not None}
    )
    return shapes.record(answer)


async def order_search_details(
    ctx: Context,
    order_no: Annotated[Text | None, Field(description="Order number.")] = None,
    requested_by: Annotated[Text | None, Field(description="User id of the requester.")] = None,
    approved_by: Annotated[Text | None, Field(description="User id of the approver.")] = None,
    supplier_id: SupplierId | None = None,
    supplier_name: Annotated[Text | None, Field(description="Fuzzy supplier name.")] = None,
    part_id: PartId | None = None,
    sku: Text | None = None,
    status: OrderStatus | None = None,
    date_from: Annotated[Day | None, Field(description="Order date from, inclusive.")] = None,
    date_to: Annotated[Day | None, Field(description="Order date to, inclusive.")] = None,
    page: Page = 1,
    size: Size = 20,
) -> dict[str, Any]:
    """A page of matching orders with their lines, newest first."""
    params = {
        "order_no": order_no,
        "requested_by": requested_by,
        "approved_by": approved_by,
        "supplier_id": supplier_id,
        "supplier_name": supplier_name,
        "part_id": part_id,
        "sku": sku,
        "status": status,
        "date_from": date_from.isoformat() if date_from else None,
        "date_to": date_to.isoformat() if date_to else None,
        "page": page,
        "size": size,
    }
    return shapes.page(await erp_from(ctx).get("/orders/search-details", params))


async def order_summary(
    ctx: Context,
    date_from: Annotated[Day | None, Field(description="Order date from, inclusive.")] = None,
    date_to: Annotated[Day | None, Field(description="Order date to, inclusive.")] = None,
    supplier_id: SupplierId | None = None,
    part_id: PartId | None = None,
    category: Annotated[
        Text | None, Field(description="Category code or name: only its parts' lines.")
    ] = None,
    requested_by: Annotated[Text | None, Field(description="User id of the requester.")] = None,
    approved_by: Annotated[Text | None, Field(description="User id of the approver.")] = None,
    group_by: Annotated[
        Literal["supplier", "month", "requester", "approver", "part"] | None,
        Field(
            description="Also each supplier's, requester's, approver's or part's (largest "
            "first; orders nobody approved yet under null; a part with its quantity), or each "
            "month's spend."
        ),
    ] = None,
) -> dict[str, Any]:
    """Spend by currency over every matching order (cancelled ones counted apart)."""
    params = {
        "date_from": date_from.isoformat() if date_from else None,
        "date_to": date_to.isoformat() if date_to else None,
        "supplier_id": supplier_id,
        "part_id": part_id,
        "category": category,
        "requested_by": requested_by,
        "approved_by": approved_by,
        "group_by": group_by,
    }
    return shapes.record(await erp_from(ctx).get("/orders/summary", params))
