"""Grounding a buyer's words in ERP records unlike the seed's: aliases, short names, model
numbers that contain a supplier's code, typos, homophones, head nouns, ruled-out names."""

from __future__ import annotations

from graphs.offline.entities import by_head_noun, ground

CATEGORIES = [
    {"code": "WP", "name_zh": "水泵", "name_en": "Water Pump",
     "aliases": ["抽水泵", "coolant pump"]},
    {"code": "RD", "name_zh": "散热器", "name_en": "Radiator", "aliases": []},
    {"code": "FP", "name_zh": "燃油泵", "name_en": "Fuel Pump", "aliases": []},
]  # fmt: skip
SUPPLIERS = [
    {"id": 1, "code": "AQ", "name_zh": "苏州清泉泵业有限公司", "name_en": "Aqua Pumps Co. Ltd.",
     "kind": "maker", "status": "active"},
    {"id": 2, "code": "THERMA", "name_zh": "热力散热器", "name_en": "Therma Radiators",
     "kind": "maker", "status": "active"},
]  # fmt: skip
PARTS = [
    {"id": 10, "sku": "WP-AQ-AQ-220", "model": "AQ-220", "category_code": "WP"},
    {"id": 11, "sku": "RD-THERMA-R9", "model": "R9", "category_code": "RD"},
]


def codes(mentions: list) -> list[str]:
    return [m.code for m in mentions]


def test_aliases_plurals_and_typos_name_the_category() -> None:
    assert codes(ground("抽水泵哪家便宜", categories=CATEGORIES).categories) == ["WP"]
    assert codes(ground("compare coolant pumps", categories=CATEGORIES).categories) == ["WP"]
    assert codes(ground("radaitor prices", categories=CATEGORIES).categories) == ["RD"]
    typo = ground("散热气比价", categories=CATEGORIES).categories  # 气 sounds like 器
    assert codes(typo) == ["RD"] and not typo[0].exact
    # A known word is never a typo of a name.
    assert ground("stock prices", categories=CATEGORIES).categories == []


def test_short_names_and_codes_inside_model_numbers() -> None:
    found = ground("从清泉订 50 个 AQ-220", suppliers=SUPPLIERS, parts=PARTS)
    assert codes(found.suppliers) == ["AQ"] and codes(found.parts) == ["WP-AQ-AQ-220"]
    # "AQ" inside the model number AQ-220 is not the supplier AQ.
    assert ground("order 50 AQ-220", suppliers=SUPPLIERS, parts=PARTS).suppliers == []
    assert codes(ground("buy from Aqua Pumps", suppliers=SUPPLIERS).suppliers) == ["AQ"]


def test_a_ruled_out_part_is_not_a_candidate_and_unknown_words_are_kept() -> None:
    found = ground("订 AQ-220，不要 R9", parts=PARTS)
    assert codes(found.parts) == ["WP-AQ-AQ-220"]
    assert ground("帮我分析一下挡泥板的供应商", categories=CATEGORIES).unknown == ["挡泥板"]


def test_a_head_noun_names_the_categories_that_have_it() -> None:
    assert [c["code"] for c in by_head_noun(["pumps"], CATEGORIES)] == ["WP", "FP"]
    assert by_head_noun(["hoses"], CATEGORIES) == []
