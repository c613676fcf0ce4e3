"""Give every intended order an idempotency key, so a retried or resumed run never orders twice.

The key is derived from the thread and the order's content (after any human edit), not
chosen by the model: the same order on the same thread always carries the same key,
and the ERP answers a replay with the order it already created. A different order
(another quantity, supplier, part or date) gets another key.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware, AgentState, ContextT, ResponseT
from langchain_core.messages import ToolMessage
from langgraph.prebuilt.tool_node import ToolCallRequest
from langgraph.types import Command

__all__ = ["ORDER_CREATE_TOOL", "OrderIdempotencyMiddleware", "order_idempotency_key"]

logger = logging.getLogger(__name__)

ORDER_CREATE_TOOL = "order_create"
KEY_FIELD = "idempotency_key"


def order_idempotency_key(thread_id: str, args: Mapping[str, Any]) -> str:
    """A stable key for "this order on this thread": same content, same key."""
    content = {k: v for k, v in args.items() if k != KEY_FIELD and v is not None}
    lines = content.get("lines")
    if isinstance(lines, list):
        content["lines"] = sorted(
            (dict(line) for line in lines if isinstance(line, Mapping)),
            key=lambda line: json.dumps(line, sort_keys=True, default=str),
        )
    canonical = json.dumps({"thread": thread_id, "order": content}, sort_keys=True, default=str)
    return "po-" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:40]


class OrderIdempotencyMiddleware(AgentMiddleware[AgentState[ResponseT], ContextT, ResponseT]):
    """Set ``idempotency_key`` on ``order_create`` calls from the thread id and the order."""

    async def awrap_tool_call(
        self,
        request: ToolCallRequest,
        handler: Callable[[ToolCallRequest], Awaitable[ToolMessage | Command[Any]]],
    ) -> ToolMessage | Command[Any]:
        """Fill in the key just before the call runs (after approval and edits)."""
        call = request.tool_call
        if call["name"] != ORDER_CREATE_TOOL:
            return await handler(request)
        config = getattr(request.runtime, "config", None) or {}
        thread_id = str((config.get("configurable") or {}).get("thread_id") or "")
        if not thread_id:
            # Without a thread there is nothing stable to derive from; the call id is the
            # next best thing (a retry of the same call still reuses it).
            logger.warning("order_create outside a thread: keying the order by its call id")
            thread_id = f"call:{call.get('id')}"
        args = dict(call["args"])
        args[KEY_FIELD] = order_idempotency_key(thread_id, args)
        return await handler(request.override(tool_call={**call, "args": args}))
