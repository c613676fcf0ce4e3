"""``fetch_markdown``: a URL fetched (SSRF-guarded) and made Markdown, or a clear error.

The page is fetched directly first (:mod:`.client`) and converted (:mod:`.convert`).
When that fails in a way another route might get around (403, 429 beyond the budget,
5xx, network errors, an empty page), URL-prefix reader services (``WEB_READERS``, in
the style of r.jina.ai / markdown.new / defuddle.md) are tried in order; unreachable
ones are skipped. Public readers are never sent a private (allow-listed) URL: they
could reach it, and it would leak an internal address.

Conversion runs in worker processes (:mod:`.worker`) within what is left of the total
budget: a page too large or too nested to convert in time ends as a ``conversion``
error when the budget does, and its worker is killed. Nothing raises out of
:func:`fetch_markdown`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from graphs.tools.web import worker
from graphs.tools.web.client import Fetcher, Raw, new_client
from graphs.tools.web.convert import Converted
from graphs.tools.web.errors import ErrorCode, FetchFailure, Refused
from graphs.tools.web.guard import Guard, Resolver, Target
from graphs.tools.web.settings import WebSettings, load_settings
from graphs.tools.web_prompts import TRUNCATED_NOTE, UNTRUSTED_HEADER

__all__ = ["FetchResult", "fetch_markdown"]

log = logging.getLogger(__name__)

# Failures a reader service might get around; a 404 or a refused address it will not.
_FALLBACK_CODES = {
    "http_error", "rate_limited", "server_error", "timeout", "network", "empty", "conversion"
}  # fmt: skip
_HTML_ACCEPT = "text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8"
_READER_ACCEPT = "text/markdown,text/plain;q=0.9,text/html;q=0.8"


@dataclass
class FetchResult:
    """The outcome of :func:`fetch_markdown`. ``ok`` with ``markdown``, or an error."""

    url: str
    ok: bool
    final_url: str = ""
    status: int | None = None
    title: str = ""
    markdown: str = ""
    embedded_json: list[str] = field(default_factory=list)
    charset: str | None = None
    via: str = "direct"  # or the reader prefix that produced it
    truncated_bytes: bool = False
    error: str | None = None
    error_code: ErrorCode | None = None
    elapsed: float = 0.0
    notes: list[str] = field(default_factory=list)

    def for_model(self, max_chars: int) -> str:
        """The text the model sees: framed as untrusted data, capped with a note when cut."""
        if not self.ok:
            tried = f" ({'; '.join(self.notes)})" if self.notes else ""
            return f"Error: {self.error}{tried}"
        via = "" if self.via == "direct" else f", via reader {self.via}"
        head = UNTRUSTED_HEADER.format(url=self.final_url or self.url, via=via)
        parts = [head]
        if self.title:
            parts.append(f"Title: {self.title}")
        blocks = "".join(f"\n\n```json\n{b}\n```" for b in self.embedded_json)
        if blocks:
            blocks = "\n\nEmbedded page data (JSON from the page's scripts):" + blocks
        # The JSON is kept whole: some shops publish prices only there.
        room = max(200, max_chars - len(blocks) - sum(len(p) + 2 for p in parts))
        body = self.markdown
        if len(body) > room:
            note = TRUNCATED_NOTE.format(shown=room, total=len(body))
            body = body[:room].rstrip() + "\n\n" + note
        if self.truncated_bytes:
            body += "\n\n[The page was larger than the size cap; only its beginning was read.]"
        return "\n".join(parts) + "\n\n" + body + blocks

    def _fill(self, raw: Raw, done: Converted) -> FetchResult:
        self.ok, self.status = True, raw.status
        self.title, self.markdown, self.embedded_json = done.title, done.markdown, done.blocks
        self.charset, self.truncated_bytes = done.charset, raw.truncated
        return self


async def _convert(raw: Raw, fetcher: Fetcher) -> Converted:
    """The body converted within the budget left; raises :class:`FetchFailure`."""
    left = fetcher.remaining()
    if left <= 0.05:
        raise FetchFailure("budget", "the time budget ran out before the page was converted.")
    try:
        async with asyncio.timeout(left):
            done = await worker.convert_in_worker(
                raw.body, raw.content_type, raw.url, fetcher.settings.max_json_chars
            )
    except TimeoutError as exc:
        budget = fetcher.settings.total_budget
        raise FetchFailure(
            "conversion",
            f"{raw.url} ({len(raw.body):,} bytes) could not be converted to text within the "
            f"{budget:g} s budget: the page is too large or too deeply nested to read.",
        ) from exc
    if done.error is not None:
        raise FetchFailure(done.error_code or "conversion", done.error)
    return done


async def _fetch_direct(fetcher: Fetcher, url: str, result: FetchResult) -> FetchResult:
    raw = await fetcher.get(url, retries=fetcher.settings.max_retries, accept=_HTML_ACCEPT)
    done = await _convert(raw, fetcher)
    if not done.markdown.strip() and not done.blocks:
        raise FetchFailure("empty", f"{raw.url} returned a page with no readable content.")
    result.final_url = raw.url
    return result._fill(raw, done)


async def _fetch_reader(
    fetcher: Fetcher, prefix: str, url: str, result: FetchResult
) -> FetchResult:
    raw = await fetcher.get(
        prefix + url, retries=fetcher.settings.reader_retries, accept=_READER_ACCEPT
    )
    done = await _convert(raw, fetcher)
    if not done.markdown.strip() and not done.blocks:
        raise FetchFailure("empty", f"reader {prefix} returned nothing for {url}.")
    result.final_url, result.via = url, prefix
    return result._fill(raw, done)


def _usable_readers(settings: WebSettings, guard: Guard, target: Target) -> list[str]:
    readers = []
    for prefix in settings.readers:
        parts = urlsplit(prefix)
        if not parts.hostname:
            continue
        port = parts.port or (443 if parts.scheme == "https" else 80)
        # A private target only goes to a reader that is itself allow-listed (internal).
        if target.public or guard.is_allowed(parts.hostname, port):
            readers.append(prefix)
    return readers


def _explain(exc: FetchFailure, url: str) -> str:
    if exc.code == "rate_limited":
        return (
            f"{url} is rate-limiting requests ({exc}); waiting longer would exceed the time "
            "budget. Try again later."
        )
    if exc.code == "http_error" and exc.status in (401, 403):
        return f"{url} refused access ({exc}); the site blocks automated clients."
    if exc.code == "conversion":
        return f"could not read {url}: {exc}"
    if exc.code == "http_error" and exc.status == 404:
        return f"{url} does not exist (HTTP 404). Check the URL (e.g. in the URL map)."
    return f"could not fetch {url}: {exc}"


async def _readers(
    fetcher: Fetcher, guard: Guard, target: Target, url: str, result: FetchResult
) -> FetchResult:
    """The reader services in turn, after the direct fetch failed with ``result``."""
    for prefix in _usable_readers(fetcher.settings, guard, target):
        if fetcher.remaining() <= 0.2:
            result.notes.append("no time left for more reader services")
            break
        direct_error = result.error
        try:
            done = await _fetch_reader(fetcher, prefix, url, result)
        except (Refused, FetchFailure) as exc:
            result.notes.append(f"reader {prefix} skipped: {exc}")
            continue
        done.error, done.error_code = None, None
        done.notes.insert(0, f"direct fetch failed: {direct_error}")
        return done
    return result


async def _fetch(fetcher: Fetcher, guard: Guard, url: str, result: FetchResult) -> FetchResult:
    try:
        target = await guard.check(url)
    except Refused as exc:
        result.error, result.error_code = f"refused to fetch {url}: {exc}", "blocked"
        return result
    except FetchFailure as exc:
        result.error, result.error_code = str(exc), exc.code
        return result
    await worker.start()  # the workers load while the page downloads
    try:
        return await _fetch_direct(fetcher, url, result)
    except Refused as exc:  # a redirect pointed somewhere forbidden
        result.error, result.error_code = f"refused to follow a redirect: {exc}", "blocked"
        return result
    except FetchFailure as exc:
        result.status = exc.status
        result.error, result.error_code = _explain(exc, url), exc.code
        if exc.code not in _FALLBACK_CODES or exc.status in (404, 410):
            return result
    return await _readers(fetcher, guard, target, url, result)


async def fetch_markdown(
    url: str,
    *,
    settings: WebSettings | None = None,
    client: httpx.AsyncClient | None = None,
    resolver: Resolver | None = None,
) -> FetchResult:
    """Fetch ``url`` and convert it to Markdown; never raises (only cancellation passes).

    ``client`` lets callers share a connection pool (or tests pass a mock transport);
    ``resolver(host, port) -> [ip, ...]`` replaces DNS (default: ``loop.getaddrinfo``).
    The result says ``ok`` with the Markdown, or carries ``error`` and ``error_code``.
    """
    started = time.monotonic()
    result = FetchResult(url=url, ok=False)
    try:
        if settings is None:
            settings = await load_settings()
        guard = Guard(settings.allow_entries(), resolver)
        if client is not None:
            fetcher = Fetcher(settings, client, guard, started + settings.total_budget)
            return await _fetch(fetcher, guard, url, result)
        async with await new_client(follow_redirects=False) as own:
            fetcher = Fetcher(settings, own, guard, started + settings.total_budget)
            return await _fetch(fetcher, guard, url, result)
    except Exception as exc:  # a bug must reach the model as an error, not end its run
        log.exception("fetch_markdown failed unexpectedly for %s", url)
        result.ok, result.error_code = False, "internal"
        result.error = f"fetching {url} failed unexpectedly ({type(exc).__name__}: {exc})."
        return result
    finally:
        result.elapsed = time.monotonic() - started
