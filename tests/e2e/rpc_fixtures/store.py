"""A JSON-RPC session's record as the Agent Server's Store holds it.

Each adapter instance that served the session writes its own item in the session's
namespace; what a reconnect resumes from is the item of the latest takeover (the highest
``(epoch, owner)``)."""

from __future__ import annotations

from typing import Any

from langgraph_sdk.client import LangGraphClient


async def session_items(sdk: LangGraphClient, session_id: str) -> list[dict[str, Any]]:
    """The values of every item kept for the session (one per instance that wrote it)."""
    namespace = ["rpc_sessions", session_id]
    page = await sdk.store.search_items(namespace, limit=100)
    return [dict(i["value"]) for i in page["items"] if list(i["namespace"]) == namespace]


async def session_record(sdk: LangGraphClient, session_id: str) -> dict[str, Any] | None:
    """The session's record (the latest takeover's item), or None."""
    found = await session_items(sdk, session_id)
    return max(found, key=lambda v: (v["epoch"], v["owner"])) if found else None
