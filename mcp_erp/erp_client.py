"""Async client of the ERP REST API (docs/erp_api.md).

Every failure becomes a :class:`~fastmcp.exceptions.ToolError` whose text starts
with a code: the ERP's own (``VALIDATION``, ``NOT_FOUND``, ...) followed by its
sentence, or one of ours (``ERP_UNREACHABLE``, ``ERP_TIMEOUT``, ``ERP_ERROR``)
when the ERP could not give one. Reads are retried on connection errors,
timeouts and 5xx answers. A write is sent again only when its connection was refused
(the request never left); after anything else it is not: a create is made safe to repeat
by its idempotency key, an update by its expected version, and that choice belongs to
the caller.
"""

from __future__ import annotations

import json
import logging
from types import TracebackType
from typing import Any, Self
from urllib.parse import quote

import httpx
from fastmcp import Context
from fastmcp.exceptions import ToolError
from tenacity import AsyncRetrying, retry_if_exception, stop_after_attempt, wait_exponential

from core.aio_transport import AiohttpTransport
from mcp_erp import shapes

log = logging.getLogger("erp-mcp.erp")

_USER_AGENT = "procurement-erp-mcp/0.1"
_HEADERS = {"accept": "application/json", "user-agent": _USER_AGENT}
_DETAILS_MAX = 400
# Failures after which the same GET may well succeed.
_TRANSIENT = (httpx.NetworkError, httpx.TimeoutException, httpx.RemoteProtocolError)


class _ServerError(Exception):
    """A 5xx answer to a GET, raised only so tenacity retries it."""

    def __init__(self, response: httpx.Response) -> None:
        super().__init__(f"HTTP {response.status_code}")
        self.response = response


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, (*_TRANSIENT, _ServerError))


def path_segment(value: str | int) -> str:
    """``value`` escaped for use as one segment of a URL path."""
    return quote(str(value), safe="")


class ErpClient:
    """The ERP's REST API as async calls returning decoded JSON.

    Use as an async context manager (the server's lifespan does): entering it
    opens the connection pool, leaving it closes the pool. ``transport`` (tests)
    replaces httpx's network transport and nothing else: base URL, timeouts,
    headers and retries stay as in production.
    """

    def __init__(
        self,
        base_url: str,
        *,
        connect_timeout: float = 2.0,
        read_timeout: float = 10.0,
        read_attempts: int = 3,
        retry_wait: float = 0.1,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.timeout = httpx.Timeout(read_timeout, connect=connect_timeout)
        self.read_attempts = read_attempts
        self.retry_wait = retry_wait
        self._transport = transport
        self._pool: httpx.AsyncBaseTransport | None = None

    async def __aenter__(self) -> Self:
        if self._pool is None:
            # A transport, not an httpx.AsyncClient around it: the client's layers (URL
            # merging, auth and redirect flows, cookie jar, hooks) cost about 0.2 ms of CPU
            # per request, and this proxy needs none of them. On the wire aiohttp, whose C
            # parser costs half of httpcore's CPU per request (core/aio_transport.py).
            self._pool = self._transport or AiohttpTransport()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._pool is not None:
            await self._pool.aclose()
            self._pool = None

    async def send(
        self,
        method: str,
        path: str,
        *,
        params: dict[str, Any] | None = None,
        body: Any = None,
        timeouts: httpx.Timeout | None = None,
    ) -> httpx.Response:
        """One request to ``path`` of the ERP, its whole answer read; raises when the
        lifespan has not opened the connection pool."""
        if self._pool is None:
            msg = "ErpClient is not open: use it inside 'async with' (the server lifespan)."
            raise RuntimeError(msg)
        request = httpx.Request(
            method,
            self.base_url + path,
            params=params,
            json=body,
            headers=_HEADERS,
            extensions={"timeout": (timeouts or self.timeout).as_dict()},
        )
        response = await self._pool.handle_async_request(request)
        response.request = request
        try:
            await response.aread()
        finally:
            await response.aclose()
        return response

    async def get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        """GET ``path``; retried on connection errors, timeouts and 5xx answers."""
        query = {k: v for k, v in (params or {}).items() if v is not None}
        return await self._read("GET", path, params=query)

    async def post_read(self, path: str, body: dict[str, Any]) -> Any:
        """POST ``body`` to an endpoint that writes nothing (a dry run); retried like a GET."""
        return await self._read("POST", path, body=body)

    async def _read(self, method: str, path: str, **request: Any) -> Any:
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.read_attempts),
            wait=wait_exponential(multiplier=self.retry_wait, max=2.0),
            retry=retry_if_exception(_retryable),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    response = await self.send(method, path, **request)
                    if response.status_code >= 500:
                        raise _ServerError(response)
        except _ServerError as exc:
            response = exc.response
        except httpx.TimeoutException as exc:
            raise self._timeout_error(exc, "Try again in a moment.") from None
        except httpx.TransportError as exc:
            raise self._unreachable_error(exc) from None
        return self._decode(response)

    async def post(self, path: str, body: dict[str, Any], *, on_timeout: str) -> Any:
        """POST ``body`` once; ``on_timeout`` tells the caller how to recover safely."""
        return await self._write("POST", path, body, on_timeout)

    async def put(self, path: str, body: dict[str, Any], *, on_timeout: str) -> Any:
        """PUT ``body`` once; ``on_timeout`` tells the caller how to recover safely."""
        return await self._write("PUT", path, body, on_timeout)

    async def health(self) -> dict[str, Any]:
        """Whether the ERP answers ``GET /health`` right now (one quick try, never raises)."""
        report: dict[str, Any] = {"url": self.base_url}
        quick = httpx.Timeout(2.0, connect=1.0)
        try:
            if self._pool is not None:
                response = await self.send("GET", "/health", timeouts=quick)
            else:  # asked before the lifespan opened the pool
                async with httpx.AsyncClient(
                    base_url=self.base_url, timeout=quick, transport=self._transport
                ) as http:
                    response = await http.get("/health")
        except httpx.HTTPError as exc:
            report.update(reachable=False, detail=_reason(exc))
            return report
        report["reachable"] = response.is_success
        if not response.is_success:
            report["detail"] = f"HTTP {response.status_code}"
        return report

    async def _write(self, method: str, path: str, body: dict[str, Any], on_timeout: str) -> Any:
        # A write is sent once. Only a refused connection is tried again: the request never
        # left, so the ERP cannot have run it (an ERP that is just coming back up).
        retrying = AsyncRetrying(
            stop=stop_after_attempt(self.read_attempts),
            wait=wait_exponential(multiplier=self.retry_wait, max=2.0),
            retry=retry_if_exception(lambda exc: isinstance(exc, httpx.ConnectError)),
            reraise=True,
        )
        try:
            async for attempt in retrying:
                with attempt:
                    response = await self.send(method, path, body=body)
        except httpx.TimeoutException as exc:
            raise self._timeout_error(exc, on_timeout) from None
        except httpx.TransportError as exc:
            raise self._unreachable_error(exc) from None
        return self._decode(response)

    def _decode(self, response: httpx.Response) -> Any:
        try:
            data = shapes.decode(response.content)
        except ValueError:
            data = None
        if response.is_success:
            if data is None:
                raise ToolError(
                    f"ERP_ERROR: the ERP at {self.base_url} answered HTTP "
                    f"{response.status_code} without JSON; check ERP_BASE_URL.",
                    log_level=logging.WARNING,
                )
            return data
        error = data.get("error") if isinstance(data, dict) else None
        if isinstance(error, dict) and error.get("code") and error.get("message"):
            log.info("ERP refused %s %s: %s", response.request.method, response.url.path, error)
            text = f"{error['code']}: {error['message']}"
            details = error.get("details")
            if details:
                rendered = json.dumps(details, ensure_ascii=False, separators=(",", ":"))
                text += f" Details: {rendered[:_DETAILS_MAX]}"
            # The caller's mistake, already logged above: FastMCP need not shout about it.
            raise ToolError(text, log_level=logging.DEBUG)
        log.warning(
            "ERP answered %s %s with HTTP %s and no error body",
            response.request.method,
            response.url.path,
            response.status_code,
        )
        raise ToolError(
            f"ERP_ERROR: the ERP at {self.base_url} answered HTTP {response.status_code} "
            f"to {response.request.method} {response.url.path}. Try again later; if it "
            f"persists, the ERP's operators need to look at it.",
            log_level=logging.WARNING,
        )

    def _unreachable_error(self, exc: httpx.TransportError) -> ToolError:
        log.warning("ERP at %s unreachable: %s", self.base_url, _reason(exc))
        return ToolError(
            f"ERP_UNREACHABLE: the ERP at {self.base_url} cannot be reached ({_reason(exc)}). "
            f"Check that the ERP service is running and that ERP_BASE_URL points at it "
            f"(the simulated ERP: `scripts/stack status` shows whether the launcher is "
            f"starting it again; `scripts/stack up` starts it), then try again.",
            log_level=logging.WARNING,
        )

    def _timeout_error(self, exc: httpx.TimeoutException, advice: str) -> ToolError:
        log.warning("ERP at %s timed out: %s", self.base_url, _reason(exc))
        return ToolError(
            f"ERP_TIMEOUT: the ERP at {self.base_url} did not answer in time "
            f"({type(exc).__name__}). {advice}",
            log_level=logging.WARNING,
        )


def _reason(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


LIFESPAN_KEY = "erp"


def erp_from(ctx: Context) -> ErpClient:
    """The server's open :class:`ErpClient`, as its lifespan stored it."""
    erp = ctx.lifespan_context.get(LIFESPAN_KEY)
    if not isinstance(erp, ErpClient):
        msg = "the ERP client is missing from the lifespan context; was the server started?"
        raise RuntimeError(msg)
    return erp
