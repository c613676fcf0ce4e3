"""``part_equivalents`` as a model calls it, through FastMCP's in-memory client, against the
real ERP app: a part named by model number, SKU or id; an ambiguous model; an unknown one."""

from __future__ import annotations

from typing import Any

import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError

from sim.catalog import generate
from tests.unit.erp_fixtures import SEED
from tests.unit.erp_inprocess import InProcessErp
from tests.unit.test_mcp_erp_tools import call, without_none

CATALOG = generate(SEED)


def _one_model_parts() -> tuple[Any, Any]:
    """A part whose model no other part shares (and which has an equivalent), and a model
    that several brands make."""
    models: dict[str, list[Any]] = {}
    for p in CATALOG.parts:
        models.setdefault(p.model, []).append(p)
    with_equivalent = {e.part_id for e in CATALOG.equivalences}
    unique = next(ps[0] for ps in models.values() if len(ps) == 1 and ps[0].id in with_equivalent)
    shared = next(ps for ps in models.values() if len({p.brand for p in ps}) > 1)
    return unique, shared


UNIQUE, SHARED = _one_model_parts()


@pytest.mark.parametrize(
    "named",
    [UNIQUE.model, UNIQUE.model.lower(), f" {UNIQUE.sku.lower()} ", str(UNIQUE.id)],
    ids=["model", "model-lower-case", "sku", "id"],
)
async def test_a_part_named_by_model_sku_or_id_gets_the_erps_answer(
    named: str, erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    answer = await call(erp_mcp, "part_equivalents", part=named)
    assert answer["part"]["id"] == UNIQUE.id
    assert answer["equivalents"], "the chosen part has equivalents in the cross-reference"
    # What the ERP itself answers, None values dropped: nothing renamed, nothing rounded.
    assert answer == without_none(await real_erp.get(f"/parts/{UNIQUE.id}/equivalents"))
    expected = {e.equivalent_id for e in CATALOG.equivalences if e.part_id == UNIQUE.id}
    assert {e["part"]["id"] for e in answer["equivalents"]} == expected


async def test_an_ambiguous_model_is_refused_naming_every_candidate(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    before = real_erp.fingerprint()
    with pytest.raises(ToolError) as caught:
        await erp_mcp.call_tool("part_equivalents", {"part": SHARED[0].model.lower()})
    text = str(caught.value)
    assert text.startswith("AMBIGUOUS:")
    for p in SHARED:
        assert p.sku in text and p.brand in text
    assert real_erp.fingerprint() == before
    # One of those SKUs resolves it.
    answer = await call(erp_mcp, "part_equivalents", part=SHARED[1].sku)
    assert answer["part"]["sku"] == SHARED[1].sku


async def test_an_unknown_part_is_not_found(erp_mcp: Client[Any]) -> None:
    for named in ("ZQ-NOTHING-42", "999999"):
        with pytest.raises(ToolError) as caught:
            await erp_mcp.call_tool("part_equivalents", {"part": named})
        assert str(caught.value).startswith("NOT_FOUND:"), named


async def test_the_brand_filter_reaches_the_erp(
    erp_mcp: Client[Any], real_erp: InProcessErp
) -> None:
    full = await call(erp_mcp, "part_equivalents", part=str(UNIQUE.id))
    brand = full["equivalents"][0]["part"]["brand"]
    only = await call(erp_mcp, "part_equivalents", part=str(UNIQUE.id), brand=brand.upper())
    assert only["equivalents"]
    assert {e["part"]["brand"] for e in only["equivalents"]} == {brand}
    assert real_erp.transport.sent[-1].query["brand"] == [brand.upper()]
    with pytest.raises(ToolError) as caught:
        await erp_mcp.call_tool("part_equivalents", {"part": str(UNIQUE.id), "brand": "Acme"})
    assert str(caught.value).startswith("VALIDATION:")
