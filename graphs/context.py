"""The per-run context every graph accepts (``context_schema``), read as ``runtime.context``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Context", "user_of"]


@dataclass(kw_only=True)
class Context:
    """Who the run is for. With auth on, ``user_id`` comes from the authenticated user."""

    user_id: str = field(default="anonymous", metadata={"description": "Stable user id."})
    username: str | None = field(
        default=None, metadata={"description": "Display name; falls back to user_id."}
    )
    client_tools: list[dict[str, Any]] = field(
        default_factory=list,
        metadata={"description": "Tools a JSON-RPC client lends the agent (DESIGN section 8)."},
    )


def user_of(context: object) -> tuple[str, str]:
    """``(user_id, username)`` from a run context of any shape (dataclass, dict or none)."""
    if isinstance(context, dict):
        user_id = str(context.get("user_id") or "anonymous")
        username = context.get("username")
    else:
        user_id = str(getattr(context, "user_id", None) or "anonymous")
        username = getattr(context, "username", None)
    return user_id, str(username or user_id)
