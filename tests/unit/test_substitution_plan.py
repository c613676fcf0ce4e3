"""The plan's choices on ERP answers the seed does not hold (issue 19): a part nobody offers
any more, a target supplier, a blocked supplier, an equivalent whose offers all miss the
line's quantity. The ERP answers are written in the shapes of ``part_equivalents`` and
``part_query`` (docs/erp_api.md); everything from the seed is covered against the real ERP
in ``test_substitution_flow.py``."""

from __future__ import annotations

from typing import Any

from graphs.substitution.bom import Bom, BomLine
from graphs.substitution.plan import ErpLine, Selector, Target, build_plan, changes_of
from graphs.substitution.table import table_text


def _part(pid: int, brand: str, model: str) -> dict[str, Any]:
    return {"id": pid, "sku": f"SP-{brand.upper()}-{model}", "model": model, "brand": brand,
            "brand_zh": {"Bosch": "博世"}.get(brand, brand), "name_zh": f"{brand} 火花塞 {model}",
            "name_en": f"{brand} Spark Plug {model}", "category_code": "SP",
            "category_zh": "火花塞", "category_en": "Spark Plug"}  # fmt: skip


def _offer(code: str, price: int, moq: int = 1, status: str = "active") -> dict[str, Any]:
    return {"supplier_code": code, "supplier_name_zh": f"{code} 公司",
            "supplier_name_en": f"{code} Co.", "supplier_status": status,
            "price_minor": price, "currency": "CNY", "min_order_qty": moq, "order_step": 1,
            "lead_time_days": 7}  # fmt: skip


def _eq(part: dict[str, Any], match: str, offers: list[dict[str, Any]]) -> dict[str, Any]:
    return {"part": part, "match": match, "same": ["thread"], "different": {} if match ==
            "exact" else {"electrode": {"part": "nickel", "equivalent": "iridium"}},
            "stock": {"on_hand": 5, "available": 5}, "offers": offers}  # fmt: skip


OLD = _part(1, "Bosch", "A1")
GONE = _part(2, "Bosch", "B2")
KEEP = _part(3, "Denso", "C3")
NGK = _part(10, "NGK", "N1")
TORCH = _part(11, "Torch", "T1")
BOM = Bom((BomLine("10", "A1", "", 4), BomLine("20", "B2", "", 4), BomLine("30", "C3", "", 4)))
ERP = {
    "A1": ErpLine(OLD, [_eq(NGK, "partial", [_offer("NGK", 900)]),
                        _eq(TORCH, "exact", [_offer("CQMP", 1200), _offer("TORCH", 800, 100),
                                             _offer("BLOCKED", 100, status="blocked")])],
                  [_offer("BOSCH", 1000)]),
    "B2": ErpLine(GONE, [_eq(NGK, "exact", [_offer("NGK", 700)])], []),
    "C3": ErpLine(KEEP, [], [_offer("DENSO", 500)]),
}  # fmt: skip


def test_exact_first_then_an_offer_the_quantity_meets_never_a_blocked_supplier() -> None:
    plan = build_plan(BOM, ERP, Selector(brands=["Bosch"]), Target(), lang="en")
    row = {r["line"]: r for r in plan["rows"]}["10"]
    assert row["status"] == "exact" and row["new"] and row["new"]["sku"] == "SP-TORCH-T1"
    # TORCH's 8.00 needs 100 pieces, the blocked supplier's offer is not one: CQMP's.
    assert row["new_offer"] and row["new_offer"]["supplier_code"] == "CQMP"
    assert "+2.00 CNY (total +8.00 CNY)" in table_text(plan)
    assert [r["line"] for r in plan["rows"]] == ["10", "20"] and plan["untouched"] == 1


def test_a_named_target_brand_is_kept_even_when_only_partial() -> None:
    plan = build_plan(BOM, ERP, Selector(brands=["博世"]), Target(brand="NGK"), lang="zh")
    rows = {r["line"]: r for r in plan["rows"]}
    assert rows["10"]["status"] == "partial" and rows["10"]["new"]["sku"] == "SP-NGK-N1"
    assert "部分等效（不同：electrode nickel→iridium）" in table_text(plan)


def test_discontinued_selects_the_parts_nobody_offers() -> None:
    plan = build_plan(BOM, ERP, Selector(unavailable=True), Target(), lang="en")
    assert [r["line"] for r in plan["rows"]] == ["20"]
    assert changes_of(plan)[0]["new_sku"] == "SP-NGK-N1"


def test_a_target_supplier_limits_the_offers() -> None:
    plan = build_plan(BOM, ERP, Selector(categories=["SP"]), Target(supplier="NGK"), lang="en")
    rows = {r["line"]: r for r in plan["rows"]}
    assert rows["10"]["new"]["sku"] == "SP-NGK-N1"  # the only equivalent NGK sells
    assert rows["30"]["status"] == "none"  # no equivalent at all: flagged, not guessed
    assert "line 30" in table_text(plan) and "no equivalent" in table_text(plan)


def test_replacing_a_supplier_never_proposes_its_own_offer() -> None:
    plan = build_plan(BOM, ERP, Selector(suppliers=["CQMP", "BOSCH"]), Target(), lang="en")
    row = plan["rows"][0]
    assert row["new_offer"] and row["new_offer"]["supplier_code"] != "CQMP"
