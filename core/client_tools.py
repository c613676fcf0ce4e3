"""The client-tool contract between the graphs and the JSON-RPC adapter (DESIGN section 8).

Both sides of the process boundary import it: the ClientTools middleware
(``graphs/middleware/client_tools.py``) raises the interrupt and reads the resume value;
the adapter (``rpc_adapter/agents.py``) reads the interrupt, asks its client, and resumes.

- The tools a client lends travel in the run context under :data:`CONTEXT_FIELD`, as
  :class:`ClientToolSpec` entries.
- The run pauses with one interrupt per turn whose value is a :class:`ClientToolInterrupt`
  (``type`` is :data:`CLIENT_TOOL_INTERRUPT`), listing every :class:`ClientToolCall`.
- It is resumed with a :data:`ClientToolResume`: one :class:`ClientToolAnswer` per call id.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired, TypedDict, TypeGuard

__all__ = [
    "CLIENT_TOOL_INTERRUPT",
    "CONTEXT_FIELD",
    "ClientToolAnswer",
    "ClientToolCall",
    "ClientToolInterrupt",
    "ClientToolResume",
    "ClientToolSpec",
    "is_client_tool_interrupt",
]

CONTEXT_FIELD = "client_tools"
"""Name of the run-context field that lists the client's tools."""

CLIENT_TOOL_INTERRUPT: Literal["client_tool_call"] = "client_tool_call"
"""``type`` of the interrupt value the adapter answers."""


class ClientToolSpec(TypedDict):
    """A tool a client registers: its name, what it does, and a JSON-schema object."""

    name: str
    description: NotRequired[str]
    parameters: NotRequired[dict[str, Any]]


class ClientToolCall(TypedDict):
    """One call the model made to a client tool."""

    call_id: str
    tool_name: str
    arguments: dict[str, Any]


class ClientToolInterrupt(TypedDict):
    """The interrupt value: every client-tool call of one model turn."""

    type: Literal["client_tool_call"]
    calls: list[ClientToolCall]


class ClientToolAnswer(TypedDict):
    """The client's answer to one call. A failure carries ``error``; a call the client did
    not answer in time is a failure with ``timeout``."""

    success: bool
    result: NotRequired[Any]
    error: NotRequired[str]
    timeout: NotRequired[bool]


ClientToolResume = dict[str, ClientToolAnswer]
"""The resume value: call id → answer (a missing answer reaches the model as an error)."""


def is_client_tool_interrupt(value: object) -> TypeGuard[ClientToolInterrupt]:
    """Whether an interrupt's value is the client-tool one (others go to the client as is)."""
    return isinstance(value, dict) and value.get("type") == CLIENT_TOOL_INTERRUPT
