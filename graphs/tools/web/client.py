"""HTTP for fetch_url: one GET, pinned to the address the guard checked, per hop.

A browser-like User-Agent, per-request timeouts inside a total time budget, redirects
followed by hand and vetted again, retries with exponential backoff (tenacity) on
network errors, 5xx and 429, ``Retry-After`` honoured when it fits in the budget, and
a streamed size cap. The connection goes to the checked IP; the Host header and TLS
SNI keep the name.
"""

from __future__ import annotations

import asyncio
import ssl
import threading
import time
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urljoin

import certifi
import httpx
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type

from graphs.tools.web.errors import ErrorCode, FetchFailure, Retryable
from graphs.tools.web.guard import Guard, Target
from graphs.tools.web.settings import WebSettings

__all__ = ["Fetcher", "Raw", "new_client", "shared_ssl_context"]

_REDIRECTS = {301, 302, 303, 307, 308}


@dataclass
class Raw:
    """A response as read: final URL, status, content type and the (capped) body."""

    url: str
    status: int
    content_type: str
    body: bytes
    truncated: bool


_SSL: ssl.SSLContext | None = None
_SSL_LOCK = threading.Lock()


def _build_ssl_context() -> ssl.SSLContext:
    global _SSL
    with _SSL_LOCK:  # concurrent first calls build it once
        if _SSL is None:
            _SSL = ssl.create_default_context(cafile=certifi.where())
        return _SSL


async def shared_ssl_context() -> ssl.SSLContext:
    """One verifying TLS context for all clients, built off the event loop.

    Building it reads the CA bundle from disk (blocking I/O that ``langgraph dev``
    flags, and tens of milliseconds per client), so it is done once, in a thread.
    """
    if _SSL is not None:
        return _SSL
    return await asyncio.to_thread(_build_ssl_context)


async def new_client(**kw: Any) -> httpx.AsyncClient:
    """An AsyncClient that ignores proxy variables and reuses :func:`shared_ssl_context`."""
    return httpx.AsyncClient(verify=await shared_ssl_context(), trust_env=False, **kw)


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _refusal(status: int, resp: httpx.Response, host: str, url: str) -> FetchFailure | None:
    """The failure an answer with this status means, or None for a page to read."""
    if status == 429 or status == 503:
        ra = _retry_after(resp.headers.get("retry-after"))
        code: ErrorCode = "rate_limited" if status == 429 else "server_error"
        return Retryable(
            code,
            f"HTTP {status} from {host}" + (f" (Retry-After {ra:g} s)" if ra is not None else ""),
            status=status,
            retry_after=ra,
        )
    if status >= 500:
        return Retryable("server_error", f"HTTP {status} from {host}", status=status)
    if status >= 400:
        reason = resp.reason_phrase or ""
        return FetchFailure(
            "http_error", f"HTTP {status} {reason} from {url}".strip(), status=status
        )
    return None


class Fetcher:
    """One fetch_markdown call: client, guard and deadline."""

    def __init__(
        self, settings: WebSettings, client: httpx.AsyncClient, guard: Guard, deadline: float
    ) -> None:
        self.settings = settings
        self.client = client
        self.guard = guard
        self.deadline = deadline

    def remaining(self) -> float:
        """Seconds left of the call's total budget."""
        return self.deadline - time.monotonic()

    def _request(
        self, current: str, target: Target, accept: str, per: float
    ) -> tuple[httpx.URL, dict[str, str], httpx.Timeout, dict[str, Any]]:
        """(pinned URL, headers, timeout, extensions) of one request to a vetted target."""
        timeout = httpx.Timeout(per, connect=min(self.settings.connect_timeout, per))
        logical = httpx.URL(current)
        headers = {
            "Host": logical.netloc.decode("ascii"),
            "User-Agent": self.settings.user_agent,
            "Accept": accept,
            "Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8",
        }
        ext = {"sni_hostname": target.host} if logical.scheme == "https" else {}
        return logical.copy_with(host=target.ip), headers, timeout, ext

    async def _once(self, url: str, *, accept: str) -> Raw:
        current = url
        for _hop in range(self.settings.max_redirects + 1):
            target = await self.guard.check(current)  # again on every hop
            left = self.remaining()
            if left <= 0.05:
                raise FetchFailure("budget", "the time budget ran out.")
            per = min(self.settings.timeout, left)
            pinned, headers, timeout, ext = self._request(current, target, accept, per)
            try:
                async with (
                    asyncio.timeout(left),
                    self.client.stream(
                        "GET", pinned, headers=headers, timeout=timeout, extensions=ext
                    ) as resp,
                ):
                    status = resp.status_code
                    if status in _REDIRECTS and resp.headers.get("location"):
                        current = urljoin(current, resp.headers["location"])
                        continue
                    failure = _refusal(status, resp, target.host, current)
                    if failure is not None:
                        raise failure
                    body, truncated = await self._read(resp)
                    return Raw(
                        current, status, resp.headers.get("content-type", ""), body, truncated
                    )
            except (TimeoutError, httpx.TimeoutException) as exc:
                raise Retryable("timeout", f"timed out after {per:.1f} s at {current}") from exc
            except httpx.TransportError as exc:
                raise Retryable(
                    "network", f"could not connect to {target.host}:{target.port} ({exc!r})"
                ) from exc
        raise FetchFailure(
            "too_many_redirects", f"more than {self.settings.max_redirects} redirects from {url}"
        )

    async def _read(self, resp: httpx.Response) -> tuple[bytes, bool]:
        cap = self.settings.max_bytes
        chunks: list[bytes] = []
        size = 0
        async for chunk in resp.aiter_bytes():
            chunks.append(chunk)
            size += len(chunk)
            if size > cap:
                return b"".join(chunks)[:cap], True
        return b"".join(chunks), False

    def _wait(self, state: RetryCallState) -> float:
        exc = state.outcome.exception() if state.outcome else None
        if isinstance(exc, FetchFailure) and exc.retry_after is not None:
            return exc.retry_after
        backoff = self.settings.backoff_base * (2 ** (state.attempt_number - 1))
        return float(min(self.settings.backoff_max, backoff))

    async def get(self, url: str, *, retries: int, accept: str) -> Raw:
        """GET with retries; raises the last :class:`FetchFailure` or ``Refused``."""

        def stop(state: RetryCallState) -> bool:
            if state.attempt_number > retries:
                return True
            # Stop when the wait (Retry-After included) would not fit in the budget.
            return (state.upcoming_sleep or 0.0) + 0.05 >= self.remaining()

        async for attempt in AsyncRetrying(
            retry=retry_if_exception_type(Retryable),
            wait=self._wait,
            stop=stop,
            reraise=True,
        ):
            with attempt:
                return await self._once(url, accept=accept)
        raise AssertionError("unreachable")  # AsyncRetrying either returns or reraises
