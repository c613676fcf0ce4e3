"""core's shared contracts: Host/Origin parsing, the schema-error wording, client-tool shapes."""

from __future__ import annotations

from jsonschema import Draft7Validator

from core.client_tools import CLIENT_TOOL_INTERRUPT, is_client_tool_interrupt
from core.http_guard import host_allowed, host_only, origin_host
from core.schema_errors import field_path, nonfinite_errors, schema_errors, too_many_items


def test_host_parsing_keeps_ipv6_whole_and_drops_ports() -> None:
    assert host_only("LocalHost:2024") == "localhost"
    assert host_only("[::1]:8999") == "[::1]"
    assert host_only("::1") == "::1"
    assert origin_host("http://127.0.0.1:3000") == "127.0.0.1"
    assert host_allowed("[::1]", {"::1"}) and not host_allowed("evil.example", {"localhost"})


def test_schema_errors_name_each_field_once_in_order() -> None:
    schema = {
        "type": "object",
        "required": ["data"],
        "properties": {"title": {"type": "string"}, "data": {"type": "array"}},
    }
    errors = Draft7Validator(schema).iter_errors({"title": None})
    assert schema_errors(errors, root="cfg") == [
        "data: required field is missing",
        "title: None is not of type 'string'",
    ]
    noted = schema_errors(Draft7Validator(schema).iter_errors({"title": None, "data": []}),
                          root="cfg", null_note=True)  # fmt: skip
    assert noted == ["title: null is not of type 'string' (NaN and Infinity arrive as null)"]
    assert field_path([], root="cfg") == "cfg" and field_path(["a", 0, "b"], root="x") == "a[0].b"
    assert nonfinite_errors({"a": [1.0, float("inf")]}, root="cfg") == [
        "a[1]: inf is not a finite number"
    ]
    assert too_many_items("data", 20001, 20000).startswith("data: 20,001 items is too many")


def test_only_the_client_tool_interrupt_is_recognised() -> None:
    assert is_client_tool_interrupt({"type": CLIENT_TOOL_INTERRUPT, "calls": []})
    assert not is_client_tool_interrupt({"type": "request_order_info"})
    assert not is_client_tool_interrupt([{"type": CLIENT_TOOL_INTERRUPT}])
