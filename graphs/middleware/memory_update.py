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
3. Merge into ``/memories/{user_id}/preferences.md``: ``recent_suppliers`` (at most 10,
   newest first, no duplicates) and ``recent_queries`` (at most 5) live in a delimited
   block the system owns; the user's own text around it is kept byte for byte.

The ERP supplier list comes from the ERP MCP server's ``supplier_query`` (the
server of ``mcp_servers.yaml``, ``ERP_MCP_URL``), or without one from
``GET {ERP_BASE_URL}/suppliers/search`` (async httpx); cached for
``MEMORY_SUPPLIERS_TTL_S`` seconds; an unreachable ERP means an empty list, not a
failed run.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import httpx
from deepagents.backends.protocol import BackendProtocol
from langchain.agents.middleware.types import AgentMiddleware, AgentState, ContextT, ResponseT
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.runtime import Runtime
from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from graphs.middleware.context_injection import preferences_path, user_fields
from graphs.middleware.sync_bridge import run_blocking
from graphs.offline.history import message_text, parse_json
from graphs.offline.text import match_names

__all__ = [
    "BLOCK_BEGIN",
    "BLOCK_END",
    "HOUSEKEEPING_TOOLS",
    "MAX_QUERIES",
    "MAX_SUPPLIERS",
    "MEMORY_EXTRACTION_PROMPT",
    "ErpSupplierDirectory",
    "Extraction",
    "McpSupplierDirectory",
    "MemorySettings",
    "MemoryUpdate",
    "RecentActivity",
    "default_supplier_source",
    "last_exchange",
    "merge_preferences",
    "merge_recent",
    "parse_block",
]

logger = logging.getLogger(__name__)

MAX_SUPPLIERS = 10
MAX_QUERIES = 5
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

BLOCK_BEGIN = "<!-- memory:begin 由系统维护，请在此块之外书写 / maintained automatically -->"
BLOCK_END = "<!-- memory:end -->"
_BEGIN_RE = re.compile(r"<!-- memory:begin[^>]*-->")
_NEW_FILE = (
    "# 用户偏好 / Preferences\n\n"
    "（在这里写下你的采购偏好：常用供应商、预算、交期要求等。/ Write your own preferences "
    "here.）\n\n"
)

MEMORY_EXTRACTION_PROMPT = """从下面这段采购对话中提取用户提到或涉及的供应商，以及用户的请求。
Extract the suppliers the buyer's exchange was about and the buyer's request.
只返回 JSON：{{"suppliers": ["供应商名", ...], "query": "用户请求的一句话" 或 null}}。
供应商尽量用 KNOWN_SUPPLIERS 里的名称；闲聊（问候、问你是谁等）返回空列表和 null。

KNOWN_SUPPLIERS: {known}
CONVERSATION:
{conversation}"""


class MemorySettings(BaseSettings):
    """Where MemoryUpdate finds the ERP's supplier list."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    erp_base_url: str = Field(
        default="http://127.0.0.1:8080",
        validation_alias=AliasChoices("ERP_BASE_URL", "erp_base_url"),
        description="Base URL of the ERP REST API.",
    )
    suppliers_ttl_s: float = Field(
        default=600.0,
        gt=0,
        validation_alias=AliasChoices("MEMORY_SUPPLIERS_TTL_S", "suppliers_ttl_s"),
        description="How long the supplier list is cached.",
    )
    timeout_s: float = Field(
        default=5.0,
        gt=0,
        validation_alias=AliasChoices("MEMORY_ERP_TIMEOUT_S", "timeout_s"),
    )


SupplierSource = Callable[[], Awaitable[list[dict[str, Any]]]]


_FIELDS = ("code", "name_zh", "name_en")
_PAGE = 100
_MAX_PAGES = 50


def _page_items(body: Any) -> tuple[list[dict[str, Any]], int | None]:
    items = body.get("items", []) if isinstance(body, dict) else body
    total = body.get("total") if isinstance(body, dict) else None
    rows = [{k: i.get(k) for k in _FIELDS} for i in items or [] if isinstance(i, dict)]
    return rows, total if isinstance(total, int) else None


class _CachedDirectory:
    """The ERP's suppliers (``code``, ``name_zh``, ``name_en``), fetched lazily and cached."""

    def __init__(self, ttl_s: float, where: str) -> None:
        self._ttl_s = ttl_s
        self._where = where
        self._cached: list[dict[str, Any]] | None = None
        self._at = 0.0
        self._lock = asyncio.Lock()

    async def _fetch(self) -> list[dict[str, Any]]:
        raise NotImplementedError

    @staticmethod
    async def _all_pages(fetch_page: Callable[[int], Awaitable[Any]]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for page in range(1, _MAX_PAGES + 1):
            rows, total = _page_items(await fetch_page(page))
            out.extend(rows)
            if not rows or total is None or len(out) >= total:
                break
        return out

    async def __call__(self) -> list[dict[str, Any]]:
        """The supplier list; the cached one while fresh; ``[]`` when the ERP cannot answer."""
        async with self._lock:
            fresh = time.monotonic() - self._at < self._ttl_s
            if self._cached is not None and fresh:
                return self._cached
            try:
                self._cached = await self._fetch()
                self._at = time.monotonic()
            except Exception as exc:  # an unreachable ERP must not cost the user their answer
                logger.warning(
                    "MemoryUpdate: ERP supplier list unavailable from %s (%s); matching without it",
                    self._where,
                    exc,
                )
                return self._cached or []
            return self._cached


class ErpSupplierDirectory(_CachedDirectory):
    """Suppliers from the ERP REST API: ``GET {ERP_BASE_URL}/suppliers/search`` (async httpx)."""

    def __init__(
        self,
        settings: MemorySettings | None = None,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """Read from ``settings.erp_base_url``; ``transport`` is for tests."""
        self.settings = settings or MemorySettings()
        super().__init__(self.settings.suppliers_ttl_s, self.settings.erp_base_url)
        self._transport = transport

    async def _fetch(self) -> list[dict[str, Any]]:
        async with httpx.AsyncClient(
            base_url=self.settings.erp_base_url,
            timeout=self.settings.timeout_s,
            transport=self._transport,
        ) as client:

            async def fetch_page(page: int) -> Any:
                params: dict[str, str | int] = {"name": "", "page": page, "size": _PAGE}
                response = await client.get("/suppliers/search", params=params)
                response.raise_for_status()
                return response.json()

            return await self._all_pages(fetch_page)


class McpToolCaller(Protocol):
    """What :class:`McpSupplierDirectory` needs of ``graphs.mcp_registry.McpRegistry``."""

    def server_for(self, agent: str, tool: str) -> str | None:
        """The server giving ``agent`` the tool."""

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, call_timeout_s: float = ...
    ) -> str:
        """The tool's result as text (an error string on failure)."""


class McpSupplierDirectory(_CachedDirectory):
    """Suppliers through the ERP MCP server's ``supplier_query`` (what a deployment exposes).

    ``agent`` names whose allow-list grants ``supplier_query`` in the MCP config; the
    orchestrator itself is not given ERP tools, so the order agent's grant is used.
    """

    def __init__(
        self,
        registry: McpToolCaller,
        *,
        agent: str = "procurement-order",
        settings: MemorySettings | None = None,
    ) -> None:
        """Call ``supplier_query`` on the server that grants it to ``agent``."""
        settings = settings or MemorySettings()
        server = registry.server_for(agent, "supplier_query")
        super().__init__(settings.suppliers_ttl_s, f"MCP server {server!r}")
        self._registry = registry
        self._server = server
        self._timeout = settings.timeout_s

    async def _fetch(self) -> list[dict[str, Any]]:
        server = self._server
        if server is None:
            msg = "no MCP server grants supplier_query"
            raise RuntimeError(msg)

        async def fetch_page(page: int) -> Any:
            args = {"name": "", "page": page, "size": _PAGE}
            text = await self._registry.call(
                server, "supplier_query", args, call_timeout_s=self._timeout
            )
            data = parse_json(text)
            if not isinstance(data, dict):  # the registry answers failures as text
                raise RuntimeError(text[:200])
            return data

        return await self._all_pages(fetch_page)


def default_supplier_source() -> SupplierSource:
    """The ERP MCP server when the MCP config grants ``supplier_query``, else the REST API."""
    try:
        from graphs.toolbox import registry

        reg = registry()
        if reg.server_for("procurement-order", "supplier_query") is not None:
            return McpSupplierDirectory(reg)
    except Exception:
        logger.warning("MemoryUpdate: MCP config unreadable; using ERP_BASE_URL", exc_info=True)
    return ErpSupplierDirectory()


# -- the exchange -------------------------------------------------------------------


_NOTIFICATION_KEY = "deepagents_notification"


def last_exchange(messages: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The newest human message and everything after it (empty without one).

    Empty too when that message is deepagents' notification that a background task
    ended: the buyer's request behind it was remembered when it was made.
    """
    for i in range(len(messages) - 1, -1, -1):
        message = messages[i]
        if isinstance(message, HumanMessage):
            if _NOTIFICATION_KEY in (message.additional_kwargs or {}):
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


def _display(record: dict[str, Any]) -> str:
    return str(record.get("name_zh") or record.get("name_en") or record.get("code"))


def _local_suppliers(text: str, known: list[dict[str, Any]]) -> list[str]:
    names: list[str] = []
    for match in match_names(text, known, ("code", "name_zh", "name_en")):
        name = _display(match.record)
        if name not in names:
            names.append(name)
    return names


@dataclass
class Extraction:
    """What an exchange contributes to memory."""

    suppliers: list[str]
    query: str | None

    @property
    def empty(self) -> bool:
        """Whether there is nothing to remember."""
        return not self.suppliers and not self.query


# -- the preferences file -----------------------------------------------------------


@dataclass
class RecentActivity:
    """The machine-managed block of a preferences file."""

    suppliers: list[str]
    queries: list[str]

    def render(self) -> str:
        """The block, markers included."""
        lines = [BLOCK_BEGIN, "## 最近记录 / Recent activity", "", "### recent_suppliers"]
        lines += [f"- {s}" for s in self.suppliers] or ["（无 / none）"]
        lines += ["", "### recent_queries"]
        lines += [f"- {q}" for q in self.queries] or ["（无 / none）"]
        lines.append(BLOCK_END)
        return "\n".join(lines)


def parse_block(text: str) -> tuple[RecentActivity, tuple[int, int] | None]:
    """The recent-activity block of ``text`` and its span (``None`` when there is none)."""
    begin = _BEGIN_RE.search(text)
    end = text.find(BLOCK_END, begin.end()) if begin else -1
    if begin is None or end < 0:
        return RecentActivity([], []), None
    body = text[begin.end() : end]
    sections: dict[str, list[str]] = {"recent_suppliers": [], "recent_queries": []}
    current: list[str] | None = None
    for line in body.splitlines():
        stripped = line.strip()
        if stripped.startswith("#"):
            current = sections.get(stripped.lstrip("#").strip())
        elif stripped.startswith("- ") and current is not None:
            current.append(stripped[2:].strip())
    span = (begin.start(), end + len(BLOCK_END))
    return RecentActivity(sections["recent_suppliers"], sections["recent_queries"]), span


def merge_recent(old: Sequence[str], new: Sequence[str], limit: int) -> list[str]:
    """``new`` first (in order), then ``old``; duplicates (case-insensitive) dropped; capped."""
    out: list[str] = []
    seen: set[str] = set()
    for item in [*new, *old]:
        key = item.strip().casefold()
        if key and key not in seen:
            seen.add(key)
            out.append(item.strip())
    return out[:limit]


def merge_preferences(text: str | None, extraction: Extraction) -> str:
    """``text`` with its recent-activity block updated; everything else kept as it was."""
    base = _NEW_FILE if text is None else text
    recent, span = parse_block(base)
    merged = RecentActivity(
        merge_recent(recent.suppliers, extraction.suppliers, MAX_SUPPLIERS),
        merge_recent(recent.queries, [extraction.query] if extraction.query else [], MAX_QUERIES),
    )
    block = merged.render()
    if span is None:
        sep = "" if not base or base.endswith("\n\n") else ("\n" if base.endswith("\n") else "\n\n")
        return f"{base}{sep}{block}\n"
    return base[: span[0]] + block + base[span[1] :]


# -- the middleware -----------------------------------------------------------------


class MemoryUpdate(AgentMiddleware[AgentState[ResponseT], ContextT, ResponseT]):
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
        suppliers: SupplierSource | None = None,
    ) -> None:
        """Write through ``files``; extract with ``model`` (``None``: local matching only)."""
        self._files = files
        self._model = model
        self._suppliers: SupplierSource = suppliers or default_supplier_source()

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
                reply = await self._model.ainvoke([HumanMessage(content=prompt)])
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
        try:
            fields = user_fields(getattr(runtime, "context", None))
            if fields is not None:
                await self.update(state.get("messages", []), fields[0])
        except Exception:  # fail soft: the answer is already there; memory can wait
            logger.warning("MemoryUpdate failed; the run completes without it", exc_info=True)
        return None

    def after_agent(
        self, state: AgentState[ResponseT], runtime: Runtime[ContextT]
    ) -> dict[str, Any] | None:
        """Synchronous ``graph.invoke``: the async hook on a private event loop."""
        return run_blocking(self.aafter_agent(state, runtime), "MemoryUpdate")
