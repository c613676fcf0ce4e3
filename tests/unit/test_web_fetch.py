"""fetch_url without sockets: a mock transport plays the web, a fake resolver plays DNS."""

from __future__ import annotations

import asyncio
import json
import multiprocessing
import time
from collections.abc import Callable

import httpx
import pytest
from langchain_core.messages import ToolMessage

from graphs.tools.web import worker
from graphs.tools.web.convert import html_to_markdown
from graphs.tools.web.fetcher import FetchResult, fetch_markdown
from graphs.tools.web.nesting import SOURCE_SCAN_TAGS, bound_source
from graphs.tools.web.settings import WebSettings
from graphs.tools.web.tool import FetchUrlInput, fetch_url
from tests.blocking import no_blocking_calls

PUBLIC_IP = "93.184.216.34"
UA_BROWSER = "Mozilla/5.0"

PAGE = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>Spark plug CR7HSA</title>
<style>.x{color:red}</style><script>var tracking = "SECRET-TRACKER";</script></head>
<body><nav><a href="/">Home</a> | <a href="/cart">Cart</a></nav>
<main><h1>NGK Spark Plug CR7HSA</h1><p>See <a href="/ngk/other">other</a>.</p>
<table><thead><tr><th>Quantity</th><th>Unit price (CNY)</th></tr></thead>
<tbody><tr><td>1+</td><td>¥12.50</td></tr><tr><td>100+</td><td>¥11.20</td></tr></tbody></table>
<ul><li>Stock: 250 pcs</li><li>Lead time: 7 days</li></ul></main>
<script type="application/json" id="d">{"priceTiers":[{"minQty":1,"unitPrice":"12.50"}]}</script>
<script type="application/ld+json">{"@type":"Product","sku":"SP-NGK-CR7HSA"}</script>
<footer>© NGK. Cookie policy.</footer></body></html>"""


def settings(**kw: object) -> WebSettings:
    base: dict[str, object] = {
        "supplier_sites_url": "http://127.0.0.1:8300",
        "readers": [],
        "total_budget": 5.0,
        "backoff_base": 0.01,
        "timeout": 2.0,
    }
    base.update(kw)
    return WebSettings(**base)  # type: ignore[arg-type]


def resolver(table: dict[str, list[str]] | None = None) -> Callable[[str, int], object]:
    table = table or {}

    async def resolve(host: str, port: int) -> list[str]:
        if host in table:
            return table[host]
        if host.endswith(".example") or host.endswith(".test"):
            return [PUBLIC_IP]
        raise OSError(f"unknown host {host}")

    return resolve


class Web:
    """A mock web: routes by the Host header (requests arrive pinned to an IP)."""

    def __init__(self, routes: dict[str, Callable[[httpx.Request], httpx.Response]]) -> None:
        self.routes = routes
        self.calls: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls.append(request)
        key = f"{request.headers['host']}{request.url.path}"
        if key in self.routes:
            return self.routes[key](request)
        return httpx.Response(404, text="not found")

    def client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(transport=httpx.MockTransport(self))


async def fetch(url: str, web: Web, **kw: object) -> FetchResult:
    table = kw.pop("dns", None)
    async with web.client() as client:
        return await fetch_markdown(
            url,
            settings=settings(**kw),
            client=client,
            resolver=resolver(table),  # type: ignore[arg-type]
        )


def html(body: str | bytes, status: int = 200, ctype: str = "text/html; charset=utf-8"):
    def respond(request: httpx.Request) -> httpx.Response:
        content = body.encode() if isinstance(body, str) else body
        return httpx.Response(status, content=content, headers={"content-type": ctype})

    return respond


# --- conversion ---------------------------------------------------------------------------


def test_conversion_keeps_tables_and_embedded_json_and_drops_chrome() -> None:
    title, md, blocks = html_to_markdown(PAGE, "https://shop.example/ngk/p/1")
    assert title == "Spark plug CR7HSA"
    assert "| Quantity | Unit price (CNY) |" in md
    assert "| 1+ | ¥12.50 |" in md and "| 100+ | ¥11.20 |" in md
    assert "Stock: 250 pcs" in md and "Lead time: 7 days" in md
    assert "(https://shop.example/ngk/other)" in md  # links made absolute
    for noise in ("SECRET-TRACKER", "color:red", "Cookie policy", "Cart"):
        assert noise not in md
    assert [json.loads(b) for b in blocks] == [
        {"priceTiers": [{"minQty": 1, "unitPrice": "12.50"}]},
        {"@type": "Product", "sku": "SP-NGK-CR7HSA"},
    ]


def test_conversion_survives_broken_markup() -> None:
    broken = (
        "<html><body><h1>Title<p>型号 CR7<div><b><i>promo</b></i> 价格 < 100 & more"
        "<table><tr><td>1+<td>¥9.90<tr><td>10+<td>¥9.10"
    )
    _, md, _ = html_to_markdown(broken)
    assert "| 1+ | ¥9.90 |" in md and "| 10+ | ¥9.10 |" in md
    assert "价格 < 100 & more" in md


# --- charsets -----------------------------------------------------------------------------

ZH = (
    "<html><head>{meta}<title>火花塞报价</title></head><body><main><h1>株洲湘火炬 火花塞</h1>"
    + (
        "<p>库存：120 个（现货）。交货期：7 天。单价（元，含税）：￥13.85。本公司主营摩托车配件，"
        "欢迎来电咨询批发价格。</p>" * 3
    )
    + "</main></body></html>"
)


@pytest.mark.parametrize(
    ("meta", "ctype"),
    [
        ('<meta http-equiv="Content-Type" content="text/html; charset=gbk">', "text/html"),
        ('<meta charset="gb2312">', "text/html"),
        ("", "text/html"),  # no charset anywhere: detected
        ("", "text/html; charset=GBK"),
    ],
)
async def test_gbk_pages_decode(meta: str, ctype: str) -> None:
    body = ZH.format(meta=meta).encode("gbk")
    web = Web({"shop.example/p": html(body, ctype=ctype)})
    result = await fetch("http://shop.example/p", web)
    assert result.ok, result.error
    assert "株洲湘火炬 火花塞" in result.markdown and "￥13.85" in result.markdown
    assert result.charset and result.charset.lower() in {"gb18030", "gbk"}


# A supplier shop's GBK home page, sent without a charset: mostly ASCII markup and links
# around a few Chinese words, which byte statistics rate as well in Korean cp949 as in GBK.
_SHOP_HEAD = (
    '<!DOCTYPE html>\n<html lang="zh-CN"><head><title>株洲湘火炬</title><style>body{font-family:'
    "sans-serif} .tier{display:inline-block}</style><script>window.dataLayer=window.dataLayer||[];"
    'function gtag(){}</script></head><body><header><a href="/torch/">株洲湘火炬</a><nav><a href="'
    '/torch/">Home</a> | <a href="/torch/search">Search</a> | <a href="#">Contact</a> | <a href="#"'
    '>Cart</a></nav></header><main><h1>株洲湘火炬</h1><form action="/torch/search"><input name="q" '
    "value=\"\"><button>Search</button></form><ul class='products'>"
)
_SHOP_TAIL = (
    '</ul></main><footer>? 2026 Torch. All rights reserved. <a href="#">Privacy</a> <a href="#">'
    'Terms</a></footer><script>gtag("event","page_view");</script></body></html>'
)
_SHOP_ITEMS = [
    *(("PC", "火花塞帽", m) for m in ("SD28F", "SD75F", "TC70", "TC83", "TJPC520", "TJPC839")),
    *(("PC", "火花塞帽", m) for m in ("TJPC925", "VB96EM", "XD27F")),
    *(("SP", "火花塞", m) for m in ("BKR6E", "CPR5EA-9", "DPR5EA-9", "TJU8AC-7", "TJUR7DC-9")),
    *(("SP", "火花塞", m) for m in ("TJX7DC-9", "TJXR8DC-9", "TJXR9DC-9", "U6FER9")),
]


async def test_a_short_chinese_page_without_a_charset_is_read_in_its_declared_language() -> None:
    items = "".join(
        f'<li><a href="http://testserver/torch/chanpin/{code}-TORCH-{m}.htm">火炬 {name} {m}</a>'
        f" — {m} ({name})</li>"
        for code, name, m in _SHOP_ITEMS
    )
    body = (_SHOP_HEAD + items + _SHOP_TAIL).encode("gbk")
    web = Web({"shop.example/torch/": html(body, ctype="text/html")})
    result = await fetch("http://shop.example/torch/", web)
    assert result.ok and result.charset == "gb18030", result.charset
    assert result.title == "株洲湘火炬" and "火炬 火花塞 TJUR7DC-9" in result.markdown


async def test_utf8_bom_and_json_and_plain_text() -> None:
    web = Web(
        {
            "shop.example/bom": html(
                b"\xef\xbb\xbf<html><body><p>\xe7\x81\xab</p></body></html>", ctype="text/html"
            ),
            "shop.example/api": html('{"price": "12.50"}', ctype="application/json"),
            "shop.example/txt": html("plain words", ctype="text/plain"),
            "shop.example/pdf": html(b"%PDF-1.7", ctype="application/pdf"),
        }
    )
    assert "火" in (await fetch("http://shop.example/bom", web)).markdown
    assert '"price": "12.50"' in (await fetch("http://shop.example/api", web)).markdown
    assert (await fetch("http://shop.example/txt", web)).markdown == "plain words"
    pdf = await fetch("http://shop.example/pdf", web)
    assert not pdf.ok and pdf.error_code == "unsupported_content"


# --- requests: user agent, pinning, retries, budget, size cap -----------------------------


async def test_request_is_pinned_to_the_checked_address_with_a_browser_user_agent() -> None:
    web = Web({"shop.example/p": html(PAGE)})
    result = await fetch("http://shop.example/p", web)
    assert result.ok and result.final_url == "http://shop.example/p"
    sent = web.calls[0]
    assert sent.url.host == PUBLIC_IP  # connected to the address that was vetted
    assert sent.headers["host"] == "shop.example"
    assert sent.headers["user-agent"].startswith(UA_BROWSER)


async def test_server_errors_are_retried_with_backoff() -> None:
    answers = iter([503, 502, 200])

    def flaky(request: httpx.Request) -> httpx.Response:
        status = next(answers)
        return httpx.Response(
            status, text=PAGE if status == 200 else "busy", headers={"content-type": "text/html"}
        )

    web = Web({"shop.example/p": flaky})
    result = await fetch("http://shop.example/p", web)
    assert result.ok and len(web.calls) == 3


async def test_retry_after_is_honoured() -> None:
    answers = iter([429, 200])

    def limited(request: httpx.Request) -> httpx.Response:
        if next(answers) == 429:
            return httpx.Response(429, headers={"retry-after": "0.3"})
        return httpx.Response(200, text=PAGE, headers={"content-type": "text/html"})

    web = Web({"shop.example/p": limited})
    started = time.monotonic()
    result = await fetch("http://shop.example/p", web)
    assert result.ok and time.monotonic() - started >= 0.3


async def test_retry_after_beyond_the_budget_ends_in_a_clear_error_quickly() -> None:
    web = Web({"shop.example/p": lambda r: httpx.Response(429, headers={"retry-after": "120"})})
    started = time.monotonic()
    result = await fetch("http://shop.example/p", web, total_budget=2.0)
    assert time.monotonic() - started < 1.0
    assert not result.ok and result.error_code == "rate_limited"
    assert "Retry-After 120" in (result.error or "") and "budget" in (result.error or "")
    assert result.for_model(1000).startswith("Error:")


async def test_404_is_not_retried_and_says_so() -> None:
    web = Web({})
    result = await fetch("http://shop.example/missing", web)
    assert not result.ok and result.status == 404 and len(web.calls) == 1
    assert "404" in (result.error or "")


async def test_response_size_is_capped() -> None:
    big = "<html><body><main>" + "<p>filler text</p>" * 20000 + "</main></body></html>"
    web = Web({"shop.example/big": html(big)})
    result = await fetch("http://shop.example/big", web, max_bytes=4096)
    assert result.ok and result.truncated_bytes
    assert "size cap" in result.for_model(100_000)


async def test_output_is_capped_for_the_model_but_json_is_kept() -> None:
    page = PAGE.replace("</main>", "<p>" + "lorem ipsum " * 3000 + "</p></main>")
    web = Web({"shop.example/p": html(page)})
    result = await fetch("http://shop.example/p", web)
    text = result.for_model(2000)
    assert len(text) < 2600
    assert "[Truncated: showing" in text
    assert '"priceTiers"' in text  # embedded price data survives the cut
    assert text.startswith("[Web content from http://shop.example/p")
    assert "untrusted" in text


# --- SSRF guard ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1:9/x",  # loopback, port not allowed
        "http://127.0.0.1:8301/",  # the shops' host, another port
        "http://localhost:8301/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/",
        "http://192.168.1.1/",
        "http://172.16.0.5/",
        "http://100.64.0.1/",  # carrier-grade NAT
        "http://0.0.0.0:8300/",
        "http://[::1]:8300/",
        "http://[fd00:ec2::254]/",
        "http://[::ffff:10.0.0.1]/",
        "http://[fe80::1]/",
        "http://224.0.0.1/",
        "http://metadata.test/",  # resolves to the metadata address
        "http://intranet.test/",  # resolves to 10.0.0.1
        "http://mixed.test/",  # one public, one private address
        "file:///etc/passwd",
        "gopher://shop.example/",
        "http://user:pw@shop.example/",
    ],
)
async def test_ssrf_refused_before_connecting(url: str) -> None:
    web = Web({})
    dns = {
        "localhost": ["127.0.0.1"],
        "metadata.test": ["169.254.169.254"],
        "intranet.test": ["10.0.0.1"],
        "mixed.test": [PUBLIC_IP, "10.0.0.1"],
    }
    result = await fetch(url, web, dns=dns)
    assert not result.ok and result.error_code == "blocked", result
    assert web.calls == []


async def test_allow_list_admits_the_shops_and_configured_hosts_but_never_metadata() -> None:
    web = Web(
        {
            "127.0.0.1:8300/p": html(PAGE),
            "10.1.2.3:9000/p": html(PAGE),
            "intranet.test/p": html(PAGE),
            "intranet.test:8080/p": html(PAGE),
        }
    )
    dns = {"localhost": ["127.0.0.1"], "intranet.test": ["10.9.9.9"], "rebind.test": ["127.0.0.1"]}
    allowed = ["10.1.2.3:9000", "intranet.test", "169.254.169.254"]
    for url in (
        "http://127.0.0.1:8300/p",  # the shops (SUPPLIER_SITES_URL)
        "http://10.1.2.3:9000/p",
        "http://intranet.test/p",  # a host allowed on any port
        "http://intranet.test:8080/p",
    ):
        result = await fetch(url, web, dns=dns, allowed_hosts=allowed)
        assert result.ok, (url, result.error)
    for url in (
        "http://169.254.169.254/p",  # metadata: never, allow-listed or not
        "http://rebind.test:8300/p",  # a name pointed at the allowed address: not the same
        "http://localhost:8300/p",  # the allow-list matches the host as written
        "http://10.1.2.3:9001/p",  # another port
    ):
        result = await fetch(url, web, dns=dns, allowed_hosts=allowed)
        assert result.error_code == "blocked", url
    assert {c.headers["host"] for c in web.calls} == {
        "127.0.0.1:8300", "10.1.2.3:9000", "intranet.test", "intranet.test:8080"
    }  # fmt: skip


@pytest.mark.parametrize(
    "target",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.1/admin",
        "http://127.0.0.1:9/",
        "http://intranet.test/",
    ],
)
async def test_redirects_are_checked_again(target: str) -> None:
    web = Web(
        {
            "shop.example/go": lambda r: httpx.Response(302, headers={"location": target}),
            "shop.example/hop": lambda r: httpx.Response(301, headers={"location": "/go"}),
        }
    )
    result = await fetch("http://shop.example/hop", web, dns={"intranet.test": ["10.0.0.1"]})
    assert not result.ok and result.error_code == "blocked"
    assert "redirect" in (result.error or "")
    assert [c.headers["host"] for c in web.calls] == ["shop.example", "shop.example"]


async def test_redirects_are_followed_and_capped() -> None:
    web = Web(
        {
            "shop.example/old": lambda r: httpx.Response(301, headers={"location": "/new"}),
            "shop.example/new": html(PAGE),
            "shop.example/loop": lambda r: httpx.Response(302, headers={"location": "/loop"}),
        }
    )
    ok = await fetch("http://shop.example/old", web)
    assert ok.ok and ok.final_url == "http://shop.example/new"
    loop = await fetch("http://shop.example/loop", web, max_redirects=3)
    assert loop.error_code == "too_many_redirects"


async def test_unresolvable_host_is_a_clear_error() -> None:
    result = await fetch("http://nowhere.invalid/", Web({}))
    assert result.error_code == "dns" and "nowhere.invalid" in (result.error or "")


# --- reader fallbacks ---------------------------------------------------------------------


async def test_readers_take_over_when_the_site_blocks_us_and_dead_ones_are_skipped() -> None:
    def dead(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    web = Web(
        {
            "shop.example/p": html("<h1>403</h1>", status=403),
            "dead-reader.example/http://shop.example/p": dead,
            "reader.example/http://shop.example/p": lambda r: httpx.Response(
                200,
                text="# NGK CR7HSA\n\n| Qty | Price |\n|---|---|\n| 1+ | 12.50 |",
                headers={"content-type": "text/markdown"},
            ),
        }
    )
    result = await fetch(
        "http://shop.example/p",
        web,
        readers=["http://dead-reader.example/", "http://reader.example/"],
        reader_retries=0,
    )
    assert result.ok and result.via == "http://reader.example/"
    assert "| 1+ | 12.50 |" in result.markdown
    assert any("dead-reader" in n for n in result.notes)
    assert "via reader http://reader.example/" in result.for_model(5000)


async def test_public_readers_never_see_private_urls() -> None:
    web = Web({"127.0.0.1:8300/p": html("denied", status=403)})
    result = await fetch("http://127.0.0.1:8300/p", web, readers=["https://r.jina.example/"])
    assert not result.ok and result.status == 403
    assert [c.headers["host"] for c in web.calls] == ["127.0.0.1:8300"]
    assert "refused access" in (result.error or "")


async def test_no_fallback_for_404() -> None:
    web = Web({})
    result = await fetch("http://shop.example/x", web, readers=["http://reader.example/"])
    assert result.status == 404 and len(web.calls) == 1


# --- settings and the tool ----------------------------------------------------------------


def test_settings_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SUPPLIER_SITES_URL", "http://127.0.0.1:18300")
    monkeypatch.setenv("WEB_ALLOWED_HOSTS", "10.0.0.5:80, intranet.local")
    monkeypatch.setenv("WEB_READERS", '["http://reader.local/"]')
    monkeypatch.setenv("WEB_TOTAL_BUDGET", "7")
    s = WebSettings()
    assert s.allow_entries() == {"10.0.0.5:80", "intranet.local", "127.0.0.1:18300"}
    assert s.readers == ["http://reader.local/"] and s.total_budget == 7


async def test_tool_returns_an_error_tool_message_not_an_exception(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("WEB_READERS", "")
    call = {
        "name": "fetch_url",
        "args": {"url": "http://169.254.169.254/latest/meta-data/"},
        "id": "call-1",
        "type": "tool_call",
    }
    message = await fetch_url.ainvoke(call)
    assert isinstance(message, ToolMessage)
    assert message.status == "error"
    assert "refused" in str(message.content) and "metadata" in str(message.content)


def test_tool_schema_is_small_and_named() -> None:
    assert fetch_url.name == "fetch_url"
    assert set(fetch_url.args) == {"url", "max_chars"}
    assert FetchUrlInput.model_json_schema()["required"] == ["url"]
    assert len(fetch_url.description) < 700


# --- hostile pages: nesting depth and conversion time -------------------------------------


def nested(levels: int, tag: str = "div", inner: str = "deep text") -> str:
    return f"<html><body>{f'<{tag}>' * levels}{inner}{f'</{tag}>' * levels}</body></html>"


async def test_200000_nested_divs_end_within_the_budget_with_a_clear_result() -> None:
    page = nested(200_000, inner="<p>Price: ¥12.50</p>")
    assert 2_000_000 < len(page) < settings().max_bytes  # under the size cap
    web = Web({"shop.example/deep": html(page)})
    budget = settings(total_budget=20.0)
    started = time.monotonic()
    async with web.client() as client:
        with no_blocking_calls():  # converted in a worker process, not on the event loop
            result = await fetch_markdown(
                "http://shop.example/deep",
                settings=budget,
                client=client,
                resolver=resolver(),  # type: ignore[arg-type]
            )
    assert time.monotonic() - started < 20.0
    assert result.ok, result.error  # flattened, not given up on: the text survives
    assert "Price: ¥12.50" in result.markdown


@pytest.mark.parametrize("tag", ["div", "span", "ul", "blockquote", "section"])
def test_5000_levels_convert_without_recursion_error(tag: str) -> None:
    _, md, _ = html_to_markdown(nested(5000, tag))
    assert "deep text" in md


async def test_deep_pages_and_deep_json_never_raise_out_of_fetch_markdown() -> None:
    deep_json = "[" * 100_000 + "]" * 100_000
    web = Web(
        {
            "shop.example/deep": html(nested(5000, "ul")),
            "shop.example/json": html(deep_json, ctype="application/json"),
            "shop.example/script": html(
                f"<html><body><main><p>{'text ' * 20}</p></main>"
                f'<script type="application/json">{deep_json}</script></body></html>'
            ),
        }
    )
    for path in ("deep", "json", "script"):
        result = await fetch(f"http://shop.example/{path}", web)
        assert result.ok, (path, result.error)


async def test_an_unexpected_failure_is_a_result_not_an_exception() -> None:
    async def broken(host: str, port: int) -> list[str]:
        raise RuntimeError("resolver bug")

    async with Web({}).client() as client:
        result = await fetch_markdown(
            "http://shop.example/p", settings=settings(), client=client, resolver=broken
        )
    assert not result.ok and result.error_code == "internal"
    assert "resolver bug" in (result.error or "")


def test_ordinary_pages_are_not_touched_by_the_nesting_bounds() -> None:
    assert bound_source(PAGE, depth=12) is PAGE  # within the depth: the very same text
    # More tags than the scan threshold, written the sloppy way (no </td>, no </tr>):
    # implied end tags are understood, so nothing is cut and every row survives.
    rows = "".join(f"<tr><td>{n}+<td>¥{n}.00" for n in range(1, 4001))
    page = f"<html><body><main><table><tr><th>Qty<th>Price{rows}</table></main></body></html>"
    assert page.count("<") > SOURCE_SCAN_TAGS
    assert bound_source(page) is page
    _, md, _ = html_to_markdown(page)
    assert "| 1+ | ¥1.00 |" in md and "| 4000+ | ¥4000.00 |" in md


async def test_a_page_too_slow_to_convert_fails_clearly_within_the_budget() -> None:
    # markdownify is quadratic in the rows of a <thead>: a 90 KB page would take
    # minutes. The conversion runs out the budget, is stopped, and says so.
    page = "<html><body><table><thead>" + "<tr><td>x" * 10_000 + "</thead></table></body></html>"
    web = Web({"shop.example/slow": html(page)})
    started = time.monotonic()
    result = await fetch("http://shop.example/slow", web, total_budget=3.0)
    assert time.monotonic() - started < 4.0
    assert not result.ok and result.error_code == "conversion"
    assert "could not be converted" in (result.error or "") and "3 s budget" in (result.error or "")


async def test_the_deadline_kills_the_worker_doing_the_conversion() -> None:
    await worker.start()
    ready = await worker.convert_in_worker(b"<p>warm</p>", "text/html", "http://w/", 8000)
    assert ready.markdown == "warm"
    before = {p.pid for p in multiprocessing.active_children()}
    slow = ("<table><thead>" + "<tr><td>x" * 10_000 + "</thead></table>").encode()
    with pytest.raises(TimeoutError):
        async with asyncio.timeout(0.5):
            await worker.convert_in_worker(slow, "text/html", "http://w/slow", 8000)
    deadline = time.monotonic() + 5
    while before <= {p.pid for p in multiprocessing.active_children()}:
        assert time.monotonic() < deadline, "the busy worker was not stopped"
        await asyncio.sleep(0.05)
    # The pool carries on with a fresh worker.
    again = await worker.convert_in_worker(b"<p>again</p>", "text/html", "http://w/", 8000)
    assert again.markdown == "again"
