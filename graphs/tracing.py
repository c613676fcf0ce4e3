"""LangSmith traces a team can use: one analysis is one readable trace, small and clean.

Tracing switches on from LangSmith's own variables (``LANGSMITH_TRACING=true``,
``LANGSMITH_API_KEY``, ``LANGSMITH_PROJECT``, ``LANGSMITH_ENDPOINT``). What this module
adds, once per process (:func:`configure_tracing`, called when a graph is built):

- **Middleware spans without payloads.** Each agent has about ten middleware hooks around
  every model and tool call; traced with their inputs, each would record the whole
  conversation again (60 MB for one offline analysis). langchain's process-wide
  ``TracePolicy`` keeps their spans and timings and drops their payloads; the model call's
  own span still records everything the model saw and said.
- **Graph state recorded once.** A graph node's span (``model``, ``tools``, the graph
  itself) would record the whole state at every step; its ``messages`` keep only the
  newest :data:`STATE_MESSAGES` (the model span beside it has the full history). A
  middleware wrapper's output (the ``model_response`` it passes on) is the model's answer
  again, and is left to the model span.
- **Lean metadata.** The tracing headers the run was started with and the server's
  constant facts (versions, host, URL) are dropped from every span's metadata; thread,
  run, graph, assistant and user ids stay, so spans can still be filtered by them.
- **Trimmed and scrubbed payloads.** The LangSmith client trims long strings (a fetched web
  page, a tool's large output) to :data:`MAX_TRACE_CHARS`, and replaces local paths (the
  checkout, ``DATA_DIR``, the home folder) and the values of secret variables before
  anything leaves the process.
- **The analyst nested in the orchestrator's trace.** deepagents starts the analyst with
  LangSmith's distributed-tracing headers (``langsmith-trace`` + ``baggage``); the Agent
  Server puts them into the run's ``configurable``, and :func:`traced_under_caller`
  makes the run's trace a child of that span. The orchestrator's later wake-up run is a
  new trace on the same thread (LangSmith groups a thread's traces by its ``thread_id``).
- **No thread hand-offs while tracing is off.** LangChain's agent factory wraps every
  middleware hook in LangSmith's ``traceable``, whose async wrapper hands set-up and
  tear-down to a thread pool twice per hook call, traced or not: about a tenth of the
  Agent Server's CPU per analysis (``scripts/bench/bench_analysis_ramp.py --profile``).
  :func:`install` sets LangSmith's documented ``set_runtime_overrides(aio_to_thread=...)``
  hook: with tracing off that work runs inline in the same context; with tracing on,
  LangSmith's own hand-off is used unchanged.
"""

from __future__ import annotations

import contextlib
import contextvars
import logging
import os
import re
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any, Final

from langchain.agents.middleware.types import ExtendedModelResponse, ModelResponse
from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from pydantic import BaseModel

from graphs.build_once import BuildOnce

__all__ = [
    "MAX_TRACE_CHARS",
    "STATE_MESSAGES",
    "configure_tracing",
    "graph_factory",
    "install",
    "scrub",
    "scrub_metadata",
    "trace_headers",
    "traced_under_caller",
]

logger = logging.getLogger(__name__)

MAX_TRACE_CHARS: Final = 2000
"""Longest string a trace keeps (the rest is cut, with a note of the full length)."""
STATE_MESSAGES: Final = 4
"""Messages a graph-state snapshot keeps in a trace (the newest)."""
_SEE_MODEL_SPAN: Final = "[the model's answer: see the model span]"
_SECRET_NAME = re.compile(r"(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)S?$|_AUTH_", re.I)
_MIN_SECRET = 8
_MAX_DEPTH = 40
_lock = threading.Lock()
_configured = False


def _secrets() -> list[str]:
    found: list[str] = []
    for name, value in os.environ.items():
        if not _SECRET_NAME.search(name) or len(value) < _MIN_SECRET:
            continue
        found.append(value)
        # account lists such as "alice:<token>,bob:<token>"
        found += [p.split(":", 1)[1] for p in value.split(",") if ":" in p]
    return sorted({s for s in found if len(s) >= _MIN_SECRET}, key=len, reverse=True)


def _paths() -> list[tuple[str, str]]:
    from graphs.settings import get_settings

    checkout = Path(__file__).resolve().parents[1]
    pairs = [(str(get_settings().data_dir.resolve()), "<DATA_DIR>"), (str(checkout), "<app>")]
    home = os.path.expanduser("~")
    if home not in ("", "/"):
        pairs.append((home, "~"))
    return sorted(pairs, key=lambda p: len(p[0]), reverse=True)


class _Scrubber:
    def __init__(self) -> None:
        self.secrets = _secrets()
        self.paths = _paths()

    def text(self, value: str) -> str:
        for secret in self.secrets:
            if secret in value:
                value = value.replace(secret, "<redacted>")
        for path, label in self.paths:
            if path in value:
                value = value.replace(path, label)
        if len(value) > MAX_TRACE_CHARS:
            cut = len(value) - MAX_TRACE_CHARS
            value = f"{value[:MAX_TRACE_CHARS]}… [{cut} more characters, trimmed in the trace]"
        return value

    def any(self, value: Any, depth: int = 0) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if depth > _MAX_DEPTH:
            return "… [nested too deep for the trace]"
        if isinstance(value, ModelResponse | ExtendedModelResponse):
            return _SEE_MODEL_SPAN
        if isinstance(value, BaseModel):  # messages and other models, before serialisation
            value = value.model_dump(mode="json", exclude_none=True)
        if isinstance(value, Mapping):
            return {k: self.any(_trimmed(k, v), depth + 1) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self.any(v, depth + 1) for v in value]
        return value


def _is_message(value: Any) -> bool:
    if isinstance(value, BaseMessage):
        return True
    return (
        isinstance(value, Mapping) and "content" in value and ("type" in value or "role" in value)
    )


def _trimmed(key: str, value: Any) -> Any:
    """A graph state's ``messages`` (a flat list of messages) cut to the newest few; a model
    call's input (a list of message lists) is left whole; a wrapper's ``model_response``
    becomes a pointer to the model span."""
    if key == "model_response" or isinstance(value, ModelResponse | ExtendedModelResponse):
        return _SEE_MODEL_SPAN
    if key != "messages" or not isinstance(value, list) or len(value) <= STATE_MESSAGES:
        return value
    if not all(_is_message(m) for m in value):
        return value
    cut = len(value) - STATE_MESSAGES
    return [f"[{cut} earlier messages: see the model spans]", *value[-STATE_MESSAGES:]]


def scrub(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` (a run's inputs, outputs or metadata) as a trace may keep it: long strings
    trimmed, local paths and secret values replaced."""
    cleaned = _Scrubber().any(data)
    return cleaned if isinstance(cleaned, dict) else {"value": cleaned}


_DROPPED_METADATA: Final = frozenset(
    {
        # the distributed-tracing headers the run was started with: the span tree shows
        # where it hangs, and the dotted order alone is ~0.7 KB a span
        "langsmith-trace",
        "langsmith-project",
        "langsmith-metadata",
        # the server's constant facts, the same on every span
        "langgraph_version",
        "langgraph_api_version",
        "langgraph_plan",
        "langgraph_host",
        "langgraph_api_url",
        "lc_versions",
        "created_by",
        "langgraph_request_id",
        "langgraph_triggers",
        "langgraph_path",
    }
)


def scrub_metadata(metadata: dict[str, Any]) -> dict[str, Any]:
    """A span's metadata without tracing headers and constant server facts, scrubbed."""
    return scrub({k: v for k, v in metadata.items() if k not in _DROPPED_METADATA})


def configure_tracing() -> None:
    """Once per process: payload-free middleware spans, and (tracing on) a LangSmith client
    that scrubs what it sends. Never raises: tracing is not worth a failed start."""
    global _configured
    with _lock:
        if _configured:
            return
        _configured = True
    try:
        from langchain.agents.middleware import configure_trace_policy
        from langgraph.types import TracePolicy, omit_payload

        configure_trace_policy(
            TracePolicy(process_inputs=omit_payload, process_outputs=omit_payload)
        )
        from langsmith import Client, configure, utils

        if utils.tracing_is_enabled():
            configure(
                client=Client(
                    hide_inputs=scrub,
                    hide_outputs=scrub,
                    hide_metadata=scrub_metadata,
                    omit_traced_runtime_info=True,
                )
            )
            logger.info("LangSmith tracing on: payloads trimmed and scrubbed")
    except Exception:
        logger.warning("tracing set-up failed; traces (if any) are unfiltered", exc_info=True)


def trace_headers(config: Mapping[str, Any] | None) -> dict[str, str] | None:
    """The distributed-tracing headers a run was created with, or None."""
    configurable = (config or {}).get("configurable") or {}
    trace = configurable.get("langsmith-trace")
    if not isinstance(trace, str) or not trace:
        return None
    headers = {"langsmith-trace": trace}
    project = configurable.get("langsmith-project")
    if isinstance(project, str) and project:
        from urllib.parse import quote

        headers["baggage"] = f"langsmith-project={quote(project)}"
    return headers


@contextlib.contextmanager
def traced_under_caller(config: Mapping[str, Any] | None) -> Iterator[None]:
    """While the run executes, trace it as a child of the span that started it (when it was
    started with distributed-tracing headers and is executing; otherwise nothing)."""
    configurable = (config or {}).get("configurable") or {}
    headers = trace_headers(config) if configurable.get("__is_for_execution__") else None
    if headers is None:
        yield
        return
    from langsmith import tracing_context

    context = tracing_context(parent=headers)
    context.__enter__()
    try:
        yield
    finally:
        # Left in another context (a run torn down elsewhere): nothing of ours to undo.
        with contextlib.suppress(ValueError):
            context.__exit__(None, None, None)


def graph_factory(
    once: BuildOnce[Any],
) -> Callable[[RunnableConfig], AbstractAsyncContextManager[Any]]:
    """A langgraph.json graph factory over the graph ``once`` builds: the compiled graph
    (built once per process), with a run that another run's span started (the analyst, by
    the orchestrator) traced under that span."""

    # RunnableConfig is imported at run time: the Agent Server resolves this factory's
    # annotations from this module to decide what to pass it.
    @contextlib.asynccontextmanager
    async def make_graph(config: RunnableConfig) -> AsyncIterator[Any]:
        graph = await once.get()
        with traced_under_caller(config):
            yield graph

    return make_graph


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
