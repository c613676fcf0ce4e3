"""Summarization and ``compact_conversation``, built by deepagents' factory on the summary model.

Fourth layer of DESIGN section 4's stack. :func:`build_summarization` returns two
middleware that share one engine:

- :class:`SoftSummarization`: deepagents' ``SummarizationMiddleware`` (automatic
  compaction at the model-profile trigger, evicted history offloaded to the backend),
  made fail-soft: if summarising raises before the model was called, the call goes
  ahead with the full history and the failure is logged. Its ``name`` is
  ``SummarizationMiddleware``, so ``create_deep_agent`` replaces its own default
  (which would summarise with the main model) in place.
- deepagents' ``SummarizationToolMiddleware``: the ``compact_conversation`` tool (it
  already answers failures with an error ``ToolMessage``).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from typing import Any

from deepagents.backends.protocol import BackendProtocol
from deepagents.middleware.summarization import (
    SummarizationMiddleware,
    SummarizationToolMiddleware,
    compute_summarization_defaults,
)
from langchain.agents.middleware.summarization import ContextSize
from langchain.agents.middleware.types import (
    AgentMiddleware,
    ExtendedModelResponse,
    ModelRequest,
    ModelResponse,
)
from langchain_core.language_models import BaseChatModel

from graphs.middleware.fail_soft import FailSoft

__all__ = ["COMPACT_PROMPT", "SoftSummarization", "build_summarization"]

logger = logging.getLogger(__name__)

COMPACT_PROMPT = (
    "对话很长时（例如一次完整分析之后），可以调用 compact_conversation 压缩较早的历史；"
    "被压缩的内容保存在文件里，需要时可再读。"
)


class SoftSummarization(FailSoft, SummarizationMiddleware):
    """deepagents' summarization that steps aside instead of failing the model call."""

    @property
    def name(self) -> str:
        """The public name, so ``create_deep_agent`` swaps out its own default for this one."""
        return "SummarizationMiddleware"

    def wrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], ModelResponse],
    ) -> ModelResponse | ExtendedModelResponse:
        """Summarise when due, then call the model; on a summarising error, just call it."""
        return self.soft_wrap(request, handler, super().wrap_model_call)

    async def awrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], Awaitable[ModelResponse]],
    ) -> ModelResponse | ExtendedModelResponse:
        """Summarise when due, then call the model; on a summarising error, just call it."""
        return await self.asoft_wrap(request, handler, super().awrap_model_call)


def build_summarization(
    model: BaseChatModel,
    backend: BackendProtocol,
    *,
    compact_prompt: str | None = COMPACT_PROMPT,
    trigger: ContextSize | None = None,
    keep: ContextSize | None = None,
) -> list[AgentMiddleware[Any, Any, Any]]:
    """``[SoftSummarization, SummarizationToolMiddleware]`` summarising with ``model``.

    Thresholds come from ``model``'s profile as in deepagents'
    ``create_summarization_middleware`` (fixed counts when it has no profile) unless
    ``trigger`` / ``keep`` are given.
    ``backend`` receives the evicted history (``/conversation_history/...``).
    """
    defaults = compute_summarization_defaults(model)
    engine = SoftSummarization(
        model=model,
        backend=backend,
        trigger=trigger if trigger is not None else defaults["trigger"],
        keep=keep if keep is not None else defaults["keep"],
        trim_tokens_to_summarize=None,
        truncate_args_settings=defaults["truncate_args_settings"],
    )
    return [engine, SummarizationToolMiddleware(engine, system_prompt=compact_prompt)]
