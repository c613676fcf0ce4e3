"""The simulated shops' data and endpoints in-process (ASGI, no sockets): deterministic
quotes that differ from the ERP contract prices, and the misbehaviour switch."""

from __future__ import annotations

import httpx

from sim.catalog import generate
from sim.suppliers import SuppliersSettings, build_app
from sim.suppliers.quotes import quotes_for
from sim.suppliers.shops import SHOPS

BROWSER = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0"}


def client(**settings: object) -> httpx.AsyncClient:
    app = build_app(SuppliersSettings(**settings))  # type: ignore[arg-type]
    return httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8300", headers=BROWSER
    )


def test_quotes_are_deterministic_tiered_and_never_the_contract_price() -> None:
    catalog = generate()
    for shop in SHOPS:
        first = quotes_for(catalog, shop.supplier)
        assert first == quotes_for(catalog, shop.supplier)
        for q in first:
            prices = [t.unit_price_minor for t in q.tiers]
            assert prices == sorted(prices, reverse=True) and len(set(prices)) == len(prices)
            qtys = [t.min_qty for t in q.tiers]
            assert qtys == sorted(qtys) and len(set(qtys)) == len(qtys)
            if q.tiers:
                assert q.tiers[0].unit_price_minor != q.contract_price_minor
            assert (q.stock == 0) == (q.status != "in_stock")
            assert (not q.tiers) == (q.status == "discontinued")


async def test_search_api_answers_in_both_languages() -> None:
    async with client() as c:
        zh = (await c.get("/cqmp/api/search", params={"q": "火花塞 报价"})).json()
        en = (await c.get("/ngk/api/search", params={"q": "NGK spark plug"})).json()
        none = (await c.get("/did/api/search", params={"q": "报价"})).json()
    assert zh["results"] and all("火花塞" in r["title"] for r in zh["results"])
    assert zh["results"][0]["title"].split()[1] == "火花塞"  # exact category before 火花塞帽
    assert en["results"] and all("NGK" in r["title"] for r in en["results"])
    assert none["results"] == []  # a price word alone names no product


async def test_misbehaviour_is_switchable() -> None:
    async with client(misbehave=True, retry_after=7) as on, client(misbehave=False) as off:
        cat = (await on.get("/catalog.json")).json()
        brembo = next(s for s in cat["shops"] if s["slug"] == "brembo")
        url = brembo["parts"][0]["quote_url"]
        first, again = await on.get(url), await on.get(url)
        assert (first.status_code, first.headers["retry-after"]) == (429, "7")
        assert again.status_code == 200
        assert (await off.get(url)).status_code == 200
        bot = {"User-Agent": "python-httpx/0.29"}
        assert (await on.get("/ngk/", headers=bot)).status_code == 403
        assert (await off.get("/ngk/", headers=bot)).status_code == 200
        gbk = await on.get("/torch/")
        assert gbk.headers["content-type"] == "text/html"
        assert "株洲湘火炬" in gbk.content.decode("gbk")
        assert (await off.get("/torch/")).headers["content-type"] == "text/html; charset=utf-8"
