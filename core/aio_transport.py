"""An httpx transport that sends each request with aiohttp.

The graphs reach the MCP servers, and the ERP MCP server reaches the ERP, with many
small HTTP requests: each ERP tool call is one of each. httpx's own transport
(httpcore on h11, pure Python) spends about 0.75-1.0 ms of CPU per such request on the
development machine; aiohttp, whose HTTP parser is C, about 0.3-0.4 ms for the same
request, answer read and ``httpx.Response`` built. ``scripts/bench/bench_mcp_vs_rest.py``
measures both against each other (``transport:`` line) and the tool call they serve.

Callers keep speaking httpx: requests, responses (streamed, for the MCP event streams),
exceptions, and the in-process transports tests put in its place. Only the wire
changes. aiohttp's errors become the httpx errors httpx's own transport raises for the
same fault, because retry policies read them: a refused connection is ``ConnectError``
(nothing was sent, so even a write may go again), a connect time-out ``ConnectTimeout``,
a silent server ``ReadTimeout``, a connection dropped before or during the answer
``RemoteProtocolError`` or ``ReadError`` (a read may be retried, a write may not). The
``httpx-aiohttp`` package does the same job but maps a refused connection to a time-out,
which would turn "the server is down" into "the server is slow" and stop that retry.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import httpx
from multidict import CIMultiDict
from yarl import URL

__all__ = ["AiohttpTransport", "aiohttp_client"]

# uvicorn closes an idle keep-alive connection after 5 s; a request sent on a connection
# the server is closing at that moment fails, so ours are dropped first (httpcore: 5 s).
_KEEPALIVE_S = 4.0


def _httpx_error(exc: BaseException, request: httpx.Request) -> httpx.TransportError | None:
    """The httpx error httpx's own transport raises for the fault ``exc`` reports."""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, aiohttp.ConnectionTimeoutError):
        return httpx.ConnectTimeout(text, request=request)
    if isinstance(exc, aiohttp.ServerTimeoutError | asyncio.TimeoutError):
        return httpx.ReadTimeout(text, request=request)
    if isinstance(exc, aiohttp.ClientConnectorError):  # refused, no route, no such host
        return httpx.ConnectError(text, request=request)
    if isinstance(
        exc,
        aiohttp.ServerDisconnectedError | aiohttp.ClientPayloadError | aiohttp.ClientResponseError,
    ):  # closed before or during the answer, or an answer that is not HTTP
        return httpx.RemoteProtocolError(text, request=request)
    if isinstance(exc, aiohttp.InvalidURL):
        return httpx.UnsupportedProtocol(text, request=request)
    if isinstance(exc, aiohttp.ClientError | OSError):  # reset, broken pipe, ...
        return httpx.ReadError(text, request=request)
    return None


class _Body(httpx.AsyncByteStream):
    """An answer's body as it arrives (an event stream may never end); closing it gives
    the connection back, or drops it when the body was not read to the end."""

    def __init__(self, answer: aiohttp.ClientResponse, request: httpx.Request) -> None:
        self._answer, self._request = answer, request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._answer.content.iter_any():
                yield chunk
        except Exception as exc:
            mapped = _httpx_error(exc, self._request)
            if mapped is None:
                raise
            raise mapped from exc

    async def aclose(self) -> None:
        self._answer.release()


class AiohttpTransport(httpx.AsyncBaseTransport):
    """httpx requests over one aiohttp connection pool, opened on first use on the running
    event loop and closed by :meth:`aclose` (an ``httpx.AsyncClient`` closes its
    transport when it closes)."""

    def __init__(self, *, max_connections: int = 100) -> None:
        self._max_connections = max_connections
        self._session: aiohttp.ClientSession | None = None

    def _open(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            connector = aiohttp.TCPConnector(
                limit=self._max_connections, keepalive_timeout=_KEEPALIVE_S
            )
            # As httpx's transport: no headers beyond the request's own (and Host), no
            # compression asked for, nothing decoded (httpx decodes what it is given).
            self._session = aiohttp.ClientSession(
                connector=connector,
                auto_decompress=False,
                skip_auto_headers=("Accept", "Accept-Encoding", "User-Agent"),
            )
        return self._session

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request``; the answer's status and headers, its body streamed."""
        session = self._open()
        limits = request.extensions.get("timeout", {})
        timeout = aiohttp.ClientTimeout(
            total=None,
            connect=limits.get("pool"),
            sock_connect=limits.get("connect"),
            sock_read=limits.get("read"),
        )
        try:
            answer = await session.request(
                request.method,
                URL(str(request.url), encoded=True),
                headers=CIMultiDict(request.headers.multi_items()),
                data=await request.aread() or None,
                allow_redirects=False,
                timeout=timeout,
            )
        except Exception as exc:
            mapped = _httpx_error(exc, request)
            if mapped is None:
                raise
            raise mapped from exc
        extensions: dict[str, Any] = {"http_version": b"HTTP/1.1"}
        if answer.reason:
            extensions["reason_phrase"] = answer.reason.encode()
        return httpx.Response(
            answer.status,
            headers=answer.raw_headers,
            stream=_Body(answer, request),
            request=request,
            extensions=extensions,
        )

    async def aclose(self) -> None:
        """Close the pool and its connections."""
        if self._session is not None:
            await self._session.close()
            self._session = None


def aiohttp_client(
    headers: dict[str, str] | None = None,
    timeout: httpx.Timeout | None = None,
    auth: httpx.Auth | None = None,
    **options: Any,
) -> httpx.AsyncClient:
    """An ``httpx.AsyncClient`` on :class:`AiohttpTransport`, with the MCP SDK's default
    time-outs (30 s, and 300 s to read: an event stream may stay quiet); the signature of
    the MCP transports' ``httpx_client_factory``."""
    return httpx.AsyncClient(
        headers=headers,
        timeout=timeout or httpx.Timeout(30.0, read=300.0),
        auth=auth,
        transport=AiohttpTransport(),
        **options,
    )
