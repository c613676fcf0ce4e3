"""The fail-soft base of the middleware layers (DESIGN section 4: a failing middleware logs and
steps aside; it never takes the agent down).

A layer derives from :class:`FailSoft` and runs the body of each hook through one of its
guards: :meth:`FailSoft.soft` / :meth:`FailSoft.asoft` (run some work, or log and return a
fallback) or :meth:`FailSoft.soft_wrap` / :meth:`FailSoft.asoft_wrap` (a model-call
wrapper: when the layer's own part fails before the model was called, log and call the
model with the request as it came). The one log line says which layer stepped aside.

The base defines no hook itself: langchain wires a middleware's hooks by which methods
its class overrides, so a base that defined them all would add every node to every graph.
AuthenticatedUser does not derive from it: it fails closed.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from langchain.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse

__all__ = ["FailSoft"]

logger = logging.getLogger(__name__)

T = TypeVar("T")
Handler = Callable[[ModelRequest[Any]], ModelResponse[Any]]
AsyncHandler = Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]]


class FailSoft(AgentMiddleware[Any, Any, Any]):
    """A middleware whose failures are logged and skipped: the run goes on without it."""

    def stepped_aside(self) -> None:
        """Log (with the traceback) that this layer failed and the run continues without it."""
        logger.warning("%s failed; the run continues without it", self.name, exc_info=True)

    def soft(self, work: Callable[[], T], fallback: T) -> T:
        """``work()``, or ``fallback`` when it raises (logged)."""
        try:
            return work()
        except Exception:
            self.stepped_aside()
            return fallback

    async def asoft(self, work: Callable[[], Awaitable[T]], fallback: T) -> T:
        """``await work()``, or ``fallback`` when it raises (logged)."""
        try:
            return await work()
        except Exception:
            self.stepped_aside()
            return fallback

    def soft_wrap(
        self,
        request: ModelRequest[Any],
        handler: Handler,
        wrap: Callable[[ModelRequest[Any], Handler], Any],
    ) -> Any:
        """``wrap(request, handler)``; if it fails before calling the model, the plain call.

        A failure of the model itself (raised from inside ``handler``) is not this layer's
        to hide, and propagates.
        """
        called = False

        def tracked(req: ModelRequest[Any]) -> ModelResponse[Any]:
            nonlocal called
            called = True
            return handler(req)

        try:
            return wrap(request, tracked)
        except Exception:
            if called:
                raise
            self.stepped_aside()
            return handler(request)

    async def asoft_wrap(
        self,
        request: ModelRequest[Any],
        handler: AsyncHandler,
        wrap: Callable[[ModelRequest[Any], AsyncHandler], Awaitable[Any]],
    ) -> Any:
        """Async twin of :meth:`soft_wrap`."""
        called = False

        async def tracked(req: ModelRequest[Any]) -> ModelResponse[Any]:
            nonlocal called
            called = True
            return await handler(req)

        try:
            return await wrap(request, tracked)
        except Exception:
            if called:
                raise
            self.stepped_aside()
            return await handler(request)
