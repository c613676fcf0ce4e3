"""The supplier shops as the agents meet them: a real ``python -m sim.suppliers`` on a free
loopback port, read through fetch_url, compared with the generator's truth (/catalog.json)."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from graphs.tools.web.fetcher import FetchResult, fetch_markdown
from graphs.tools.web.settings import WebSettings
from runstack.processes import ROOT, ServiceHandle
from runstack.services import run_services

pytestmark = pytest.mark.integration

SLOW = 1.5  # seconds the slow shop (denso) takes per quote page
BROWSER = {"User-Agent": "Mozilla/5.0 (X11; Linux x86_64) Chrome/131.0 Safari/537.36"}
URL_MAP = ROOT / "skills/procurement/supplier-price-urls/data/url_mapping.yaml"


@pytest.fixture(scope="module")
def shops(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceHandle]:
    data = tmp_path_factory.mktemp("shops")
    env = {
        "DATA_DIR": str(data),
        "SIM_SUPPLIERS_SLOW_SECONDS": str(SLOW),
        "SIM_SUPPLIERS_RETRY_AFTER": "1",
    }
    with run_services(["sim-suppliers"], env, log_dir=data) as running:
        yield running["sim-suppliers"]


@pytest.fixture(scope="module")
def tame_shops(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceHandle]:
    data = tmp_path_factory.mktemp("tame-shops")
    env = {"DATA_DIR": str(data), "SIM_SUPPLIERS_MISBEHAVE": "off"}
    with run_services(["sim-suppliers"], env, log_dir=data) as running:
        yield running["sim-suppliers"]


@pytest.fixture(scope="module")
def catalog(shops: ServiceHandle) -> dict[str, Any]:
    return httpx.get(f"{shops.url}/catalog.json", timeout=10).json()  # type: ignore[no-any-return]


def web(shops: ServiceHandle, **kw: Any) -> WebSettings:
    values: dict[str, Any] = {"supplier_sites_url": shops.url, "readers": [], "total_budget": 10}
    values.update(kw)
    return WebSettings(**values)


# --- reading a quote page back out of the Markdown ----------------------------------------

_QTY = re.compile(r"(?:≥\s*)?(\d+)(?:\+|-\d+|\s*(?:pcs|个|条|片|套|支|副)(?![\w]))")
_PRICE = re.compile(r"(?:¥|￥|US\$|CNY|USD)\s*(\d[\d,]*\.\d{2})")


def parse_quote(md: str, blocks: list[str]) -> dict[str, Any]:
    """Tiers, stock and lead time as a reader of the Markdown would take them."""
    for block in blocks:
        data = json.loads(block)
        if "priceTiers" in data:
            return {
                "tiers": [(t["minQty"], t["unitPrice"]) for t in data["priceTiers"]],
                "stock": data["stock"],
                "lead_time_days": data["leadTimeDays"],
                "updated": data["updatedAt"],
            }
    start = max(md.find("Price breaks"), md.find("阶梯"), md.find("Volume pricing"), 0)
    region = md[start:]
    # Pair each price with the nearest quantity before it.
    tokens = sorted(
        [(m.start(), "q", m.group(1)) for m in _QTY.finditer(region)]
        + [(m.start(), "p", m.group(1)) for m in _PRICE.finditer(region)]
    )
    tiers: list[tuple[int, str]] = []
    qty: str | None = None
    for _, kind, value in tokens:
        if kind == "q":
            qty = value
        elif qty is not None:
            tiers.append((int(qty), value.replace(",", "")))
            qty = None
    stock = re.search(r"(?:Stock:|库存：)\s*(\d+)", md)
    lead = re.search(r"(?:Lead time:|交货期：)\s*(\d+)", md)
    updated = re.search(r"(?:Last updated:|更新日期：)\s*(\d{4}-\d{2}-\d{2})", md)
    return {
        "tiers": tiers,
        "stock": int(stock.group(1)) if stock else None,
        "lead_time_days": int(lead.group(1)) if lead else None,
        "updated": updated.group(1) if updated else None,
    }


def expected(truth: dict[str, Any]) -> dict[str, Any]:
    return {
        "tiers": [(t["min_qty"], t["unit_price"]) for t in truth["tiers"]],
        "stock": truth["stock"],
        "lead_time_days": truth["lead_time_days"],
        "updated": truth["updated"],
    }


# --- tests --------------------------------------------------------------------------------


def test_health_and_catalogue_cover_every_category(
    shops: ServiceHandle, catalog: dict[str, Any]
) -> None:
    health = httpx.get(f"{shops.url}/health", timeout=5).json()
    assert health["status"] == "ok" and health["shops"] >= 6
    slugs = {s["slug"] for s in catalog["shops"]}
    assert len(slugs) >= 6
    layouts = {s["layout"] for s in catalog["shops"]}
    assert {"table", "embedded_json", "cards", "zh_table", "ld_json", "dl"} <= layouts
    sold = {p["category"] for s in catalog["shops"] for p in s["parts"]}
    assert sold == set(catalog["categories"])
    sp_shops = {s["slug"] for s in catalog["shops"] if "SP" in s["categories"]}
    assert len(sp_shops) >= 3
    truths = [p["truth"] for s in catalog["shops"] for p in s["parts"]]
    statuses = {t["status"] for t in truths}
    assert statuses == {"in_stock", "out_of_stock", "discontinued"}
    first = [t["tiers"][0]["unit_price_minor"] for t in truths if t["tiers"]]
    contract = [t["contract_price_minor"] for t in truths if t["tiers"]]
    cheaper = sum(f < c for f, c in zip(first, contract, strict=True))
    dearer = sum(f > c for f, c in zip(first, contract, strict=True))
    assert cheaper > 50 and dearer > 50 and cheaper + dearer == len(first)


async def test_every_shop_quote_page_reads_back_as_the_truth(
    shops: ServiceHandle, catalog: dict[str, Any]
) -> None:
    settings = web(shops)
    jobs: list[tuple[dict[str, Any], dict[str, Any]]] = []
    for shop in catalog["shops"]:
        picks: dict[str, dict[str, Any]] = {}
        for p in shop["parts"]:
            picks.setdefault(p["truth"]["status"], p)
        if shop["misbehaviour"] == "malformed":
            picks["broken"] = next(p for p in shop["parts"] if p["truth"].get("malformed"))
        hostile = [p for p in shop["parts"] if p["truth"].get("hostile")]
        if hostile:
            picks["hostile"] = hostile[0]
        jobs += [(shop, p) for p in picks.values()]

    async def one(url: str) -> FetchResult:
        return await fetch_markdown(url, settings=settings)

    # Fetched concurrently; how fast is scripts/bench/bench_fetch.py's business, not a test's.
    results = await asyncio.gather(*(one(p["quote_url"]) for _, p in jobs))
    seen_layouts = set()
    for (shop, part), result in zip(jobs, results, strict=True):
        where = f"{shop['slug']} {part['sku']} {part['quote_url']}"
        assert result.ok, f"{where}: {result.error}"
        got = parse_quote(result.markdown, result.embedded_json)
        assert got == expected(part["truth"]), f"{where}\n{result.markdown}"
        assert part["model"] in result.markdown or part["model"] in result.title
        if part["truth"].get("hostile"):  # delivered as data, inside the untrusted frame
            text = result.for_model(20_000)
            assert "ignore all previous instructions" in text
            assert text.startswith("[Web content from") and "untrusted" in text.split("\n")[0]
        if part["truth"]["status"] == "discontinued":
            assert re.search("Discontinued|discontinued|已停产", result.markdown), where
        seen_layouts.add(shop["layout"])
    assert len(seen_layouts) == 6


async def test_gbk_shop_decodes_quote_and_charsetless_search_pages(
    shops: ServiceHandle, catalog: dict[str, Any]
) -> None:
    async with httpx.AsyncClient(headers=BROWSER, timeout=5) as client:
        raw = await client.get(f"{shops.url}/torch/")
    assert "charset" not in raw.headers["content-type"]
    with pytest.raises(UnicodeDecodeError):
        raw.content.decode("utf-8")
    settings = web(shops)
    torch = next(s for s in catalog["shops"] if s["slug"] == "torch")
    assert torch["encoding"] == "gbk"
    quote = await fetch_markdown(torch["parts"][0]["quote_url"], settings=settings)
    assert quote.ok and quote.charset == "gb18030"
    assert "阶梯报价" in quote.markdown and "交货期" in quote.markdown
    search = await fetch_markdown(f"{shops.url}/torch/search?q=火花塞", settings=settings)
    assert search.ok and search.charset == "gb18030" and "火炬 火花塞" in search.markdown
    home = await fetch_markdown(f"{shops.url}/torch/", settings=settings)
    assert home.ok and home.title == "株洲湘火炬"


async def test_403_without_a_browser_user_agent(shops: ServiceHandle) -> None:
    url = f"{shops.url}/ngk/"
    async with httpx.AsyncClient(timeout=5) as client:
        assert (await client.get(url)).status_code == 403  # python-httpx/...
        assert (await client.get(url, headers=BROWSER)).status_code == 200
    bot = await fetch_markdown(url, settings=web(shops, user_agent="procurement-bot/1.0"))
    assert not bot.ok and bot.status == 403 and "refused access" in (bot.error or "")
    assert bot.elapsed < 2


async def test_429_is_waited_out_or_reported_within_the_budget(
    shops: ServiceHandle, catalog: dict[str, Any]
) -> None:
    brembo = next(s for s in catalog["shops"] if s["slug"] == "brembo")
    # Pages no other test fetched, so their first request is the one that gets the 429.
    used = {
        next(p["sku"] for p in brembo["parts"] if p["truth"]["status"] == st)
        for st in {p["truth"]["status"] for p in brembo["parts"]}
    }
    first, second = [p for p in brembo["parts"] if p["sku"] not in used][-2:]
    waited = await fetch_markdown(first["quote_url"], settings=web(shops))
    assert waited.ok and 1.0 <= waited.elapsed < 3
    assert parse_quote(waited.markdown, [])["tiers"] == expected(first["truth"])["tiers"]
    short = await fetch_markdown(second["quote_url"], settings=web(shops, total_budget=0.8))
    assert not short.ok and short.error_code == "rate_limited"
    assert "Retry-After 1" in (short.error or "") and short.elapsed < 0.8


async def test_slow_shop_times_out_within_the_budget_or_is_waited_for(
    shops: ServiceHandle, catalog: dict[str, Any]
) -> None:
    denso = next(s for s in catalog["shops"] if s["slug"] == "denso")
    part = denso["parts"][-1]
    impatient = web(shops, timeout=0.4, total_budget=1.0, max_retries=1)
    late = await fetch_markdown(part["quote_url"], settings=impatient)
    assert not late.ok and late.error_code in ("timeout", "budget")
    assert "timed out" in (late.error or "") or "budget" in (late.error or "")
    assert late.elapsed < 1.5
    patient = await fetch_markdown(part["quote_url"], settings=web(shops))
    assert patient.ok and patient.elapsed >= SLOW
    assert parse_quote(patient.markdown, [])["tiers"] == expected(part["truth"])["tiers"]


async def test_paginated_listing_and_redirects(shops: ServiceHandle) -> None:
    settings = web(shops)
    page1 = await fetch_markdown(f"{shops.url}/cqmp/", settings=settings)
    assert page1.ok and "下一页" in page1.markdown
    nxt = re.search(r"\[下一页\]\((\S+)\)", page1.markdown)
    assert nxt and nxt.group(1).startswith(shops.url)
    page2 = await fetch_markdown(nxt.group(1), settings=settings)
    assert page2.ok and "第 2 /" in page2.markdown
    moved = await fetch_markdown(f"{shops.url}/ngk/products/SP-NGK-IU7", settings=settings)
    assert moved.ok and moved.final_url.endswith("/ngk/products/SP-NGK-IU7/price")


def test_misbehaviour_can_be_switched_off(tame_shops: ServiceHandle) -> None:
    cat = httpx.get(f"{tame_shops.url}/catalog.json", timeout=10).json()
    assert all(s["misbehaviour"] is None for s in cat["shops"])
    brembo = next(s for s in cat["shops"] if s["slug"] == "brembo")
    assert httpx.get(brembo["parts"][0]["quote_url"], timeout=5).status_code == 200
    assert httpx.get(f"{tame_shops.url}/ngk/", timeout=5).status_code == 200
    torch = httpx.get(f"{tame_shops.url}/torch/", timeout=5)
    assert "charset=utf-8" in torch.headers["content-type"]


def gen_url_mapping(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m scripts.gen_url_mapping --out <out> *args``, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "scripts.gen_url_mapping", "--out", str(out), *args],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


async def test_url_map_covers_every_pair_and_every_url_answers(
    tame_shops: ServiceHandle, tmp_path: Path
) -> None:
    out = tmp_path / "url_mapping.yaml"
    made = await asyncio.to_thread(gen_url_mapping, out, "--from-url", tame_shops.url)
    assert made.returncode == 0, made.stdout + made.stderr
    mapping = yaml.safe_load(out.read_text(encoding="utf-8"))
    async with httpx.AsyncClient(timeout=10) as http:
        catalog = (await http.get(f"{tame_shops.url}/catalog.json")).json()
    pairs = {(p["sku"], s["supplier_code"]) for s in catalog["shops"] for p in s["parts"]}
    mapped = {(sku, code) for sku, p in mapping["parts"].items() for code in p["quotes"]}
    assert mapped == pairs
    for code, cat in mapping["categories"].items():
        assert all(mapping["parts"][sku]["category"] == code for sku in cat["parts"])
    urls = [u for p in mapping["parts"].values() for u in p["quotes"].values()]
    assert len(urls) == len(pairs) == mapping["counts"]["quote_urls"]
    limits = httpx.Limits(max_connections=16)
    async with httpx.AsyncClient(headers=BROWSER, limits=limits, timeout=10) as client:
        statuses = await asyncio.gather(*(client.get(u) for u in urls))
    bad = [(u, r.status_code) for u, r in zip(urls, statuses, strict=True) if r.status_code != 200]
    assert bad == []


def test_committed_url_map_is_current_for_the_default_base_url(tmp_path: Path) -> None:
    # The generator starts shops of its own on a free port and moves their URLs to the
    # base URL the map is committed for.
    out = tmp_path / "url_mapping.yaml"
    made = gen_url_mapping(out, "--base-url", "http://127.0.0.1:8300")
    assert made.returncode == 0, made.stdout + made.stderr
    text = out.read_text(encoding="utf-8")
    assert URL_MAP.read_text(encoding="utf-8") == text
    loaded = yaml.safe_load(text)
    assert loaded["parts"]["SP-NGK-IU7"]["quotes"]["NGK"] == (
        "http://127.0.0.1:8300/ngk/products/SP-NGK-IU7/price"
    )
    # --check compares without writing: a stale copy fails and is left as it was.
    stale = text.replace("SP-NGK-IU7", "SP-NGK-XXX", 1)
    out.write_text(stale, encoding="utf-8")
    checked = gen_url_mapping(out, "--check", "--base-url", "http://127.0.0.1:8300")
    assert checked.returncode == 1 and "out of date" in checked.stderr
    assert out.read_text(encoding="utf-8") == stale
