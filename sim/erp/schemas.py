"""Wire formats of the request bodies (docs/erp_api.md: OrderCreate, OrderUpdate, and the
bodies of ``POST /orders/validate``: OrderDraft, OrderChange).

Integers are strict: ``1.5``, ``"10"`` and ``true`` are not quantities. Unknown
fields are refused, so a misspelt ``qty`` is reported instead of silently ignored.
"""

from __future__ import annotations

from datetime import date
from typing import Annotated

from pydantic import (
    AfterValidator,
    AliasChoices,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
)

from sim.erp.models import OrderStatus

MAX_QUANTITY = 1_000_000
MAX_LINES = 50


def _whole_float_to_int(value: object) -> object:
    # 10.0 is a whole number in JSON; 10.5 stays a float and is refused as fractional.
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Quantity = Annotated[
    int,
    BeforeValidator(_whole_float_to_int),
    Field(strict=True, gt=0, le=MAX_QUANTITY, description="Units, a whole number > 0."),
]


def _no_nul(value: str) -> str:
    # Postgres refuses NUL in text; no real name or note contains one.
    if "\x00" in value:
        msg = "text must not contain NUL characters"
        raise ValueError(msg)
    return value


Id = Annotated[int, Field(strict=True, ge=1, le=2_147_483_647)]
Day = Annotated[date, Field(strict=True, description="YYYY-MM-DD")]
Name = Annotated[
    str,
    StringConstraints(strip_whitespace=True, min_length=1, max_length=100),
    AfterValidator(_no_nul),
]
Note = Annotated[str, StringConstraints(max_length=2000), AfterValidator(_no_nul)]
Key = Annotated[str, StringConstraints(min_length=8, max_length=128), AfterValidator(_no_nul)]


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class LineIn(_Body):
    """One order line as the client sends it."""

    part_id: Id = Field(description="The part's numeric id.")
    quantity: Quantity


class _OrderFields(_Body):
    """What a new order says, idempotency key aside."""

    supplier_id: Id
    lines: list[LineIn] = Field(min_length=1, max_length=MAX_LINES)
    currency: Annotated[str, StringConstraints(pattern=r"^[A-Z]{3}$")] | None = None
    order_date: Day | None = None
    expected_date: Day | None = None
    # ``buyer`` is the field's name before schema 2, still accepted from older clients.
    requested_by: Name | None = Field(
        default=None,
        validation_alias=AliasChoices("requested_by", "buyer"),
        description="User id of who asks for the order.",
    )
    approved_by: Name | None = Field(
        default=None, description="User id of who approved it: the order is created approved."
    )
    actor: Name | None = Field(
        default=None, description="User id recorded in the audit (default: requested_by)."
    )
    note: Note | None = None
    submit: bool = Field(default=False, strict=True)

    @field_validator("lines")
    @classmethod
    def _one_line_per_part(cls, lines: list[LineIn]) -> list[LineIn]:
        _refuse_repeated_parts(lines)
        return lines


class OrderCreate(_OrderFields):
    """``POST /orders/create``."""

    idempotency_key: Key = Field(
        description="Client-chosen key; the same key and payload always give the same order."
    )


class OrderDraft(_OrderFields):
    """``POST /orders/validate`` for a new order: an OrderCreate whose key may be left out."""

    idempotency_key: Key | None = None


class _UpdateFields(_Body):
    status: OrderStatus | None = None
    lines: list[LineIn] | None = Field(default=None, min_length=1, max_length=MAX_LINES)
    expected_date: Day | None = None
    note: Note | None = None
    approved_by: Name | None = None
    received: list[LineIn] | None = Field(default=None, min_length=1, max_length=MAX_LINES)
    actor: Name | None = None

    @field_validator("lines", "received")
    @classmethod
    def _one_line_per_part(cls, lines: list[LineIn] | None) -> list[LineIn] | None:
        if lines is not None:
            _refuse_repeated_parts(lines)
        return lines


class OrderUpdate(_UpdateFields):
    """``PUT /orders/update/{order_id}``: the expected version and what to change."""

    expected_version: Id


OrderRef = Annotated[
    Id | Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)],
    Field(description="Numeric id or order number."),
]


class OrderChange(_UpdateFields):
    """``POST /orders/validate`` for a change: the order, and an OrderUpdate whose expected
    version may be left out (then it is not checked)."""

    order_id: OrderRef
    expected_version: Id | None = None


def _refuse_repeated_parts(lines: list[LineIn]) -> None:
    seen: set[int] = set()
    for line in lines:
        if line.part_id in seen:
            msg = f"part {line.part_id} is listed twice; put its whole quantity on one line"
            raise ValueError(msg)
        seen.add(line.part_id)
