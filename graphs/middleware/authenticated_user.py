"""Pin the run context's user to the authenticated caller, before anything reads it.

:func:`graphs.context.claimed_user` already prefers the authenticated identity wherever
this run looks its user up. The context object itself also travels: deepagents hands
``runtime.context`` to the async analyst. langgraph-api 0.16 starts that run through its
in-process SDK under the calling run's user, so today the analyst is the caller's either
way; but a run that trusts the context it is given (another server, a version that does
not carry the user along) would act for whoever the client claimed. So this layer writes
the authenticated identity into the context at the start of each run, and the claim never
leaves it. Unlike the other layers it does not fail soft: a run whose user cannot be
pinned stops.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import MutableMapping
from typing import Any

from langchain.agents.middleware.types import AgentMiddleware, AgentState, ContextT, ResponseT
from langgraph.runtime import Runtime

from graphs.context import claimed_user

__all__ = ["AuthenticatedUser"]

logger = logging.getLogger(__name__)


def pin_user(context: object) -> bool:
    """Write the resolved user into ``context``; True when it changed anything.

    Raises ``TypeError`` for a context that needs pinning but cannot take it.
    """
    user_id, username = claimed_user(context)
    if context is None or user_id is None:
        return False
    if isinstance(context, MutableMapping):
        current = (context.get("user_id"), context.get("username"))
        if current == (user_id, username):
            return False
        context["user_id"], context["username"] = user_id, username
        return True
    current = (getattr(context, "user_id", None), getattr(context, "username", None))
    if current == (user_id, username):
        return False
    if dataclasses.is_dataclass(context) and not isinstance(context, type):
        try:
            context.user_id = user_id  # type: ignore[attr-defined]
            context.username = username  # type: ignore[attr-defined]
            return True
        except dataclasses.FrozenInstanceError:
            pass
    raise TypeError(f"cannot pin the authenticated user into a {type(context).__name__} context")


class AuthenticatedUser(AgentMiddleware[AgentState[ResponseT], ContextT, ResponseT]):
    """``before_agent``: the context's ``user_id`` / ``username`` become the caller's."""

    def before_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """Pin the user; no state update."""
        if pin_user(getattr(runtime, "context", None)):
            logger.info("run context pinned to the authenticated user")
        return None

    async def abefore_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """Pin the user; no state update."""
        return self.before_agent(state, runtime)
