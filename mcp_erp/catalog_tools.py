"""Read tools over suppliers, parts and inventory (GETs, retried by the ERP client)."""

import re
import unicodedata
from typing import Annotated, Any

from fastmcp import Context
from fastmcp.exceptions import ToolError
from pydantic import Field

from mcp_erp import shapes
from mcp_erp.erp_client import ErpClient, erp_from, path_segment
from mcp_erp.params import Page, PartId, Size, SupplierId, SupplierStatus, Text


async def category_list(ctx: Context) -> dict[str, Any]:
    """Every part category: code, Chinese and English names, unit, aliases, part count."""
    return shapes.record(await erp_from(ctx).get("/categories"))


async def supplier_query(
    ctx: Context,
    name: Annotated[Text, Field(description="Fuzzy: code, Chinese or English name.")] = "",
    status: SupplierStatus | None = None,
    supplier_id: Annotated[SupplierId | None, Field(description="Fetch this one supplier.")] = None,
    page: Page = 1,
    size: Size = 20,
) -> dict[str, Any]:
    """Suppliers matching ``name``/``status`` (a page), or the one ``supplier_id`` names."""
    erp = erp_from(ctx)
    if supplier_id is not None:
        return shapes.record(await erp.get(f"/suppliers/{path_segment(supplier_id)}"))
    params = {"name": name, "status": status, "page": page, "size": size}
    return shapes.page(await erp.get("/suppliers/search", params))


MAX_PART_IDS = 50
"""As many ids as one ERP ``GET /parts/details`` answers (docs/erp_api.md)."""


async def part_query(
    ctx: Context,
    part_id: Annotated[PartId | None, Field(description="Fetch this part with offers.")] = None,
    # One call for many parts: each call costs the agent a turn's worth of state, so a
    # model reading a category's details should not need one call per part.
    part_ids: Annotated[
        list[PartId] | None,
        Field(
            min_length=1,
            max_length=MAX_PART_IDS,
            description=f"Fetch these parts (1-{MAX_PART_IDS}) with offers, in one call.",
        ),
    ] = None,
    name: Annotated[Text, Field(description="Fuzzy name filter.")] = "",
    category: Annotated[
        Text | None, Field(description="Category code, Chinese or English name.")
    ] = None,
    supplier_id: Annotated[SupplierId | None, Field(description="Only parts it sells.")] = None,
    page: Page = 1,
    size: Size = 20,
) -> dict[str, Any]:
    """The part ``part_id`` with offers and inventory; the parts ``part_ids`` as
    ``{"items": [part with offers and inventory], "missing": [ids of no part]}`` in the
    order asked; or a filtered page of parts."""
    erp = erp_from(ctx)
    if part_id is not None and part_ids is not None:
        raise ToolError("Give either part_id (one part) or part_ids (several parts), not both.")
    if part_id is not None:
        return shapes.record(await erp.get(f"/parts/{path_segment(part_id)}"))
    if part_ids is not None:
        ids = ",".join(str(i) for i in part_ids)
        return shapes.record(await erp.get("/parts/details", {"ids": ids}))
    params = {
        "name": name or None,
        "category": category,
        "supplierId": supplier_id,
        "page": page,
        "size": size,
    }
    return shapes.page(await erp.get("/parts", params))


async def part_search(
    ctx: Context,
    name: Annotated[str, Field(min_length=1, max_length=200, description="What to look for.")],
    limit: Annotated[int, Field(ge=1, le=100, description="Most results, 1-100.")] = 10,
) -> dict[str, Any]:
    """Parts best matching ``name`` (with a ``score``), best first."""
    answer = await erp_from(ctx).get("/parts/search", {"name": name, "limit": limit})
    return shapes.record(answer)


async def part_by_supplier(
    ctx: Context,
    supplier_id: SupplierId,
    page: Page = 1,
    size: Size = 20,
) -> dict[str, Any]:
    """The supplier and a page of the parts it sells, each with its offer."""
    answer = await erp_from(ctx).get(
        f"/parts/supplier/{path_segment(supplier_id)}", {"page": page, "size": size}
    )
    return shapes.page(answer)


async def inventory_warning(
    ctx: Context,
    category: Annotated[
        Text | None, Field(description="Category code, Chinese or English name.")
    ] = None,
    page: Page = 1,
    size: Size = 20,
) -> dict[str, Any]:
    """A page of parts below safety stock, with ``available`` and ``shortage``."""
    params = {"category": category, "page": page, "size": size}
    return shapes.page(await erp_from(ctx).get("/inventory/warnings", params))


# Parts a model number can name at most (several brands make the same model).
_SEARCH_LIMIT = 100
_NOT_CODE = re.compile(r"[\W_]+")


def _code(text: str) -> str:
    """A part code compared loosely: any case and width, spaces and punctuation ignored."""
    return _NOT_CODE.sub("", unicodedata.normalize("NFKC", text).casefold())


async def resolve_part(erp: ErpClient, part: str) -> int:
    """The id of the part ``part`` names: an id, a SKU or the maker's model number.

    A model several brands make raises AMBIGUOUS naming each SKU and brand; nothing
    matching raises NOT_FOUND with the closest parts, if any."""
    text = part.strip()
    if text.isdigit():
        return int(text)
    found = await erp.get("/parts/search", {"name": text, "limit": _SEARCH_LIMIT})
    items = found.get("items", []) if isinstance(found, dict) else []
    wanted = _code(text)
    for field in ("sku", "model"):
        hits = [p for p in items if _code(str(p.get(field, ""))) == wanted]
        if len(hits) == 1:
            return int(hits[0]["id"])
        if hits:
            named = ", ".join(f"{p['sku']} ({p['brand']})" for p in hits)
            msg = (
                f"AMBIGUOUS: model {text!r} is made by {len(hits)} brands: {named}. "
                "Call again with one SKU."
            )
            raise ToolError(msg)
    closest = ", ".join(f"{p['sku']} ({p['model']})" for p in items[:3])
    msg = f"NOT_FOUND: no part has the id, SKU or model {text!r}." + (
        f" Closest: {closest}." if closest else ""
    )
    raise ToolError(msg)


async def part_equivalents(
    ctx: Context,
    part: Annotated[
        str,
        Field(
            min_length=1,
            max_length=100,
            description="Part id, SKU or maker's model number (any case), e.g. CR7HSA.",
        ),
    ],
    brand: Annotated[
        str | None, Field(max_length=100, description="Only equivalents of this brand.")
    ] = None,
) -> dict[str, Any]:
    """The part and its equivalents of other brands: match, same/different attributes,
    stock and valid offers."""
    erp = erp_from(ctx)
    part_id = await resolve_part(erp, part)
    params = {"brand": brand} if brand and brand.strip() else None
    answer = await erp.get(f"/parts/{path_segment(part_id)}/equivalents", params)
    return shapes.record(answer)
