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


def _problem(err: Any) -> str:
    kind = err["type"]
    ctx = err.get("ctx") or {}
    value = err.get("input")
    if kind == "missing":
        return "is required"
    if kind == "extra_forbidden":
        return "is not a field this request accepts"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        if isinstance(value, float) and not isinstance(value, bool):
            return f"must be a whole number, not {echo(value)}"
        return "must be a whole number"
    if kind == "greater_than":
        return f"must be greater than {ctx.get('gt')}"
    if kind == "greater_than_equal":
        return f"must be at least {ctx.get('ge')}"
    if kind == "less_than_equal":
        return f"must be at most {ctx.get('le')}"
    if kind == "string_too_long":
        return f"is too long (at most {ctx.get('max_length')} characters)"
    if kind == "string_too_short":
        return f"is too short (at least {ctx.get('min_length')} characters)"
    if kind == "too_short":
        return f"needs at least {ctx.get('min_length')} item(s)"
    if kind == "too_long":
        return f"takes at most {ctx.get('max_length')} items"
    if kind.startswith("date") or kind.startswith("datetime"):
        return "must be a date written YYYY-MM-DD"
    if kind == "literal_error":
        return f"must be one of {ctx.get('expected')}"
    if kind == "string_type":
        return "must be a text string"
    if kind == "bool_type":
        return "must be true or false"
    if kind in ("model_type", "model_attributes_type", "dict_type"):
        return "must be a JSON object"
    if kind == "list_type":
        return "must be a list"
    if kind == "string_pattern_mismatch":
        return "has the wrong format"
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
