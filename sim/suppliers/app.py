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

import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from sim.catalog import Catalog, Supplier, generate
from sim.suppliers.layouts import listing_page, quote_page
from sim.suppliers.misbehaviour import misbehave
from sim.suppliers.quotes import Quote, money, quotes_for
from sim.suppliers.search import score, terms
from sim.suppliers.settings import SuppliersSettings
from sim.suppliers.shops import SHOPS, Shop, is_hostile, is_malformed


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


ShopHandler = Callable[[Request, _State, _ShopData], Awaitable[Response]]


def build_app(settings: SuppliersSettings | None = None) -> Starlette:
    """The shops app for ``settings`` (default: from the environment)."""
    state = _load(settings or SuppliersSettings())
    app = Starlette(routes=_routes(state))
    app.state.shops = state
    return app


def _load(settings: SuppliersSettings) -> _State:
    """Every shop's quotes from the catalogue of ``settings.seed``, indexed by sku, model, id."""
    catalog = generate(settings.seed)
    shops: dict[str, _ShopData] = {}
    for shop in SHOPS:
        quotes = quotes_for(catalog, shop.supplier)
        by_key: dict[str, Quote] = {}
        for q in quotes:
            by_key[q.part.sku] = by_key[q.part.model] = by_key[str(q.part.id)] = q
        shops[shop.slug] = _ShopData(shop, catalog.supplier(shop.supplier), quotes, by_key)
    return _State(settings, catalog, shops)


def _routes(state: _State) -> list[Route]:
    routes: list[Route] = [
        Route("/health", _health),
        Route("/", _index),
        Route("/shops.json", _shops_json),
        Route("/catalog.json", _catalog_json),
    ]
    for shop in SHOPS:
        s = shop.slug
        path = shop.quote_path.split("?")[0].replace("{sku}", "{key}").replace("{id}", "{key}")
        routes += [
            Route(f"/{s}/", _shop_endpoint(state, s, _home, quote=True)),
            Route(f"/{s}/search", _shop_endpoint(state, s, _search_html, quote=True)),
            Route(f"/{s}/api/search", _shop_endpoint(state, s, _search_api, quote=False)),
            Route(path, _shop_endpoint(state, s, _quote, quote=True)),
        ]
        if shop.paginated:
            routes.append(Route(f"/{s}/list", _shop_endpoint(state, s, _listing, quote=True)))
        if shop.open_redirect:
            routes.append(Route(f"/{s}/go", _shop_endpoint(state, s, _go, quote=False)))
        if shop.layout == "table":
            routes.append(
                Route(f"/{s}/products/{{key}}", _shop_endpoint(state, s, _legacy, quote=False))
            )
    return routes


def _shop_endpoint(
    state: _State, slug: str, handler: ShopHandler, *, quote: bool
) -> Callable[[Request], Awaitable[Response]]:
    """``handler`` for the shop ``slug``, behind that shop's misbehaviour when it is on."""
    data = state.shops[slug]

    async def endpoint(request: Request) -> Response:
        if state.settings.misbehave:
            refused = await misbehave(
                data.shop, request, state.settings, state.rate_seen, quote=quote
            )
            if refused is not None:
                return refused
        return await handler(request, state, data)

    return endpoint


# ---------------------------------------------------------------- helpers


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


def _search(data: _ShopData, query: str) -> list[tuple[float, Quote]]:
    ts = terms(query)
    hits = [(score(q, data.supplier, ts), q) for q in data.quotes]
    return sorted(((s, q) for s, q in hits if s > 0), key=lambda h: (-h[0], h[1].part.sku))


def _list_page(
    request: Request, state: _State, data: _ShopData, quotes: list[Quote], **layout: Any
) -> Response:
    """A listing of ``quotes`` with links to their quote pages (``layout``: heading, paging)."""
    base = _base(request)
    items = [(q, data.shop.quote_url(base, q.part)) for q in quotes]
    # GBK listings carry no charset at all: clients must detect it.
    gbk = data.shop.encoding(state.settings.misbehave) == "gbk"
    text = listing_page(data.shop, data.supplier, items, charset=None if gbk else "utf-8", **layout)
    return _html(state, data.shop, text)


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


# ---------------------------------------------------------------- one shop's pages


async def _quote(request: Request, state: _State, data: _ShopData) -> Response:
    key = request.path_params.get("key") or request.query_params.get("sku", "")
    q = data.by_key.get(key)
    if q is None:
        text = listing_page(data.shop, data.supplier, [], charset="utf-8", heading="404 Not Found")
        return _html(state, data.shop, text, 404)
    charset = "gbk" if data.shop.encoding(state.settings.misbehave) == "gbk" else "utf-8"
    malformed = is_malformed(data.shop, q.part, state.settings.misbehave)
    hostile = is_hostile(data.shop, q.part, state.settings.misbehave)
    text = quote_page(
        data.shop, data.supplier, q, charset=charset, malformed=malformed, hostile=hostile
    )
    return _html(state, data.shop, text)


async def _home(request: Request, state: _State, data: _ShopData) -> Response:
    zh = data.shop.language.startswith("zh")
    name = data.supplier.name_zh if zh else data.supplier.name_en
    quotes = data.quotes
    pages = 1
    if data.shop.paginated:
        size = state.settings.page_size
        pages = max(1, math.ceil(len(quotes) / size))
        quotes = quotes[:size]
    return _list_page(request, state, data, quotes, heading=name, pages=pages)


async def _listing(request: Request, state: _State, data: _ShopData) -> Response:
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
    heading = f"产品列表 第{page}页"
    return _list_page(
        request, state, data, chunk, heading=heading, page=page, pages=pages, query=query
    )


async def _search_html(request: Request, state: _State, data: _ShopData) -> Response:
    query = request.query_params.get("q", "")
    hits = [q for _, q in _search(data, query)][:50]
    zh = data.shop.language.startswith("zh")
    heading = f"搜索：{query}" if zh else f"Search: {query}"
    return _list_page(request, state, data, hits, heading=heading, query=query)


async def _search_api(request: Request, state: _State, data: _ShopData) -> Response:
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


async def _go(request: Request, state: _State, data: _ShopData) -> Response:
    target = request.query_params.get("url", "")
    if not target:
        return JSONResponse({"error": "url is required"}, 400)
    return RedirectResponse(target, 302)


async def _legacy(request: Request, state: _State, data: _ShopData) -> Response:
    key = request.path_params["key"]
    q = data.by_key.get(key)
    if q is None:
        return Response("not found", 404)
    return RedirectResponse(data.shop.quote_url(_base(request), q.part), 301)


# ---------------------------------------------------------------- the whole site


def _state(request: Request) -> _State:
    state: _State = request.app.state.shops
    return state


async def _health(request: Request) -> Response:
    shops = _state(request).shops
    return JSONResponse(
        {
            "status": "ok",
            "shops": len(shops),
            "quotes": sum(len(d.quotes) for d in shops.values()),
        }
    )


def _shop_entry(request: Request, state: _State, data: _ShopData) -> dict[str, Any]:
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


async def _shops_json(request: Request) -> Response:
    state = _state(request)
    return JSONResponse({"shops": [_shop_entry(request, state, d) for d in state.shops.values()]})


def _catalog_parts(request: Request, state: _State, d: _ShopData) -> list[dict[str, Any]]:
    base = _base(request)
    return [
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


async def _catalog_json(request: Request) -> Response:
    state = _state(request)
    catalog = state.catalog
    out = [
        {**_shop_entry(request, state, d), "parts": _catalog_parts(request, state, d)}
        for d in state.shops.values()
    ]
    return JSONResponse(
        {
            "seed": catalog.seed,
            "reference_date": catalog.reference_date.isoformat(),
            "base_url": _base(request),
            "categories": {
                c.code: {"name_zh": c.name_zh, "name_en": c.name_en, "unit": c.unit}
                for c in catalog.categories
            },
            "shops": out,
        }
    )


async def _index(request: Request) -> Response:
    links = "".join(
        f'<li><a href="/{d.shop.slug}/">{d.supplier.name_zh} {d.supplier.name_en}</a></li>'
        for d in _state(request).shops.values()
    )
    return HTMLResponse(
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>Supplier shops</title>"
        f"</head><body><h1>Simulated supplier shops</h1><ul>{links}</ul></body></html>"
    )
