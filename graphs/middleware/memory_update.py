"""MemoryUpdate: remember the suppliers and the request of each procurement exchange.

Fifth layer of DESIGN section 4's stack (``aafter_agent``). After a run, the last
exchange (the newest human message and what followed it) is looked at:

1. Is it about procurement? A general rule, not a phrase list: the agent used a
   domain tool (anything beyond file, todo, clock, calculator and compaction tools),
   or the human named a supplier the ERP knows. Small talk (你好, 在吗, 你是谁, hello)
   does neither, and changes nothing.
2. Extraction: the summary model (``SUMMARY_MODEL``; the offline planner's memory
   policy without a key, which matches the ERP's supplier names) is given the ERP's
   supplier list and the exchange and answers ``{"suppliers": [...], "query": ...}``.
   If it fails, suppliers are matched against the ERP's names locally.
3. Merge into the user's preferences file (:mod:`graphs.memory.preferences`).

The ERP supplier list is a :data:`~graphs.memory.suppliers.SupplierSource` given by the
agent's stack (the ERP MCP tools, :class:`~graphs.memory.suppliers.McpSupplierDirectory`).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from typing import Any

from deepagents.backends.protocol import BackendProtocol
from langchain.agents.middleware.types import AgentState, ContextT, ResponseT
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.runtime import Runtime

from graphs.context import user_fields
from graphs.memory.preferences import (
    MAX_SUPPLIERS,
    Extraction,
    merge_preferences,
    merge_recent,
    preferences_path,
)
from graphs.memory.suppliers import SupplierSource
from graphs.messages import INTERNAL_TAGS, is_notification, message_text, parse_json
from graphs.middleware.fail_soft import FailSoft
from graphs.middleware.sync_bridge import run_blocking
from graphs.names import display_name, match_names

__all__ = [
    "HOUSEKEEPING_TOOLS",
    "MEMORY_EXTRACTION_PROMPT",
    "MemoryUpdate",
    "last_exchange",
]

logger = logging.getLogger(__name__)

_MAX_QUERY_CHARS = 200
_MAX_CONVERSATION_CHARS = 6000

HOUSEKEEPING_TOOLS = frozenset(
    {
        "read_file",
        "write_file",
        "edit_file",
        "ls",
        "glob",
        "grep",
        "write_todos",
        "get_current_time",
        "calculator",
        "compact_conversation",
        # Asking how a background task is doing is not a new procurement request.
        "check_async_task",
        "list_async_tasks",
    }
)
"""Tools whose use says nothing about procurement (an agent reads its preferences anyway)."""

MEMORY_EXTRACTION_PROMPT = """从下面这段采购对话中提取用户提到或涉及的供应商，以及用户的请求。
Extract the suppliers the buyer's exchange was about and the buyer's request.
只返回 JSON：{{"suppliers": ["供应商名", ...], "query": "用户请求的一句话" 或 null}}。
供应商尽量用 KNOWN_SUPPLIERS 里的名称；闲聊（问候、问你是谁等）返回空列表和 null。

KNOWN_SUPPLIERS: {known}
CONVERSATION:
{conversation}"""


# -- the exchange -------------------------------------------------------------------


def last_exchange(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The newest human message and everything after it (empty without one).

    Empty too when that message is deepagents' notification that a background task
    ended: the buyer's request behind it was remembered when it was made.
    """
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, HumanMessage):
            if is_notification(message):
                return []
            return list(messages[i:])
    return []


def _domain_tools(exchange: Sequence[BaseMessage]) -> list[str]:
    used: list[str] = []
    for message in exchange:
        if isinstance(message, AIMessage):
            used.extend(
                c["name"] for c in message.tool_calls if c["name"] not in HOUSEKEEPING_TOOLS
            )
    return used


def _one_line(text: str, limit: int = _MAX_QUERY_CHARS) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _conversation(exchange: Sequence[BaseMessage]) -> str:
    lines = []
    for message in exchange:
        if isinstance(message, HumanMessage):
            lines.append(f"human: {_one_line(message_text(message), 1000)}")
        elif isinstance(message, AIMessage):
            text = message_text(message).strip()
            if text:
                lines.append(f"ai: {_one_line(text, 1500)}")
            for call in message.tool_calls:
                args = json.dumps(call.get("args", {}), ensure_ascii=False)
                lines.append(f"tool_call {call['name']}: {_one_line(args, 500)}")
        elif isinstance(message, ToolMessage):
            # Tool output can list every supplier in the ERP: it is not what the buyer meant.
            continue
    return "\n".join(lines)[-_MAX_CONVERSATION_CHARS:]


def _local_suppliers(text: str, known: list[dict[str, Any]]) -> list[str]:
    names: list[str] = []
    for match in match_names(text, known, ("code", "name_zh", "name_en")):
        name = display_name(match.record)
        if name not in names:
            names.append(name)
    return names


class MemoryUpdate(FailSoft):
    """After a procurement exchange, merge its suppliers and query into the preferences file.

    ``files`` reaches ``/memories/`` in the Store (the graph's CompositeBackend);
    ``model`` extracts (the summary model); ``suppliers`` lists the ERP's suppliers.
    Async first (the Agent Server runs graphs async); a sync invoke runs it on its own loop.
    """

    def __init__(
        self,
        *,
        files: BackendProtocol,
        model: BaseChatModel | None,
        suppliers: SupplierSource,
    ) -> None:
        """Write through ``files``; extract with ``model`` (``None``: local matching only);
        learn the ERP's supplier names from ``suppliers``."""
        self._files = files
        self._model = model
        self._suppliers = suppliers

    async def _extract(
        self, exchange: list[BaseMessage], known: list[dict[str, Any]]
    ) -> Extraction:
        conversation = _conversation(exchange)
        human = _one_line(message_text(exchange[0]))
        if self._model is not None:
            prompt = MEMORY_EXTRACTION_PROMPT.format(
                known=json.dumps(known, ensure_ascii=False), conversation=conversation
            )
            try:
                # An internal call: no client's messages stream may carry its JSON.
                reply = await self._model.ainvoke(
                    [HumanMessage(content=prompt)], config={"tags": list(INTERNAL_TAGS)}
                )
                data = parse_json(message_text(reply))
                if isinstance(data, dict):
                    raw = [str(s) for s in data.get("suppliers") or [] if str(s).strip()]
                    # Prefer the ERP's spelling when a name is one it knows.
                    names = merge_recent(
                        [], [next(iter(_local_suppliers(s, known)), s) for s in raw], MAX_SUPPLIERS
                    )
                    query = data.get("query")
                    return Extraction(names, _one_line(str(query)) if query else None)
                logger.warning("MemoryUpdate: extractor answered without JSON; matching locally")
            except Exception:
                logger.warning("MemoryUpdate: extractor failed; matching locally", exc_info=True)
        return Extraction(_local_suppliers(conversation, known), human or None)

    async def update(self, messages: Sequence[BaseMessage], user_id: str) -> Extraction | None:
        """Remember the last exchange of ``messages`` for ``user_id``; what was merged, if any."""
        exchange = last_exchange(messages)
        if not exchange:
            return None
        known = await self._suppliers()
        human_text = message_text(exchange[0])
        tools = _domain_tools(exchange)
        mentions = _local_suppliers(human_text, known)
        if not tools and not mentions:
            logger.debug("MemoryUpdate: no procurement activity in the exchange; nothing to do")
            return None
        extraction = await self._extract(exchange, known)
        if extraction.empty:
            return None
        path = preferences_path(user_id)
        current = (await self._files.adownload_files([path]))[0]
        if current.error is not None and current.error != "file_not_found":
            logger.warning("MemoryUpdate: cannot read %s (%s); not updated", path, current.error)
            return None
        text = current.content.decode("utf-8") if current.content is not None else None
        updated = merge_preferences(text, extraction)
        if updated != text:
            result = (await self._files.aupload_files([(path, updated.encode("utf-8"))]))[0]
            if result.error is not None:
                logger.warning("MemoryUpdate: cannot write %s (%s)", path, result.error)
                return None
        logger.info("MemoryUpdate: %s ← suppliers=%s", path, extraction.suppliers)
        return extraction

    async def aafter_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """Update the user's preferences file; never changes the run's state."""
        # Fail soft: the answer is already there; memory can wait.
        await self.asoft(lambda: self._remember(state, runtime), None)
        return None

    async def _remember(self, state: AgentState[Any], runtime: Runtime[Any]) -> None:
        fields = user_fields(getattr(runtime, "context", None))
        if fields is not None:
            await self.update(state.get("messages", []), fields[0])

    def after_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """Synchronous ``graph.invoke``: the async hook on a private event loop."""
        return run_blocking(self.aafter_agent(state, runtime), "MemoryUpdate")
