"""Idempotency keys for orders, so a retried or resumed run never orders twice.

The key is derived from the thread and the order's content as it is actually sent
(after any human edit), never chosen by the model: the same order on the same thread
always carries the same key, and the ERP answers a replay with the order it already
created. A different order (another quantity, supplier, part or date) gets another key.
It is filled in inside the ``order_create`` tool itself, so it sees the final arguments
whatever middleware (approval, edits) ran before.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from typing import Any

from langgraph.config import get_config

__all__ = ["KEY_FIELD", "fill_order_key", "order_idempotency_key"]

logger = logging.getLogger(__name__)

KEY_FIELD = "idempotency_key"
# Who asks, approves or sends an order, and a reviewer's steering flags, are not what it
# orders: a retry by another person (an approver resuming after a crash) is the same order.
_NOT_CONTENT = frozenset({KEY_FIELD, "requested_by", "approved_by", "actor", "confirm_duplicate"})


def order_idempotency_key(thread_id: str, args: Mapping[str, Any]) -> str:
    """A stable key for "this order on this thread": same content, same key (8-128 chars)."""
    content = {k: v for k, v in args.items() if k not in _NOT_CONTENT and v is not None}
    lines = content.get("lines")
    if isinstance(lines, list):
        content["lines"] = sorted(
            (dict(line) for line in lines if isinstance(line, Mapping)),
            key=lambda line: json.dumps(line, sort_keys=True, default=str),
        )
    canonical = json.dumps({"thread": thread_id, "order": content}, sort_keys=True, default=str)
    return "po-" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:40]


def fill_order_key(args: dict[str, Any]) -> dict[str, Any]:
    """``args`` with the key set from the current run's thread (replacing any given one)."""
    try:
        thread_id = str((get_config().get("configurable") or {}).get("thread_id") or "")
    except RuntimeError:  # outside a graph run
        thread_id = ""
    if not thread_id:
        # Nothing stable to derive from: key by content alone, still safe to retry.
        logger.warning("order_create outside a thread: keying the order by its content only")
    return {**args, KEY_FIELD: order_idempotency_key(thread_id, args)}
