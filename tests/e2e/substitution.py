"""What the part-substitution tests (issue 19) know, all of it read from the ERP's REST API.

A test builds a bill of materials from the ERP's own catalogue and cross-reference
(``GET /parts``, ``GET /parts/{id}/equivalents``): lines of the brand (or category) the
buyer wants replaced that have an exact equivalent, lines that have none, and lines that
must be left alone. It then reads what the client was shown (a replacement table, an
approval card, a batch-replace request, the apply tool's arguments) and checks every part
named there against the ERP, never against what the planner says about itself.

Nothing here knows how the flow is implemented, only the interfaces issue 19 fixes: the
equivalents endpoint (docs/erp_api.md), the BOM tool's JSON, the apply tool's changes, and
the batch-replace request ``{old, new, tasks}``.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

__all__ = [
    "ASKS",
    "Ask",
    "BomLine",
    "Case",
    "Catalogue",
    "batch_requests",
    "build_case",
    "build_cases",
    "check_changes",
    "json_values",
    "load_catalogue",
    "run_batch_replace",
    "shown_rows",
    "table_proposals",
]

Part = dict[str, Any]


@dataclass(frozen=True)
class BomLine:
    """One line of a test BOM, with the ERP's truth about it.

    ``role``: ``replace`` (affected, has an exact equivalent of the wanted brand),
    ``flag`` (affected, none exists), ``keep`` (not affected by the request).
    ``allowed``: ids of the exact equivalents the flow may propose (target brand when one is
    named); ``related``: ids of every ERP equivalent (exact or partial) of the part."""

    line: int
    part: Part
    text: str  # how the BOM names the part (maker model, or SKU when the model is ambiguous)
    qty: int
    role: str
    allowed: frozenset[int] = frozenset()
    related: frozenset[int] = frozenset()


@dataclass
class Case:
    """A BOM and the buyer's request about it."""

    request: str
    lines: list[BomLine]
    target_brand: str | None = None
    product: str = "MX-250 摩托车总装"

    def role(self, role: str) -> list[BomLine]:
        """The lines of one role."""
        return [ln for ln in self.lines if ln.role == role]

    def bom_json(self, **renames: str) -> dict[str, Any]:
        """The BOM as the contract's BOM tool returns it (``renames`` maps a field to the name
        another client uses for it, e.g. ``part="part_no"``)."""
        rows = []
        for ln in self.lines:
            row = {
                "line": ln.line,
                "part": ln.text,
                "description": ln.part["name_zh"],
                "qty": ln.qty,
            }
            rows.append({renames.get(k, k): v for k, v in row.items()})
        return {"product": self.product, "lines": rows}

    def bom_csv(self) -> str:
        """The BOM as CSV text (an export from a spreadsheet)."""
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(["line", "part_no", "description", "quantity"])
        writer.writerows([ln.line, ln.text, ln.part["name_en"], ln.qty] for ln in self.lines)
        return out.getvalue()

    def bom_markdown(self, lang: str = "zh") -> str:
        """The BOM as a markdown table (how a buyer pastes one into a chat), its header and
        descriptions in ``lang`` (``zh`` or ``en``)."""
        words = (
            ("行号", "零件型号", "描述", "数量")
            if lang == "zh"
            else ("Line", "Part", "Description", "Qty")
        )
        head = "| " + " | ".join(words) + " |\n|---|---|---|---|\n"
        return head + "\n".join(
            f"| {ln.line} | {ln.text} | {ln.part['name_' + lang]} | {ln.qty} |" for ln in self.lines
        )


@dataclass
class Catalogue:
    """Every part in the ERP, and its cross-reference, as the ERP's REST API answers."""

    parts: dict[int, Part]
    equivalents: dict[int, list[dict[str, Any]]] = field(default_factory=dict)

    def by_model(self, model: str) -> list[Part]:
        """Parts whose maker model is ``model`` (case-insensitive; several brands may share one)."""
        return [p for p in self.parts.values() if p["model"].lower() == model.lower()]

    def bom_text(self, part: Part) -> str:
        """How a CAD BOM names ``part``: its maker model, or its SKU when brands share it."""
        return part["model"] if len(self.by_model(part["model"])) == 1 else part["sku"]

    def identify(self, text: str, *, context: str = "") -> set[int]:
        """The ids of the parts ``text`` names (a SKU, a model; ambiguous models narrowed by the
        brands ``context`` mentions)."""
        text = text.strip()
        by_sku = [p["id"] for p in self.parts.values() if p["sku"].lower() == text.lower()]
        if by_sku:
            return set(by_sku)
        return _narrow(self.by_model(text), context)

    def mentions(self, line: str) -> set[int]:
        """Every catalogue part one line of text names, by SKU or by maker model."""
        found: set[int] = set()
        for p in self.parts.values():
            if _word(p["sku"]).search(line):
                found.add(p["id"])
        models = {p["model"] for p in self.parts.values()}
        for model in models:
            if _word(model).search(line):
                found |= _narrow(self.by_model(model), line)
        return found


def _narrow(candidates: list[Part], context: str) -> set[int]:
    named = [
        p for p in candidates if p["brand"].lower() in context.lower() or p["brand_zh"] in context
    ]
    return {p["id"] for p in (named or candidates)}


@functools.cache  # the catalogue's ~2,000 codes overflow re's own cache of 512 patterns
def _word(code: str) -> re.Pattern[str]:
    # A part code stands alone: "IU7" is not the tail of "SP-NGK-IU7" nor the head of "IU7X".
    return re.compile(rf"(?<![\w-]){re.escape(code)}(?![\w-])", re.IGNORECASE)


def load_catalogue(erp_url: str) -> Catalogue:
    """All parts and every part's equivalents, read from the ERP's REST API (a module fixture's
    set-up: it runs outside the event loop)."""
    with httpx.Client(base_url=erp_url, timeout=30) as http:
        parts: dict[int, Part] = {}
        page = 1
        while True:
            r = http.get("/parts", params={"page": page, "size": 100})
            r.raise_for_status()
            body = r.json()
            parts.update({p["id"]: p for p in body["items"]})
            if len(parts) >= body["total"] or not body["items"]:
                break
            page += 1
        catalogue = Catalogue(parts)
        for pid in parts:
            r = http.get(f"/parts/{pid}/equivalents")
            r.raise_for_status()
            catalogue.equivalents[pid] = r.json()["equivalents"]
    return catalogue


def equivalent_ids(
    catalogue: Catalogue, part: Part, *, target: str | None, exact: bool
) -> frozenset[int]:
    """The ERP's equivalents of ``part`` from another brand (of ``target`` when named)."""
    out = set()
    for eq in catalogue.equivalents[part["id"]]:
        other = eq["part"]
        if exact and eq["match"] != "exact":
            continue
        if other["brand"] == part["brand"]:
            continue
        if target and other["brand"] != target:
            continue
        out.add(other["id"])
    return frozenset(out)


def json_values(value: Any) -> Iterator[Any]:
    """Every JSON value reachable in ``value``: nested containers, and JSON embedded in strings
    (a code block or an object inside an answer's text)."""
    if isinstance(value, Mapping):
        yield value
        for v in value.values():
            yield from json_values(v)
    elif isinstance(value, list):
        yield value
        for v in value:
            yield from json_values(v)
    elif isinstance(value, str):
        decoder = json.JSONDecoder()
        i = 0
        while i < len(value):
            if value[i] in "{[":
                try:
                    found, end = decoder.raw_decode(value, i)
                except json.JSONDecodeError:
                    i += 1
                    continue
                yield from json_values(found)
                i = end
            else:
                i += 1


def batch_requests(values: Iterable[Any]) -> list[dict[str, Any]]:
    """The batch-replace requests (``{old, new, tasks}``) among ``values``, each once."""
    seen: list[dict[str, Any]] = []
    for v in values:
        for found in json_values(v):
            if (
                isinstance(found, Mapping)
                and {"old", "new", "tasks"} <= set(found)
                and dict(found) not in seen
            ):
                seen.append(dict(found))
    return seen


@dataclass(frozen=True)
class Ask:
    """What a request asks, before the ERP says which brand and category it names.

    ``by``: the buyer names the brand to replace (``brand``) or only the category
    (``category``); ``named``: the buyer names the brand wanted (``target``) or not;
    ``template``: the buyer's words, formatted with ``brand``, ``brand_zh``, ``cat_zh``,
    ``cat_en`` and ``target``."""

    by: str
    named: bool
    template: str


def build_case(catalogue: Catalogue, ask: Ask, *, avoid: Iterable[str] = ()) -> Case:
    """A BOM for ``ask`` from the ERP's data: the first category (not in ``avoid``) and brand
    whose parts give at least two lines with an exact equivalent and one without, plus lines
    the request does not touch (other brands, another category)."""
    for category, source, target in _choices(catalogue, ask, set(avoid)):
        case = _case(catalogue, ask, category, source, target)
        if case is not None:
            return case
    msg = f"the ERP's cross-reference has no category and brand for {ask}"
    raise LookupError(msg)


def _choices(
    catalogue: Catalogue, ask: Ask, avoid: set[str]
) -> Iterator[tuple[str, str | None, str | None]]:
    categories = sorted({p["category_code"] for p in catalogue.parts.values()} - avoid)
    for category in categories:
        brands = sorted(
            {p["brand"] for p in catalogue.parts.values() if p["category_code"] == category}
        )
        sources: list[str | None] = list(brands) if ask.by == "brand" else [None]
        targets: list[str | None] = list(brands) if ask.named else [None]
        for source in sources:
            for target in targets:
                if source is None or source != target:
                    yield category, source, target


def _affected(part: Part, category: str, source: str | None, target: str | None) -> bool:
    if source is not None:
        return bool(part["brand"] == source)
    return part["category_code"] == category and part["brand"] != target


def _case(
    catalogue: Catalogue, ask: Ask, category: str, source: str | None, target: str | None
) -> Case | None:
    pool = [p for p in catalogue.parts.values() if p["category_code"] == category]
    affected = [p for p in pool if _affected(p, category, source, target)]
    replace = [p for p in affected if equivalent_ids(catalogue, p, target=target, exact=True)]
    flag = [
        p
        for p in affected
        if not equivalent_ids(catalogue, p, target=target, exact=True)
        and not equivalent_ids(catalogue, p, target=target, exact=False)
    ]
    if len(replace) < 2 or not flag:
        return None
    chosen = replace[:3] + flag[:1]
    near = set().union(*(equivalent_ids(catalogue, p, target=None, exact=False) for p in chosen))
    # Kept lines: a part of the same category the request leaves alone (another brand, and no
    # equivalent of a chosen line, so that no table row can be read as its replacement), and
    # parts of another category that are not of the brand named.
    same = [p for p in pool if not _affected(p, category, source, target) and p["id"] not in near]
    other = [
        p
        for p in catalogue.parts.values()
        if p["category_code"] != category and (source is None or p["brand"] != source)
    ]
    keep = same[:1] + other[:2]
    touched = [("replace", p) for p in chosen[:-1]] + [("flag", chosen[-1])]
    kept = [("keep", p) for p in keep]
    # Lines in a CAD order, not grouped by role: kept and affected ones interleave.
    order = [
        pair
        for i in range(max(len(touched), len(kept)))
        for pair in (kept[i : i + 1] + touched[i : i + 1])
    ]
    lines = [
        BomLine(
            line=10 * (n + 1),
            part=p,
            text=catalogue.bom_text(p),
            qty=(n + 1) * 2,
            role=role,
            allowed=equivalent_ids(catalogue, p, target=target, exact=True),
            related=equivalent_ids(catalogue, p, target=target, exact=False),
        )
        for n, (role, p) in enumerate(order)
    ]
    sample = chosen[0]
    words = {
        "brand": sample["brand"],
        "brand_zh": sample["brand_zh"],
        "cat_zh": sample["category_zh"],
        "cat_en": sample["category_en"].lower(),
        "target": target or "",
    }
    return Case(ask.template.format(**words), lines, target_brand=target)


def table_proposals(case: Case, catalogue: Catalogue, shown: Iterable[Any]) -> dict[int, set[int]]:
    """Check the replacement table the client was shown (``shown``: the answers' text, the
    cards' text and arguments) and return, per line with an equivalent, the ids of the new
    parts its rows propose.

    A row is a line of text, or one object of structured arguments, naming the BOM line's
    part (:func:`shown_rows`); a part it names that is not in the BOM is a proposal. Each
    line with an equivalent has a row proposing one of the ERP's exact equivalents (of the
    brand named) and nothing the ERP does not list as an equivalent; a line without one is
    listed and proposes nothing that is not at most a partial equivalent; a line the
    request does not touch proposes no equivalent."""
    rows = shown_rows(shown)
    in_bom = {ln.part["id"] for ln in case.lines}
    proposals: dict[int, set[int]] = {}
    for ln in case.lines:
        own = [r for r in rows if ln.part["id"] in catalogue.mentions(r)]
        proposed = set().union(*(catalogue.mentions(r) for r in own)) - in_bom
        names = sorted(catalogue.parts[i]["sku"] for i in proposed)
        where = f"line {ln.line} ({ln.part['sku']}, {ln.role}) in rows {own!r}"
        if not own:
            where += "; everything shown:\n" + "\n".join(rows[:60])
        if ln.role == "replace":
            assert proposed & ln.allowed, f"no ERP equivalent proposed for {where}"
            assert proposed <= ln.related, f"{names} are not ERP equivalents: {where}"
            proposals[ln.line] = proposed & ln.allowed
        elif ln.role == "flag":
            assert own, f"the line without an equivalent is not in the table: line {ln.line}"
            assert proposed <= ln.related, f"{names} proposed for {where}"
        else:
            every = equivalent_ids(catalogue, ln.part, target=None, exact=False)
            assert not proposed & every, f"{names} proposed for an untouched {where}"
    return proposals


def shown_rows(shown: Iterable[Any]) -> list[str]:
    """The rows of what a client was shown: each line of text, with JSON written inside it
    taken apart; each object of structured values as one row of its short values (so a
    change ``{line, old_part, new_part}`` is one row, and a list of them is not)."""
    rows: list[str] = []
    for value in shown:
        rows.extend(_rows(value))
    return [r for r in rows if r.strip()]


def _rows(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        for line in value.splitlines():
            yield from _text_rows(line)
    elif isinstance(value, Mapping):
        short = [str(v) for v in value.values() if _short(v)]
        yield " ".join(short)
        for v in value.values():
            if not _short(v):
                yield from _rows(v)
    elif isinstance(value, list):
        short = [str(v) for v in value if _short(v)]
        yield " ".join(short)
        for v in value:
            if not _short(v):
                yield from _rows(v)


def _short(value: Any) -> bool:
    return not isinstance(value, Mapping | list) and "\n" not in str(value)


def _text_rows(line: str) -> Iterator[str]:
    # JSON inside a line of text (a one-line code block) is rows of its own; the words
    # around it are one more row.
    decoder = json.JSONDecoder()
    outside: list[str] = []
    i = start = 0
    while i < len(line):
        if line[i] in "{[":
            try:
                found, end = decoder.raw_decode(line, i)
            except json.JSONDecodeError:
                i += 1
                continue
            if isinstance(found, Mapping | list):
                outside.append(line[start:i])
                yield from _rows(found)
                i = start = end
                continue
        i += 1
    outside.append(line[start:])
    yield " ".join(outside)


def check_changes(
    case: Case, catalogue: Catalogue, changes: list[dict[str, Any]], proposals: dict[int, set[int]]
) -> None:
    """The apply tool's ``changes`` are the approved table: one per line with an equivalent
    (no other line), its old part the BOM's, its new part the one the table proposed."""
    by_line = {ln.line: ln for ln in case.lines}
    assert sorted(int(c["line"]) for c in changes) == sorted(proposals), changes
    for change in changes:
        ln = by_line[int(change["line"])]
        old = catalogue.identify(str(change["old_part"]), context=json.dumps(change))
        new = catalogue.identify(str(change["new_part"]), context=json.dumps(change))
        assert ln.part["id"] in old, (change, ln.part["sku"])
        assert new & proposals[ln.line], (change, "not what the table proposed")


async def run_batch_replace(
    http: httpx.AsyncClient, case: Case, catalogue: Catalogue, requests: list[dict[str, Any]]
) -> dict[int, set[int]]:
    """Run the batch-replace requests through ``POST /api/batch-replace`` as the client would,
    check what they rewrite, and return per BOM line the new parts they put in.

    Every rewritten text is a BOM line's part becoming one of its ERP exact equivalents (of
    the brand named); exactly the lines with an equivalent are rewritten."""
    in_bom = {ln.part["id"]: ln for ln in case.lines}
    rewritten: dict[int, set[int]] = {}
    for request in requests:
        r = await http.post("/api/batch-replace", json=request)
        assert r.status_code == 200, (request, r.text)
        for result in r.json()["results"]:
            if result["original"] == result["replaced"]:
                continue
            olds = catalogue.mentions(result["original"]) & set(in_bom)
            assert len(olds) == 1, (result, "does not rewrite one BOM part")
            ln = in_bom[olds.pop()]
            new = catalogue.mentions(result["replaced"]) - {ln.part["id"]}
            assert ln.role == "replace", (result, f"rewrites a {ln.role} line")
            assert new & ln.allowed, (result, "the new part is no ERP exact equivalent")
            rewritten.setdefault(ln.line, set()).update(new)
    assert sorted(rewritten) == sorted(ln.line for ln in case.role("replace")), rewritten
    return rewritten


# A buyer's words, written before reading the flow: brand or category, target named or not.
ASKS = {
    "zh-brand-target-same-spec": Ask(
        "brand", True, "把 BOM 里所有{brand_zh}{cat_zh}换成 {target} 的同规格型号"
    ),
    "en-brand-another-supplier": Ask(
        "brand",
        False,
        "Replace every {brand} {cat_en} in this BOM with an equivalent from another supplier",
    ),
    "zh-category-target": Ask("category", True, "BOM 里的{cat_zh}全部换成{target}的等效型号"),
    "en-category-any-brand": Ask(
        "category", False, "Swap every {cat_en} in my BOM for a same-spec part from another brand"
    ),
    "zh-brand-only": Ask("brand", False, "把 BOM 中{brand_zh}的零件都替换成其他品牌同规格的"),
    "en-brand-target-no-category": Ask(
        "brand", True, "Replace all {brand} parts in the BOM with {target} equivalents"
    ),
}


def build_cases(catalogue: Catalogue) -> dict[str, Case]:
    """One BOM per phrasing of :data:`ASKS`, spread over the ERP's categories where the
    cross-reference allows."""
    built: dict[str, Case] = {}
    used: set[str] = set()
    for name, ask in ASKS.items():
        try:
            case = build_case(catalogue, ask, avoid=used)
        except LookupError:  # every category that fits is taken: share one
            case = build_case(catalogue, ask)
        used.add(case.role("replace")[0].part["category_code"])
        built[name] = case
    return built
