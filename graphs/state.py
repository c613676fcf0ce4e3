"""The graphs' state schemas: deepagents' state, declared so that every client can read it.

Two things deepagents' own state types do not give a client, fixed here by declaring the
graph's state schema (``create_deep_agent(state_schema=...)``, which wins over the
middleware's declarations of the same fields) rather than by patching deepagents:

- **Schemas on Python 3.11.** deepagents 0.7.32 declares ``AsyncTask`` and
  ``SkillMetadata`` with ``typing.TypedDict``; pydantic refuses those before Python 3.12,
  so the Agent Server publishes no input / output schema and Studio cannot draw its form.
  The fields that use them are re-declared with :mod:`typing_extensions` copies of the
  same types (same fields, same reducers, same visibility).
- **The wake-up message marked for UIs.** When the analyst ends, deepagents wakes the
  orchestrator with a user-role task notification. The messages channel here keeps
  deepagents' reducer but stores such a message under an id that starts with
  :data:`~graphs.messages.DO_NOT_RENDER` (Agent Chat UI's convention for messages it never
  shows). Its content and its ``deepagents_notification`` marker are unchanged, so the
  model and the offline planner read it as before.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Sequence
from typing import Annotated, Any, Union, cast, get_args, get_origin

import typing_extensions as te
from deepagents.graph import DeepAgentState
from deepagents.middleware.async_subagents import AsyncSubAgentState
from deepagents.middleware.skills import SkillsState
from langchain_core.messages import BaseMessage
from langgraph.channels.delta import DeltaChannel

from graphs.messages import DO_NOT_RENDER, NOTIFICATION_KEY, is_notification

__all__ = ["ANALYST_STATE", "ORCHESTRATOR_STATE", "mark_notifications", "portable"]

Reducer = Callable[[Any, Sequence[Any]], Any]


@functools.cache
def _portable_typeddict(td: type) -> type:
    hints = te.get_type_hints(td, include_extras=True)
    fields = {name: portable(tp) for name, tp in hints.items()}
    copy = te.TypedDict(td.__name__, fields, total=getattr(td, "__total__", True))  # type: ignore[misc]
    copy.__doc__ = td.__doc__
    copy.__module__ = __name__
    return cast("type", copy)


def portable(tp: Any) -> Any:
    """``tp`` with every ``typing.TypedDict`` in it (at any depth) replaced by a
    ``typing_extensions`` copy, which pydantic accepts on Python 3.11."""
    if isinstance(tp, type) and te.is_typeddict(tp):
        return _portable_typeddict(tp) if type(tp).__module__ == "typing" else tp
    args = get_args(tp)
    if not args:
        return tp
    origin = get_origin(tp)
    if origin is Annotated:
        inner = portable(args[0])
        return tp if inner is args[0] else Annotated[(inner, *tp.__metadata__)]
    new = tuple(portable(a) for a in args)
    if all(n is a for n, a in zip(new, args, strict=True)):
        return tp
    if origin in (Union, types.UnionType):
        return Union[new]  # noqa: UP007 (built from a tuple at run time)
    return origin[new if len(new) > 1 else new[0]]


def _mark(item: Any) -> Any:
    if isinstance(item, BaseMessage):
        if is_notification(item) and item.id and not item.id.startswith(DO_NOT_RENDER):
            return item.model_copy(update={"id": DO_NOT_RENDER + item.id})
        return item
    # A raw input message carries the marker at the top; a stored one (a checkpoint's
    # writes, replayed on every read) in its additional_kwargs.
    extra = item.get("additional_kwargs") if isinstance(item, dict) else None
    marked = isinstance(extra, dict) and NOTIFICATION_KEY in extra
    if isinstance(item, dict) and (NOTIFICATION_KEY in item or marked):
        mid = item.get("id")
        if isinstance(mid, str) and mid and not mid.startswith(DO_NOT_RENDER):
            return {**item, "id": DO_NOT_RENDER + mid}
    return item


def mark_notifications(reducer: Reducer) -> Reducer:
    """``reducer`` storing deepagents' task notifications under a ``do-not-render-`` id.

    Deterministic (the prefix goes in front of the id LangGraph gave the message), so a
    channel that replays its saved writes comes to the same ids every time, and a later
    write of the same message (deepagents rewrites a superseded notification in place)
    still replaces it."""

    def reduce(state: Any, writes: Sequence[Any]) -> Any:
        marked = [[_mark(i) for i in w] if isinstance(w, list) else _mark(w) for w in writes]
        return reducer(state, marked)

    reduce.__name__ = f"marked_{getattr(reducer, '__name__', 'reducer')}"
    return reduce


def _messages_field() -> Any:
    """DeepAgentState's ``messages`` annotation with the marking reducer."""
    required = te.get_type_hints(DeepAgentState, include_extras=True)["messages"]
    annotated = get_args(required)[0]
    base, *meta = get_args(annotated)
    marked = [
        DeltaChannel(mark_notifications(m.reducer), snapshot_frequency=m.snapshot_frequency)
        if isinstance(m, DeltaChannel)
        else m
        for m in meta
    ]
    return te.Required[Annotated[(base, *marked)]]


def _state(name: str, extra: dict[str, tuple[type, str]]) -> type[DeepAgentState]:
    fields: dict[str, Any] = dict(te.get_type_hints(DeepAgentState, include_extras=True))
    fields["messages"] = _messages_field()
    for field, (owner, key) in extra.items():
        fields[field] = portable(te.get_type_hints(owner, include_extras=True)[key])
    schema = te.TypedDict(name, fields)  # type: ignore[misc]
    schema.__module__ = __name__
    return cast("type[DeepAgentState]", schema)


ORCHESTRATOR_STATE = _state(
    "OrchestratorState",
    {
        "async_tasks": (AsyncSubAgentState, "async_tasks"),
        "skills_metadata": (SkillsState, "skills_metadata"),
    },
)
"""The orchestrator's state schema (its sync subagents get it too)."""

ANALYST_STATE = _state("AnalystState", {"skills_metadata": (SkillsState, "skills_metadata")})
"""The analyst's state schema."""
