"""web_search without sockets: the shops and the Zhipu API are played by mock transports."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from langchain_core.messages import ToolMessage

from graphs.tools.web_search import (
    LocalShopsSearch,
    WebSearchSettings,
    ZhipuSearch,
    make_provider,
    query_terms,
    run_search,
    web_search,
)

BASE = "http://shops.test"


def shop_hit(slug: str, title: str, sku: str, score: float = 1.0) -> dict[str, Any]:
    return {
        "title": title,
        "url": f"{BASE}/{slug}/p/{sku}",
        "snippet": f"{title}; from CNY 12.50",
        "score": score,
    }


SHOP_ANSWERS = {
    "ngk": [
        shop_hit("ngk", "NGK 火花塞帽 LB83E NGK Spark Plug Cap LB83E | NGK", "PC-NGK-LB83E"),
        shop_hit("ngk", "NGK 火花塞 CR7HSA NGK Spark Plug CR7HSA | NGK", "SP-NGK-CR7HSA"),
    ],
    "cqmp": [
        shop_hit("cqmp", f"NGK 火花塞 CPR{i}EA-9 NGK Spark Plug CPR{i}EA-9 | 重庆摩配", f"SP{i}")
        for i in range(5, 10)
    ],
    "brembo": [],
}


def shops_web(broken: set[str] | None = None) -> httpx.MockTransport:
    broken = broken or set()

    def handler(request: httpx.Request) -> httpx.Response:
        path = request.url.path
        if path == "/shops.json":
            shops = [
                {"slug": s, "search_api_url": f"{BASE}/{s}/api/search?q="} for s in SHOP_ANSWERS
            ]
            return httpx.Response(200, json={"shops": shops})
        slug = path.split("/")[1]
        if slug in broken:
            return httpx.Response(503, text="down")
        assert request.url.params["q"]
        return httpx.Response(200, json={"results": SHOP_ANSWERS[slug]})

    return httpx.MockTransport(handler)


def local_settings() -> WebSearchSettings:
    return WebSearchSettings(provider="local", supplier_sites_url=BASE)


def test_query_terms_drop_price_words_in_both_languages() -> None:
    assert query_terms("NGK spark plug price") == ["ngk", "spark", "plug"]
    assert query_terms("火花塞 报价") == ["火花塞"]
    assert query_terms("NGK火花塞价格") == ["ngk", "火花塞"]


async def test_local_merges_ranks_and_caps_per_shop() -> None:
    async with httpx.AsyncClient(transport=shops_web()) as client:
        provider = LocalShopsSearch(local_settings(), client=client)
        response = await provider.search("NGK spark plug price", 4)
    titles = [r.title for r in response.results]
    assert len(titles) == 4 and response.total == 7
    # Exact product names before the cap that merely contains the words.
    assert "LB83E" not in " ".join(titles[:3])
    assert sum(r.source == "cqmp" for r in response.results) <= 2
    assert {r.source for r in response.results} >= {"ngk", "cqmp"}
    text = response.for_model()
    assert text.startswith('Search results for "NGK spark plug price"')
    assert "URL: http://shops.test/" in text


async def test_local_reports_a_failing_shop_but_keeps_the_others() -> None:
    async with httpx.AsyncClient(transport=shops_web(broken={"ngk"})) as client:
        response = await LocalShopsSearch(local_settings(), client=client).search("火花塞", 8)
    assert response.results and all(r.source == "cqmp" for r in response.results)
    assert any(e.startswith("ngk") for e in response.errors)


async def test_local_unreachable_says_so() -> None:
    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(down)) as client:
        response = await run_search("火花塞", settings=local_settings(), client=client)
    assert response.results == [] and "unreachable" in response.errors[0]
    assert "No results" in response.for_model()


ZHIPU_ANSWER = {
    "id": "x",
    "created": 1,
    "search_result": [
        {
            "title": "NGK火花塞价格表",
            "link": "https://www.example.com/ngk",
            "content": "NGK 火花塞  CR7HSA 批发价 12.5 元",
            "media": "示例网",
            "icon": "",
            "refer": "ref_1",
            "publish_date": "2026-11-01",
        },
        {"title": "", "link": "https://b.example/2", "content": "second"},
    ],
}


async def test_zhipu_request_and_mapping() -> None:
    seen: list[httpx.Request] = []

    def api(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=ZHIPU_ANSWER)

    settings = WebSearchSettings(
        provider="zhipu", zhipu_api_key="k-123", zhipu_base_url="http://zhipu.test/api/paas/v4"
    )
    async with httpx.AsyncClient(transport=httpx.MockTransport(api)) as client:
        response = await run_search("火花塞 报价 " + "x" * 100, 5, settings=settings, client=client)
    request = seen[0]
    assert (
        request.method == "POST" and str(request.url) == "http://zhipu.test/api/paas/v4/web_search"
    )
    assert request.headers["authorization"] == "Bearer k-123"
    body = json.loads(request.content)
    assert body["search_engine"] == "search_std" and body["count"] == 5
    assert len(body["search_query"]) == 70
    first, second = response.results
    assert (first.title, first.url) == ("NGK火花塞价格表", "https://www.example.com/ngk")
    assert first.snippet == "[示例网] NGK 火花塞 CR7HSA 批发价 12.5 元"
    assert second.title == "https://b.example/2"


async def test_zhipu_errors_are_reported() -> None:
    api = httpx.MockTransport(lambda r: httpx.Response(401, json={"error": "bad key"}))
    settings = WebSearchSettings(provider="zhipu", zhipu_api_key="wrong")
    async with httpx.AsyncClient(transport=api) as client:
        response = await ZhipuSearch(settings, client=client).search("q", 3)
    assert response.results == [] and "HTTP 401" in response.errors[0]


def test_zhipu_without_a_key_is_a_configuration_error() -> None:
    with pytest.raises(ValueError, match="ZHIPU_API_KEY"):
        make_provider(WebSearchSettings(provider="zhipu", zhipu_api_key=None))


async def test_tool_errors_become_error_tool_messages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WEB_SEARCH_PROVIDER", "zhipu")
    monkeypatch.delenv("ZHIPU_API_KEY", raising=False)
    call = {"name": "web_search", "args": {"query": "火花塞"}, "id": "c1", "type": "tool_call"}
    message = await web_search.ainvoke(call)
    assert isinstance(message, ToolMessage) and message.status == "error"
    assert "ZHIPU_API_KEY" in str(message.content)
