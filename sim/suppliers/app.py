"""The supplier shops' Starlette app: every shop under its own path prefix on one server.

Routes (``<slug>`` is one of :data:`sim.suppliers.shops.SHOPS`):

- ``GET /health``, ``GET /`` (a directory of shops), ``GET /shops.json``,
  ``GET /catalog.json`` (every shop, every part it sells, its quote URL and the truth);
- ``GET /<slug>/`` home, ``GET /<slug>/search?q=`` (HTML), ``GET /<slug>/api/search?q=`` (JSON);
- each shop's quote page (its own URL pattern, see ``Shop.quote_path``);
- ``GET /cqmp/list?page=`` (a paginated listing), ``GET /cqmp/go?url=`` (an outbound redirect).

Misbehaviour (``SIM_SUPPLIERS_MISBEHAVE``) is deterministic: ngk refuses clients
without a browser User-Agent; brembo answers the first request for a page in each
window with 429 and Retry-After; denso's quote pages are slow; zongshen breaks the
markup of every third part's page; cqmp plants a prompt-injection "review" on every
seventh part's page; torch serves GBK with the charset only in a
``<meta>`` tag (quote pages) or nowhere (listings and search).
"""

from __future__ import annotations

import asyncio
import math
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from sim.catalog import Catalog, Supplier, generate
from sim.suppliers.layouts import listing_page, quote_page
from sim.suppliers.quotes import Quote, money, quotes_for
from sim.suppliers.search import score, terms
from sim.suppliers.settings import SuppliersSettings
from sim.suppliers.shops import SHOPS, Shop, is_hostile, is_malformed

_BOT_UA = re.compile(r"bot|crawl|spider|python|curl|httpx|wget|requests|aiohttp|go-http", re.I)


@dataclass
class _ShopData:
    shop: Shop
    supplier: Supplier
    quotes: list[Quote]
    by_key: dict[str, Quote]


@dataclass
class _State:
    settings: SuppliersSettings
    catalog: Catalog
    shops: dict[str, _ShopData]
    rate_seen: dict[str, float] = field(default_factory=dict)


def _browser_like(ua: str) -> bool:
    return ua.startswith("Mozilla/") and not _BOT_UA.search(ua)


def _base(request: Request) -> str:
    return f"{request.url.scheme}://{request.url.netloc}"


def _html(state: _State, shop: Shop, text: str, status: int = 200) -> Response:
    encoding = shop.encoding(state.settings.misbehave)
    if encoding == "gbk":
        # The charset is only in the page (or nowhere): the header says just text/html.
        # (Starlette would append "; charset=utf-8" to a text/* media_type, so set it raw.)
        return Response(
            text.encode("gbk", "replace"), status, headers={"content-type": "text/html"}
        )
    return HTMLResponse(text, status)


def _truth(q: Quote) -> dict[str, Any]:
    return {
        "currency": q.currency,
        "status": q.status,
        "stock": q.stock,
        "lead_time_days": q.lead_time_days,
        "updated": q.updated.isoformat(),
        "tiers": [
            {
                "min_qty": t.min_qty,
                "unit_price": money(t.unit_price_minor),
                "unit_price_minor": t.unit_price_minor,
            }
            for t in q.tiers
        ],
        "contract_price_minor": q.contract_price_minor,
    }


def build_app(settings: SuppliersSettings | None = None) -> Starlette:
    """The shops app for ``settings`` (default: from the environment)."""
    settings = settings or SuppliersSettings()
    catalog = generate(settings.seed)
    shops: dict[str, _ShopData] = {}
    for shop in SHOPS:
        quotes = quotes_for(catalog, shop.supplier)
        by_key: dict[str, Quote] = {}
        for q in quotes:
            by_key[q.part.sku] = by_key[q.part.model] = by_key[str(q.part.id)] = q
        shops[shop.slug] = _ShopData(shop, catalog.supplier(shop.supplier), quotes, by_key)
    state = _State(settings, catalog, shops)

    def shop_page(
        slug: str, handler: Callable[[Request, _ShopData], Awaitable[Response]], *, quote: bool
    ) -> Callable[[Request], Awaitable[Response]]:
        data = shops[slug]

        async def endpoint(request: Request) -> Response:
            if state.settings.misbehave:
                refused = await _misbehave(state, data.shop, request, quote=quote)
                if refused is not None:
                    return refused
            return await handler(request, data)

        return endpoint

    async def quote_endpoint(request: Request, data: _ShopData) -> Response:
        key = request.path_params.get("key") or request.query_params.get("sku", "")
        q = data.by_key.get(key)
        if q is None:
            text = listing_page(
                data.shop, data.supplier, [], charset="utf-8", heading="404 Not Found"
            )
            return _html(state, data.shop, text, 404)
        charset = "gbk" if data.shop.encoding(state.settings.misbehave) == "gbk" else "utf-8"
        malformed = is_malformed(data.shop, q.part, state.settings.misbehave)
        hostile = is_hostile(data.shop, q.part, state.settings.misbehave)
        text = quote_page(
            data.shop, data.supplier, q, charset=charset, malformed=malformed, hostile=hostile
        )
        return _html(state, data.shop, text)

    def _items(request: Request, data: _ShopData, quotes: list[Quote]) -> list[tuple[Quote, str]]:
        base = _base(request)
        return [(q, data.shop.quote_url(base, q.part)) for q in quotes]

    def _search(data: _ShopData, query: str) -> list[tuple[float, Quote]]:
        ts = terms(query)
        hits = [(score(q, data.supplier, ts), q) for q in data.quotes]
        return sorted(((s, q) for s, q in hits if s > 0), key=lambda h: (-h[0], h[1].part.sku))

    def _listing_charset(data: _ShopData) -> str | None:
        # GBK listings carry no charset at all: clients must detect it.
        return None if data.shop.encoding(state.settings.misbehave) == "gbk" else "utf-8"

    async def home(request: Request, data: _ShopData) -> Response:
        zh = data.shop.language.startswith("zh")
        name = data.supplier.name_zh if zh else data.supplier.name_en
        quotes = data.quotes
        pages = 1
        if data.shop.paginated:
            size = state.settings.page_size
            pages = max(1, math.ceil(len(quotes) / size))
            quotes = quotes[:size]
        text = listing_page(
            data.shop,
            data.supplier,
            _items(request, data, quotes),
            charset=_listing_charset(data),
            heading=name,
            pages=pages,
        )
        return _html(state, data.shop, text)

    async def listing(request: Request, data: _ShopData) -> Response:
        size = state.settings.page_size
        try:
            page = max(1, int(request.query_params.get("page", "1")))
        except ValueError:
            page = 1
        query = request.query_params.get("q", "")
        quotes = [q for _, q in _search(data, query)] if query else data.quotes
        pages = max(1, math.ceil(len(quotes) / size))
        page = min(page, pages)
        chunk = quotes[(page - 1) * size : page * size]
        text = listing_page(
            data.shop,
            data.supplier,
            _items(request, data, chunk),
            charset=_listing_charset(data),
            heading=f"产品列表 第{page}页",
            page=page,
            pages=pages,
            query=query,
        )
        return _html(state, data.shop, text)

    async def search_html(request: Request, data: _ShopData) -> Response:
        query = request.query_params.get("q", "")
        hits = [q for _, q in _search(data, query)][:50]
        zh = data.shop.language.startswith("zh")
        heading = f"搜索：{query}" if zh else f"Search: {query}"
        text = listing_page(
            data.shop,
            data.supplier,
            _items(request, data, hits),
            charset=_listing_charset(data),
            heading=heading,
            query=query,
        )
        return _html(state, data.shop, text)

    async def search_api(request: Request, data: _ShopData) -> Response:
        query = request.query_params.get("q", "")
        try:
            limit = min(50, max(1, int(request.query_params.get("limit", "10"))))
        except ValueError:
            limit = 10
        base = _base(request)
        results = []
        for s, q in _search(data, query)[:limit]:
            p = q.part
            price = f"{q.currency} {money(q.tiers[0].unit_price_minor)}" if q.tiers else "—"
            results.append(
                {
                    "title": f"{p.name_zh} {p.name_en} | {data.supplier.name_zh}",
                    "url": data.shop.quote_url(base, p),
                    "snippet": f"{p.brand} {p.model} {p.category_en} {p.category_zh}; "
                    f"from {price}; {q.status.replace('_', ' ')}; updated {q.updated}",
                    "score": s,
                }
            )
        return JSONResponse({"shop": data.shop.slug, "query": query, "results": results})

    async def go(request: Request, data: _ShopData) -> Response:
        target = request.query_params.get("url", "")
        if not target:
            return JSONResponse({"error": "url is required"}, 400)
        return RedirectResponse(target, 302)

    async def legacy(request: Request, data: _ShopData) -> Response:
        key = request.path_params["key"]
        q = data.by_key.get(key)
        if q is None:
            return Response("not found", 404)
        return RedirectResponse(data.shop.quote_url(_base(request), q.part), 301)

    async def health(request: Request) -> Response:
        return JSONResponse(
            {
                "status": "ok",
                "shops": len(shops),
                "quotes": sum(len(d.quotes) for d in shops.values()),
            }
        )

    def _shop_entry(request: Request, data: _ShopData) -> dict[str, Any]:
        base = _base(request)
        s = data.shop
        return {
            "slug": s.slug,
            "supplier_code": data.supplier.code,
            "name_en": data.supplier.name_en,
            "name_zh": data.supplier.name_zh,
            "layout": s.layout,
            "language": s.language,
            "encoding": s.encoding(state.settings.misbehave),
            "misbehaviour": s.misbehaviour if state.settings.misbehave else None,
            "home_url": f"{base}/{s.slug}/",
            "search_url": f"{base}/{s.slug}/search?q=",
            "search_api_url": f"{base}/{s.slug}/api/search?q=",
            "categories": sorted({q.part.category for q in data.quotes}),
        }

    async def shops_json(request: Request) -> Response:
        return JSONResponse({"shops": [_shop_entry(request, d) for d in shops.values()]})

    async def catalog_json(request: Request) -> Response:
        base = _base(request)
        out = []
        for d in shops.values():
            entry = _shop_entry(request, d)
            entry["parts"] = [
                {
                    "sku": q.part.sku,
                    "model": q.part.model,
                    "name_en": q.part.name_en,
                    "name_zh": q.part.name_zh,
                    "category": q.part.category,
                    "brand": q.part.brand,
                    "quote_url": d.shop.quote_url(base, q.part),
                    "truth": {
                        **_truth(q),
                        "malformed": is_malformed(d.shop, q.part, state.settings.misbehave),
                        "hostile": is_hostile(d.shop, q.part, state.settings.misbehave),
                    },
                }
                for q in d.quotes
            ]
            out.append(entry)
        return JSONResponse(
            {
                "seed": catalog.seed,
                "reference_date": catalog.reference_date.isoformat(),
                "base_url": base,
                "categories": {
                    c.code: {"name_zh": c.name_zh, "name_en": c.name_en, "unit": c.unit}
                    for c in catalog.categories
                },
                "shops": out,
            }
        )

    async def index(request: Request) -> Response:
        links = "".join(
            f'<li><a href="/{d.shop.slug}/">{d.supplier.name_zh} {d.supplier.name_en}</a></li>'
            for d in shops.values()
        )
        return HTMLResponse(
            f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Supplier shops</title>"
            f"</head><body><h1>Simulated supplier shops</h1><ul>{links}</ul></body></html>"
        )

    routes: list[Route] = [
        Route("/health", health),
        Route("/", index),
        Route("/shops.json", shops_json),
        Route("/catalog.json", catalog_json),
    ]
    for shop in SHOPS:
        s = shop.slug
        path = shop.quote_path.split("?")[0].replace("{sku}", "{key}").replace("{id}", "{key}")
        routes += [
            Route(f"/{s}/", shop_page(s, home, quote=True)),
            Route(f"/{s}/search", shop_page(s, search_html, quote=True)),
            Route(f"/{s}/api/search", shop_page(s, search_api, quote=False)),
            Route(path, shop_page(s, quote_endpoint, quote=True)),
        ]
        if shop.paginated:
            routes.append(Route(f"/{s}/list", shop_page(s, listing, quote=True)))
        if shop.open_redirect:
            routes.append(Route(f"/{s}/go", shop_page(s, go, quote=False)))
        if shop.layout == "table":
            routes.append(Route(f"/{s}/products/{{key}}", shop_page(s, legacy, quote=False)))

    app = Starlette(routes=routes)
    app.state.shops = state
    return app


async def _misbehave(
    state: _State, shop: Shop, request: Request, *, quote: bool
) -> Response | None:
    """The shop's deliberate misbehaviour for this request, or None to serve it normally."""
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
        first = state.rate_seen.get(key)
        if first is None or now - first >= state.settings.rate_limit_window:
            state.rate_seen[key] = now
            return HTMLResponse(
                "<html><body><h1>429 Too Many Requests</h1></body></html>",
                429,
                headers={"Retry-After": str(state.settings.retry_after)},
            )
    if kind == "slow" and quote and request.url.path.startswith(f"/{shop.slug}/quote"):
        await asyncio.sleep(state.settings.slow_seconds)
    return None
