"""Notes for the model that go into each model request, never into the thread's messages.

A layer that has something to tell the model for this run (the skills it just synced, the
skills it restored) keeps it in a private state field, ``context_notes`` (never in the
input, the output or a client's view), and appends it to the system message of every
model call through ``request.override(system_message=...)``, as deepagents' own memory
middleware does. Nothing piles up in ``state["messages"]``, gets summarised away, or shows
up in a chat UI; a note is replaced (or dropped) by the layer's next run.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, NotRequired, cast

from langchain.agents.middleware.types import AgentState, ModelRequest, PrivateStateAttr
from langchain_core.messages import SystemMessage

from graphs.middleware.request_rewrite import RequestRewrite

__all__ = ["NoteLayer", "NotesState", "notes_of", "with_note"]


def _merge_notes(
    left: dict[str, str] | None, right: dict[str, str | None] | None
) -> dict[str, str]:
    """Notes by layer: a layer's new note replaces its old one; ``None`` removes it."""
    merged = dict(left or {})
    for key, value in (right or {}).items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


class NotesState(AgentState[Any]):
    """The private ``context_notes`` field (layer name → note)."""

    # The reducer must be the last Annotated entry, where LangGraph looks for it.
    context_notes: NotRequired[Annotated[dict[str, str], PrivateStateAttr, _merge_notes]]


def notes_of(state: object) -> dict[str, str]:
    """The notes kept in a run's state (layer name → note)."""
    notes = cast("Mapping[str, Any]", state).get("context_notes")
    return dict(notes) if isinstance(notes, Mapping) else {}


def with_note(request: ModelRequest[Any], note: str) -> ModelRequest[Any]:
    """``request`` with ``note`` appended to its system message."""
    current = request.system_message
    text = f"{current.text}\n\n{note}" if current is not None else note
    return request.override(system_message=SystemMessage(content=text))


class NoteLayer(RequestRewrite):
    """A layer whose note (set with :meth:`note_update`) reaches every model call of the run."""

    def note_update(self, note: str | None) -> dict[str, Any]:
        """The state update that sets this layer's note (``None``: no note this run)."""
        return {"context_notes": {self.name: note}}

    def clear_note(self, state: object) -> dict[str, Any] | None:
        """The update that drops a note an earlier run left, or None when there is none."""
        return self.note_update(None) if self.name in notes_of(state) else None

    def rewrite(self, request: ModelRequest[Any]) -> ModelRequest[Any]:
        """The request with this layer's note, if it has one."""
        note = notes_of(request.state).get(self.name)
        return with_note(request, note) if note else request
