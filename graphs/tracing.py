"""LangSmith's bookkeeping run inline when tracing is off, instead of on a worker thread.

LangChain's agent factory wraps every middleware's ``wrap_model_call`` / ``wrap_tool_call``
in LangSmith's ``traceable``. Its async wrapper hands its set-up and tear-down to a thread
pool (``aio_to_thread``) twice per hook call, whether tracing is on or not: with a dozen
wrapping middleware per agent that was about a tenth of the Agent Server's CPU per analysis
(``scripts/bench/bench_analysis_ramp.py --profile``), all thread hand-offs for work that,
with tracing off, only reads context variables. :func:`install` sets LangSmith's documented
``set_runtime_overrides(aio_to_thread=...)`` hook: with tracing off that work runs inline in
the same context; with tracing on, LangSmith's own thread hand-off is used unchanged.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable
from typing import Any

__all__ = ["install"]

_installed = False


async def _inline_unless_tracing(
    default: Callable[..., Awaitable[Any]],
    ctx: contextvars.Context,
    func: Callable[..., Any],
    /,
    *args: Any,
    **kwargs: Any,
) -> Any:
    from langsmith.utils import tracing_is_enabled

    try:
        tracing = ctx.run(tracing_is_enabled)
    except RuntimeError:  # the context is entered already (running here): LangSmith's way
        return await default(ctx, func, *args, **kwargs)
    if tracing:
        return await default(ctx, func, *args, **kwargs)
    return ctx.run(func, *args, **kwargs)


def install() -> None:
    """Set the override once per process (graph modules call it at import; cheap)."""
    global _installed
    if _installed:
        return
    import langsmith

    langsmith.set_runtime_overrides(aio_to_thread=_inline_unless_tracing)
    _installed = True
