"""Fuzzy part and supplier search in Chinese and English, directly and over REST."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from sim.catalog import generate
from sim.erp.db import Database
from sim.erp.masterdata import MasterData
from sim.erp.search import SearchIndex, _one_edit_apart, compact, normalize
from sim.erp.views import PartView
from tests.unit.erp_fixtures import SEED, client_for, settings_for

CATALOG = generate(SEED)


@pytest.fixture(scope="module")
def master(erp_template: Path) -> Iterator[MasterData]:
    db = Database(f"sqlite:///{erp_template}")
    try:
        with db.read() as session:
            yield MasterData.load(session)
    finally:
        db.dispose()


@pytest.fixture(scope="module")
def client(erp_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client_for(settings_for(erp_template, tmp_path_factory.mktemp("erp"))) as c:
        yield c


def _parts(master: MasterData, query: str) -> list[PartView]:
    return [master.parts[h.key] for h in master.part_index.search(query)]


def test_normalize_folds_case_and_width() -> None:
    assert normalize("ＮＧＫ Spark") == "ngk spark"
    assert compact(" SP-NGK / CR7HSA ") == "spngkcr7hsa"
    assert compact("博世 火花塞") == "博世火花塞"


@pytest.mark.parametrize(
    ("query", "brand", "category"),
    [
        ("ngk spark plug", "NGK", "SP"),
        ("NGK SPARK PLUGS", "NGK", "SP"),
        ("火花塞 NGK", "NGK", "SP"),
        ("NGK火花塞", "NGK", "SP"),
        ("博世火花塞", "Bosch", "SP"),
        ("火花塞博世", "Bosch", "SP"),
        ("博世 火花塞", "Bosch", "SP"),
        ("布雷博刹车片", "Brembo", "BP"),
        ("brembo brake pads", "Brembo", "BP"),
        ("Ｂｒｅｍｂｏ", "Brembo", None),
        ("brmebo", "Brembo", None),
    ],
)
def test_brand_and_category_queries(
    master: MasterData, query: str, brand: str, category: str | None
) -> None:
    found = _parts(master, query)
    expected = {p.id for p in CATALOG.parts if p.brand == brand and category in (None, p.category)}
    assert expected, query
    # The parts asked for come first; related ones (NGK spark plug caps) may follow.
    assert {p["id"] for p in found[: len(expected)]} == expected, query
    assert {p["brand"] for p in found} == {brand}, query


def test_plural_and_singular_find_the_same(master: MasterData) -> None:
    pads = {p["id"] for p in _parts(master, "brake pads")}
    assert pads == {p["id"] for p in _parts(master, "Brake Pad")}
    assert pads == {p.id for p in CATALOG.parts if p.category == "BP"}
    assert pads == {p["id"] for p in _parts(master, "刹车片")}


def test_model_and_sku_rank_first(master: MasterData) -> None:
    part = CATALOG.parts[0]
    assert _parts(master, part.model.lower())[0]["model"] == part.model
    assert _parts(master, part.sku)[0]["id"] == part.id
    assert _parts(master, part.sku.lower().replace("-", " "))[0]["id"] == part.id


def test_a_typo_in_a_model_still_finds_neighbours(master: MasterData) -> None:
    # "cr7hsa" is not in this seed's catalogue; its one-letter neighbours are.
    found = _parts(master, "cr7hsa")
    assert found
    assert all(_one_edit_apart("cr7hsa", p["model"].lower()) for p in found)


def test_noise_words_are_ignored(master: MasterData) -> None:
    plugs = {p["id"] for p in _parts(master, "火花塞")}
    assert {p["id"] for p in _parts(master, "摩托车火花塞")} == plugs
    assert {p["id"] for p in _parts(master, "motorcycle spark plug")} <= plugs | {
        p.id for p in CATALOG.parts if p.category == "PC"
    }


def test_spark_plugs_rank_above_spark_plug_caps(master: MasterData) -> None:
    found = _parts(master, "火花塞")
    categories = [p["category_code"] for p in found]
    assert set(categories) == {"SP", "PC"}
    assert categories == sorted(categories, key=lambda c: c != "SP")


def test_nothing_matches_nonsense(master: MasterData) -> None:
    assert _parts(master, "zzzzqqqq") == []
    assert _parts(master, "   ") == []
    assert _parts(master, "!!!") == []


def test_suppliers_by_code_and_names(master: MasterData) -> None:
    def top(q: str) -> str:
        return master.suppliers[master.supplier_index.search(q)[0].key]["code"]

    assert top("ngk") == "NGK"
    assert top("电装") == "DENSO"
    assert top("denso") == "DENSO"
    assert top("重庆") == "CQMP"
    assert top("Guangzhou Motorcycle") == "GZMT"


def test_one_edit_apart() -> None:
    assert _one_edit_apart("brembo", "brmbo")
    assert _one_edit_apart("brembo", "brmebo")
    assert _one_edit_apart("brembo", "brembos")
    assert _one_edit_apart("brembo", "bremba")
    assert not _one_edit_apart("brembo", "brembo")
    assert not _one_edit_apart("brembo", "bosch")


def test_index_is_generic() -> None:
    index = SearchIndex([(1, [("Red apple", 1.0)]), (2, [("Green apples", 1.0)])])
    assert len(index) == 2
    assert [h.key for h in index.search("apple")] == [1, 2]
    assert [h.key for h in index.search("green")] == [2]


def test_rest_search_shape_and_limit(client: TestClient) -> None:
    found = client.get("/parts/search", params={"name": "火花塞", "limit": 5}).json()
    assert len(found["items"]) == 5
    # Every spark plug and every spark plug cap (火花塞帽), cross-reference parts included.
    assert found["total"] == sum(1 for p in CATALOG.parts if p.category in {"SP", "PC"}) > 48
    scores = [p["score"] for p in found["items"]]
    assert scores == sorted(scores, reverse=True)
    assert {"id", "sku", "score", "category_code"} <= set(found["items"][0])
