"""``web_search``: one search tool, several providers behind it.

- ``local`` (default): the supplier shops' own search endpoints (listed by
  ``SUPPLIER_SITES_URL/shops.json``), queried concurrently, merged, re-ranked with
  one scoring for all shops (so shops' scores need not agree) and capped per shop so
  a distributor with hundreds of parts does not crowd out the makers.
- ``zhipu``: the reference design's web search API (``POST {ZHIPU_BASE_URL}/web_search``,
  Bearer ``ZHIPU_API_KEY``, ``{search_query, search_engine, count}`` → ``search_result``).

Both return :class:`SearchResult` (title, url, snippet, source). Failures come back to
the model as an error message, never as an exception that ends the run.
"""

from __future__ import annotations

import asyncio
import logging
import re
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol
from urllib.parse import quote

import httpx
from langchain_core.tools import ToolException, tool
from pydantic import AliasChoices, BaseModel, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphs.tools.web.client import new_client
from graphs.tools.web.settings import DEFAULT_SUPPLIER_SITES_URL, DEFAULT_USER_AGENT
from graphs.tools.web_prompts import WEB_SEARCH_DESCRIPTION

__all__ = [
    "LocalShopsSearch",
    "SearchProvider",
    "SearchResponse",
    "SearchResult",
    "WebSearchInput",
    "WebSearchSettings",
    "ZhipuSearch",
    "make_provider",
    "run_search",
    "web_search",
]

log = logging.getLogger(__name__)

# Words that ask for a price but name no product: they never decide relevance alone.
_GENERIC = {
    "price", "prices", "quote", "quotes", "quotation", "buy", "cost", "supplier", "suppliers",
    "shop", "online", "for", "the", "and", "of", "报价", "价格", "多少钱", "采购", "供应商",
    "购买", "比价", "摩托车", "motorcycle", "moto", "part", "parts", "配件",
}  # fmt: skip
_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9.&/-]*|[\u4e00-\u9fff]+")
_CJK = re.compile(r"[\u4e00-\u9fff]")


class WebSearchSettings(BaseSettings):
    """web_search's settings (env prefix ``WEB_SEARCH_``, plus ``ZHIPU_*`` names)."""

    model_config = SettingsConfigDict(
        env_prefix="WEB_SEARCH_", env_file=".env", extra="ignore", populate_by_name=True
    )

    provider: Literal["local", "zhipu"] = "local"
    supplier_sites_url: str = Field(
        default=DEFAULT_SUPPLIER_SITES_URL,
        validation_alias=AliasChoices("SUPPLIER_SITES_URL", "supplier_sites_url"),
    )
    zhipu_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("ZHIPU_API_KEY", "zhipu_api_key")
    )
    zhipu_base_url: str = Field(
        default="https://open.bigmodel.cn/api/paas/v4",
        validation_alias=AliasChoices("ZHIPU_BASE_URL", "zhipu_base_url"),
    )
    zhipu_engine: str = Field(default="search_std", description="search_std, search_pro, ...")
    timeout: float = Field(default=10.0, gt=0)
    count: int = Field(default=8, ge=1, le=50)
    user_agent: str = DEFAULT_USER_AGENT


@dataclass(frozen=True)
class SearchResult:
    """One hit: what the page is, where it is, a line about it, and who found it."""

    title: str
    url: str
    snippet: str
    source: str
    score: float = 0.0


@dataclass
class SearchResponse:
    """The results of one query, and the sources that failed along the way."""

    query: str
    provider: str
    results: list[SearchResult] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    total: int = 0

    def for_model(self) -> str:
        """Numbered results as text for the model."""
        if not self.results:
            failed = f" ({'; '.join(self.errors)})" if self.errors else ""
            return f'No results for "{self.query}" from the {self.provider} search{failed}.'
        lines = [
            f'Search results for "{self.query}" ({self.provider}, {len(self.results)} of '
            f"{max(self.total, len(self.results))}):"
        ]
        for i, r in enumerate(self.results, 1):
            lines.append(f"{i}. {r.title}\n   URL: {r.url}\n   {r.snippet}")
        if self.errors:
            lines.append("Some sources failed: " + "; ".join(self.errors))
        return "\n".join(lines)


class SearchProvider(Protocol):
    """A search backend."""

    name: str

    async def search(self, query: str, count: int) -> SearchResponse:
        """Up to ``count`` results for ``query``; failures are reported in ``errors``."""
        ...


def query_terms(query: str) -> list[str]:
    """Lower-cased terms of ``query``: ASCII words and runs of Chinese characters."""
    return [t for t in (_strip_generic(m.lower()) for m in _TOKEN.findall(query)) if t]


def _strip_generic(token: str) -> str:
    if token in _GENERIC:
        return ""
    if _CJK.match(token):  # "火花塞价格" -> "火花塞"
        for word in sorted((w for w in _GENERIC if _CJK.match(w)), key=len, reverse=True):
            token = token.replace(word, "")
    return token


def relevance(terms: list[str], text: str) -> float:
    """How well ``text`` matches ``terms`` (0 when none does); Chinese runs by bigrams."""
    text = text.lower()
    total = 0.0
    for t in terms:
        if t in text:
            total += 1.0
        elif _CJK.match(t) and len(t) > 2:
            grams = [t[i : i + 2] for i in range(len(t) - 1)]
            share = sum(g in text for g in grams) / len(grams)
            total += share if share > 0.5 else 0.0
    return total


def inexactness(terms: list[str], name: str) -> float:
    """A small penalty per word of ``name`` no term equals ("火花塞帽" for "火花塞").

    It only reorders hits that match equally well: exact names first.
    """
    words = [w for w in re.split(r"[\s,;:()|]+", name.lower()) if w]
    return 0.05 * sum(1 for w in words if w not in terms)


class LocalShopsSearch:
    """Searches every supplier shop and merges their answers."""

    name = "local"

    def __init__(
        self, settings: WebSearchSettings, *, client: httpx.AsyncClient | None = None
    ) -> None:
        self.settings = settings
        self.client = client

    async def _get(self, client: httpx.AsyncClient, url: str) -> Any:
        resp = await client.get(url, headers={"User-Agent": self.settings.user_agent})
        resp.raise_for_status()
        return resp.json()

    async def search(self, query: str, count: int) -> SearchResponse:
        """Ask each shop, then rank all hits by one relevance measure."""
        out = SearchResponse(query=query, provider="local supplier shops")
        base = self.settings.supplier_sites_url.rstrip("/")
        client = self.client or await new_client(timeout=self.settings.timeout)
        try:
            try:
                shops = (await self._get(client, f"{base}/shops.json"))["shops"]
            except (httpx.HTTPError, ValueError, KeyError) as exc:
                out.errors.append(f"supplier shops at {base} unreachable ({exc!r})")
                return out
            limit = max(count, 10)
            answers = await asyncio.gather(
                *(
                    self._get(client, f"{s['search_api_url']}{quote(query)}&limit={limit}")
                    for s in shops
                ),
                return_exceptions=True,
            )
        finally:
            if self.client is None:
                await client.aclose()
        terms = query_terms(query)
        hits: list[SearchResult] = []
        for shop, answer in zip(shops, answers, strict=True):
            if isinstance(answer, BaseException):
                out.errors.append(f"{shop['slug']}: {answer!r}")
                continue
            for r in answer.get("results", []):
                text = f"{r['title']} {r['snippet']} {r['url']}"
                score = relevance(terms, text) - inexactness(terms, r["title"].split("|")[0])
                score += 0.01 * float(r.get("score", 0))
                hits.append(SearchResult(r["title"], r["url"], r["snippet"], shop["slug"], score))
        out.total = len(hits)
        out.results = _diverse_top(hits, count)
        return out


def _diverse_top(hits: list[SearchResult], count: int) -> list[SearchResult]:
    """The best ``count`` hits, at most about half from any one source, urls unique."""
    per_source = max(2, (count + 1) // 2)
    ranked = sorted(hits, key=lambda h: (-h.score, h.source, h.url))
    taken: dict[str, int] = {}
    seen: set[str] = set()
    out: list[SearchResult] = []
    spill: list[SearchResult] = []
    for h in ranked:
        if h.url in seen:
            continue
        seen.add(h.url)
        if taken.get(h.source, 0) >= per_source:
            spill.append(h)
            continue
        taken[h.source] = taken.get(h.source, 0) + 1
        out.append(h)
        if len(out) == count:
            return out
    return out + spill[: count - len(out)]


class ZhipuSearch:
    """Zhipu (bigmodel.cn) web search API."""

    name = "zhipu"

    def __init__(
        self, settings: WebSearchSettings, *, client: httpx.AsyncClient | None = None
    ) -> None:
        if settings.zhipu_api_key is None:
            msg = "web_search provider 'zhipu' needs ZHIPU_API_KEY (see .env.example)."
            raise ValueError(msg)
        self.settings = settings
        self.client = client

    async def search(self, query: str, count: int) -> SearchResponse:
        """POST the query to ``{ZHIPU_BASE_URL}/web_search`` and map ``search_result``."""
        out = SearchResponse(query=query, provider=f"zhipu {self.settings.zhipu_engine}")
        key = self.settings.zhipu_api_key
        assert key is not None
        body = {
            "search_query": query[:70],  # the API's limit
            "search_engine": self.settings.zhipu_engine,
            "count": min(50, count),
        }
        url = self.settings.zhipu_base_url.rstrip("/") + "/web_search"
        client = self.client or await new_client(timeout=self.settings.timeout)
        try:
            resp = await client.post(
                url, json=body, headers={"Authorization": f"Bearer {key.get_secret_value()}"}
            )
            if resp.status_code >= 400:
                detail = resp.text[:200]
                out.errors.append(f"zhipu web_search answered HTTP {resp.status_code}: {detail}")
                return out
            data = resp.json()
        except (httpx.HTTPError, ValueError) as exc:
            out.errors.append(f"zhipu web_search failed ({exc!r})")
            return out
        finally:
            if self.client is None:
                await client.aclose()
        items = data.get("search_result") or []
        for i, r in enumerate(items[:count]):
            snippet = " ".join(str(r.get("content") or "").split())[:300]
            media = r.get("media")
            if media:
                snippet = f"[{media}] {snippet}"
            out.results.append(
                SearchResult(
                    str(r.get("title") or r.get("link") or ""),
                    str(r.get("link") or ""),
                    snippet,
                    "zhipu",
                    float(len(items) - i),
                )
            )
        out.total = len(items)
        return out


def make_provider(
    settings: WebSearchSettings | None = None, *, client: httpx.AsyncClient | None = None
) -> SearchProvider:
    """The provider ``settings.provider`` names (raises ValueError when misconfigured)."""
    settings = settings or WebSearchSettings()
    if settings.provider == "zhipu":
        return ZhipuSearch(settings, client=client)
    return LocalShopsSearch(settings, client=client)


async def run_search(
    query: str,
    count: int | None = None,
    *,
    settings: WebSearchSettings | None = None,
    client: httpx.AsyncClient | None = None,
) -> SearchResponse:
    """Search with the configured provider; never raises for a failed search."""
    if settings is None:
        settings = await asyncio.to_thread(WebSearchSettings)  # reads .env: off the loop
    provider = make_provider(settings, client=client)
    return await provider.search(query, count or settings.count)


class WebSearchInput(BaseModel):
    """Arguments of the web_search tool."""

    query: str = Field(min_length=1, max_length=200, description="What to search for.")
    count: int = Field(default=8, ge=1, le=20, description="How many results (1-20).")


@tool("web_search", args_schema=WebSearchInput, description=WEB_SEARCH_DESCRIPTION)
async def web_search(query: str, count: int = 8) -> str:
    """Search and return numbered results; failures become error tool messages."""
    try:
        response = await run_search(query, count)
    except ValueError as exc:  # misconfiguration (e.g. zhipu without a key)
        raise ToolException(f"Error: web search is not configured: {exc}") from exc
    except Exception as exc:  # a tool must not take the graph down
        log.exception("web_search failed unexpectedly for %r", query)
        raise ToolException(f"Error: web search failed ({type(exc).__name__}).") from exc
    if not response.results and response.errors:
        raise ToolException("Error: " + response.for_model())
    return response.for_model()


web_search.handle_tool_error = True
