"""An Agent Server auth handler: bearer tokens from the environment, threads owned by their
creator (DESIGN section 10).

Turn it on by adding to ``langgraph.json``::

    "auth": {"path": "./server/auth.py:auth"},
    "http": {"app": "./server/http_app.py:app", "enable_custom_route_auth": true}

and setting the accounts (``.env`` or the deployment's secrets)::

    AGENT_AUTH_TOKENS="alice:<token>,bob:<token>"          # people
    AGENT_AUTH_SERVICE_TOKENS="rpc-adapter:<token>"        # services that act for users
    AGENT_AUTH_APPROVERS="bob"                             # may approve others' big orders

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

Approvers (``AGENT_AUTH_APPROVERS``) hold :data:`graphs.context.APPROVE_PERMISSION`
(``orders:approve``). An order above the approval limit waits for one of them (the
order agent's approval policy, :mod:`graphs.orders.policy`), and its thread is flagged
(:mod:`graphs.orders.thread_flag`) while it does: approvers may search and read such
threads and resume their pending approval (a run with a resume command and no new
input), set the flag itself once they decided, and keep reading the threads whose
decision was theirs; nothing else of another user's.

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
from typing import Any, cast

from langgraph_sdk import Auth
from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphs.context import (
    ACT_AS_PERMISSION,
    APPROVE_PERMISSION,
    trusted_studio_user,
    valid_user_id,
)
from graphs.orders.thread_flag import AWAITING_APPROVER, DECIDED_BY_KEY, FLAG_KEY

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
    approvers: str = Field(
        default="",
        validation_alias=AliasChoices("AGENT_AUTH_APPROVERS", "approvers"),
        description="Accounts that may approve orders above the approval limit "
        "(orders:approve), comma-separated.",
    )

    def approver_ids(self) -> frozenset[str]:
        """The approvers' account names; ``ValueError`` for one that has no account."""
        names = frozenset(n.strip() for n in self.approvers.split(",") if n.strip())
        known = {a.identity for a in self.accounts()}
        unknown = sorted(names - known)
        if unknown:
            raise ValueError(
                f"AGENT_AUTH_APPROVERS: {', '.join(unknown)} "
                f"{'has' if len(unknown) == 1 else 'have'} no account in AGENT_AUTH_TOKENS "
                "or AGENT_AUTH_SERVICE_TOKENS"
            )
        return names

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


@functools.cache
def _approvers() -> frozenset[str]:
    return AuthSettings().approver_ids()


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
        approvers = _approvers()
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
    permissions = [ACT_AS_PERMISSION] if account.service else []
    if account.identity in approvers:
        permissions.append(APPROVE_PERMISSION)
    return {
        "identity": account.identity,
        "display_name": account.identity,
        "is_authenticated": True,
        "permissions": permissions,
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


def _may_approve(ctx: Auth.types.AuthContext) -> bool:
    return APPROVE_PERMISSION in (ctx.permissions or [])


def _mine_or_awaiting(ctx: Auth.types.AuthContext) -> Auth.types.FilterType:
    """The caller's own threads, and those whose order awaits an approver."""
    either: Any = {"$or": [{"owner": ctx.user.identity}, {FLAG_KEY: AWAITING_APPROVER}]}
    # The Agent Server accepts "$or"; the SDK's FilterType does not spell it.
    return cast(Auth.types.FilterType, either)


async def approvers_see_pending(
    ctx: Auth.types.AuthContext, value: Any
) -> Auth.types.FilterType | None:
    """Reading and searching threads: one's own; an approver also sees every thread whose
    order awaits an approver (to list and read pending approvals) and those whose decision
    was theirs (the run carrying it reads its thread until it ends)."""
    if trusted_studio_user(ctx.user) or not _may_approve(ctx):
        return await own_threads_only(ctx, value)
    groups = [
        {"owner": ctx.user.identity},
        {FLAG_KEY: AWAITING_APPROVER},
        {DECIDED_BY_KEY: ctx.user.identity},
    ]
    return cast(Auth.types.FilterType, {"$or": groups})


def _only_resumes(value: Any) -> bool:
    """Whether a run only answers a pending interrupt (a resume command, no new input)."""
    kwargs = value.get("kwargs") if isinstance(value, dict) else None
    if not isinstance(kwargs, dict) or kwargs.get("input") is not None:
        return False
    command = kwargs.get("command")
    return isinstance(command, dict) and "resume" in command and not command.get("goto")


async def approvers_resume_pending(
    ctx: Auth.types.AuthContext, value: Any
) -> Auth.types.FilterType | None:
    """Runs: on one's own threads; an approver may also resume (and only resume) a thread
    whose order awaits an approver. Whether that approver may approve that order is the
    order agent's policy to say."""
    if trusted_studio_user(ctx.user) or not (_may_approve(ctx) and _only_resumes(value)):
        return await own_threads_only(ctx, value)
    return _mine_or_awaiting(ctx)


async def approvers_settle_the_flag(
    ctx: Auth.types.AuthContext, value: Any
) -> Auth.types.FilterType | None:
    """Updates: one's own threads; an approver's run may also set the approval flag (and
    nothing else) of a thread that awaits an approver, once the decision stands."""
    metadata = value.get("metadata") if isinstance(value, dict) else None
    keys = set(metadata) if isinstance(metadata, dict) else set()
    flag_only = FLAG_KEY in keys and keys <= {FLAG_KEY, DECIDED_BY_KEY}
    if trusted_studio_user(ctx.user) or not (_may_approve(ctx) and flag_only):
        return await own_threads_only(ctx, value)
    return {FLAG_KEY: AWAITING_APPROVER}


async def assistants_are_shared(ctx: Auth.types.AuthContext, value: Any) -> None:
    """Every caller may see and run the deployment's graphs."""
    return None


# One rule for several actions (each action's value type differs, hence Any).
_rules: dict[Any, Any] = {
    auth.on.threads.read: approvers_see_pending,
    auth.on.threads.update: approvers_settle_the_flag,
    auth.on.threads.delete: own_threads_only,
    auth.on.threads.search: approvers_see_pending,
    auth.on.threads.create_run: approvers_resume_pending,
    auth.on.assistants.read: assistants_are_shared,
    auth.on.assistants.search: assistants_are_shared,
}
for _on, _rule in _rules.items():
    _on(_rule)
