"""Benchmark fetch_url: every quote page of one part across all shops, fetched and converted.

Starts ``python -m sim.suppliers`` on a free loopback port (misbehaviour off unless
``--misbehave``), picks the part with the most shops selling it (or ``--sku``), and
fetches each of its quote pages ``--rounds`` times through ``fetch_markdown`` (the
same path the tool takes: SSRF check, pinned connection, decoding, conversion).

Prints per-page p50/p95, the p50 of one whole round (all pages of the part in
sequence and concurrently), the conversion's share (in-process, and through the
worker processes fetch_url converts in, so the cost of the process hop shows as a
ratio), and, as the baseline measured in the same run, a bare ``httpx`` GET of the
same pages (no guard, no conversion). Last, a hostile page (200,000 nested ``<div>``,
under the size cap) converted through the workers, as a share of the time budget.
Target: p50 per healthy page <= 50 ms on loopback, conversion included. Not a test.

    python -m scripts.bench.bench_fetch [--rounds 30] [--sku SP-NGK-IU7] [--misbehave]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from collections import Counter

import httpx

from graphs.tools.web import worker
from graphs.tools.web.convert import decode, html_to_markdown
from graphs.tools.web.fetcher import fetch_markdown
from graphs.tools.web.settings import DEFAULT_USER_AGENT, WebSettings
from scripts.bench.fixtures import scratch, services

TARGET_MS = 50.0


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _bench(base: str, sku: str | None, rounds: int, *, misbehave: bool = False) -> None:
    async with httpx.AsyncClient(timeout=10) as client:
        catalog = (await client.get(f"{base}/catalog.json")).json()
    urls: dict[str, list[tuple[str, str]]] = {}
    for shop in catalog["shops"]:
        for p in shop["parts"]:
            urls.setdefault(p["sku"], []).append((shop["slug"], p["quote_url"]))
    if sku is None:
        counts = Counter({k: len(v) for k, v in urls.items()})
        sku = max(counts, key=lambda k: (counts[k], k.startswith("SP-"), k))
    pages = urls[sku]
    print(f"part {sku}: {len(pages)} quote pages ({', '.join(s for s, _ in pages)})")

    settings = WebSettings(supplier_sites_url=base, readers=[])
    await fetch_markdown(pages[0][1], settings=settings)  # warm-up: imports, TLS context

    per_page: dict[str, list[float]] = {slug: [] for slug, _ in pages}
    conversion: list[float] = []
    in_worker: list[float] = []
    sequential: list[float] = []
    concurrent: list[float] = []
    failures = 0
    for _ in range(rounds):
        start_round = time.perf_counter()
        for slug, url in pages:
            t = time.perf_counter()
            result = await fetch_markdown(url, settings=settings)
            per_page[slug].append((time.perf_counter() - t) * 1000)
            failures += not result.ok
        sequential.append((time.perf_counter() - start_round) * 1000)
        t = time.perf_counter()
        results = await asyncio.gather(*(fetch_markdown(u, settings=settings) for _, u in pages))
        concurrent.append((time.perf_counter() - t) * 1000)
        failures += sum(not r.ok for r in results)

    # Baseline in the same run: a bare GET, one shared client, no guard, no conversion.
    bare: list[float] = []
    async with httpx.AsyncClient(headers={"User-Agent": DEFAULT_USER_AGENT}) as client:
        for _ in range(rounds):
            for _, url in pages:
                t = time.perf_counter()
                resp = await client.get(url)
                bare.append((time.perf_counter() - t) * 1000)
                t = time.perf_counter()
                text, _ = decode(resp.content, resp.headers.get("content-type", ""))
                html_to_markdown(text, url)
                conversion.append((time.perf_counter() - t) * 1000)
                ctype = resp.headers.get("content-type", "")
                t = time.perf_counter()
                await worker.convert_in_worker(resp.content, ctype, url, settings.max_json_chars)
                in_worker.append((time.perf_counter() - t) * 1000)

    print(f"\nrounds: {rounds}; failures: {failures}")
    print(f"{'shop':<10} {'p50 ms':>8} {'p95 ms':>8}")
    for slug, times in per_page.items():
        print(f"{slug:<10} {statistics.median(times):8.2f} {_pct(times, 0.95):8.2f}")
    everything = [t for times in per_page.values() for t in times]
    p50 = statistics.median(everything)
    print(f"\nper page, fetch_url path:   p50 {p50:6.2f} ms   p95 {_pct(everything, 0.95):6.2f} ms")
    convert_p50, worker_p50 = statistics.median(conversion), statistics.median(in_worker)
    print(f"  of which conversion:      p50 {convert_p50:6.2f} ms in-process")
    print(f"  conversion in a worker:   p50 {worker_p50:6.2f} ms ({worker_p50 / convert_p50:.2f}x)")
    print(f"baseline bare httpx GET:    p50 {statistics.median(bare):6.2f} ms")
    print(f"ratio fetch_url / bare GET: {p50 / statistics.median(bare):6.2f}x")
    print(f"whole part, sequential:     p50 {statistics.median(sequential):6.2f} ms")
    print(f"whole part, concurrent:     p50 {statistics.median(concurrent):6.2f} ms")
    verdict = "OK" if p50 <= TARGET_MS else "OVER TARGET"
    if misbehave:
        verdict = "n/a (misbehaving shops included: slow, 429 and 403 pages are not healthy)"
    print(f"target p50 <= {TARGET_MS:.0f} ms per healthy page: {verdict}")
    await _hostile(settings)


async def _hostile(settings: WebSettings) -> None:
    """A page nested 200,000 deep (it used to convert for minutes) against the budget."""
    levels = 200_000
    page = ("<html><body>" + "<div>" * levels + "<p>x</p>" + "</div>" * levels).encode()
    t = time.perf_counter()
    done = await worker.convert_in_worker(page, "text/html", "http://hostile/", 8000)
    took = time.perf_counter() - t
    outcome = "converted" if done.error is None else f"failed: {done.error}"
    print(
        f"\n{levels:,} nested <div> ({len(page) / 1e6:.1f} MB): {outcome} in {took:.2f} s, "
        f"{took / settings.total_budget:.2f}x the {settings.total_budget:g} s budget"
    )


def main(argv: list[str] | None = None) -> int:
    """Command line entry."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--sku", help="the part (default: the one most shops sell)")
    parser.add_argument("--misbehave", action="store_true", help="keep the shops' misbehaviour")
    parser.add_argument("--url", help="use running shops at this URL instead of starting them")
    args = parser.parse_args(argv)
    if args.url:
        asyncio.run(_bench(args.url.rstrip("/"), args.sku, args.rounds, misbehave=True))
        return 0
    misbehave = "on" if args.misbehave else "off"
    with (
        scratch("bench-fetch-") as data,
        services(["sim-suppliers"], data, SIM_SUPPLIERS_MISBEHAVE=misbehave) as running,
    ):
        url = running["sim-suppliers"].url
        asyncio.run(_bench(url, args.sku, args.rounds, misbehave=args.misbehave))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
