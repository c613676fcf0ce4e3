"""Small tools of the orchestrator: the current time and a safe calculator."""

from __future__ import annotations

import ast
import operator
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from langchain_core.tools import tool

__all__ = ["calculator", "get_current_time"]


@tool("get_current_time")
def get_current_time(timezone: str = "Asia/Shanghai") -> str:
    """The current date and time in an IANA timezone (default Asia/Shanghai), ISO 8601."""
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError):
        return f"Error: unknown timezone {timezone!r}; use an IANA name such as Asia/Shanghai."
    now = datetime.now(zone)
    return f"{now.isoformat(timespec='seconds')} ({now:%A}, {timezone})"


_OPS: dict[type, object] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def _eval(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return node.value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPS:
        left, right = _eval(node.left), _eval(node.right)
        if isinstance(node.op, ast.Pow) and abs(right) > 100:
            raise ValueError("exponent too large")
        return _OPS[type(node.op)](left, right)  # type: ignore[operator]
    if isinstance(node, ast.UnaryOp) and type(node.op) in _OPS:
        return _OPS[type(node.op)](_eval(node.operand))  # type: ignore[operator]
    raise ValueError(f"unsupported expression element {type(node).__name__}")


@tool("calculator")
def calculator(expression: str) -> str:
    """Evaluate arithmetic (+ - * / // % ** and parentheses), e.g. '200 * 12.5 * 1.13'."""
    try:
        value = _eval(ast.parse(expression, mode="eval"))
    except (SyntaxError, ValueError, ZeroDivisionError, OverflowError) as e:
        return f"Error: cannot evaluate {expression!r}: {e}"
    return str(round(value, 10))
