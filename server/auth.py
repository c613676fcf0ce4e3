"""An Agent Server auth handler: bearer tokens from the environment, threads owned by their
creator (DESIGN section 10).

Turn it on by adding to ``langgraph.json``::

    "auth": {"path": "./server/auth.py:auth"},
    "http": {"app": "./server/http_app.py:app", "enable_custom_route_auth": true}

and setting the accounts (``.env`` or the deployment's secrets)::

    AGENT_AUTH_TOKENS="alice:<token>,bob:<token>"          # people
    AGENT_AUTH_SERVICE_TOKENS="rpc-adapter:<token>"        # services that act for users

Each request must send ``Authorization: Bearer <token>``; the token's account becomes the
caller's identity, and with it the run's ``user_id`` (:mod:`graphs.context`: what a
client claims in the context is ignored). Threads carry their creator in
``metadata.owner``, and only the owner reads, changes, runs or deletes them; other users
get 404. Assistants (the graphs of ``langgraph.json``) are readable by every caller;
creating or changing them, crons and the Store API are for service accounts only, which
also may name the user they act for in the run context
(:data:`graphs.context.ACT_AS_PERMISSION`). On a hosted deployment, developers coming
through LangGraph Studio / LangSmith (``StudioUser``, verified by the platform) count as
service accounts, as LangGraph's own examples treat them; ``"disable_studio_auth": true``
in the auth section shuts that door. Under ``langgraph dev`` the Studio scheme is not
verified, so such a caller is an ordinary user there.

The handler fails closed: switched on with no accounts configured, it refuses every
request and says which variable to set. Without it (``langgraph dev`` on loopback, the
default) there is no auth, and the launcher says so.
"""

from __future__ import annotations

import functools
import hmac
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langgraph_sdk import Auth
from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphs.context import ACT_AS_PERMISSION, trusted_studio_user, valid_user_id

__all__ = ["Account", "AuthSettings", "auth", "parse_accounts"]

logger = logging.getLogger(__name__)

MIN_TOKEN_LENGTH = 16


@dataclass(frozen=True)
class Account:
    """One configured caller."""

    identity: str
    token: str
    service: bool = False


def parse_accounts(text: str, *, service: bool, variable: str) -> list[Account]:
    """``"name:token,name:token"`` as accounts; ``ValueError`` naming ``variable`` and the
    entry when one is malformed, an id is not a usable user id, or a token is short."""
    accounts = []
    for n, entry in enumerate((e.strip() for e in text.split(",")), start=1):
        if not entry:
            continue
        name, sep, token = entry.partition(":")
        name, token = name.strip(), token.strip()
        if not sep or not name or not token:
            raise ValueError(f"{variable}: entry {n} is not 'name:token'")
        if valid_user_id(name) is None:
            raise ValueError(
                f"{variable}: entry {n}: {name!r} is not a usable user id "
                "(letters, digits and . _ @ + -, at most 128 characters)"
            )
        if len(token) < MIN_TOKEN_LENGTH:
            raise ValueError(
                f"{variable}: entry {n} ({name}): the token is shorter than "
                f"{MIN_TOKEN_LENGTH} characters"
            )
        accounts.append(Account(name, token, service))
    return accounts


class AuthSettings(BaseSettings):
    """The accounts (env prefix ``AGENT_AUTH_``)."""

    model_config = SettingsConfigDict(
        env_prefix="AGENT_AUTH_", env_file=".env", extra="ignore", populate_by_name=True
    )

    tokens: SecretStr = Field(
        default=SecretStr(""),
        validation_alias=AliasChoices("AGENT_AUTH_TOKENS", "tokens"),
        description="People: 'user_id:token' pairs, comma-separated.",
    )
    service_tokens: SecretStr = Field(
        default=SecretStr(""),
        validation_alias=AliasChoices("AGENT_AUTH_SERVICE_TOKENS", "service_tokens"),
        description="Services that may act for users: 'name:token' pairs, comma-separated.",
    )

    def accounts(self) -> list[Account]:
        """Every configured account; ``ValueError`` for a malformed or ambiguous list."""
        accounts = parse_accounts(
            self.tokens.get_secret_value(), service=False, variable="AGENT_AUTH_TOKENS"
        ) + parse_accounts(
            self.service_tokens.get_secret_value(),
            service=True,
            variable="AGENT_AUTH_SERVICE_TOKENS",
        )
        seen: dict[str, str] = {}
        for account in accounts:
            if account.token in seen:
                raise ValueError(
                    f"{account.identity} and {seen[account.token]} share a token; "
                    "every account needs its own"
                )
            seen[account.token] = account.identity
        return accounts


@functools.cache
def _accounts() -> tuple[Account, ...]:
    # Read once per server process: the environment does not change under it.
    return tuple(AuthSettings().accounts())


def _refuse(status: int, detail: str) -> Auth.exceptions.HTTPException:
    return Auth.exceptions.HTTPException(status_code=status, detail=detail)


def match(token: str, accounts: Sequence[Account]) -> Account | None:
    """The account holding ``token``, comparing every one in constant time."""
    found = None
    for account in accounts:
        if hmac.compare_digest(token.encode(), account.token.encode()):
            found = account
    return found


auth = Auth()


@auth.authenticate
async def authenticate(authorization: str | None) -> Auth.types.MinimalUserDict:
    """``Authorization: Bearer <token>`` → the account's identity (401 otherwise)."""
    try:
        accounts = _accounts()
    except ValueError as exc:
        logger.error("auth: %s", exc)
        raise _refuse(500, f"The server's auth settings are invalid: {exc}") from None
    if not accounts:
        raise _refuse(
            401,
            "Auth is on but no accounts are configured: set AGENT_AUTH_TOKENS "
            "(and AGENT_AUTH_SERVICE_TOKENS) on the server.",
        )
    scheme, _, token = (authorization or "").partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise _refuse(401, "Send 'Authorization: Bearer <token>'.")
    account = match(token.strip(), accounts)
    if account is None:
        raise _refuse(401, "Unknown token.")
    return {
        "identity": account.identity,
        "display_name": account.identity,
        "is_authenticated": True,
        "permissions": [ACT_AS_PERMISSION] if account.service else [],
    }


def _is_service(ctx: Auth.types.AuthContext) -> bool:
    """A service account, or a verified Studio / LangSmith user (a hosted deployment's
    developers, whom the platform authenticates; ``"disable_studio_auth": true`` turns
    that off; under ``langgraph dev`` nothing is verified, so they count as users there)."""
    return ACT_AS_PERMISSION in (ctx.permissions or []) or trusted_studio_user(ctx.user)


@auth.on
async def services_only(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Everything without a rule below (crons, the Store API, changing assistants):
    service accounts only."""
    if not _is_service(ctx):
        raise _refuse(403, f"{ctx.resource}.{ctx.action} is for service accounts only.")


@auth.on.threads.create
async def own_new_thread(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType:
    """A new thread belongs to its creator (whatever owner the request names)."""
    # In place: the server keeps its own reference to this dict, empty or not.
    metadata = value.get("metadata")
    if metadata is None:
        metadata = value["metadata"] = {}
    metadata["owner"] = ctx.user.identity
    return {"owner": ctx.user.identity}


async def own_threads_only(ctx: Auth.types.AuthContext, value: Any) -> Auth.types.FilterType | None:
    """Only the owner sees or touches a thread; to anyone else it does not exist. Verified
    Studio users (a hosted deployment's developers) see every thread, as LangGraph's own
    examples allow."""
    if trusted_studio_user(ctx.user):
        return None
    if isinstance(value, dict) and isinstance(value.get("metadata"), dict):
        value["metadata"]["owner"] = ctx.user.identity  # an update cannot hand it over
    return {"owner": ctx.user.identity}


async def assistants_are_shared(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Every caller may see and run the deployment's graphs."""
    return None


# One rule for several actions (each action's value type differs, hence Any).
_rules: dict[Any, Any] = {
    auth.on.threads.read: own_threads_only,
    auth.on.threads.update: own_threads_only,
    auth.on.threads.delete: own_threads_only,
    auth.on.threads.search: own_threads_only,
    auth.on.threads.create_run: own_threads_only,
    auth.on.assistants.read: assistants_are_shared,
    auth.on.assistants.search: assistants_are_shared,
}
for _on, _rule in _rules.items():
    _on(_rule)
