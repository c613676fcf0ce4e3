"""Supplier price comparison: ERP offers + order history + web quotes → analysis_result.json.

Run in the sandbox:  python3 analyze.py [/data/analysis_input.json] [/data/analysis_result.json]

Input (written by the analyst after data collection)::

    {"request": str, "today": "YYYY-MM-DD", "window_months": int (default 12),
     "category": {"code", "name_zh", "name_en"},
     "scope": {what the request constrained: categories, brands, window_months, part(s),
               suppliers left out, origin},
     "selection": {"rule": "all" | "most_offered", "cap": int, "in_category": int,
                   "not_analysed": [{"sku", "name_zh", "name_en", "offers"}]},
     "suppliers": {code: {"status", "rating"}},
     "parts": [{"id", "sku", "model", "name_zh", "name_en", "unit",
                "offers": [ERP offer rows], "inventory": {...},
                "quotes": [{"supplier_code", "url", "text": fetch_url's Markdown}],
                "orders": [ERP orders with lines, any supplier]}]}

Output: per part and supplier the contract price, the web quote per tier (parsed from
the page text) and its gap to the contract price, the window's average paid price, its
monthly series and trend, lead time, MOQ, stock, a total-cost score and a rank; the
reference quantity with where it comes from; the largest web/contract gaps; the method as
numbers; the numbered web sources. Words are codes (``rising``, ``on_hold``, ...): the
report says them in the request's language. Standard library only, deterministic, no
network.
"""

from __future__ import annotations

import json
import re
import sys
from datetime import date, timedelta
from statistics import median

FX_TO_CNY = {"CNY": 1.0, "USD": 7.2}  # stated in the report as an assumption
LEAD_TIME_COST_PER_DAY = 0.001  # 0.1 % of the price per day of lead time (capital, risk)
STOCK_RISK_SURCHARGE = 0.03  # web shop out of stock / discontinued


# ---------------------------------------------------------------------------- quotes


def _num(text: str) -> float:
    return float(text.replace(",", ""))


def _json_blocks(text: str) -> list[object]:
    blocks = []
    for body in re.findall(r"```json\s*(.*?)```", text, re.S):
        try:
            blocks.append(json.loads(body))
        except ValueError:
            continue
    return blocks


def _from_json(data: object) -> dict | None:
    if not isinstance(data, dict):
        return None
    if isinstance(data.get("priceTiers"), list):
        tiers = [
            {"min_qty": int(t["minQty"]), "unit_price": _num(str(t["unitPrice"]))}
            for t in data["priceTiers"]
            if isinstance(t, dict) and "minQty" in t and "unitPrice" in t
        ]
        return {
            "currency": data.get("currency"),
            "tiers": tiers,
            "stock": data.get("stock"),
            "lead_time_days": data.get("leadTimeDays"),
            "status": data.get("availability"),
            "updated": data.get("updatedAt"),
        }
    offers = data.get("offers")
    if isinstance(offers, dict) and isinstance(offers.get("offers"), list):
        tiers = []
        for o in offers["offers"]:
            qty = (
                ((o.get("eligibleQuantity") or {}).get("minValue")) if isinstance(o, dict) else None
            )
            if qty is not None and o.get("price") is not None:
                tiers.append({"min_qty": int(qty), "unit_price": _num(str(o["price"]))})
        availability = str(offers.get("availability", ""))
        status = (
            "discontinued"
            if "Discontinued" in availability
            else "out_of_stock"
            if "OutOfStock" in availability
            else "in_stock"
        )
        return {
            "currency": offers.get("priceCurrency"),
            "tiers": tiers,
            "stock": (offers.get("inventoryLevel") or {}).get("value"),
            "lead_time_days": (offers.get("deliveryLeadTime") or {}).get("value"),
            "status": status,
            "updated": offers.get("priceValidFrom"),
        }
    return None


_UNIT = r"(?:个|片|条|副|套|支|只|件|pcs|pc|pieces|piece|units|unit|sets|set)"
_PRICE = r"(?:¥|￥|US\$|\$|CNY|USD|RMB)\s*(\d[\d,]*\.\d{1,2})"
_TIER = re.compile(
    r"(?:≥|>=)?\s*(\d[\d,]*)\s*(?:\+|(?:-|–|~)\s*\d[\d,]*)?\s*"
    + _UNIT
    + r"?\s*(?:pcs)?\s*[|:\s]*\s*"
    + _PRICE,
    re.I,
)


def _first(pattern: str, text: str) -> str | None:
    m = re.search(pattern, text, re.I)
    return m.group(1) if m else None


def parse_quote(text: str) -> dict:
    """The facts of one quote page (fetch_url Markdown) in any of the shops' layouts."""
    for block in _json_blocks(text):
        found = _from_json(block)
        if found and found["tiers"]:
            return _normalise(found)
    tiers = {}
    for m in _TIER.finditer(text):
        qty, price = int(m.group(1).replace(",", "")), _num(m.group(2))
        if qty > 0 and qty not in tiers:
            tiers[qty] = price
    currency = (
        _first(r"Currency:\s*([A-Z]{3})", text)
        or _first(r"币种：[^A-Z\n]*([A-Z]{3})", text)
        or _first(r"Unit price \(([A-Z]{3})\)", text)
        or ("USD" if "US$" in text else "CNY")
    )
    low = text.lower()
    status = (
        "discontinued"
        if ("discontinued" in low or "已停产" in text)
        else "out_of_stock"
        if ("out of stock" in low or "缺货" in text)
        else "in_stock"
    )
    stock = _first(r"Stock:\s*([\d,]+)", text) or _first(r"库存：\s*([\d,]+)", text)
    lead = _first(r"Lead time:\s*(\d+)", text) or _first(r"交货期：\s*(\d+)", text)
    updated = _first(r"Last updated:\s*(\d{4}-\d{2}-\d{2})", text) or _first(
        r"更新日期：\s*(\d{4}-\d{2}-\d{2})", text
    )
    return _normalise(
        {
            "currency": currency,
            "tiers": [{"min_qty": q, "unit_price": p} for q, p in sorted(tiers.items())],
            "stock": int(stock.replace(",", "")) if stock else None,
            "lead_time_days": int(lead) if lead else None,
            "status": status,
            "updated": updated,
        }
    )


def _normalise(found: dict) -> dict:
    status = str(found.get("status") or "in_stock").lower().replace(" ", "_")
    found["status"] = {"instock": "in_stock", "outofstock": "out_of_stock"}.get(status, status)
    found["tiers"] = sorted(found["tiers"], key=lambda t: t["min_qty"])
    return found


def price_at(tiers: list[dict], qty: int) -> float | None:
    """The unit price for ordering ``qty``: the highest break not above it (else the first)."""
    if not tiers:
        return None
    eligible = [t for t in tiers if t["min_qty"] <= qty]
    return (eligible[-1] if eligible else tiers[0])["unit_price"]


# ---------------------------------------------------------------------------- history


def history(orders: list[dict], part_id: int, supplier_id: int, since: date) -> dict:
    """Average paid unit price over the window and its trend, for one part from one supplier.

    ``trend`` is ``rising`` / ``falling`` / ``flat`` (two months or more), ``one_month``
    (a single month: no trend) or ``no_data``."""
    points = []
    for order in orders:
        # Drafts and cancelled orders were never paid.
        if order.get("supplier_id") != supplier_id or order.get("status") in ("draft", "cancelled"):
            continue
        day = date.fromisoformat(str(order.get("order_date"))[:10])
        if day < since:
            continue
        for line in order.get("lines") or []:
            if line.get("part_id") == part_id and line.get("unit_price_minor") is not None:
                points.append((day, int(line["quantity"]), int(line["unit_price_minor"])))
    if not points:
        return {
            "orders": 0,
            "units": 0,
            "avg_paid_price": None,
            "months": [],
            "trend_pct": None,
            "trend": "no_data",
        }
    units = sum(q for _, q, _ in points)
    avg = sum(q * p for _, q, p in points) / units / 100
    months: dict[str, list[tuple[int, int]]] = {}
    for day, q, p in points:
        months.setdefault(day.strftime("%Y-%m"), []).append((q, p))
    series = [
        {"month": m, "avg_price": round(sum(q * p for q, p in v) / sum(q for q, _ in v) / 100, 2)}
        for m, v in sorted(months.items())
    ]
    trend_pct = None
    trend = "flat" if len(series) >= 2 else "one_month"
    if len(series) >= 2:
        half = max(1, len(series) // 2)
        early = sum(s["avg_price"] for s in series[:half]) / half
        late = sum(s["avg_price"] for s in series[-half:]) / half
        trend_pct = round((late - early) / early * 100, 2) if early else None
        if trend_pct is not None and trend_pct > 1:
            trend = "rising"
        elif trend_pct is not None and trend_pct < -1:
            trend = "falling"
    return {
        "orders": len(points),
        "units": units,
        "avg_paid_price": round(avg, 2),
        "months": series,
        "trend_pct": trend_pct,
        "trend": trend,
    }


# ---------------------------------------------------------------------------- analysis

# The score, as numbers: contract price in CNY x (1 + lead_time_cost_per_day x lead-time
# days) x (1 + stock_risk_surcharge if the web shop is out of stock or discontinued);
# lower is better. Suppliers not active in the ERP (on hold, blocked) are listed unranked.
METHOD = {
    "fx_to_cny": FX_TO_CNY,
    "lead_time_cost_per_day": LEAD_TIME_COST_PER_DAY,
    "stock_risk_surcharge": STOCK_RISK_SURCHARGE,
    "risky_web_status": ["out_of_stock", "discontinued"],
    "ranked_status": "active",
}


def reference_qty(part: dict) -> dict:
    """The quantity prices are compared at, and where it comes from: the median quantity
    of the window's order lines for the part (``median_order_line``), else the largest
    MOQ of its offers (``largest_moq``)."""
    quantities = [
        int(line["quantity"])
        for o in part.get("orders") or []
        for line in o.get("lines") or []
        if line.get("part_id") == part["id"]
    ]
    if quantities:
        return {"qty": int(median(quantities)), "source": "median_order_line",
                "order_lines": len(quantities)}  # fmt: skip
    moqs = [int(o.get("min_order_qty") or 1) for o in part.get("offers") or []]
    return {"qty": max(moqs or [1]), "source": "largest_moq", "order_lines": 0}


def web_quote(quote: dict, code: str, sku: str, ref_qty: int, sources: list[dict]) -> dict:
    """A supplier's parsed quote page, numbered as the next source (added to ``sources``)."""
    parsed = parse_quote(quote.get("text") or "")
    n = len(sources) + 1
    sources.append({"n": n, "url": quote["url"], "supplier_code": code, "sku": sku})
    return {
        **parsed,
        "url": quote["url"],
        "source": n,
        "price_at_ref_qty": price_at(parsed["tiers"], ref_qty),
        "price_at_ref_qty_cny": None,
    }


def total_cost_score(price_cny: float, lead: int, web: dict | None) -> float:
    """Contract price in CNY, loaded for lead time and for a shop out of stock."""
    risky = web is not None and web.get("status") in ("out_of_stock", "discontinued")
    return (
        price_cny
        * (1 + LEAD_TIME_COST_PER_DAY * lead)
        * (1 + (STOCK_RISK_SURCHARGE if risky else 0))
    )


def supplier_row(offer: dict, part: dict, web: dict | None, since: date, status: str) -> dict:
    """One supplier of a part: contract terms, web quote, paid-price history, score."""
    currency = offer.get("currency") or "CNY"
    contract = offer["price_minor"] / 100
    hist = history(part.get("orders") or [], part["id"], offer.get("supplier_id"), since)
    lead = int(offer.get("lead_time_days") or 0)
    price_cny = contract * FX_TO_CNY.get(currency, 1.0)
    gap = None
    if web is not None and web.get("price_at_ref_qty") is not None:
        web_cny = web["price_at_ref_qty"] * FX_TO_CNY.get(str(web.get("currency") or "CNY"), 1.0)
        web["price_at_ref_qty_cny"] = round(web_cny, 2)
        # The web price's gap to the contract price, in % of the contract price.
        gap = round((web_cny - price_cny) / price_cny * 100, 1) if price_cny else None
    return {
        "supplier_id": offer.get("supplier_id"),
        "supplier_code": offer.get("supplier_code"),
        "supplier_name_zh": offer.get("supplier_name_zh"),
        "supplier_name_en": offer.get("supplier_name_en"),
        "currency": currency,
        "contract_price": round(contract, 2),
        "contract_price_minor": offer["price_minor"],
        "contract_price_cny": round(price_cny, 2),
        "moq": offer.get("min_order_qty"),
        "lead_time_days": lead,
        "valid_to": offer.get("valid_to"),
        "web": web,
        "web_vs_contract_pct": gap,
        "history": hist,
        "total_cost_score": round(total_cost_score(price_cny, lead, web), 2),
        "supplier_status": status,
    }


def rank(rows: list[dict]) -> None:
    """Sort ``rows`` best first and number them; suppliers not active stay unranked, last."""
    # Only active suppliers can be ordered from: the others are listed, unranked, last.
    rows.sort(
        key=lambda r: (
            r["supplier_status"] != "active",
            r["total_cost_score"],
            str(r["supplier_code"]),
        )
    )
    position = 0
    for row in rows:
        if row["supplier_status"] == "active":
            position += 1
            row["rank"] = position
        else:
            row["rank"] = None


def analyse_part(part: dict, suppliers: dict, since: date, sources: list[dict]) -> dict:
    """One part's comparison; its quote pages are numbered on from ``sources``."""
    quotes = {q["supplier_code"]: q for q in part.get("quotes") or []}
    reference = reference_qty(part)
    ref_qty = reference["qty"]
    rows = []
    for offer in part.get("offers") or []:
        code = offer.get("supplier_code")
        quote = quotes.get(code)
        web = None if quote is None else web_quote(quote, code, part["sku"], ref_qty, sources)
        status = (suppliers.get(code) or {}).get("status") or "active"
        rows.append(supplier_row(offer, part, web, since, status))
    rank(rows)
    return {
        "id": part["id"],
        "sku": part["sku"],
        "model": part.get("model"),
        "name_zh": part.get("name_zh"),
        "name_en": part.get("name_en"),
        "unit": part.get("unit"),
        "reference_qty": ref_qty,
        "reference": reference,
        "inventory": part.get("inventory"),
        "suppliers": rows,
        "best": rows[0]["supplier_code"] if rows and rows[0]["rank"] else None,
    }


def deviations(parts: list[dict]) -> list[dict]:
    """Every web price's gap to its contract price, largest first (by size)."""
    gaps = [
        {"sku": p["sku"], "name_zh": p.get("name_zh"), "name_en": p.get("name_en"),
         "supplier_code": r["supplier_code"], "supplier_status": r["supplier_status"],
         "pct": r["web_vs_contract_pct"]}
        for p in parts
        for r in p["suppliers"]
        if r.get("web_vs_contract_pct") is not None
    ]  # fmt: skip
    return sorted(gaps, key=lambda g: (-abs(g["pct"]), g["sku"], str(g["supplier_code"])))


def analyse(data: dict) -> dict:
    """The whole analysis_result.json for the collected input."""
    today = date.fromisoformat(data.get("today") or date.today().isoformat())
    months = int(data.get("window_months") or 12)
    since = today - timedelta(days=round(months * 365 / 12))
    sources: list[dict] = []
    suppliers = data.get("suppliers") or {}
    parts = [analyse_part(p, suppliers, since, sources) for p in data.get("parts") or []]
    return {
        "generated_at": today.isoformat(),
        "request": data.get("request"),
        "category": data.get("category"),
        "scope": data.get("scope") or {},
        "selection": data.get("selection") or {},
        "window": {"months": months, "since": since.isoformat(), "until": today.isoformat()},
        "method": dict(METHOD),
        "parts": parts,
        "deviations": deviations(parts),
        "sources": sources,
    }


def main() -> None:
    source = sys.argv[1] if len(sys.argv) > 1 else "/data/analysis_input.json"
    target = sys.argv[2] if len(sys.argv) > 2 else "/data/analysis_result.json"
    with open(source, encoding="utf-8") as f:
        data = json.load(f)
    result = analyse(data)
    with open(target, "w", encoding="utf-8") as f:
        # indent=1: readable, and a category's result fits one read_file window.
        json.dump(result, f, ensure_ascii=False, indent=1)
    for part in result["parts"]:
        print(f"{part['sku']}: {len(part['suppliers'])} suppliers, best {part['best']}")
    print(f"wrote {target}")


if __name__ == "__main__":
    main()
