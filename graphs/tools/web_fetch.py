"""``fetch_url``: fetch a web page on the host and hand the model Markdown it can read.

What it promises:

- **SSRF guard.** Only http(s). Every hop's host is resolved (``loop.getaddrinfo``) and
  refused when any address is private, loopback, link-local, cloud metadata,
  unspecified, multicast or otherwise not globally routable, unless the URL's
  ``host:port`` (or ``host``), as written, is on ``WEB_ALLOWED_HOSTS`` (the supplier
  shops' address from ``SUPPLIER_SITES_URL`` always is).
  Redirects are followed by hand and checked again; the connection goes to the very
  address that was checked (the URL is pinned to it, Host header and TLS SNI keep the
  name), so a DNS answer that changes between check and connect cannot slip through.
  Cloud-metadata addresses are refused even when allow-listed.
- **Robust fetching.** A browser-like User-Agent, per-request timeouts inside a total
  time budget, retries with exponential backoff (tenacity) on network errors, 5xx and
  429, ``Retry-After`` honoured when it fits in the budget, a streamed size cap.
- **Charset.** HTTP header, then BOM, then ``<meta>``, then UTF-8, then
  charset-normalizer; GB2312/GBK are read as GB18030 (their superset).
- **Conversion.** selectolax (lexbor) parses and repairs the HTML, lifts JSON from
  ``<script type="application/json">`` / ``ld+json`` (shops that render prices with
  JavaScript only have them there), drops scripts, styles, navigation and footers,
  and picks ``<main>``/``<article>``; markdownify turns the rest into Markdown with
  tables as pipe tables.
- **Fallbacks.** When the page cannot be fetched directly (403, 429 beyond the
  budget, 5xx, network errors, an empty page), URL-prefix reader services
  (``WEB_READERS``, in the style of r.jina.ai / markdown.new / defuddle.md) are tried
  in order; unreachable ones are skipped. Public readers are never sent a private
  (allow-listed) URL: they could not reach it, and it would leak an internal address.
- **For the model.** Page text is framed as untrusted data, capped at ``max_chars``
  with a note when cut, and failures come back as an error message (a
  ``ToolMessage`` with ``status="error"`` inside a graph), never as an exception.
"""

from __future__ import annotations

import asyncio
import codecs
import ipaddress
import json
import logging
import re
import socket
import ssl
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import urljoin, urlsplit

import certifi
import httpx
from charset_normalizer import from_bytes
from langchain_core.tools import ToolException, tool
from markdownify import markdownify
from pydantic import AliasChoices, BaseModel, Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from selectolax.lexbor import LexborHTMLParser
from tenacity import AsyncRetrying, RetryCallState, retry_if_exception_type

from graphs.tools.web_prompts import FETCH_URL_DESCRIPTION, TRUNCATED_NOTE, UNTRUSTED_HEADER

__all__ = [
    "FetchResult",
    "FetchUrlInput",
    "WebSettings",
    "fetch_markdown",
    "fetch_url",
    "html_to_markdown",
    "new_client",
    "shared_ssl_context",
]

log = logging.getLogger(__name__)

DEFAULT_USER_AGENT = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)
DEFAULT_SUPPLIER_SITES_URL = "http://127.0.0.1:8300"

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
]
Resolver = Callable[[str, int], Awaitable[list[str]]]

# Failures a reader service might get around; a 404 or a refused address it will not.
_FALLBACK_CODES = {"http_error", "rate_limited", "server_error", "timeout", "network", "empty"}
_METADATA = {
    ipaddress.ip_address("169.254.169.254"),
    ipaddress.ip_address("fd00:ec2::254"),
    ipaddress.ip_address("100.100.100.200"),  # Alibaba Cloud
}
_REDIRECTS = {301, 302, 303, 307, 308}
_META_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.I)
_CHARSET_ALIASES = {"gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "cp936": "gb18030"}
_DROP_TAGS = (
    "script", "style", "noscript", "template", "svg", "iframe", "object", "embed", "nav",
    "footer", "form", "button", "input", "select", "textarea", "link", "meta", "head",
)  # fmt: skip
_JSON_SCRIPTS = 'script[type="application/json"], script[type="application/ld+json"]'


def _split_list(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [v.strip() for v in text.split(",") if v.strip()]
    return value


class WebSettings(BaseSettings):
    """fetch_url's settings (env prefix ``WEB_``; lists as JSON or comma-separated)."""

    model_config = SettingsConfigDict(
        env_prefix="WEB_", env_file=".env", extra="ignore", populate_by_name=True
    )

    supplier_sites_url: str = Field(
        default=DEFAULT_SUPPLIER_SITES_URL,
        validation_alias=AliasChoices("SUPPLIER_SITES_URL", "supplier_sites_url"),
        description="The simulated supplier shops; their host:port is always allowed.",
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Extra 'host:port' or 'host' entries exempt from the private-address "
        "guard (cloud metadata stays refused).",
    )
    readers: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: [
            "https://r.jina.ai/",
            "https://markdown.new/",
            "https://defuddle.md/",
        ],
        description="URL-prefix reader services tried in order when a direct fetch fails.",
    )
    user_agent: str = DEFAULT_USER_AGENT
    timeout: float = Field(default=10.0, gt=0, description="Per request, seconds.")
    connect_timeout: float = Field(default=5.0, gt=0)
    total_budget: float = Field(
        default=30.0, gt=0, description="Everything, retries and readers included, seconds."
    )
    max_retries: int = Field(default=3, ge=0, description="Retries after the first attempt.")
    reader_retries: int = Field(default=1, ge=0)
    backoff_base: float = Field(default=0.25, ge=0)
    backoff_max: float = Field(default=4.0, ge=0)
    max_bytes: int = Field(default=3_000_000, ge=1024, description="Response size cap.")
    max_redirects: int = Field(default=5, ge=0)
    max_chars: int = Field(default=20_000, ge=500, description="Text handed to the model.")
    max_json_chars: int = Field(default=8_000, ge=200, description="Per embedded JSON block.")

    _split = field_validator("allowed_hosts", "readers", mode="before")(_split_list)

    def allow_entries(self) -> set[str]:
        """The allow-list, lower-cased, with the supplier shops' host:port added."""
        entries = {e.strip().lower() for e in self.allowed_hosts if e.strip()}
        shops = urlsplit(self.supplier_sites_url)
        if shops.hostname:
            port = shops.port or (443 if shops.scheme == "https" else 80)
            entries.add(_hostport(shops.hostname, port))
        return entries


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


class Refused(Exception):
    """The SSRF guard refused a URL; the message says why."""


class _Failure(Exception):
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


class _Retryable(_Failure):
    pass


@dataclass(frozen=True)
class _Target:
    url: str
    host: str
    port: int
    ip: str
    public: bool


@dataclass
class _Raw:
    url: str
    status: int
    content_type: str
    body: bytes
    truncated: bool


_SettingsT = TypeVar("_SettingsT", bound=BaseSettings)


async def _load(cls: type[_SettingsT]) -> _SettingsT:
    """Settings read in a thread: pydantic-settings reads ``.env``, blocking I/O."""
    return await asyncio.to_thread(cls)


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


def _hostport(host: str, port: int) -> str:
    host = host.lower().strip("[]")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


async def _system_resolve(host: str, port: int) -> list[str]:
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _is_public(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if isinstance(ip, ipaddress.IPv6Address):
        embedded = ip.ipv4_mapped or ip.sixtofour
        if embedded is None and ip in ipaddress.ip_network("64:ff9b::/96"):
            embedded = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
        if embedded is not None and not _is_public(embedded):
            return False
    return ip.is_global and not (ip.is_multicast or ip.is_unspecified or ip.is_reserved)


class _Guard:
    """Resolves and vets every URL before a connection is made to it."""

    def __init__(self, settings: WebSettings, resolver: Resolver | None) -> None:
        self.allowed = settings.allow_entries()
        self.resolve = resolver or _system_resolve

    def is_allowed(self, host: str, port: int) -> bool:
        host = host.lower().strip("[]")
        return _hostport(host, port) in self.allowed or host in self.allowed

    async def check(self, url: str) -> _Target:
        try:
            parts = urlsplit(url)
            port = parts.port
        except ValueError as exc:
            raise _Failure("invalid_url", f"{url!r} is not a valid URL ({exc}).") from exc
        if parts.scheme not in ("http", "https"):
            raise Refused(f"only http and https URLs can be fetched, not {parts.scheme or '?'}:")
        host = parts.hostname
        if not host:
            raise _Failure("invalid_url", f"{url!r} has no host name.")
        if parts.username or parts.password:
            raise Refused("URLs with embedded credentials are not fetched.")
        port = port or (443 if parts.scheme == "https" else 80)
        try:
            ips = [ipaddress.ip_address(host.strip("[]"))]
        except ValueError:
            try:
                found = await self.resolve(host, port)
            except (OSError, UnicodeError) as exc:
                raise _Failure("dns", f"could not resolve host {host!r} ({exc}).") from exc
            ips = [ipaddress.ip_address(a.split("%")[0]) for a in found]
        if not ips:
            raise _Failure("dns", f"host {host!r} has no addresses.")
        for ip in ips:
            if ip in _METADATA or (ip.version == 6 and ip.ipv4_mapped in _METADATA):
                raise Refused(f"{host} resolves to the cloud metadata address {ip}; refused.")
        private = [ip for ip in ips if not _is_public(ip)]
        # Matched on the host as written, not on what it resolves to: otherwise any name
        # pointed at an allowed internal address (DNS rebinding) would be let in too.
        if private and not self.is_allowed(host, port):
            shown = host if host.strip("[]") == str(private[0]) else f"{host} ({private[0]})"
            raise Refused(
                f"{shown}:{port} is a private, loopback, link-local or otherwise internal "
                "address and is not on the allow-list (WEB_ALLOWED_HOSTS)."
            )
        return _Target(url, host, port, str(ips[0]), public=not private)


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


class _Fetcher:
    """One fetch_markdown call: client, guard, deadline and the notes on what was tried."""

    def __init__(
        self, settings: WebSettings, client: httpx.AsyncClient, guard: _Guard, deadline: float
    ) -> None:
        self.settings = settings
        self.client = client
        self.guard = guard
        self.deadline = deadline

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    async def _once(self, url: str, *, accept: str) -> _Raw:
        current = url
        for _hop in range(self.settings.max_redirects + 1):
            target = await self.guard.check(current)  # again on every hop
            left = self.remaining()
            if left <= 0.05:
                raise _Failure("budget", "the time budget ran out.")
            per = min(self.settings.timeout, left)
            timeout = httpx.Timeout(per, connect=min(self.settings.connect_timeout, per))
            logical = httpx.URL(current)
            pinned = logical.copy_with(host=target.ip)
            headers = {
                "Host": logical.netloc.decode("ascii"),
                "User-Agent": self.settings.user_agent,
                "Accept": accept,
                "Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8",
            }
            ext = {"sni_hostname": target.host} if logical.scheme == "https" else {}
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
                    if status == 429 or status == 503:
                        ra = _retry_after(resp.headers.get("retry-after"))
                        code: ErrorCode = "rate_limited" if status == 429 else "server_error"
                        raise _Retryable(
                            code,
                            f"HTTP {status} from {target.host}"
                            + (f" (Retry-After {ra:g} s)" if ra is not None else ""),
                            status=status,
                            retry_after=ra,
                        )
                    if status >= 500:
                        raise _Retryable(
                            "server_error", f"HTTP {status} from {target.host}", status=status
                        )
                    if status >= 400:
                        reason = resp.reason_phrase or ""
                        raise _Failure(
                            "http_error",
                            f"HTTP {status} {reason} from {current}".strip(),
                            status=status,
                        )
                    body, truncated = await self._read(resp)
                    return _Raw(
                        current, status, resp.headers.get("content-type", ""), body, truncated
                    )
            except TimeoutError as exc:
                raise _Retryable("timeout", f"timed out after {per:.1f} s at {current}") from exc
            except httpx.TimeoutException as exc:
                raise _Retryable("timeout", f"timed out after {per:.1f} s at {current}") from exc
            except httpx.TransportError as exc:
                raise _Retryable(
                    "network", f"could not connect to {target.host}:{target.port} ({exc!r})"
                ) from exc
        raise _Failure(
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
        if isinstance(exc, _Failure) and exc.retry_after is not None:
            return exc.retry_after
        backoff = self.settings.backoff_base * (2 ** (state.attempt_number - 1))
        return float(min(self.settings.backoff_max, backoff))

    async def get(self, url: str, *, retries: int, accept: str) -> _Raw:
        """GET with retries; raises the last :class:`_Failure` or :class:`Refused`."""

        def stop(state: RetryCallState) -> bool:
            if state.attempt_number > retries:
                return True
            # Stop when the wait (Retry-After included) would not fit in the budget.
            return (state.upcoming_sleep or 0.0) + 0.05 >= self.remaining()

        async for attempt in AsyncRetrying(
            retry=retry_if_exception_type(_Retryable),
            wait=self._wait,
            stop=stop,
            reraise=True,
        ):
            with attempt:
                return await self._once(url, accept=accept)
        raise AssertionError("unreachable")  # AsyncRetrying either returns or reraises


def _decode(body: bytes, content_type: str) -> tuple[str, str]:
    charset = None
    m = re.search(r"charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", content_type, re.I)
    if m:
        charset = m.group(1)
    elif body.startswith(codecs.BOM_UTF8):
        charset = "utf-8-sig"
    elif body.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        charset = "utf-16"
    else:
        meta = _META_CHARSET.search(body[:4096])
        if meta:
            charset = meta.group(1).decode("ascii", "ignore")
    if charset:
        name = _CHARSET_ALIASES.get(charset.lower(), charset)
        try:
            codecs.lookup(name)
            return body.decode(name, "replace"), name
        except LookupError:
            pass
    try:
        return body.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    best = from_bytes(body).best()
    if best is not None and best.encoding:
        name = _CHARSET_ALIASES.get(best.encoding.lower(), best.encoding)
        return body.decode(name, "replace"), name
    return body.decode("utf-8", "replace"), "utf-8"


def _json_block(raw: str, cap: int) -> str | None:
    raw = raw.strip()
    if not raw:
        return None
    try:
        text = json.dumps(json.loads(raw), ensure_ascii=False)
    except ValueError:
        text = raw
    if len(text) > cap:
        text = text[:cap] + "\n… (truncated)"
    return text


def html_to_markdown(
    html: str, base_url: str = "", *, max_json_chars: int = 8000
) -> tuple[str, str, list[str]]:
    """Convert a page to ``(title, markdown, embedded_json_blocks)``.

    Tables become pipe tables, links absolute; scripts, styles, navigation, footers
    and forms are dropped, but JSON in ``application/json`` and ``application/ld+json``
    scripts is returned (pretty-printed) because some pages carry their data only there.
    """
    tree = LexborHTMLParser(html)
    title_node = tree.css_first("title")
    title = title_node.text(strip=True) if title_node else ""
    blocks = [
        b
        for node in tree.css(_JSON_SCRIPTS)
        if (b := _json_block(node.text(deep=True), max_json_chars)) is not None
    ]
    for tag in _DROP_TAGS:
        for node in tree.css(tag):
            node.decompose()
    for a in tree.css("a"):
        href = (a.attributes.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:", "mailto:")):
            a.unwrap()
        elif base_url:
            a.attrs["href"] = urljoin(base_url, href)
    for img in tree.css("img"):
        img.decompose()
    # Headings left open by broken markup swallow whole sections: unwrap those.
    for heading in tree.css("h1, h2, h3, h4, h5, h6"):
        if heading.css_first("p, div, table, section, ul, ol, dl, h1, h2, h3") is not None:
            heading.unwrap()
    root: Any = None
    for selector in ("main", "article", '[role="main"]'):
        found = tree.css_first(selector)
        if found is not None and len(found.text(strip=True)) >= 40:
            root = found
            break
    if root is None:
        root = tree.body or tree.root
    fragment = root.html if root is not None else ""
    md = markdownify(fragment or "", heading_style="ATX", bullets="-", escape_underscores=False)
    md = re.sub(r"[ \t]+\n", "\n", md)
    md = re.sub(r"\n{3,}", "\n\n", md).strip()
    return title, md, blocks


def _is_html(content_type: str, body: bytes) -> bool:
    ct = content_type.split(";")[0].strip().lower()
    if ct in ("text/html", "application/xhtml+xml"):
        return True
    if ct:
        return False
    head = body[:512].lstrip().lower()
    return head.startswith((b"<!doctype html", b"<html")) or b"<body" in head


def _convert(raw: _Raw, settings: WebSettings) -> tuple[str, str, list[str], str]:
    text, charset = _decode(raw.body, raw.content_type)
    ct = raw.content_type.split(";")[0].strip().lower()
    if _is_html(raw.content_type, raw.body):
        title, md, blocks = html_to_markdown(text, raw.url, max_json_chars=settings.max_json_chars)
        return title, md, blocks, charset
    if ct.endswith("json"):
        block = _json_block(text, settings.max_json_chars * 4)
        return "", f"```json\n{block or ''}\n```", [], charset
    if ct.startswith("text/") or not ct:
        return "", text.strip(), [], charset
    raise _Failure("unsupported_content", f"{raw.url} is {ct}, not a web page fetch_url can read.")


async def _fetch_direct(fetcher: _Fetcher, url: str, result: FetchResult) -> FetchResult:
    raw = await fetcher.get(
        url,
        retries=fetcher.settings.max_retries,
        accept="text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8",
    )
    if len(raw.body) > 200_000:  # big pages: keep the event loop free while converting
        title, md, blocks, charset = await asyncio.to_thread(_convert, raw, fetcher.settings)
    else:
        title, md, blocks, charset = _convert(raw, fetcher.settings)
    if not md.strip() and not blocks:
        raise _Failure("empty", f"{raw.url} returned a page with no readable content.")
    result.ok, result.final_url, result.status = True, raw.url, raw.status
    result.title, result.markdown, result.embedded_json = title, md, blocks
    result.charset, result.truncated_bytes = charset, raw.truncated
    return result


async def _fetch_reader(
    fetcher: _Fetcher, prefix: str, url: str, result: FetchResult
) -> FetchResult:
    raw = await fetcher.get(
        prefix + url,
        retries=fetcher.settings.reader_retries,
        accept="text/markdown,text/plain;q=0.9,text/html;q=0.8",
    )
    title, md, blocks, charset = _convert(raw, fetcher.settings)
    if not md.strip() and not blocks:
        raise _Failure("empty", f"reader {prefix} returned nothing for {url}.")
    result.ok, result.final_url, result.status, result.via = True, url, raw.status, prefix
    result.title, result.markdown, result.embedded_json = title, md, blocks
    result.charset, result.truncated_bytes = charset, raw.truncated
    return result


def _usable_readers(settings: WebSettings, guard: _Guard, target: _Target) -> list[str]:
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


async def fetch_markdown(
    url: str,
    *,
    settings: WebSettings | None = None,
    client: httpx.AsyncClient | None = None,
    resolver: Resolver | None = None,
) -> FetchResult:
    """Fetch ``url`` and convert it to Markdown; never raises for fetch problems.

    ``client`` lets callers share a connection pool (or tests pass a mock transport);
    ``resolver(host, port) -> [ip, ...]`` replaces DNS (default: ``loop.getaddrinfo``).
    The result says ``ok`` with the Markdown, or carries ``error`` and ``error_code``.
    """
    if settings is None:
        settings = await _load(WebSettings)
    started = time.monotonic()
    result = FetchResult(url=url, ok=False)
    guard = _Guard(settings, resolver)
    own = client is None
    if client is None:
        client = await new_client(follow_redirects=False)
    fetcher = _Fetcher(settings, client, guard, started + settings.total_budget)
    try:
        try:
            target = await guard.check(url)
        except Refused as exc:
            result.error, result.error_code = f"refused to fetch {url}: {exc}", "blocked"
            return result
        except _Failure as exc:
            result.error, result.error_code = str(exc), exc.code
            return result
        try:
            return await _fetch_direct(fetcher, url, result)
        except Refused as exc:  # a redirect pointed somewhere forbidden
            result.error, result.error_code = f"refused to follow a redirect: {exc}", "blocked"
            return result
        except _Failure as exc:
            result.status = exc.status
            result.error, result.error_code = _explain(exc, url), exc.code
            if exc.code not in _FALLBACK_CODES or exc.status in (404, 410):
                return result
        for prefix in _usable_readers(settings, guard, target):
            if fetcher.remaining() <= 0.2:
                result.notes.append("no time left for more reader services")
                break
            direct_error = result.error
            try:
                done = await _fetch_reader(fetcher, prefix, url, result)
                done.error, done.error_code = None, None
                done.notes.insert(0, f"direct fetch failed: {direct_error}")
                return done
            except (Refused, _Failure) as exc:
                result.notes.append(f"reader {prefix} skipped: {exc}")
        return result
    finally:
        result.elapsed = time.monotonic() - started
        if own:
            await client.aclose()


def _explain(exc: _Failure, url: str) -> str:
    if exc.code == "rate_limited":
        return (
            f"{url} is rate-limiting requests ({exc}); waiting longer would exceed the time "
            "budget. Try again later."
        )
    if exc.code == "http_error" and exc.status in (401, 403):
        return f"{url} refused access ({exc}); the site blocks automated clients."
    if exc.code == "http_error" and exc.status == 404:
        return f"{url} does not exist (HTTP 404). Check the URL (e.g. in the URL map)."
    return f"could not fetch {url}: {exc}"


class FetchUrlInput(BaseModel):
    """Arguments of the fetch_url tool."""

    url: str = Field(description="Absolute http(s) URL of the page, e.g. a supplier quote page.")
    max_chars: int | None = Field(
        default=None,
        ge=500,
        le=100_000,
        description="Cap on the returned text (default 20000); the page is cut with a note.",
    )


@tool("fetch_url", args_schema=FetchUrlInput, description=FETCH_URL_DESCRIPTION)
async def fetch_url(url: str, max_chars: int | None = None) -> str:
    """Fetch ``url`` as Markdown for the model; failures become error tool messages."""
    try:
        settings = await _load(WebSettings)
        result = await fetch_markdown(url, settings=settings)
    except Exception as exc:  # a tool must not take the graph down
        log.exception("fetch_url failed unexpectedly for %s", url)
        msg = f"Error: fetch_url failed unexpectedly for {url} ({type(exc).__name__})."
        raise ToolException(msg) from exc
    text = result.for_model(max_chars or settings.max_chars)
    if not result.ok:
        log.info("fetch_url %s: %s", url, result.error)
        raise ToolException(text)
    log.info("fetch_url %s: %d chars via %s in %.2fs", url, len(text), result.via, result.elapsed)
    return text


fetch_url.handle_tool_error = True
