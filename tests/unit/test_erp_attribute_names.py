"""A buyer reads attribute names, not keys: every attribute the ERP's parts carry has a
Chinese and an English name, and the equivalents answer says them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sim.catalog import generate
from tests.unit.erp_fixtures import SEED, WatchedErp

CATALOG = generate(SEED)


@pytest.fixture(scope="module")
def erp(erp_template: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[WatchedErp]:
    with WatchedErp.serving(erp_template, tmp_path_factory.mktemp("erp")) as erp:
        yield erp


def test_every_attribute_of_every_part_is_named_in_both_languages(erp: WatchedErp) -> None:
    for part in CATALOG.parts:
        answer = erp.client.get(f"/parts/{part.id}/equivalents").json()
        keys = set(answer["part"]["attributes"])
        for eq in answer["equivalents"]:
            keys |= set(eq["part"]["attributes"])
        names = answer["attribute_names"]
        assert set(names) == keys, (part.sku, keys - set(names))
        for key, name in names.items():
            assert name["name_en"] and name["name_en"] != key, key
            assert any("\u4e00" <= ch <= "\u9fff" for ch in name["name_zh"]), key
