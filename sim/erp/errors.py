"""The ERP's error codes, their HTTP statuses, and sentences a buyer understands."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ValidationError

ErrorCode = Literal[
    "VALIDATION",
    "NOT_FOUND",
    "INVALID_TRANSITION",
    "IDEMPOTENCY_CONFLICT",
    "VERSION_CONFLICT",
    "APPROVAL_REQUIRED",
    "METHOD_NOT_ALLOWED",
    "INTERNAL",
]

HTTP_STATUS: dict[ErrorCode, int] = {
    "VALIDATION": 422,
    "NOT_FOUND": 404,
    "INVALID_TRANSITION": 409,
    "IDEMPOTENCY_CONFLICT": 409,
    "VERSION_CONFLICT": 409,
    "APPROVAL_REQUIRED": 403,
    "METHOD_NOT_ALLOWED": 405,
    "INTERNAL": 500,
}

# Input is never echoed at length: a 100 KB string must not come back in an error.
_ECHO_MAX = 40
_ERRORS_MAX = 20


class ErpError(Exception):
    """A refusal the client can act on: a code, a sentence, and optional details."""

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        details: dict[str, Any] | None = None,
        *,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code: ErrorCode = code
        self.message = message
        self.details = details or {}
        self.status = status or HTTP_STATUS[code]

    def body(self) -> dict[str, Any]:
        """The JSON body of the error answer."""
        return {"error": {"code": self.code, "message": self.message, "details": self.details}}


def echo(value: object) -> str:
    """``value`` as a short quoted string, cut when long."""
    text = str(value)
    if len(text) > _ECHO_MAX:
        text = text[:_ECHO_MAX] + "…"
    return repr(text) if isinstance(value, str) else text


def field_path(loc: tuple[int | str, ...]) -> str:
    """``("lines", 0, "quantity")`` → ``"lines[0].quantity"``."""
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{part}" if out else str(part)
    return out


# What is wrong with a field, per pydantic error type; {name}s come from the error's ctx.
_PROBLEMS = {
    "missing": "is required",
    "extra_forbidden": "is not a field this request accepts",
    "greater_than": "must be greater than {gt}",
    "greater_than_equal": "must be at least {ge}",
    "less_than_equal": "must be at most {le}",
    "string_too_long": "is too long (at most {max_length} characters)",
    "string_too_short": "is too short (at least {min_length} characters)",
    "too_short": "needs at least {min_length} item(s)",
    "too_long": "takes at most {max_length} items",
    "literal_error": "must be one of {expected}",
    "string_type": "must be a text string",
    "bool_type": "must be true or false",
    "model_type": "must be a JSON object",
    "model_attributes_type": "must be a JSON object",
    "dict_type": "must be a JSON object",
    "list_type": "must be a list",
    "string_pattern_mismatch": "has the wrong format",
}


class _Context(dict[str, Any]):
    def __missing__(self, key: str) -> None:
        return None


def _problem(err: Any) -> str:
    kind = err["type"]
    if kind in _PROBLEMS:
        return _PROBLEMS[kind].format_map(_Context(err.get("ctx") or {}))
    if kind in ("int_type", "int_parsing", "int_from_float"):
        value = err.get("input")
        if isinstance(value, float) and not isinstance(value, bool):
            return f"must be a whole number, not {echo(value)}"
        return "must be a whole number"
    if kind.startswith("date") or kind.startswith("datetime"):
        return "must be a date written YYYY-MM-DD"
    if kind == "value_error":
        return str(err.get("msg", "is not valid")).removeprefix("Value error, ")
    return str(err.get("msg", "is not valid")).lower()


def from_validation_error(exc: ValidationError, *, what: str = "The request") -> ErpError:
    """One VALIDATION error naming each bad field, without echoing long input."""
    errors = exc.errors(include_url=False, include_input=True)
    problems = [
        {"field": field_path(tuple(err["loc"])) or "body", "problem": _problem(err)}
        for err in errors
    ]
    if not problems:
        return ErpError("VALIDATION", f"{what} is not valid.")
    first = problems[0]
    if errors[0]["type"] == "value_error":
        # Our own validators already write a whole sentence.
        message = first["problem"][:1].upper() + first["problem"][1:] + "."
    else:
        subject = first["field"] if first["field"] != "body" else what
        message = f"{subject} {first['problem']}."
    if len(problems) > 1:
        more = len(problems) - 1
        message += f" ({more} more problem{'s' if more > 1 else ''} in details.)"
    return ErpError("VALIDATION", message, {"errors": problems[:_ERRORS_MAX]})
