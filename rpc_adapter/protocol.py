"""JSON-RPC 2.0 wire format: parsing, validation, responses and error objects.

Follows https://www.jsonrpc.org/specification exactly: a request without an
``id`` member is a notification and is never answered; the id's JSON type is
echoed unchanged; parse errors and invalid requests are answered with id null;
an empty batch is one -32600 error, a batch of notifications gets no reply.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Final, Literal

JSONRPC: Final = "2.0"
PROTOCOL_VERSION: Final = "1.1"

PARSE_ERROR: Final = -32700
INVALID_REQUEST: Final = -32600
METHOD_NOT_FOUND: Final = -32601
INVALID_PARAMS: Final = -32602
INTERNAL_ERROR: Final = -32603
SERVER_ERROR: Final = -32000
AGENT_ERROR: Final = -32001
TOOL_ERROR: Final = -32002
TIMEOUT_ERROR: Final = -32003
NOT_REGISTERED: Final = -32004

CLOSE_REPLACED: Final = 4000
"""WebSocket close code: the session was resumed on another socket."""
CLOSE_SLOW_CONSUMER: Final = 4008
"""WebSocket close code: the client did not read its messages and the outgoing queue filled;
what was queued waits in the session for a reconnect (final responses first)."""

ErrorCode = Literal[-32700, -32600, -32601, -32602, -32603, -32000, -32001, -32002, -32003, -32004]

ERROR_MESSAGES: Final[dict[int, str]] = {
    PARSE_ERROR: "Parse error",
    INVALID_REQUEST: "Invalid Request",
    METHOD_NOT_FOUND: "Method not found",
    INVALID_PARAMS: "Invalid params",
    INTERNAL_ERROR: "Internal error",
    SERVER_ERROR: "Server error",
    AGENT_ERROR: "Agent error",
    TOOL_ERROR: "Tool error",
    TIMEOUT_ERROR: "Timeout",
    NOT_REGISTERED: "Agent not registered",
}

_MISSING: Final = object()


class RpcError(Exception):
    """An error that becomes a JSON-RPC error object; ``message`` is safe to show a client."""

    def __init__(self, code: int, message: str | None = None, data: Any = None) -> None:
        super().__init__(message or ERROR_MESSAGES.get(code, "Error"))
        self.code = code
        self.message = message or ERROR_MESSAGES.get(code, "Error")
        self.data = data

    def to_obj(self) -> dict[str, Any]:
        """The ``error`` member of a response."""
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


@dataclass
class Request:
    """One valid request or notification (``is_notification`` when it had no id)."""

    method: str
    params: dict[str, Any] | list[Any] | None = None
    id: Any = None
    is_notification: bool = False


@dataclass
class Invalid:
    """An element that is not a valid request; answered with -32600 and its id if readable."""

    error: RpcError
    id: Any = None


@dataclass
class Parsed:
    """A parsed frame: one item or a batch of items, or a parse error."""

    items: list[Request | Invalid] = field(default_factory=list)
    is_batch: bool = False
    parse_error: RpcError | None = None


def _valid_id(value: Any) -> bool:
    # bool is an int subclass in Python but not a JSON number
    return value is None or (isinstance(value, str | int | float) and not isinstance(value, bool))


def validate_request(obj: Any) -> Request | Invalid:
    """Check one decoded element against the spec's Request object rules."""
    if not isinstance(obj, dict):
        return Invalid(RpcError(INVALID_REQUEST, "Invalid Request: not an object"))
    rid = obj.get("id", _MISSING)
    echo_id = rid if rid is not _MISSING and _valid_id(rid) else None
    if obj.get("jsonrpc") != JSONRPC:
        return Invalid(RpcError(INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"'), echo_id)
    method = obj.get("method")
    if not isinstance(method, str):
        return Invalid(
            RpcError(INVALID_REQUEST, "Invalid Request: method must be a string"), echo_id
        )
    if rid is not _MISSING and not _valid_id(rid):
        return Invalid(
            RpcError(INVALID_REQUEST, "Invalid Request: id must be a string, number or null")
        )
    params = obj.get("params", None)
    if "params" in obj and not isinstance(params, dict | list):
        return Invalid(
            RpcError(INVALID_REQUEST, "Invalid Request: params must be an object or an array"),
            echo_id,
        )
    return Request(
        method=method,
        params=params,
        id=None if rid is _MISSING else rid,
        is_notification=rid is _MISSING,
    )


def parse_frame(text: str | bytes) -> Parsed:
    """Decode one WebSocket text frame into requests (or a parse error)."""
    try:
        data = json.loads(text)
    except (ValueError, UnicodeDecodeError):
        return Parsed(parse_error=RpcError(PARSE_ERROR, "Parse error: invalid JSON"))
    except RecursionError:
        # JSON nested deeper than the decoder's stack: a parse error like any other, never a
        # dropped socket.
        return Parsed(parse_error=RpcError(PARSE_ERROR, "Parse error: JSON nested too deeply"))
    if isinstance(data, list):
        if not data:
            return Parsed(
                items=[Invalid(RpcError(INVALID_REQUEST, "Invalid Request: empty batch"))]
            )
        return Parsed(items=[validate_request(x) for x in data], is_batch=True)
    return Parsed(items=[validate_request(data)])


def result_response(rid: Any, result: Any) -> dict[str, Any]:
    """A success response."""
    return {"jsonrpc": JSONRPC, "result": result, "id": rid}


def error_response(rid: Any, error: RpcError) -> dict[str, Any]:
    """An error response."""
    return {"jsonrpc": JSONRPC, "error": error.to_obj(), "id": rid}


def notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    """A server-to-client notification (no id, never answered)."""
    return {"jsonrpc": JSONRPC, "method": method, "params": params}


def dumps(obj: Any) -> str:
    """Serialize compactly, keeping non-ASCII text readable."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"), default=str)
