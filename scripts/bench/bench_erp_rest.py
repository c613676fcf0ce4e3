"""Benchmark the simulated ERP's REST read endpoints: p50/p99 per endpoint.

Run from the checkout: ``.venv/bin/python -m scripts.bench.bench_erp_rest [-n 300]``.
It starts ``python -m sim.erp`` on a free loopback port with a throw-away DATA_DIR
(or measures a running one given ``--url``) and sends each request N times over one
kept-alive connection. The part search is measured twice: with N distinct queries
(the in-memory index does the work) and with one repeated query (its cache
answers). Target (issue 2): a part search over the whole catalogue under 20 ms at
p50. A measurement, not a test: it exits 0 unless the ERP cannot be reached.

``measure(url, n)`` is importable for other benchmarks.
"""

from __future__ import annotations

import argparse
import contextlib
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx

SEARCH_TARGET_MS = 20.0
_SEARCH_WORDS = (
    "ngk spark plug", "博世火花塞", "brake pads", "刹车片 布雷博", "链条 520", "tire 17",
    "k&n air filter", "机油滤清器", "yuasa battery", "离合器片", "h4 bulb", "减震器 kyb",
    "drive belt", "点火线圈", "brake disc", "cr7hsa", "火花塞帽", "denso", "osram", "正新轮胎",
)  # fmt: skip


@dataclass(frozen=True)
class Result:
    """Latencies of one request kind, in milliseconds."""

    name: str
    samples: tuple[float, ...]

    @property
    def p50(self) -> float:
        """Median latency."""
        return statistics.median(self.samples)

    @property
    def p99(self) -> float:
        """99th percentile latency."""
        ordered = sorted(self.samples)
        return ordered[min(len(ordered) - 1, round(0.99 * (len(ordered) - 1)))]


def _time(client: httpx.Client, n: int, request: Any) -> tuple[float, ...]:
    samples = []
    for i in range(n):
        path, params = request(i)
        started = time.perf_counter()
        response = client.get(path, params=params)
        elapsed = (time.perf_counter() - started) * 1000
        if response.status_code != 200:
            msg = f"GET {path} {params} answered {response.status_code}: {response.text[:200]}"
            raise RuntimeError(msg)
        samples.append(elapsed)
    return tuple(samples)


def measure(url: str, n: int) -> list[Result]:
    """Each read endpoint ``n`` times against the ERP at ``url``, after a short warm-up."""
    cases: dict[str, Any] = {
        "part search (distinct queries)": lambda i: (
            "/parts/search",
            {"name": f"{_SEARCH_WORDS[i % len(_SEARCH_WORDS)]} {i // len(_SEARCH_WORDS)}"},
        ),
        "part search (repeated query)": lambda i: ("/parts/search", {"name": "ngk spark plug"}),
        "supplier search": lambda i: ("/suppliers/search", {"name": "博世"}),
        "parts list (category)": lambda i: ("/parts", {"category": "火花塞", "size": 20}),
        "parts list (name, supplier)": lambda i: ("/parts", {"name": "spark", "supplierId": 30}),
        "part detail + offers": lambda i: (f"/parts/{i % 336 + 1}", {}),
        "parts of a supplier": lambda i: (f"/parts/supplier/{i % 38 + 1}", {}),
        "order search (supplier name)": lambda i: (
            "/orders/search-details",
            {"supplier_name": "NGK", "size": 20},
        ),
        "order search (sku, dates)": lambda i: (
            "/orders/search-details",
            {"sku": "SP-NGK-IU7", "date_from": "2026-01-01"},
        ),
        "order by id": lambda i: (f"/orders/{i % 600 + 1}", {}),
        "inventory warnings": lambda i: ("/inventory/warnings", {"size": 20}),
        "categories": lambda i: ("/categories", {}),
        "health": lambda i: ("/health", {}),
    }
    results = []
    with httpx.Client(base_url=url, timeout=30) as client:
        for name, request in cases.items():
            _time(client, min(20, n), lambda i, r=request: r(i + 10_000))  # warm-up
            results.append(Result(name, _time(client, n, request)))
    return results


@contextlib.contextmanager
def _erp(url: str | None) -> Iterator[str]:
    if url:
        yield url.rstrip("/")
        return
    from scripts.bench.fixtures import scratch, services

    with scratch("bench-erp-") as data, services(["sim-erp"], data) as running:
        yield running["sim-erp"].url


def main(argv: list[str] | None = None) -> int:
    """Print p50/p99 per endpoint and whether the part-search target is met."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=300, help="requests per endpoint (default 300)")
    parser.add_argument("--url", help="a running ERP (default: start one on a free port)")
    args = parser.parse_args(argv)
    with _erp(args.url) as url:
        print(f"sim-erp at {url}, {args.n} requests per endpoint, one kept-alive connection")
        results = measure(url, args.n)
    width = max(len(r.name) for r in results)
    print(f"{'endpoint':<{width}}  {'p50 ms':>8}  {'p99 ms':>8}")
    for r in results:
        print(f"{r.name:<{width}}  {r.p50:8.2f}  {r.p99:8.2f}")
    search = results[0]
    verdict = "met" if search.p50 < SEARCH_TARGET_MS else "NOT met"
    print(
        f"part search over the whole catalogue: p50 {search.p50:.2f} ms "
        f"(target < {SEARCH_TARGET_MS:.0f} ms: {verdict})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
