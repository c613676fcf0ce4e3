"""Argument types shared by the tools: what the model may send, checked before any request."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

SupplierStatus = Literal["active", "on_hold", "blocked"]
OrderStatus = Literal[
    "draft",
    "pending_approval",
    "approved",
    "partially_received",
    "received",
    "closed",
    "cancelled",
]

Page = Annotated[int, Field(ge=1, le=10_000, description="Page number, from 1.")]
Size = Annotated[int, Field(ge=1, le=100, description="Items per page, 1-100.")]
SupplierId = Annotated[int, Field(ge=1, description="Supplier id.")]
PartId = Annotated[int, Field(ge=1, description="Part id.")]
Text = Annotated[str, Field(max_length=200)]
Day = Annotated[date, Field(description="Date, YYYY-MM-DD.")]


class OrderLine(BaseModel):
    """One order line: a part and how many units."""

    model_config = ConfigDict(extra="forbid")

    part_id: PartId
    quantity: Annotated[int, Field(gt=0, le=10_000_000, description="Units, a whole number > 0.")]


class ReceiptLine(BaseModel):
    """Units of one part received against an order."""

    model_config = ConfigDict(extra="forbid")

    part_id: PartId
    quantity: Annotated[int, Field(gt=0, le=10_000_000, description="Units received, > 0.")]
