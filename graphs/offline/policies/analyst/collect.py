"""Stage 2, data collection: the scope's category (else the whole ERP catalogue, to find the
category the request names) → part details with offers and inventory → quote URLs from
``url_mapping.yaml`` (``grep`` + ``read_file``), with supplier status and the window's
orders → ``fetch_url`` per quote page.

:func:`stage_data` returns the next calls to make, or, once everything is in, the
input of the analysis script.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict
from datetime import timedelta
from typing import Any

from graphs.names import match_names
from graphs.offline.history import ToolResult, strip_line_numbers
from graphs.offline.policies.analyst.outcome import fail
from graphs.offline.policies.analyst.run import (
    DETAILS_BATCH,
    MAX_DETAILS,
    MAX_PARTS,
    PAGE,
    URL_MAP,
    URL_MAP_DIR,
    Run,
)  # fmt: skip
from graphs.offline.policies.base import Decision

__all__ = ["AFTER_FOCUS", "stage_data"]

# The notes of the data steps made once the parts to analyse are chosen.
AFTER_FOCUS = frozenset({"grep-urls", "read-urls", "fetch"})

_SITES = re.compile(r"供应商网站当前地址：(\S+?)。")
_LINES = re.compile(r"^@@ lines \d+-(\d+) of (\d+)\b", re.M)
Calls = list[tuple[str, dict[str, Any]]]


def _catalogue(run: Run) -> tuple[list[dict[str, Any]], list[dict[str, Any]] | None]:
    """The ERP parts to choose from (paged ``part_query``), or the page calls still needed.

    The scope's category when the orchestrator resolved one (one small page: every later
    model call carries what was read), else the whole catalogue to find it in."""
    wanted = {"category": run.scope.categories[0]} if run.scope.categories else {}
    pages: dict[int, dict[str, Any]] = {}
    for r in run.view.called("part_query"):
        if {k: v for k, v in r.args.items() if k not in ("page", "size")} != wanted or not r.ok:
            continue
        data = r.data()
        if isinstance(data, dict) and isinstance(data.get("items"), list):
            pages[int(r.args.get("page", 1))] = data
    if not pages:
        return [], [{**wanted, "page": 1, "size": PAGE}]
    first = pages.get(1) or next(iter(pages.values()))
    total = int(first.get("total") or 0)
    count = max(1, math.ceil(total / PAGE))
    missing = [{**wanted, "page": p, "size": PAGE} for p in range(1, count + 1) if p not in pages]
    if missing:
        return [], missing
    return [i for p in sorted(pages) for i in pages[p]["items"] if isinstance(i, dict)], None


def _categories(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen: dict[str, dict[str, Any]] = {}
    for p in parts:
        code = str(p.get("category_code") or "")
        if code and code not in seen:
            seen[code] = {
                "code": code,
                "name_zh": p.get("category_zh"),
                "name_en": p.get("category_en"),
            }
    return list(seen.values())


def _focus_candidates(
    run: Run, in_category: list[dict[str, Any]]
) -> tuple[list[dict[str, Any]], str]:
    """Narrow a category to the part or brands of the scope, else to the models, SKUs or
    brands the request names, if any; with the rule that chose them (``part``,
    ``brands``, ``named`` or ``category``)."""
    if run.scope.excluded_names:  # "除了博世": that brand's parts are not compared
        left_out = {n.casefold() for n in run.scope.excluded_names}
        in_category = [p for p in in_category
                       if str(p.get("brand", "")).casefold() not in left_out
                       and str(p.get("brand_zh", "")).casefold() not in left_out]  # fmt: skip
    if run.scope.part:
        chosen = [p for p in in_category if p.get("sku") == run.scope.part]
        if chosen:
            return chosen, "part"
    if run.scope.parts:
        chosen = [p for p in in_category if p.get("sku") in run.scope.parts]
        if chosen:
            return chosen, "named"
    if run.scope.brand_names:
        wanted = {n.lower() for n in run.scope.brand_names}
        branded = [
            p for p in in_category
            if str(p.get("brand", "")).lower() in wanted or str(p.get("brand_zh", "")) in wanted
        ]  # fmt: skip
        if branded:
            return branded, "brands"
    named = match_names(run.body, in_category, ("sku", "model"))
    if named:
        return [m.record for m in named], "named"
    brands = match_names(run.body, in_category, ("brand", "brand_zh"))
    if brands:
        best = brands[0].strength
        return [m.record for m in brands if m.strength == best], "brands"
    return in_category, "category"


def _details(run: Run) -> tuple[dict[int, dict[str, Any]], set[int]]:
    """Each part's record read so far, from single (``part_id``) and batched (``part_ids``)
    answers alike; and the ids a batched answer said no part has (``missing``), which are
    not asked again."""
    out: dict[int, dict[str, Any]] = {}
    absent: set[int] = set()
    for r in run.view.called("part_query"):
        if not r.ok:
            continue
        data = r.data()
        if "part_id" in r.args:
            if isinstance(data, dict) and "offers" in data:
                out[int(r.args["part_id"])] = data
        elif isinstance(r.args.get("part_ids"), list) and isinstance(data, dict):
            for item in data.get("items") or []:
                if isinstance(item, dict) and "offers" in item and "id" in item:
                    out[int(item["id"])] = item
            absent |= {int(i) for i in data.get("missing") or [] if isinstance(i, int)}
    return out, absent - set(out)


def _batches(run: Run) -> bool:
    """Whether ``part_query`` takes ``part_ids``: as its bound schema says, when it lists its
    parameters; a tool bound without them is taken to (the ERP MCP server's does)."""
    params = run.view.params("part_query")
    return not params or "part_ids" in params


def _detail_calls(run: Run, ids: list[int]) -> Calls:
    """The calls that read these parts' details: batches of :data:`DETAILS_BATCH`, all in
    one turn, or one call per part for a ``part_query`` without ``part_ids``."""
    if not _batches(run):
        return [("part_query", {"part_id": i}) for i in ids]
    return [
        ("part_query", {"part_ids": ids[n : n + DETAILS_BATCH]})
        for n in range(0, len(ids), DETAILS_BATCH)
    ]


def _to_the_end(read: str) -> bool:
    """Whether a ``read_file`` answer reaches the file's last line (no window header: the
    whole file)."""
    m = _LINES.search(read)
    return m is None or m.group(1) == m.group(2)


def _quote_urls(run: Run, sku: str) -> dict[str, str] | None:
    """``{supplier code: url}`` for a SKU from the url_mapping read, or None if not read yet."""
    for r in run.view.called("read_file"):
        if r.args.get("file_path") != URL_MAP or not r.ok:
            continue
        text = strip_line_numbers(r.content)
        block = re.search(
            r"^  " + re.escape(sku) + r":\n(.*?)(?=^  \S|\Z)", text + "\n", re.M | re.S
        )
        cut = block is not None and block.end() > len(text) and not _to_the_end(r.content)
        if block is None or (cut and block.start() > 0):
            # Not in this window, or cut by its end in a read made for something else
            # (the head, read for base_url): its entry is read from its own line.
            continue
        quotes = re.search(r"^    quotes:\n((?:^      .*\n?)*)", block.group(1), re.M)
        urls: dict[str, str] = {}
        if quotes:
            for line in quotes.group(1).splitlines():
                m = re.match(r"^\s+([A-Z0-9_&-]+):\s*(\S+)", line)
                if m:
                    urls[m.group(1)] = m.group(2)
        return urls
    return None


def _mapping_base(run: Run) -> str | None:
    """The ``base_url`` url_mapping.yaml's URLs were generated with, once its head was read."""
    for r in run.results("read_file", file_path=URL_MAP, offset=0):
        m = re.search(r"^base_url:\s*(\S+)", strip_line_numbers(r.content), re.M)
        return m.group(1).rstrip("/") if m else ""
    return None


def _rebase(run: Run, url: str) -> str:
    """A quote URL moved to where the shops run now (the system prompt says where)."""
    base = _mapping_base(run)
    sites = _SITES.search(run.view.system)
    if base and sites and url.startswith(base + "/"):
        return sites.group(1).rstrip("/") + url[len(base) :]
    return url


def _grep_line(run: Run, sku: str) -> int | bool | None:
    """Line of ``sku``'s url_mapping.yaml entry; False if grep found none; None if not asked."""
    for r in run.results("grep", pattern=f"  {sku}:"):
        m = re.search(r"(\d+):\s+" + re.escape(sku) + r":", r.content)
        return int(m.group(1)) if m else False
    return None


def _orders(
    run: Run, part_id: int, since: str
) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    pages: dict[int, dict[str, Any]] = {}
    for r in run.results("order_search_details", part_id=part_id, date_from=since):
        data = r.data()
        if r.ok and isinstance(data, dict):
            pages[int(r.args.get("page", 1))] = data
    if not pages:
        return [], {"part_id": part_id, "date_from": since, "page": 1, "size": PAGE}
    last = pages[max(pages)]
    if last.get("has_more"):
        return [], {"part_id": part_id, "date_from": since, "page": max(pages) + 1, "size": PAGE}
    return [o for p in sorted(pages) for o in pages[p].get("items") or []], None


def _paid_lines(orders: list[dict[str, Any]], part_id: int) -> list[dict[str, Any]]:
    """The orders as the script reads them: who, when, in what state, and this part's lines.

    The input file is written by a tool call that every later model call carries: the ERP's
    other order fields (names, totals, people) would only make each of them heavier."""
    keep = ("order_no", "supplier_id", "status", "order_date")
    out = []
    for o in orders:
        lines = [
            {k: line.get(k) for k in ("part_id", "quantity", "unit_price_minor")}
            for line in o.get("lines") or []
            if line.get("part_id") == part_id
        ]
        if lines:
            out.append({**{k: o.get(k) for k in keep}, "lines": lines})
    return out


def _fetched(run: Run, url: str) -> ToolResult | None:
    found = run.results("fetch_url", url=url)
    return found[-1] if found else None


def _suppliers(run: Run) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """Every ERP supplier (for status and rating), or the next page to ask for."""
    pages: dict[int, dict[str, Any]] = {}
    for r in run.results("supplier_query", name=""):
        data = r.data()
        if r.ok and isinstance(data, dict):
            pages[int(r.args.get("page", 1))] = data
    if not pages:
        return [], {"name": "", "page": 1, "size": PAGE}
    if pages[max(pages)].get("has_more"):
        return [], {"name": "", "page": max(pages) + 1, "size": PAGE}
    return [s for p in sorted(pages) for s in pages[p].get("items") or []], None


def _category(run: Run) -> Decision | tuple[dict[str, Any], list[dict[str, Any]]]:
    """The category the request names and its parts, or the step that gets there."""
    parts, pages = _catalogue(run)
    if pages is not None:
        return Decision(
            run.say(
                "阶段 2：读取 ERP 零件目录，识别要分析的类别。",
                "Stage 2: reading the ERP catalogue to find the category.",
            ),
            [("part_query", args) for args in pages],
            note="catalogue",
        )
    categories = _categories(parts)
    scoped = [c for c in categories if c["code"] in run.scope.categories]
    if scoped:
        category = scoped[0]
        return category, [p for p in parts if p.get("category_code") == category["code"]]
    hits = match_names(run.body, categories, ("name_zh", "name_en"))
    if not hits:
        names = ("、" if run.zh else ", ").join(
            str(c["name_zh"] if run.zh else c["name_en"]) for c in categories
        )
        return fail(
            run,
            "no_category",
            run.say(
                f"没能从请求中识别出 ERP 的零件类别。ERP 中的类别有：{names}。请指明类别后再试。",
                f"I could not tell which ERP part category to analyse. The ERP has: {names}. "
                "Name one and ask again.",
            ),
        )
    category = hits[0].record
    return category, [p for p in parts if p.get("category_code") == category["code"]]


def _focus(
    run: Run, category: dict[str, Any], in_category: list[dict[str, Any]]
) -> Decision | tuple[list[dict[str, Any]], dict[str, Any]]:
    """The part details to analyse (those most suppliers offer) and how they were chosen,
    or the calls to read them."""
    candidates, rule = _focus_candidates(run, in_category)
    details, absent = _details(run)
    # A part the catalogue listed but the ERP no longer has is left out, not asked again.
    candidates = [p for p in candidates[:MAX_DETAILS] if int(p["id"]) not in absent]
    missing = [p for p in candidates if int(p["id"]) not in details]
    if missing:
        return Decision(
            run.say(
                f"类别：{category['name_zh']}（{len(in_category)} 个零件）。读取报价与库存。",
                f"Category: {category['name_en']} ({len(in_category)} parts). Reading offers "
                "and stock.",
            ),
            _detail_calls(run, [int(p["id"]) for p in missing]),
            note="details",
        )
    ordered = sorted(
        (details[int(p["id"])] for p in candidates),
        key=lambda d: (-len(d.get("offers") or []), int(d["id"])),
    )
    chosen = ordered[:MAX_PARTS]
    picked = {int(d["id"]) for d in chosen}
    rest = [details.get(int(p["id"]), p) for p in in_category if int(p["id"]) not in picked]
    selection = {
        # "category": every part of it fits; "most_offered": capped, the rest listed.
        "rule": rule if rule != "category" or len(ordered) <= MAX_PARTS else "most_offered",
        "cap": MAX_PARTS,
        "capped": len(ordered) > MAX_PARTS,
        "in_category": len(in_category),
        "candidates": len(ordered),
        "not_analysed": [
            {"sku": d.get("sku"), "name_zh": d.get("name_zh"), "name_en": d.get("name_en"),
             "offers": len(d["offers"]) if isinstance(d.get("offers"), list) else None}
            for d in rest
        ],
    }  # fmt: skip
    return chosen, selection


def _url_lookups(run: Run, focus: list[dict[str, Any]]) -> Decision | None:
    """Quote URLs: find each SKU in url_mapping.yaml, then read its entry (None: all read)."""
    ask_grep = [d for d in focus if _grep_line(run, d["sku"]) is None]
    if ask_grep:
        calls: Calls = [
            ("grep", {"pattern": f"  {d['sku']}:", "path": URL_MAP_DIR, "output_mode": "content"})
            for d in ask_grep
        ]
        if _mapping_base(run) is None:  # the head says which base_url the URLs were made with
            calls.append(("read_file", {"file_path": URL_MAP, "offset": 0, "limit": 5}))
        return Decision(
            run.say(
                "查找供应商报价网址（supplier-price-urls）。",
                "Looking up the suppliers' quote URLs (supplier-price-urls).",
            ),
            calls,
            note="grep-urls",
        )
    reads = []
    for d in focus:
        line = _grep_line(run, d["sku"])
        if isinstance(line, int) and line and _quote_urls(run, d["sku"]) is None:
            reads.append(
                ("read_file", {"file_path": URL_MAP, "offset": max(0, line - 1), "limit": 20})
            )
    if reads:
        return Decision(
            run.say("读取报价网址。", "Reading the quote URLs."), reads, note="read-urls"
        )
    return None


# The team's own country (its ERP keeps CNY): "国产" / "domestic" suppliers are there.
HOME_COUNTRY = "CN"


def _offered(run: Run, part: dict[str, Any], suppliers: list[dict[str, Any]] | None = None
             ) -> list[dict[str, Any]]:  # fmt: skip
    """The part's offers the scope keeps: not from a supplier it leaves out, and (with
    ``suppliers`` read) from domestic or imported suppliers when it says so."""
    offers = [o for o in part.get("offers") or []
              if str(o.get("supplier_code")) not in run.scope.excluded]  # fmt: skip
    if run.scope.origin and suppliers is not None:
        country = {str(s.get("code")): str(s.get("country") or "") for s in suppliers}
        home = run.scope.origin == "domestic"
        offers = [o for o in offers
                  if (country.get(str(o.get("supplier_code"))) == HOME_COUNTRY)
                  == home]  # fmt: skip
    return offers


def _quotes(run: Run, part: dict[str, Any], fetches: Calls) -> list[dict[str, Any]]:
    """The part's fetched quote pages; the fetches still to make are added to ``fetches``."""
    codes = {str(o.get("supplier_code")) for o in _offered(run, part)}
    quotes = []
    for code, mapped in sorted((_quote_urls(run, part["sku"]) or {}).items()):
        if code not in codes:
            continue
        url = _rebase(run, mapped)
        result = _fetched(run, url)
        if result is None:
            fetches.append(("fetch_url", {"url": url}))
        elif result.ok:
            quotes.append({"supplier_code": code, "url": url, "text": result.content})
    return quotes


def _collect(run: Run, focus: list[dict[str, Any]]) -> tuple[Calls, Calls, list[dict[str, Any]]]:
    """(quote fetches to make, order pages to read, the parts' data as collected so far)."""
    months = run.scope.window_months or 12
    since = (run.today - timedelta(days=round(months * 365 / 12))).isoformat()
    fetches: Calls = []
    order_calls: Calls = []
    collected: list[dict[str, Any]] = []
    for d in focus:
        quotes = _quotes(run, d, fetches)
        orders, next_page = _orders(run, int(d["id"]), since)
        if next_page is not None:
            order_calls.append(("order_search_details", next_page))
        collected.append(
            {
                "id": d["id"],
                "sku": d["sku"],
                "model": d.get("model"),
                "name_zh": d.get("name_zh"),
                "name_en": d.get("name_en"),
                "unit": d.get("unit"),
                "offers": d.get("offers") or [],
                "inventory": d.get("inventory") or {},
                "quotes": quotes,
                "orders": _paid_lines(orders, int(d["id"])),
            }
        )
    return fetches, order_calls, collected


def stage_data(run: Run) -> Decision | dict[str, Any]:
    """Stage 2: returns the next data calls, or the collected input for the analysis.

    Once the parts are chosen, the reads that need nothing from each other share a turn
    (the tool node runs one message's calls concurrently): the quote-URL lookups, the
    suppliers' pages and the orders' pages ride together, and the quote pages follow as
    soon as their URLs are known. Each model turn costs the server a whole step."""
    found = _category(run)
    if isinstance(found, Decision):
        return found
    category, in_category = found
    found_focus = _focus(run, category, in_category)
    if isinstance(found_focus, Decision):
        return found_focus
    focus, selection = found_focus
    lookup = _url_lookups(run, focus)
    suppliers, supplier_page = _suppliers(run)
    fetches, order_calls, collected = _collect(run, focus)
    pages: Calls = [("supplier_query", supplier_page)] if supplier_page is not None else []
    pages += order_calls
    if lookup is not None:
        also = run.say("同时读取供应商状态和订单。", "Reading the suppliers and orders meanwhile.")
        text = f"{lookup.text}\n{also}" if pages else lookup.text
        return Decision(text, [*lookup.calls, *fetches, *pages], note=lookup.note)
    if fetches or pages:
        return Decision(
            run.say(
                f"抓取 {len(fetches)} 个供应商报价页，"
                f"读取近 {run.scope.window_months or 12} 个月订单。",
                f"Fetching {len(fetches)} quote pages and {run.scope.window_months or 12} months "
                "of orders.",
            ),
            [*fetches, *pages],
            note="fetch",
        )
    if run.scope.origin or run.scope.excluded:
        for item in collected:
            item["offers"] = _offered(run, item, suppliers)
            kept = {str(o.get("supplier_code")) for o in item["offers"]}
            item["quotes"] = [q for q in item["quotes"] if q["supplier_code"] in kept]
    return {
        "request": run.body.strip(),
        "today": run.today.isoformat(),
        "window_months": run.scope.window_months or 12,
        "scope": {k: v for k, v in asdict(run.scope).items() if v not in (None, [], "")},
        "selection": selection,
        "category": category,
        "suppliers": {
            str(s.get("code")): {"status": s.get("status"), "rating": s.get("rating")}
            for s in suppliers
        },
        "parts": collected,
    }
