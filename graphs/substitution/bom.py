"""A bill of materials read from the forms it arrives in (issue 19, "Test client contract").

- JSON: ``{"product": ..., "lines": [...]}`` (also ``items`` / ``bom`` / ``components``) or a
  list at top level; per line the line number (``line`` / ``item`` / ``position``), the part
  (``part`` / ``part_no`` / ``sku`` / ``model``), a description and the quantity
  (``qty`` / ``quantity``), in English or Chinese column names;
- a Markdown table or CSV / TSV text with a header row naming those columns;
- plain lines ``<line> <part> [description] <qty>`` ("10 CR7HSA 火花塞 4", "20. BR8ES x 2").

A BOM reaches a thread in one of three ways: the result of a client's BOM tool, the text of
the buyer's message, or a file attached to the message as a content block (LangChain's
``{"type": "file", "mime_type": "text/csv", "base64" | "data" | "text": ...}``, Agent Chat
UI's ``source_type: "base64"`` form included; text, CSV, Markdown and JSON files).
:func:`bom_in_messages` finds the newest one.
"""

from __future__ import annotations

import base64
import binascii
import csv
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, ToolMessage

from graphs.messages import is_notification, message_text, parse_json

__all__ = [
    "Bom", "BomLine", "attached_texts", "bom_in_messages", "instruction_text", "parse_bom",
]  # fmt: skip

_LINE_KEYS = ("line", "item", "position", "pos", "line_no", "lineno", "no", "#", "序号", "行号",
              "项次", "行", "位号")  # fmt: skip
_PART_KEYS = ("part", "part_no", "part_number", "partno", "sku", "model", "model_no", "型号",
              "料号", "物料编码", "物料号", "零件号", "零件", "编号", "part_id")  # fmt: skip
_DESC_KEYS = ("description", "desc", "name", "名称", "描述", "品名", "说明", "零件名称")
_QTY_KEYS = ("qty", "quantity", "数量", "用量", "count", "pcs")
_LIST_KEYS = ("lines", "items", "bom", "components", "parts", "rows")
_TEXT_MIME = re.compile(r"^(?:text/|application/(?:json|csv|x-csv|vnd\.ms-excel$))")
_PLAIN = re.compile(
    r"^\s*(?:line\s*|行\s*)?(\d{1,6})[\s.:：)、,-]+"  # the line number
    r"([A-Za-z0-9][A-Za-z0-9._/-]*\d[A-Za-z0-9._/-]*|[A-Za-z0-9._/-]*\d[A-Za-z0-9._/-]*[A-Za-z]"
    r"[A-Za-z0-9._/-]*)"  # the part: letters and digits
    r"(.*?)"  # a description
    r"(?:\s*(?:[x×*]|qty[:：]?|数量[:：]?)\s*|\s+)(\d+(?:\.\d+)?)\s*(?:pcs|个|件|套|只|条|pc)?\s*$",
    re.I,
)
_CJK = re.compile(r"[\u4e00-\u9fff]")
_MIN_PLAIN_LINES = 2  # one "10 CR7HSA 4" in a sentence is not a BOM


@dataclass(frozen=True)
class BomLine:
    """One BOM line: its number as the BOM writes it, the part, what it is, how many."""

    line: str
    part: str
    description: str = ""
    qty: float | None = None

    def to_json(self) -> dict[str, Any]:
        """The line as plain data (the plan keeps it in the thread's state)."""
        qty: Any = self.qty
        if isinstance(qty, float) and qty.is_integer():
            qty = int(qty)
        return {"line": self.line, "part": self.part, "description": self.description, "qty": qty}


@dataclass(frozen=True)
class Bom:
    """A bill of materials: its lines, the product it belongs to, where it came from."""

    lines: tuple[BomLine, ...]
    product: str = ""
    source: str = ""


def _key(name: Any) -> str:
    return re.sub(r"[\s.\-]+", "_", str(name).strip().lower()).strip("_")


def _pick(record: Mapping[str, Any], keys: Sequence[str]) -> Any:
    """The value of the first of ``keys`` the record has; else of a Chinese column name that
    contains one of them ("零件型号" for 型号, "数量（个）" for 数量), in ``keys``' order."""
    by_key = {_key(k): v for k, v in record.items()}
    for k in keys:
        value = by_key.get(_key(k))
        if value not in (None, ""):
            return value
    for k in keys:
        if not _CJK.search(k):
            continue
        for name, value in by_key.items():
            if k in name and value not in (None, ""):
                return value
    return None


def _qty(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    m = re.search(r"\d+(?:\.\d+)?", str(value or ""))
    return float(m.group(0)) if m else None


def _line_no(value: Any, position: int) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = str(value).strip() if value is not None else ""
    return text or str(position)


def _from_records(records: Iterable[Any]) -> list[BomLine]:
    lines: list[BomLine] = []
    for position, record in enumerate(records, start=1):
        if not isinstance(record, Mapping):
            continue
        part = _pick(record, _PART_KEYS)
        if part is None or isinstance(part, Mapping | list):
            continue
        lines.append(
            BomLine(
                line=_line_no(_pick(record, _LINE_KEYS), position),
                part=str(part).strip(),
                description=str(_pick(record, _DESC_KEYS) or "").strip(),
                qty=_qty(_pick(record, _QTY_KEYS)),
            )
        )
    return lines


def _from_json(data: Any) -> Bom | None:
    if isinstance(data, list):
        lines = _from_records(data)
        return Bom(tuple(lines)) if lines else None
    if not isinstance(data, Mapping):
        return None
    for key in _LIST_KEYS:
        if isinstance(data.get(key), list):
            lines = _from_records(data[key])
            if lines:
                product = data.get("product") or data.get("product_id") or data.get("name") or ""
                return Bom(tuple(lines), product=str(product))
    return None


def _table_rows(rows: list[list[str]]) -> list[BomLine]:
    """Rows whose first row is a header naming a part column."""
    for i, header in enumerate(rows):
        if _pick(dict.fromkeys(header, "x"), _PART_KEYS) is not None:
            body = [r for r in rows[i + 1 :] if len(r) >= 2]
            return _from_records(dict(zip(header, r, strict=False)) for r in body)
    return []


def _markdown(text: str) -> list[BomLine]:
    rows: list[list[str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
            continue  # the separator row
        rows.append(cells)
    return _table_rows(rows)


def _delimited(text: str) -> list[BomLine]:
    for delimiter in (",", "\t", ";", "，"):
        block = [ln for ln in text.splitlines() if ln.count(delimiter) >= 1]
        if len(block) < 2:
            continue
        rows = [[c.strip() for c in r] for r in csv.reader(io.StringIO("\n".join(block)),
                                                           delimiter=delimiter)]  # fmt: skip
        lines = _table_rows(rows)
        if lines:
            return lines
    return []


def _plain(text: str) -> list[BomLine]:
    lines = []
    for raw in text.splitlines():
        m = _PLAIN.match(raw)
        if m:
            line, part, description, qty = m.groups()
            lines.append(BomLine(line, part, description.strip(" ,，:-"), float(qty)))
    return lines if len(lines) >= _MIN_PLAIN_LINES else []


def parse_bom(text: str, *, source: str = "") -> Bom | None:
    """The BOM in ``text`` (JSON, Markdown table, CSV / TSV or plain lines), or None."""
    if not text or not text.strip():
        return None
    found = _from_json(parse_json(text))
    if found is not None:
        return Bom(found.lines, found.product, source)
    for reader in (_markdown, _delimited, _plain):
        lines = reader(text)
        if lines:
            return Bom(tuple(lines), source=source)
    return None


def instruction_text(text: str) -> str:
    """``text`` without the BOM written in it (what the buyer asks, not the lines' brands)."""
    data = parse_json(text)
    if data is not None and _from_json(data) is not None:
        starts = [i for i in (text.find("{"), text.find("[")) if i >= 0]
        ends = [i for i in (text.rfind("}"), text.rfind("]")) if i >= 0]
        if starts and ends:
            return (text[: min(starts)] + text[max(ends) + 1 :]).strip()
    kept = []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("|") or _PLAIN.match(raw):
            continue
        kept.append(raw)
    if _delimited("\n".join(kept)):
        header = next(i for i, ln in enumerate(kept) if _is_header(ln))
        kept = kept[:header]
    return "\n".join(kept).strip()


def _is_header(line: str) -> bool:
    cells = re.split(r"[,\t;，]", line)
    return len(cells) >= 2 and _pick(dict.fromkeys(cells, "x"), _PART_KEYS) is not None


def _decode(block: Mapping[str, Any]) -> str | None:
    if isinstance(block.get("text"), str):
        return str(block["text"])
    raw = block.get("base64") or block.get("data")
    if not isinstance(raw, str):
        return None
    try:
        data = base64.b64decode(raw, validate=True)
    except (binascii.Error, ValueError):
        return None
    for encoding in ("utf-8-sig", "gb18030"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    return None


def attached_texts(message: BaseMessage) -> list[tuple[str, str]]:
    """The text files attached to ``message`` as content blocks: ``(file name, text)``."""
    content = getattr(message, "content", None)
    if not isinstance(content, list):
        return []
    found = []
    for block in content:
        if not isinstance(block, Mapping) or block.get("type") not in ("file", "text-plain"):
            continue
        mime = str(block.get("mime_type") or "text/plain").lower()
        if not _TEXT_MIME.match(mime):
            continue
        meta = block.get("metadata") if isinstance(block.get("metadata"), Mapping) else {}
        name = str(block.get("filename") or (meta or {}).get("filename") or "attachment")
        text = _decode(block)
        if text:
            found.append((name, text))
    return found


def bom_in_messages(messages: Sequence[BaseMessage], tool_names: Iterable[str] = ()) -> Bom | None:
    """The newest BOM of a conversation: a result of one of ``tool_names`` (the client's BOM
    tools), a file attached to a buyer's message, or the text of a buyer's message."""
    tools = set(tool_names)
    for message in reversed(messages):
        if isinstance(message, ToolMessage) and (message.name or "") in tools:
            if getattr(message, "status", "success") == "error":
                continue
            found = parse_bom(message_text(message), source=f"tool:{message.name}")
            if found is not None:
                return found
        elif isinstance(message, HumanMessage) and not is_notification(message):
            for name, text in attached_texts(message):
                found = parse_bom(text, source=f"file:{name}")
                if found is not None:
                    return found
            found = parse_bom(message_text(message), source="message")
            if found is not None:
                return found
    return None
