"""Shared pieces of the middleware tests: scripted chat models, a real sandbox, a Store.

Not a test module itself (no tests); the ``test_mw_*`` / ``test_memory_*`` /
``test_skills_*`` / ``test_artifacts_*`` modules import from it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from deepagents import create_deep_agent
from deepagents.backends import CompositeBackend, StoreBackend
from deepagents.backends.protocol import BackendProtocol
from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.language_models import LanguageModelInput
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage
from langchain_core.outputs import ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import BaseTool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.store.memory import InMemoryStore
from pydantic import Field

from graphs.context import Context
from graphs.sandbox import SandboxSettings, ThreadSandboxBackend
from graphs.user_scope import user_scoped

STORE_ROUTES = ("/memories/", "/persisted-skills/", "/reports/")


class ScriptedChatModel(GenericFakeChatModel):
    """GenericFakeChatModel that accepts tools (and ignores them)."""

    def bind_tools(
        self,
        tools: Sequence[dict[str, Any] | type | Callable[..., Any] | BaseTool],
        *,
        tool_choice: str | None = None,
        **kwargs: Any,
    ) -> Runnable[LanguageModelInput, AIMessage]:
        return self


class RecordingModel(ScriptedChatModel):
    """A scripted model that also keeps the system text of every call it gets."""

    seen: list[str] = Field(default_factory=list)

    def _generate(
        self, messages: list[BaseMessage], stop: list[str] | None = None, *args: Any, **kw: Any
    ) -> ChatResult:
        self.seen.append("\n".join(m.text for m in messages if isinstance(m, SystemMessage)))
        return super()._generate(messages, stop, *args, **kw)


def recording(*turns: list[dict[str, Any]] | str) -> RecordingModel:
    """Like :func:`scripted`, keeping what each call saw in ``.seen``."""
    return RecordingModel(messages=scripted(*turns).messages, seen=[])


def call(name: str, args: dict[str, Any], i: int = 0) -> dict[str, Any]:
    """One tool call for an AIMessage."""
    return {"name": name, "args": args, "id": f"call_{name}_{i}", "type": "tool_call"}


def scripted(*turns: list[dict[str, Any]] | str) -> ScriptedChatModel:
    """A model answering each turn in order: a list of tool calls, or final text."""
    messages: list[AIMessage] = []
    for turn in turns:
        if isinstance(turn, str):
            messages.append(AIMessage(content=turn))
        else:
            messages.append(AIMessage(content="", tool_calls=turn))
    return ScriptedChatModel(messages=iter(messages))


def _namespace(name: str) -> Any:
    return lambda _runtime: ("files", name)


@dataclass
class Env:
    """A sandbox router on a temp data folder, a Store and the composite over both."""

    sandbox: ThreadSandboxBackend
    store: InMemoryStore
    backend: CompositeBackend
    data_dir: Path

    def scoped(self) -> CompositeBackend:
        """The composite with per-user Store routes."""
        return user_scoped(self.backend)


def make_env(data_dir: Path) -> Env:
    """The storage layout of ``graphs.storage`` on a temp folder (``/skills/`` in the sandbox)."""
    sandbox = ThreadSandboxBackend(settings=SandboxSettings(data_dir=data_dir))
    store = InMemoryStore()
    routes: dict[str, BackendProtocol] = {
        route: StoreBackend(namespace=_namespace(route.strip("/"))) for route in STORE_ROUTES
    }
    return Env(sandbox, store, CompositeBackend(default=sandbox, routes=routes), data_dir)


def agent(
    env: Env,
    model: GenericFakeChatModel,
    middleware: Sequence[AgentMiddleware[Any, Any, Any]],
    *,
    backend: BackendProtocol | None = None,
    tools: Sequence[BaseTool] = (),
    context_schema: type[Any] | None = Context,
) -> Any:
    """A deep agent over ``env`` with ``middleware``, no subagents."""
    return create_deep_agent(
        model=model,
        tools=list(tools),
        backend=backend or env.backend,
        middleware=list(middleware),
        context_schema=context_schema,
        store=env.store,
        checkpointer=InMemorySaver(),
        subagents=[],
    )


def thread() -> dict[str, Any]:
    """A config with a fresh thread id."""
    return {"configurable": {"thread_id": f"t-{uuid.uuid4().hex[:12]}"}}


class Boom(RuntimeError):
    """The failure the fail-soft tests inject."""
