"""The LangGraph SDK client for programs outside the Agent Server (the standalone JSON-RPC
adapter, the demo, the approvals CLI, the soak).

The SDK's HTTP pool keeps an idle connection 5 s, and ``langgraph dev`` (uvicorn's
default) closes an idle connection after 5 s too. A request sent on a connection at about
that age can meet the server closing it and fail with "Server disconnected without sending
a response", which the SDK does not send again. This client drops its idle connections
after :data:`IDLE_S`, well before any server closes them. Our own services keep idle
connections 75 s for the same reason (``core/serve.py``); ``langgraph dev``'s server is
not ours to configure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import httpx
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

__all__ = ["IDLE_S", "agent_client"]

IDLE_S: Final = 2.0
"""Seconds an idle connection is kept: below the 5 s after which ``langgraph dev`` closes it."""


def agent_client(
    url: str | None,
    *,
    headers: Mapping[str, str] | None = None,
    timeout: float | None = None,
    **options: Any,
) -> LangGraphClient:
    """``langgraph_sdk.get_client(url=..., headers=..., timeout=..., **options)`` whose
    connections to ``url`` are dropped after :data:`IDLE_S` idle. ``url`` None: the
    in-process client (no sockets), unchanged."""
    sdk = get_client(url=url, headers=headers, timeout=timeout, **options)
    if url is None:
        return sdk
    made = sdk.http.client  # the SDK's base URL, headers (its user agent, the key) and timeouts
    transport = httpx.AsyncHTTPTransport(retries=5, limits=httpx.Limits(keepalive_expiry=IDLE_S))
    return LangGraphClient(
        httpx.AsyncClient(
            base_url=made.base_url, headers=made.headers, timeout=made.timeout, transport=transport
        )
    )
