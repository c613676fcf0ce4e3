"""A BOM read from the forms clients and buyers send it in (issue 19, "Test client contract"),
the client tools recognised by their descriptions, and the apply arguments fitted to a
client's schema."""

from __future__ import annotations

import base64
import json

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from graphs.substitution.bom import bom_in_messages, instruction_text, parse_bom
from graphs.substitution.client import (
    apply_arguments,
    apply_tool,
    batch_replace_request,
    bom_tools,
)

EXPECTED = [("10", "CR7HSA", 4.0), ("20", "BR8ES", 2.0)]

FORMS = {
    "contract json": json.dumps({"product": "P-100", "lines": [
        {"line": 10, "part": "CR7HSA", "description": "spark plug", "qty": 4},
        {"line": 20, "part": "BR8ES", "description": "spark plug", "qty": 2}]}),
    "list, item / part_no / quantity": json.dumps([
        {"item": 10, "part_no": "CR7HSA", "quantity": "4"},
        {"item": 20, "part_no": "BR8ES", "quantity": 2}]),
    "position / model": json.dumps({"items": [
        {"position": "10", "model": "CR7HSA", "qty": 4.0},
        {"position": "20", "model": "BR8ES", "qty": 2}]}),
    "markdown": "| 行号 | 型号 | 名称 | 数量 |\n|:--|---|---|--:|\n| 10 | CR7HSA | 火花塞 | 4 |\n"
                "| 20 | BR8ES | 火花塞 | 2 |",
    "markdown, longer Chinese names": "| 行号 | 零件名称 | 零件型号 | 数量（个） |\n"
        "|---|---|---|---|\n| 10 | 火花塞 | CR7HSA | 4 |\n| 20 | 火花塞 | BR8ES | 2 |",
    "csv": "line,sku,description,qty\n10,CR7HSA,\"plug, iridium\",4\n20,BR8ES,plug,2\n",
    "tsv": "Line\tPart Number\tQuantity\n10\tCR7HSA\t4\n20\tBR8ES\t2",
    "plain lines": "10 CR7HSA spark plug 4\n20. BR8ES x 2",
}  # fmt: skip


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_of_the_contract_reads_the_same_lines(form: str) -> None:
    bom = parse_bom(FORMS[form])
    assert bom is not None
    assert [(ln.line, ln.part, ln.qty) for ln in bom.lines] == EXPECTED


def test_the_product_and_description_are_kept() -> None:
    bom = parse_bom(FORMS["contract json"])
    assert bom is not None and bom.product == "P-100"
    assert bom.lines[0].description == "spark plug"
    csv_bom = parse_bom(FORMS["csv"])
    assert csv_bom is not None and csv_bom.lines[0].description == "plug, iridium"


@pytest.mark.parametrize(
    "text",
    [
        "把P-100的BOM里的KMC链条都换掉",
        "replace every Brembo pad with an equivalent, we need 10 CR7HSA",
        "",
        json.dumps({"product": "P-100", "lines": []}),
        "| a | b |\n|---|---|\n| 1 | 2 |",
    ],
)
def test_a_request_without_a_bom_is_not_read_as_one(text: str) -> None:
    assert parse_bom(text) is None


def test_the_request_is_read_without_the_bom_pasted_under_it() -> None:
    asked = "把这个 BOM 里的博世火花塞换成 NGK 的"
    for form in ("markdown", "csv", "plain lines", "contract json"):
        assert instruction_text(f"{asked}\n{FORMS[form]}") == asked


def _file_block(text: str, mime: str, *, agent_chat_ui: bool) -> dict[str, object]:
    data = base64.b64encode(text.encode("gb18030" if "火" in text else "utf-8")).decode()
    if agent_chat_ui:
        return {"type": "file", "source_type": "base64", "mime_type": mime, "data": data,
                "metadata": {"filename": "bom.csv"}}  # fmt: skip
    return {"type": "file", "mime_type": mime, "base64": data, "filename": "bom.csv"}


@pytest.mark.parametrize("agent_chat_ui", [False, True])
def test_a_file_attached_to_the_message_is_the_bom(agent_chat_ui: bool) -> None:
    message = HumanMessage(
        content=[
            {"type": "text", "text": "replace the Bosch plugs in the attached BOM with NGK"},
            _file_block(FORMS["csv"], "text/csv", agent_chat_ui=agent_chat_ui),
        ]
    )
    bom = bom_in_messages([message])
    assert bom is not None and bom.source == "file:bom.csv"
    assert [(ln.line, ln.part, ln.qty) for ln in bom.lines] == EXPECTED


def test_a_chinese_csv_in_gb18030_is_decoded() -> None:
    text = "行号,型号,名称,数量\n10,CR7HSA,火花塞,4\n20,BR8ES,火花塞,2"
    message = HumanMessage(content=[_file_block(text, "text/csv", agent_chat_ui=True)])
    bom = bom_in_messages([message])
    assert bom is not None and bom.lines[0].description == "火花塞"


def test_a_binary_attachment_is_not_read() -> None:
    block = {"type": "file", "mime_type": "application/pdf", "base64": "JVBERi0xLjQ="}
    assert bom_in_messages([HumanMessage(content=[block])]) is None


def test_the_newest_bom_wins_and_only_bom_tools_count() -> None:
    older = HumanMessage(content=f"here is the BOM\n{FORMS['csv']}")
    call = AIMessage(content="", tool_calls=[{"name": "fetch_bom_tool", "args": {}, "id": "c1"}])
    newer = ToolMessage(
        content=json.dumps({"product": "P-200", "lines": [{"line": 1, "part": "X1A", "qty": 1}]}),
        tool_call_id="c1",
        name="fetch_bom_tool",
    )
    bom = bom_in_messages([older, call, newer], ["fetch_bom_tool"])
    assert bom is not None and bom.product == "P-200" and bom.source == "tool:fetch_bom_tool"
    # Another tool's JSON is not a BOM the client gave.
    other = bom_in_messages([older, call, newer], ["some_other_tool"])
    assert other is not None and other.source == "message"


FETCH = {"name": "fetch_bom_tool", "description": "Fetch the bill of materials (BOM) of a product",
         "parameters": {"type": "object",
                        "properties": {"product": {"type": "string"}}}}  # fmt: skip
APPLY = {"name": "apply_bom_changes", "description": "Apply part replacements to a BOM",
         "parameters": {"type": "object", "properties": {"changes": {"type": "array", "items": {
             "type": "object", "properties": {"line": {"type": "integer"},
                                              "old_part": {"type": "string"},
                                              "new_part": {"type": "string"}}}}}}}  # fmt: skip
UPDATE_ZH = {"name": "update_bom", "description": "更新物料清单中的零件",
             "parameters": {"type": "object", "properties": {"rows": {"type": "array", "items": {
                 "type": "object", "properties": {"position": {"type": "string"},
                                                  "from": {"type": "string"},
                                                  "to": {"type": "string"}}}},
                 "product_id": {"type": "string"}}}}  # fmt: skip
WEATHER = {"name": "get_weather", "description": "Weather for a city", "parameters": {}}


def test_bom_and_apply_tools_are_told_apart_by_what_they_say() -> None:
    specs = {s["name"]: s for s in (FETCH, APPLY, WEATHER)}
    assert bom_tools(specs) == ["fetch_bom_tool"]
    assert apply_tool(specs) == "apply_bom_changes"
    assert apply_tool({"update_bom": UPDATE_ZH, "get_weather": WEATHER}) == "update_bom"
    assert apply_tool({"fetch_bom_tool": FETCH}) is None


CHANGES = [{"line": "10", "old_part": "CR7HSA", "new_part": "UR5DC", "qty": 4},
           {"line": "20", "old_part": "BR8ES", "new_part": "W24ES", "qty": 2}]  # fmt: skip


def test_apply_arguments_follow_the_client_schema() -> None:
    assert apply_arguments(APPLY["parameters"], CHANGES) == {"changes": [
        {"line": 10, "old_part": "CR7HSA", "new_part": "UR5DC"},
        {"line": 20, "old_part": "BR8ES", "new_part": "W24ES"}]}  # fmt: skip
    args = apply_arguments(UPDATE_ZH["parameters"], CHANGES, product="P-100")
    assert args["rows"][1] == {"position": "20", "from": "BR8ES", "to": "W24ES"}
    assert args["product_id"] == "P-100"
    text = {"type": "object", "properties": {"payload": {"type": "string"}}}
    assert json.loads(apply_arguments(text, CHANGES)["payload"])[0]["new_part"] == "UR5DC"


def test_without_an_apply_tool_the_request_fits_batch_replace() -> None:
    request = batch_replace_request([*CHANGES, {**CHANGES[0], "line": "30"}])
    assert request["batch_replace"] == [
        {"old": "CR7HSA", "new": "UR5DC", "tasks": ["CR7HSA", "CR7HSA"]},
        {"old": "BR8ES", "new": "W24ES", "tasks": ["BR8ES"]},
    ]
    assert [c["line"] for c in request["changes"]] == ["10", "20", "30"]
