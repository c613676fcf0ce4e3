"""The per-run context every graph accepts (``context_schema``), read as ``runtime.context``,
and who a run is really for.

A client names its user in the context (``user_id``). With auth on (a ``langgraph.json``
auth handler such as :mod:`server.auth`, or LangSmith's own), the server puts the caller's
authenticated identity in the run's config, and that identity wins: a client cannot read
or write another user's memories by claiming their id. A caller holding the
:data:`ACT_AS_PERMISSION` permission (a trusted service such as the JSON-RPC adapter,
which authenticates its own clients) may name the user it acts for, and so may a
LangSmith / Studio user on a hosted deployment (the platform's own, verified auth: the
deployment's developers and operators, whom the Agent Server marks as ``StudioUser``).
Under ``langgraph dev`` a Studio user is not verified at all (any local client can claim
to be one), so there it counts as an ordinary user.
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "ACT_AS_PERMISSION",
    "APPROVE_PERMISSION",
    "Context",
    "authenticated_user",
    "claimed_user",
    "trusted_studio_user",
    "user_fields",
    "user_of",
    "valid_user_id",
]

logger = logging.getLogger(__name__)

ACT_AS_PERMISSION = "users:act-as"
"""The auth permission that lets a caller name the user in the run context."""

APPROVE_PERMISSION = "orders:approve"
"""The auth permission of people who may approve orders above the approval limit for others."""

# The Store's namespace alphabet (deepagents' StoreBackend), minus ':' and '~' so a user
# id is also a safe single path segment; anything else would let an id escape its folder.
_USER_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._@+-]{0,127}$")


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


def _field(obj: object, name: str) -> Any:
    """``obj.name`` or ``obj[name]`` (auth users come as objects or as dicts), else None."""
    if isinstance(obj, Mapping):
        return obj.get(name)
    try:
        return getattr(obj, name, None)
    except NotImplementedError:  # starlette's BaseUser leaves some properties abstract
        return None


def trusted_studio_user(user: object) -> bool:
    """Whether ``user`` is a Studio / LangSmith user the server verified: on a hosted
    deployment, yes; under ``langgraph dev`` (``LANGSMITH_LANGGRAPH_API_VARIANT=local_dev``)
    the Agent Server accepts the Studio scheme without checking anything, so no."""
    from langgraph_sdk.auth import is_studio_user

    if not is_studio_user(user):  # type: ignore[arg-type]
        return False
    return os.environ.get("LANGSMITH_LANGGRAPH_API_VARIANT") != "local_dev"


def authenticated_user(config: Mapping[str, Any] | None = None) -> tuple[str, str] | None:
    """``(identity, display name)`` of the authenticated caller of the current run.

    ``None`` when there is none to enforce: no auth configured (``langgraph dev``
    without a handler), an unauthenticated caller, a caller allowed to act for others
    (the act-as permission, or a Studio / LangSmith user), or outside a run. ``config``
    defaults to the current run's.
    """
    if config is None:
        try:
            from langgraph.config import get_config

            config = get_config()
        except (RuntimeError, LookupError):
            return None
    configurable = config.get("configurable") or {}
    user = configurable.get("langgraph_auth_user")
    identity = configurable.get("langgraph_auth_user_id")
    if user is None or not isinstance(identity, str) or not identity.strip():
        return None
    if not _field(user, "is_authenticated"):
        return None
    if ACT_AS_PERMISSION in (configurable.get("langgraph_auth_permissions") or ()):
        return None
    if trusted_studio_user(user):
        return None
    name = _field(user, "display_name")
    return identity, str(name).strip() if isinstance(name, str) and name.strip() else identity


def claimed_user(context: object) -> tuple[object, object]:
    """The raw ``(user_id, username)`` the run is for: the authenticated user when auth
    is on (a different id claimed in the context is logged and ignored), else the
    context's own fields. Either may be None or not a string; callers validate."""
    if isinstance(context, Mapping):
        raw_id, raw_name = context.get("user_id"), context.get("username")
    else:
        raw_id, raw_name = getattr(context, "user_id", None), getattr(context, "username", None)
    auth = authenticated_user()
    if auth is None:
        return raw_id, raw_name
    identity, display = auth
    if raw_id not in (None, "", "anonymous", identity):
        logger.warning(
            "run context claims user_id %r but the caller is authenticated as %r; using %r",
            raw_id,
            identity,
            identity,
        )
    return identity, raw_name if raw_id == identity and raw_name else display


def user_of(context: object) -> tuple[str, str]:
    """``(user_id, username)`` from a run context of any shape (dataclass, dict or none),
    the authenticated user taking precedence (:func:`claimed_user`)."""
    raw_id, raw_name = claimed_user(context)
    user_id = str(raw_id or "anonymous")
    return user_id, str(raw_name or user_id)


def valid_user_id(user_id: object) -> str | None:
    """``user_id`` as a string when it is usable as a path segment, else ``None``."""
    if not isinstance(user_id, str) or not _USER_ID.match(user_id) or ".." in user_id:
        return None
    return user_id


def user_fields(context: object) -> tuple[str, str] | None:
    """``(user_id, username)`` of the run, or ``None`` when there is no usable user.

    Accepts the dataclass context, a dict (as the SDK sends it) or ``None``; the
    authenticated user wins (:func:`claimed_user`); no ``username`` → the ``user_id``.
    """
    raw_id, raw_name = claimed_user(context)
    if raw_id is None:
        return None
    user_id = valid_user_id(raw_id)
    if user_id is None:
        if raw_id:
            logger.warning("run context: user_id %r is not a usable id; ignored", raw_id)
        return None
    username = str(raw_name).strip() if raw_name else ""
    return user_id, username or user_id
