"""Today's date in the system prompt at every model call, not at graph build.

The graphs are built once per server process, and a served process lives for days: a date
formatted into the prompt at build time goes stale after midnight, and with it every
"in two weeks" the model works out. The prompts keep a ``{today}`` placeholder; this
middleware fills it in on each call (a changed date only changes one line of the prompt).
"""

from __future__ import annotations

from datetime import date
from typing import Any

from langchain.agents.middleware import ModelRequest
from langchain_core.messages import SystemMessage

from graphs.middleware.request_rewrite import RequestRewrite

__all__ = ["TODAY", "CurrentDate"]

TODAY = "{today}"
"""The placeholder the prompts carry where the date goes."""


def _today() -> str:
    return date.today().isoformat()


def _fill(content: Any, today: str) -> Any:
    """``content`` (a string or content blocks) with the placeholder replaced, or ``None``
    when it holds no placeholder."""
    if isinstance(content, str):
        return content.replace(TODAY, today) if TODAY in content else None
    changed = False
    blocks: list[Any] = []
    for block in content:
        if isinstance(block, str) and TODAY in block:
            block, changed = block.replace(TODAY, today), True
        elif isinstance(block, dict) and TODAY in str(block.get("text", "")):
            block, changed = {**block, "text": block["text"].replace(TODAY, today)}, True
        blocks.append(block)
    return blocks if changed else None


class CurrentDate(RequestRewrite):
    """Replace ``{today}`` in the system message with the date of this model call."""

    def rewrite(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """The request with today's date in the prompt."""
        message = request.system_message
        if message is None:
            return request
        content = _fill(message.content, _today())
        if content is None:
            return request
        return request.override(system_message=SystemMessage(content=content))
