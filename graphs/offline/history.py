"""Reading a conversation the way a policy needs it: the request and the tool results since."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from graphs.messages import NOTIFICATION_KEY, is_notification, message_text, parse_json
from graphs.offline.text import fold_width, to_simplified

__all__ = ["ToolResult", "View", "strip_line_numbers"]

# HumanInTheLoopMiddleware's notice on an edited call ends here; the tool's output follows.
_EDIT_MARKER = "\n\nTool response:\n"
_HEADER = re.compile(r"^@@ lines \d+-\d+ of \d+.*@@\s*$")
_GUTTER = re.compile(r"^\s*(\d+)(\.\d+)?(?:  |\t)(.*)$")


@dataclass(frozen=True)
class ToolResult:
    """One tool call the agent made and what came back."""

    name: str
    args: dict[str, Any]
    content: str
    status: str
    call_id: str

    @property
    def body(self) -> str:
        """The tool's own output, without the note the approval step puts above an edited call."""
        marker = self.content.find(_EDIT_MARKER)
        return self.content[marker + len(_EDIT_MARKER) :] if marker >= 0 else self.content

    @property
    def edited(self) -> bool:
        """Whether a human edited this call before it ran."""
        return _EDIT_MARKER in self.content

    @property
    def ok(self) -> bool:
        """Whether the call succeeded (no error status and no error text)."""
        if self.status == "error":
            return False
        head = self.body.lstrip()[:40].lower()
        return not head.startswith(("error", "failed", "user rejected"))

    def data(self) -> Any:
        """The result as JSON data, when it is JSON."""
        return parse_json(self.body)


@dataclass
class View:
    """What a policy sees: the current request and everything the agent did since."""

    policy: str
    messages: Sequence[BaseMessage]
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> JSON schema
    # Tools bound only as a schema (a JSON-RPC client's): name -> {"description", "parameters"}
    client_tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    request: str = ""  # in Simplified characters when it was written in Traditional
    request_index: int = -1
    traditional: bool = False  # the request was written in Traditional characters
    written: str = ""  # the request exactly as the buyer wrote it
    results: list[ToolResult] = field(default_factory=list)
    system: str = ""

    @classmethod
    def of(
        cls,
        policy: str,
        messages: Sequence[BaseMessage],
        tools: dict[str, dict[str, Any]],
        client_tools: dict[str, dict[str, Any]] | None = None,
    ) -> View:
        """Build the view; the request is the newest user message that is not a notification."""
        view = cls(policy=policy, messages=messages, tools=tools, client_tools=client_tools or {})
        view.system = "\n".join(message_text(m) for m in messages if isinstance(m, SystemMessage))
        for i in range(len(messages) - 1, -1, -1):
            m = messages[i]
            if isinstance(m, HumanMessage) and not is_notification(m):
                view.written = message_text(m)
                simplified = to_simplified(view.written)
                view.traditional = simplified != view.written  # one conversion, not two
                view.request = fold_width(simplified)
                view.request_index = i
                break
        calls: dict[str, tuple[str, dict[str, Any]]] = {}
        for m in messages[view.request_index + 1 :]:
            if isinstance(m, AIMessage):
                for call in m.tool_calls:
                    calls[str(call.get("id"))] = (call["name"], dict(call.get("args") or {}))
            elif isinstance(m, ToolMessage):
                name, args = calls.get(str(m.tool_call_id), (m.name or "", {}))
                view.results.append(
                    ToolResult(
                        name=name or (m.name or ""),
                        args=args,
                        content=message_text(m),
                        status=getattr(m, "status", "success") or "success",
                        call_id=str(m.tool_call_id),
                    )
                )
        return view

    @property
    def last(self) -> BaseMessage | None:
        """The newest message."""
        return self.messages[-1] if self.messages else None

    def notification(self) -> dict[str, Any] | None:
        """The async-task event when the newest message is a task notification."""
        last = self.last
        if isinstance(last, HumanMessage) and is_notification(last):
            event = last.additional_kwargs.get(NOTIFICATION_KEY)
            return dict(event) if isinstance(event, dict) else {}
        return None

    def last_turn(self) -> list[ToolResult]:
        """Results of the tool calls of the newest model turn (empty if it had none)."""
        ids: set[str] = set()
        for m in reversed(self.messages):
            if isinstance(m, AIMessage):
                ids = {str(c.get("id")) for c in m.tool_calls}
                break
        return [r for r in self.results if r.call_id in ids]

    def called(self, name: str) -> list[ToolResult]:
        """Results of every call to ``name`` since the request, oldest first."""
        return [r for r in self.results if r.name == name]

    def last_result(self, name: str | None = None) -> ToolResult | None:
        """The newest result (of ``name``, when given)."""
        for r in reversed(self.results):
            if name is None or r.name == name:
                return r
        return None

    def has_tool(self, name: str) -> bool:
        """Whether ``name`` is among the tools bound to the model."""
        return name in self.tools

    def params(self, name: str) -> set[str]:
        """Parameter names the bound tool ``name`` accepts."""
        schema = self.tools.get(name) or {}
        return set((schema.get("properties") or {}).keys())

    def iter_data(self, name: str) -> Iterator[tuple[ToolResult, Any]]:
        """Successful results of ``name`` with their JSON data."""
        for r in self.called(name):
            if r.ok:
                data = r.data()
                if data is not None:
                    yield r, data

    def latest(self, tool: str, args: dict[str, Any]) -> Any:
        """The data of the newest successful ``tool(args)`` call, exactly those arguments
        (None: not made yet, or it failed)."""
        done = [d for r, d in self.iter_data(tool) if r.args == args]
        return done[-1] if done else None

    def paged(
        self, tool: str, size: int, /, **match: Any
    ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """Every item of ``tool``'s pages read with exactly ``match`` (which may name any
        argument, ``name`` included), and the next page's arguments while pages are missing
        (then the items are ``[]``)."""
        pages: dict[int, Any] = {}
        for result, data in self.iter_data(tool):
            extra = set(result.args) - set(match) - {"page", "size"}
            if not extra and all(result.args.get(k) == v for k, v in match.items()):
                pages[int(result.args.get("page", 1) or 1)] = data
        if not pages:
            return [], {**match, "page": 1, "size": size}
        last = pages[max(pages)]
        if isinstance(last, dict) and last.get("has_more"):
            return [], {**match, "page": max(pages) + 1, "size": size}
        items = [
            i
            for p in sorted(pages)
            if isinstance(pages[p], dict) and isinstance(pages[p].get("items"), list)
            for i in pages[p]["items"]
        ]
        return [i for i in items if isinstance(i, dict)], None


def strip_line_numbers(text: str) -> str:
    """File text as ``read_file`` returned it back to the raw text.

    deepagents shows a ``@@ lines A-B of N @@`` header above the verbatim lines; older
    versions put a line-number gutter (``N  text``, long lines split into ``N.1`` rows)
    in front of each line. Both are removed.
    """
    lines = text.split("\n")
    if lines and _HEADER.match(lines[0]):
        return "\n".join(lines[1:])
    rows: list[str] = []
    for line in lines:
        m = _GUTTER.match(line)
        if m is None:
            continue
        if m.group(2) and rows:
            rows[-1] += m.group(3)
        else:
            rows.append(m.group(3))
    return "\n".join(rows) if rows else text
