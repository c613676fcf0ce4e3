"""The MCP servers of ``mcp_servers.yaml``: lazy, cached tool lists and calls that fail soft.

Nothing connects when the file is loaded or a graph is built. An agent's MCP tools
are listed on first use (:meth:`McpRegistry.tools_for`), cached per server, and
listed again after a call found the server gone, so a server that comes back is
picked up without a restart. A server that is down never breaks a graph: its
declared tools still appear, and calling one returns an error string naming the
server and what to do.

Every listing and call goes through one open session per server
(:class:`graphs.mcp_sessions.McpSessions`, :attr:`McpRegistry.sessions`), shared by
all runs of the process and replaced when the server restarts.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import re
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, NotRequired, TypedDict

import yaml
from fastmcp import Client
from fastmcp.client.transports import StdioTransport, StreamableHttpTransport
from langchain_core.tools import BaseTool, StructuredTool

from core.aio_transport import aiohttp_client
from graphs.mcp_sessions import McpSessions, innermost, timed_out

__all__ = [
    "AgentFilter",
    "McpRegistry",
    "ServerSpec",
    "load_registry",
]

logger = logging.getLogger(__name__)

_ENV_REF = re.compile(r"\$\{([A-Z0-9_]+)(?::-([^}]*))?\}")
# After a failed listing, wait this long before trying the server again on the next use.
_RETRY_AFTER_S = 3.0
_LIST_TIMEOUT_S = 10.0


class AgentFilter(TypedDict, total=False):
    """Which of a server's tools one agent may use: exact names and/or name prefixes."""

    tools: list[str]
    prefixes: list[str]


class ServerSpec(TypedDict):
    """One entry of ``mcp_servers.yaml``."""

    name: str
    transport: Literal["streamable_http", "stdio"]
    description: NotRequired[str]
    url: NotRequired[str]
    command: NotRequired[str]
    args: NotRequired[list[str]]
    env: NotRequired[dict[str, str]]
    hint: NotRequired[str]
    hidden_args: NotRequired[dict[str, list[str]]]
    agents: dict[str, AgentFilter]


def _expand(value: str) -> str:
    """``${VAR:-default}`` → the variable's value, else the default (read now, not at import)."""
    return _ENV_REF.sub(lambda m: os.environ.get(m.group(1)) or (m.group(2) or ""), value)


def _fail(source: Path, msg: str) -> ValueError:
    return ValueError(f"{source}: {msg}")


def _parse(raw: object, source: Path) -> list[ServerSpec]:
    if not isinstance(raw, dict) or not isinstance(raw.get("servers"), list):
        raise _fail(source, "expected a mapping with a 'servers' list")
    specs: list[ServerSpec] = []
    seen: set[str] = set()
    for i, entry in enumerate(raw["servers"]):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise _fail(source, f"servers[{i}] needs a 'name'")
        name = entry["name"]
        if name in seen:
            raise _fail(source, f"server {name!r} is listed twice")
        seen.add(name)
        transport = entry.get("transport", "streamable_http")
        if transport == "streamable_http" and not entry.get("url"):
            raise _fail(source, f"server {name!r}: streamable_http needs a 'url'")
        if transport == "stdio" and not entry.get("command"):
            raise _fail(source, f"server {name!r}: stdio needs a 'command'")
        if transport not in ("streamable_http", "stdio"):
            raise _fail(source, f"server {name!r}: unknown transport {transport!r}")
        agents = entry.get("agents") or {}
        if not isinstance(agents, dict):
            raise _fail(source, f"server {name!r}: 'agents' must map agent names to filters")
        for agent, flt in agents.items():
            if not isinstance(flt, dict) or not (set(flt) <= {"tools", "prefixes"}):
                raise _fail(
                    source, f"server {name!r}, agent {agent!r}: use 'tools' and/or 'prefixes'"
                )
        spec: ServerSpec = {"name": name, "transport": transport, "agents": agents}
        for key in ("description", "url", "command", "args", "env", "hint", "hidden_args"):
            if key in entry:
                spec[key] = entry[key]
        specs.append(spec)
    return specs


def load_registry(
    path: Path,
    *,
    fillers: Mapping[str, Callable[[dict[str, Any]], dict[str, Any]]] | None = None,
    client_factory: Callable[[str, float], Client[Any]] | None = None,
) -> McpRegistry:
    """Read ``mcp_servers.yaml`` (no connection). Raises ``ValueError`` naming the file.

    ``client_factory(server, timeout)`` replaces the transports (tests: in-memory servers).
    """
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        msg = f"{path}: MCP server list not found (set MCP_SERVERS_FILE)"
        raise ValueError(msg) from e
    except yaml.YAMLError as e:
        raise _fail(path, f"not valid YAML: {e}") from e
    return McpRegistry(
        _parse(raw, path), source=path, fillers=fillers, client_factory=client_factory
    )


@dataclass
class _ServerState:
    """What we know about one server's tools, and when we last failed to reach it."""

    tools: dict[str, dict[str, Any]] | None = None  # name -> {description, schema, read_only}
    listed: int = 0  # how many times the tools were listed: a new list, new wrappers
    failed_at: float | None = None
    error: str | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)


class McpRegistry:
    """The configured MCP servers and, per agent, the tools they offer it."""

    def __init__(
        self,
        servers: list[ServerSpec],
        *,
        source: Path | None = None,
        client_factory: Callable[[str, float], Client[Any]] | None = None,
        fillers: Mapping[str, Callable[[dict[str, Any]], dict[str, Any]]] | None = None,
    ) -> None:
        """``client_factory(server, timeout)`` replaces the transport (tests use in-memory);
        ``fillers[tool](args)`` completes a tool's arguments (its ``hidden_args``) just
        before each call."""
        self.source = source
        self._client_factory = client_factory
        self._fillers = dict(fillers or {})
        self._servers = {s["name"]: s for s in servers}
        self._state: dict[str, _ServerState] = {name: _ServerState() for name in self._servers}
        self._wrapped: dict[tuple[str, str, str], BaseTool] = {}
        # Per agent: the tool list last built and the listings it was built from. Every model
        # call asks for it; rebuilding (schemas hashed, filters applied) only after a change.
        self._for_agent: dict[str, tuple[tuple[object, ...], list[BaseTool]]] = {}
        self.sessions = McpSessions(lambda server: self._client(server, _LIST_TIMEOUT_S))
        """The open session of each server: every listing and call of this registry, and
        any other caller of the same servers (the chart tool), goes through it."""

    # ---- configuration (no I/O) ---------------------------------------------------------

    @property
    def server_names(self) -> list[str]:
        """Names of the configured servers, in file order."""
        return list(self._servers)

    def url(self, server: str) -> str:
        """The server's URL with ``${VAR:-default}`` resolved against the current environment."""
        spec = self._servers[server]
        return _expand(spec.get("url", ""))

    def declared_tools(self, agent: str) -> dict[str, str]:
        """Tool names an agent is allowed by exact name, mapped to their server."""
        found: dict[str, str] = {}
        for name, spec in self._servers.items():
            for tool in (spec["agents"].get(agent) or {}).get("tools", []):
                found[tool] = name
        return found

    def server_for(self, agent: str, tool: str) -> str | None:
        """The server whose allow-list gives ``agent`` the tool ``tool``, if any."""
        for name, spec in self._servers.items():
            flt = spec["agents"].get(agent)
            if flt is None:
                continue
            if tool in flt.get("tools", []) or any(
                tool.startswith(p) for p in flt.get("prefixes", [])
            ):
                return name
        return None

    def agents(self) -> set[str]:
        """Every agent some server lists."""
        return {a for spec in self._servers.values() for a in spec["agents"]}

    # ---- connection ---------------------------------------------------------------------

    def _client(self, server: str, timeout: float) -> Client[Any]:
        if self._client_factory is not None:
            return self._client_factory(server, timeout)
        spec = self._servers[server]
        if spec["transport"] == "stdio":
            transport: Any = StdioTransport(
                command=_expand(spec.get("command", "")),
                args=[_expand(a) for a in spec.get("args", [])],
                env={k: _expand(v) for k, v in (spec.get("env") or {}).items()} or None,
            )
        else:
            # httpx's API on aiohttp's wire: half the CPU per request (core/aio_transport.py).
            transport = StreamableHttpTransport(
                self.url(server), httpx_client_factory=aiohttp_client
            )
        return Client(transport, timeout=timeout, init_timeout=timeout)

    def _where(self, server: str) -> str:
        spec = self._servers[server]
        if spec["transport"] == "stdio":
            return f"command {spec.get('command')!r}"
        return self.url(server)

    def unavailable_message(self, server: str, tool: str, error: str | None = None) -> str:
        """The error an agent gets for a tool of a server it cannot reach."""
        spec = self._servers[server]
        hint = spec.get("hint") or "check that it is running and reachable"
        detail = f" ({error})" if error else ""
        return (
            f"Error: MCP server '{server}' at {self._where(server)} is unreachable{detail}, "
            f"so tool '{tool}' could not run. To fix: {hint}. Then try again; "
            "the tools reload automatically when the server is back."
        )

    async def _list(self, server: str) -> dict[str, dict[str, Any]] | None:
        """The server's tools, from cache or freshly listed; ``None`` while it is down."""
        state = self._state[server]
        if state.tools is not None:
            return state.tools
        if state.failed_at is not None and time.monotonic() - state.failed_at < _RETRY_AFTER_S:
            return None
        async with state.lock:
            if state.tools is not None:
                return state.tools
            try:
                listed = await self.sessions.run(
                    server, lambda client: client.list_tools(), repeatable=True
                )
            except Exception as e:  # any transport failure means "down"; report, don't raise
                state.failed_at = time.monotonic()
                state.error = _short_error(e)
                logger.warning(
                    "MCP server %r at %s is unreachable (%s); its tools answer with an error "
                    "until it is back",
                    server,
                    self._where(server),
                    state.error,
                )
                return None
            state.tools = {
                t.name: {
                    "description": t.description or "",
                    "schema": t.inputSchema,
                    # Safe to send again when a connection breaks under it.
                    "read_only": bool(t.annotations and t.annotations.readOnlyHint),
                }
                for t in listed
            }
            state.listed += 1
            state.failed_at = None
            state.error = None
            logger.info("MCP server %r: %d tools listed", server, len(state.tools))
            return state.tools

    def _read_only(self, server: str, tool: str) -> bool:
        """Whether the server says ``tool`` changes nothing (``readOnlyHint``), as listed."""
        tools = self._state[server].tools or {}
        return bool(tools.get(tool, {}).get("read_only"))

    def forget(self, server: str) -> None:
        """Drop the cached tool list, so the next use lists the server again (at once: a
        server that is really down fails that listing, and only then do its tools answer
        with the outage for a few seconds; one call that broke is not an outage)."""
        self._state[server].tools = None

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, call_timeout_s: float = 60.0
    ) -> str:
        """Call one tool; the result as text, or an error string (never raises)."""
        try:
            # The protocol's result as it came: the text is all an agent reads (FastMCP's
            # call_tool would also rebuild typed objects from the structured content,
            # listing the server's tools first to learn their output schemas).
            result = await self.sessions.run(
                server,
                lambda client: client.call_tool_mcp(tool, arguments, timeout=call_timeout_s),
                repeatable=self._read_only(server, tool),
            )
        except Exception as e:  # the server went away mid-call, or never answered
            if timed_out(e):  # a slow tool, not a broken server: this call only
                logger.warning("MCP server %r: %r timed out (%s)", server, tool, _short_error(e))
                return (
                    f"Error: tool '{tool}' on MCP server '{server}' did not answer within "
                    f"{call_timeout_s:.0f} s. It may still be working on it: check before "
                    "repeating a change, or try again with a smaller request."
                )
            self.forget(server)
            logger.warning(
                "MCP server %r: call of %r failed (%s: %s); its tools are listed again",
                server,
                tool,
                type(innermost(e)).__name__,
                _short_error(e),
            )
            return self.unavailable_message(server, tool, _short_error(e))
        text = _result_text(result.content, result.structuredContent)
        if result.isError:
            return f"Error from {server}.{tool}: {text}"
        return text

    async def aclose(self) -> None:
        """Close the sessions this event loop opened (tests; a process that ends needs nothing)."""
        await self.sessions.aclose()

    # ---- tools for an agent -------------------------------------------------------------

    async def tools_for(self, agent: str, *, call_timeout_s: float = 60.0) -> list[BaseTool]:
        """The MCP tools ``agent`` may use, listing servers on first use.

        A server that is down contributes its declared tool names as stand-ins whose
        call explains the outage; once the server answers, the real tools replace them.
        """
        lists: dict[str, dict[str, dict[str, Any]] | None] = {}
        for server, spec in self._servers.items():
            if spec["agents"].get(agent) is not None:
                lists[server] = await self._list(server)
        version = tuple(
            (server, None if listed is None else self._state[server].listed, call_timeout_s)
            for server, listed in lists.items()
        )
        cached = self._for_agent.get(agent)
        if cached is not None and cached[0] == version:
            return list(cached[1])
        out = self._build_tools(agent, lists, call_timeout_s)
        self._for_agent[agent] = (version, out)
        return list(out)

    def _build_tools(
        self,
        agent: str,
        lists: dict[str, dict[str, dict[str, Any]] | None],
        call_timeout_s: float,
    ) -> list[BaseTool]:
        out: list[BaseTool] = []
        for server, listed in lists.items():
            flt = self._servers[server]["agents"][agent]
            if listed is None:
                for name in flt.get("tools", []):
                    out.append(self._stand_in(server, name))
                continue
            for name, info in listed.items():
                if self.server_for(agent, name) == server:
                    out.append(self._wrap(server, name, info, call_timeout_s))
        return out

    def _wrap(self, server: str, name: str, info: dict[str, Any], timeout: float) -> BaseTool:
        key = (server, name, json.dumps(info, sort_keys=True, default=str))
        if key in self._wrapped:
            return self._wrapped[key]
        hidden = set((self._servers[server].get("hidden_args") or {}).get(name, []))
        schema = _hide(info["schema"] or {"type": "object", "properties": {}}, hidden)

        filler = self._fillers.get(name)

        async def _call(**kwargs: Any) -> str:
            args = filler(kwargs) if filler is not None else kwargs
            return await self.call(server, name, args, call_timeout_s=timeout)

        tool = StructuredTool(
            name=name,
            description=info["description"] or f"{name} ({server})",
            args_schema=schema,
            coroutine=_call,
            metadata={"mcp_server": server},
        )
        self._wrapped[key] = tool
        return tool

    def _stand_in(self, server: str, name: str) -> BaseTool:
        key = (server, name, "<down>")
        if key in self._wrapped:
            return self._wrapped[key]

        async def _call(**kwargs: Any) -> str:
            # The server may be back: list it again and forward the call if so.
            listed = await self._list(server)
            if listed is not None and name in listed:
                filler = self._fillers.get(name)
                return await self.call(server, name, filler(kwargs) if filler else kwargs)
            return self.unavailable_message(server, name, self._state[server].error)

        tool = StructuredTool(
            name=name,
            description=(
                f"{name} on MCP server '{server}', which is unreachable right now; "
                "calling it reports the outage."
            ),
            args_schema={"type": "object", "properties": {}, "additionalProperties": True},
            coroutine=_call,
            metadata={"mcp_server": server, "stand_in": True},
        )
        self._wrapped[key] = tool
        return tool


def _hide(schema: dict[str, Any], hidden: set[str]) -> dict[str, Any]:
    if not hidden:
        return schema
    props = {k: v for k, v in (schema.get("properties") or {}).items() if k not in hidden}
    required = [r for r in schema.get("required") or [] if r not in hidden]
    return {**schema, "properties": props, "required": required}


def _short_error(e: BaseException) -> str:
    """The first line of what broke (:func:`innermost`: under exception groups and
    FastMCP's connect wrapper), as the log line's exception type names it."""
    inner = innermost(e)
    text = str(inner) or type(inner).__name__
    return text.splitlines()[0][:200]


def _result_text(content: list[Any], structured: dict[str, Any] | None) -> str:
    texts = [getattr(block, "text", None) for block in content]
    joined = "\n".join(t for t in texts if t)
    if joined:
        return joined
    if structured is not None:
        return json.dumps(structured, ensure_ascii=False)
    return "(no content)"
