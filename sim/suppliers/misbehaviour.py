"""The shops' deliberate, deterministic misbehaviour (``SIM_SUPPLIERS_MISBEHAVE``).

ngk refuses clients without a browser User-Agent; brembo answers the first request
for a page in each window with 429 and Retry-After; denso's quote pages are slow.
(Malformed, hostile and GBK pages are decided where the pages are drawn.)
"""

from __future__ import annotations

import asyncio
import re
import time

from starlette.requests import Request
from starlette.responses import HTMLResponse, Response

from sim.suppliers.settings import SuppliersSettings
from sim.suppliers.shops import Shop

_BOT_UA = re.compile(r"bot|crawl|spider|python|curl|httpx|wget|requests|aiohttp|go-http", re.I)


def _browser_like(ua: str) -> bool:
    return ua.startswith("Mozilla/") and not _BOT_UA.search(ua)


async def misbehave(
    shop: Shop,
    request: Request,
    settings: SuppliersSettings,
    rate_seen: dict[str, float],
    *,
    quote: bool,
) -> Response | None:
    """The shop's deliberate misbehaviour for this request, or None to serve it normally.

    ``quote``: the request is for a page with prices (rate-limited and slowed);
    ``rate_seen``: when each page was first asked for in the current window (updated here).
    """
    kind = shop.misbehaviour
    if kind == "ua_403" and not _browser_like(request.headers.get("user-agent", "")):
        return HTMLResponse(
            "<html><body><h1>403 Forbidden</h1><p>Access denied: automated clients are not "
            "allowed.</p></body></html>",
            403,
        )
    if kind == "rate_limit" and quote:
        key = request.url.path + "?" + request.url.query
        now = time.monotonic()
        first = rate_seen.get(key)
        if first is None or now - first >= settings.rate_limit_window:
            rate_seen[key] = now
            return HTMLResponse(
                "<html><body><h1>429 Too Many Requests</h1></body></html>",
                429,
                headers={"Retry-After": str(settings.retry_after)},
            )
    if kind == "slow" and quote and request.url.path.startswith(f"/{shop.slug}/quote"):
        await asyncio.sleep(settings.slow_seconds)
    return None
