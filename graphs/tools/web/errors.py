"""How a fetch fails: the error codes a :class:`FetchResult` carries and the exceptions
the guard, the HTTP client and the converter raise inside one ``fetch_markdown`` call."""

from __future__ import annotations

from typing import Literal

__all__ = ["ErrorCode", "FetchFailure", "Refused", "Retryable"]

ErrorCode = Literal[
    "blocked",  # SSRF guard refused the address
    "invalid_url",
    "dns",
    "http_error",  # 4xx other than 429
    "rate_limited",
    "server_error",
    "timeout",
    "network",
    "too_many_redirects",
    "unsupported_content",
    "empty",
    "budget",
    "conversion",  # the page could not be converted within the budget
    "internal",  # a bug: reported as a result, never raised
]


class Refused(Exception):
    """The SSRF guard refused a URL; the message says why."""


class FetchFailure(Exception):
    """A failed attempt, classified; ``retry_after`` from a 429/503."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        retryable: bool = False,
    ) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.status = status
        self.retry_after = retry_after
        self.retryable = retryable


class Retryable(FetchFailure):
    """A failure worth another attempt (network, timeout, 5xx, 429)."""
