"""A middleware that changes each model request before the call, in sync and async runs alike."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import ModelRequest, ModelResponse

from graphs.middleware.fail_soft import FailSoft

__all__ = ["RequestRewrite"]


class RequestRewrite(FailSoft):
    """Subclasses implement :meth:`rewrite`; both model-call hooks apply it, then call on.

    A rewrite that raises is logged and the model gets the request unchanged.
    """

    def rewrite(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """The request the model gets (``request`` itself when nothing changes)."""
        raise NotImplementedError

    def _rewritten(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        return self.soft(lambda: self.rewrite(request), request)

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any]:
        """Call the model with the rewritten request."""
        return handler(self._rewritten(request))

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        """Call the model with the rewritten request."""
        return await handler(self._rewritten(request))
