"""``request_order_info``: pause the run to ask the buyer for what an order still lacks."""

from __future__ import annotations

import json
from typing import Annotated

from langchain_core.tools import StructuredTool
from langgraph.types import interrupt
from pydantic import BaseModel, Field

from core.interrupts import ORDER_QUESTION, OrderQuestion

__all__ = ["REQUEST_ORDER_INFO_DESCRIPTION", "OrderInfoRequest", "make_request_order_info"]

REQUEST_ORDER_INFO_DESCRIPTION = (
    "Ask the human for order details you do not have (quantity, supplier, part, delivery date, "
    "order number, ...). The run pauses until they answer; the result is their answer as JSON. "
    "Ask for every missing field in one call."
)


class OrderInfoRequest(BaseModel):
    """Arguments of ``request_order_info``."""

    fields: Annotated[
        list[str],
        Field(min_length=1, description="Missing fields, e.g. ['quantity', 'expected_date']."),
    ]
    question: Annotated[
        str, Field(min_length=1, description="The question, in the user's language.")
    ]
    options: Annotated[
        list[str] | None, Field(description="Choices to offer, e.g. candidate parts.")
    ] = None


def _ask(fields: list[str], question: str, options: list[str] | None = None) -> str:
    # The shape clients read (core.interrupts): the JSON-RPC adapter shows it as a question.
    payload: OrderQuestion = {"type": ORDER_QUESTION, "fields": fields, "question": question}
    if options:
        payload["options"] = options
    # The resume value is whatever the client sends: a mapping of field -> value, or text.
    answer = interrupt(payload)
    if isinstance(answer, dict):
        return json.dumps({"answers": answer}, ensure_ascii=False, default=str)
    return json.dumps({"answer": str(answer)}, ensure_ascii=False)


async def _aask(fields: list[str], question: str, options: list[str] | None = None) -> str:
    return _ask(fields, question, options)


def make_request_order_info() -> StructuredTool:
    """The tool; resume the interrupted run with ``{"quantity": 200, ...}`` or plain text."""
    return StructuredTool.from_function(
        func=_ask,
        coroutine=_aask,
        name="request_order_info",
        description=REQUEST_ORDER_INFO_DESCRIPTION,
        args_schema=OrderInfoRequest,
    )
