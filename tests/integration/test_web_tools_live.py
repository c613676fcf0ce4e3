"""fetch_url and web_search over real sockets: the shops as a real process, a stand-in
reader service and a stand-in of Zhipu's web-search API served on loopback."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import quote

import httpx
import pytest
import uvicorn
from langchain_core.messages import ToolMessage
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from graphs.tools.web import guard
from graphs.tools.web.convert import html_to_markdown
from graphs.tools.web.fetcher import fetch_markdown
from graphs.tools.web.settings import WebSettings
from graphs.tools.web.tool import fetch_url
from graphs.tools.web_search import WebSearchSettings, run_search, web_search
from runstack.processes import ServiceHandle, free_port, start_service

pytestmark = pytest.mark.integration

BROWSER = "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36"


@pytest.fixture(scope="module")
def shops(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceHandle]:
    data = tmp_path_factory.mktemp("shops-web")
    port = free_port()
    env = {"DATA_DIR": str(data), "SIM_SUPPLIERS_PORT": str(port)}
    with start_service("sim.suppliers", env, port, log_dir=data) as handle:
        yield handle


@pytest.fixture(scope="module")
def catalog(shops: ServiceHandle) -> dict[str, Any]:
    return httpx.get(f"{shops.url}/catalog.json", timeout=10).json()  # type: ignore[no-any-return]


def serve_in_thread(app: Starlette) -> tuple[str, uvicorn.Server, threading.Thread]:
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("stand-in server did not start")
        time.sleep(0.01)
    return f"http://127.0.0.1:{port}", server, thread


@pytest.fixture(scope="module")
def reader() -> Iterator[tuple[str, list[str]]]:
    """A jina-style reader: GET /<url> fetches <url> with a browser UA, answers Markdown."""
    seen: list[str] = []

    async def read(request: Request) -> Response:
        target = request.url.path[1:]
        if request.url.query:
            target += "?" + request.url.query
        seen.append(target)
        async with httpx.AsyncClient(headers={"User-Agent": BROWSER}, timeout=5) as client:
            upstream = await client.get(target)
        if upstream.status_code != 200:
            return PlainTextResponse(f"upstream {upstream.status_code}", 502)
        title, md, blocks = html_to_markdown(upstream.text, target)
        text = f"Title: {title}\n\nMarkdown Content:\n{md}\n" + "".join(
            f"\n```json\n{b}\n```\n" for b in blocks
        )
        return PlainTextResponse(text, media_type="text/markdown")

    url, server, thread = serve_in_thread(Starlette(routes=[Route("/{path:path}", read)]))
    yield url + "/", seen
    server.should_exit = True
    thread.join(10)


@pytest.fixture(scope="module")
def zhipu() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A stand-in of POST /api/paas/v4/web_search (bigmodel.cn)."""
    calls: list[dict[str, Any]] = []

    async def search(request: Request) -> Response:
        if request.headers.get("authorization") != "Bearer test-key":
            return JSONResponse({"error": {"code": "1000", "message": "身份验证失败"}}, 401)
        body = json.loads(await request.body())
        calls.append(body)
        results = [
            {
                "title": f"{body['search_query']} 结果 {i}",
                "link": f"https://www.example.com/r{i}",
                "content": f"关于 {body['search_query']} 的第 {i} 条内容",
                "media": "示例",
                "icon": "",
                "refer": f"ref_{i}",
                "publish_date": "2026-11-30",
            }
            for i in range(1, body["count"] + 1)
        ]
        return JSONResponse({"id": "t", "created": 0, "search_result": results})

    app = Starlette(routes=[Route("/api/paas/v4/web_search", search, methods=["POST"])])
    url, server, thread = serve_in_thread(app)
    yield url + "/api/paas/v4", calls
    server.should_exit = True
    thread.join(10)


def settings_for(shops: ServiceHandle, **kw: Any) -> WebSettings:
    values: dict[str, Any] = {"supplier_sites_url": shops.url, "readers": [], "total_budget": 8}
    values.update(kw)
    return WebSettings(**values)


# --- SSRF ---------------------------------------------------------------------------------


async def test_a_listening_loopback_port_not_on_the_allow_list_is_refused(
    shops: ServiceHandle, reader: tuple[str, list[str]]
) -> None:
    other = reader[0]  # a real server on loopback, but not allow-listed
    result = await fetch_markdown(other + "anything", settings=settings_for(shops))
    assert result.error_code == "blocked" and "allow-list" in (result.error or "")
    assert reader[1] == []  # it never got the request


@pytest.mark.parametrize(
    "target",
    ["http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", "http://[fd00:ec2::254]/"],
)
async def test_internal_addresses_are_refused(shops: ServiceHandle, target: str) -> None:
    result = await fetch_markdown(target, settings=settings_for(shops, total_budget=2))
    # Refused before any connection: no HTTP status came back.
    assert result.error_code == "blocked" and result.status is None


async def test_redirects_to_internal_addresses_are_refused(
    shops: ServiceHandle, reader: tuple[str, list[str]]
) -> None:
    loopback_other = reader[0] + "secret"
    for target in (
        "http://169.254.169.254/latest/meta-data/iam/",
        "http://10.0.0.1/admin",
        loopback_other,
        "http://internal.corp.test/",
    ):
        url = f"{shops.url}/cqmp/go?url={quote(target, safe='')}"

        async def resolve(host: str, port: int) -> list[str]:
            return {"internal.corp.test": ["10.0.0.7"]}.get(host) or ["127.0.0.1"]

        result = await fetch_markdown(url, settings=settings_for(shops), resolver=resolve)
        assert result.error_code == "blocked", (target, result)
        assert "redirect" in (result.error or "")
    assert reader[1] == []


async def test_names_resolving_to_internal_addresses_are_refused_by_the_tool(
    shops: ServiceHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = {"metadata.evil.test": ["169.254.169.254"], "lan.evil.test": ["10.0.0.1"],
             "loop.evil.test": ["127.0.0.1"]}  # fmt: skip

    async def resolve(host: str, port: int) -> list[str]:
        return table[host]

    monkeypatch.setattr(guard, "system_resolve", resolve)
    monkeypatch.setenv("SUPPLIER_SITES_URL", shops.url)
    monkeypatch.setenv("WEB_READERS", "")
    port = shops.url.rsplit(":", 1)[1]
    for i, host in enumerate(table):
        call = {
            "name": "fetch_url",
            "args": {"url": f"http://{host}:{port if host.startswith('loop') else 80}/"},
            "id": f"c{i}",
            "type": "tool_call",
        }
        message = await fetch_url.ainvoke(call)
        assert isinstance(message, ToolMessage) and message.status == "error", host
        assert "refused" in str(message.content)


# --- hostile pages -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def nested_site() -> Iterator[str]:
    """A site whose page nests 200,000 <div> (2.2 MB, under the size cap)."""
    page = (
        "<html><head><title>Deep</title></head><body>"
        + "<div>" * 200_000
        + "<p>Spark plug CR7HSA: ¥12.50</p>"
        + "</div>" * 200_000
        + "</body></html>"
    ).encode()

    async def deep(request: Request) -> Response:
        return Response(page, media_type="text/html; charset=utf-8")

    url, server, thread = serve_in_thread(Starlette(routes=[Route("/deep", deep)]))
    yield url
    server.should_exit = True
    thread.join(10)


async def test_the_tool_reads_a_page_of_200000_nested_divs_within_its_budget(
    nested_site: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEB_ALLOWED_HOSTS", nested_site.split("//")[1])
    monkeypatch.setenv("WEB_READERS", "")
    monkeypatch.setenv("WEB_TOTAL_BUDGET", "20")
    call = {
        "name": "fetch_url",
        "args": {"url": nested_site + "/deep"},
        "id": "d",
        "type": "tool_call",
    }
    started = time.monotonic()
    message = await fetch_url.ainvoke(call)
    assert time.monotonic() - started < 20
    assert isinstance(message, ToolMessage) and message.status != "error", message.content
    assert "Spark plug CR7HSA: ¥12.50" in str(message.content)


# --- readers --------------------------------------------------------------------------------


async def test_an_allow_listed_reader_recovers_a_blocked_page(
    shops: ServiceHandle, catalog: dict[str, Any], reader: tuple[str, list[str]]
) -> None:
    ngk = next(s for s in catalog["shops"] if s["slug"] == "ngk")
    part = ngk["parts"][0]
    reader_url, seen = reader
    host_port = reader_url.split("//")[1].rstrip("/")
    settings = settings_for(
        shops,
        user_agent="procurement-bot/1.0",  # the shop answers 403 to this
        readers=["http://127.0.0.1:9/", reader_url],  # a dead one first
        allowed_hosts=[host_port, "127.0.0.1:9"],
        reader_retries=0,
    )
    result = await fetch_markdown(part["quote_url"], settings=settings)
    assert result.ok and result.via == reader_url, result
    assert seen[-1] == part["quote_url"]
    first = part["truth"]["tiers"][0]
    assert f"| {first['min_qty']}+ | ¥{first['unit_price']} |" in result.markdown
    assert any("127.0.0.1:9" in n for n in result.notes)
    assert "403" in result.notes[0]


# --- web_search -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "must"),
    [
        ("火花塞 报价", ("火花塞",)),
        ("NGK spark plug price", ("NGK", "Spark Plug")),
        ("刹车片", ("刹车片",)),
        ("DID chain", ("DID", "Chain")),
    ],
)
async def test_local_search_finds_relevant_shop_pages(
    shops: ServiceHandle, query: str, must: tuple[str, ...]
) -> None:
    settings = WebSearchSettings(provider="local", supplier_sites_url=shops.url)
    response = await run_search(query, 6, settings=settings)
    assert len(response.results) == 6, response.errors
    for r in response.results:
        assert all(m in r.title for m in must), (query, r.title)
        assert "火花塞帽" not in r.title and "Cap" not in r.title
        assert r.url.startswith(shops.url)
    assert len({r.source for r in response.results}) >= 2
    async with httpx.AsyncClient(headers={"User-Agent": BROWSER}, timeout=5) as client:
        first = await client.get(response.results[0].url)
    assert first.status_code in (200, 429)  # brembo rate-limits first visits


async def test_web_search_tool_over_the_shops(
    shops: ServiceHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUPPLIER_SITES_URL", shops.url)
    monkeypatch.setenv("WEB_SEARCH_PROVIDER", "local")
    text = await web_search.ainvoke({"query": "NGK火花塞价格", "count": 3})
    assert text.startswith('Search results for "NGK火花塞价格"')
    assert text.count("URL: ") == 3 and "NGK 火花塞" in text


async def test_zhipu_provider_against_a_stand_in(
    zhipu: tuple[str, list[dict[str, Any]]], monkeypatch: pytest.MonkeyPatch
) -> None:
    base, calls = zhipu
    monkeypatch.setenv("WEB_SEARCH_PROVIDER", "zhipu")
    monkeypatch.setenv("ZHIPU_BASE_URL", base)
    monkeypatch.setenv("ZHIPU_API_KEY", "test-key")
    text = await web_search.ainvoke({"query": "摩托车火花塞 价格", "count": 3})
    assert calls[-1] == {
        "search_query": "摩托车火花塞 价格",
        "search_engine": "search_std",
        "count": 3,
    }
    assert "1. 摩托车火花塞 价格 结果 1" in text and "URL: https://www.example.com/r3" in text
    monkeypatch.setenv("ZHIPU_API_KEY", "wrong")
    call = {"name": "web_search", "args": {"query": "x"}, "id": "z", "type": "tool_call"}
    message = await web_search.ainvoke(call)
    assert isinstance(message, ToolMessage) and message.status == "error"
    assert "HTTP 401" in str(message.content)
