"""``fetch_url``: fetch a web page on the host and hand the model Markdown it can read.

The page text is framed as untrusted data, capped at ``max_chars`` with a note when
cut, and failures come back as an error message (a ``ToolMessage`` with
``status="error"`` inside a graph), never as an exception. How the page is fetched
and converted: :mod:`graphs.tools.web`.
"""

from __future__ import annotations

import logging

from langchain_core.tools import ToolException, tool
from pydantic import BaseModel, Field

from graphs.tools.web.fetcher import fetch_markdown
from graphs.tools.web.settings import load_settings
from graphs.tools.web_prompts import FETCH_URL_DESCRIPTION

__all__ = ["FetchUrlInput", "fetch_url"]

log = logging.getLogger(__name__)


class FetchUrlInput(BaseModel):
    """Arguments of the fetch_url tool."""

    url: str = Field(description="Absolute http(s) URL of the page, e.g. a supplier quote page.")
    max_chars: int | None = Field(
        default=None,
        ge=500,
        le=100_000,
        description="Cap on the returned text (default 20000); the page is cut with a note.",
    )


@tool("fetch_url", args_schema=FetchUrlInput, description=FETCH_URL_DESCRIPTION)
async def fetch_url(url: str, max_chars: int | None = None) -> str:
    """Fetch ``url`` as Markdown for the model; failures become error tool messages."""
    try:
        settings = await load_settings()
        result = await fetch_markdown(url, settings=settings)
    except Exception as exc:  # a tool must not take the graph down
        log.exception("fetch_url failed unexpectedly for %s", url)
        msg = f"Error: fetch_url failed unexpectedly for {url} ({type(exc).__name__})."
        raise ToolException(msg) from exc
    text = result.for_model(max_chars or settings.max_chars)
    if not result.ok:
        log.info("fetch_url %s: %s", url, result.error)
        raise ToolException(text)
    log.info("fetch_url %s: %d chars via %s in %.2fs", url, len(text), result.via, result.elapsed)
    return text


fetch_url.handle_tool_error = True
