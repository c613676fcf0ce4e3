"""A small Python client for the adapter: chat with an agent, lend it local tools, answer
its approvals and questions, and receive background results.

Example::

    async with RpcClient("ws://127.0.0.1:2024/v1/ws", token="...") as client:
        client.add_tool(LocalTool("fetch_bom_tool", "Bill of materials of a product",
                                  {"type": "object", "properties": {"product": {"type": "string"}}},
                                  fetch_bom))
        await client.register("orchestrator", client_id="cad-plugin")
        reply = await client.chat("给 NGK 下单 200 个火花塞 IU7")
        while reply["status"] == "interrupted":        # an approval card or a question
            card = reply["pending"][0]
            if card["kind"] == "question":
                reply = await client.answer(card["interrupt_id"], {"quantity": 200})
            else:
                print(card["description"])
                reply = await client.approve(card["interrupt_id"])
        print(reply["content"])

Tool functions may be sync (run in a worker thread) or async; an exception
becomes ``success=false`` with its message, which the agent sees. ``on_interrupt``
sees each ``agent.interrupt``; ``on_response`` sees every ``agent.response``, background
results (``background: true``) included.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import itertools
import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit, urlunsplit

import websockets
from websockets.asyncio.client import ClientConnection

__all__ = ["LocalTool", "RpcClient", "RpcClientError"]

logger = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any]], Any]
_REFUSALS = frozenset({"foreign_session", "bad_session_id"})


class RpcClientError(Exception):
    """A JSON-RPC error object returned by the adapter."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.data = code, message, data


@dataclass
class LocalTool:
    """A tool the client runs when the agent calls it."""

    name: str
    description: str
    parameters: dict[str, Any]
    fn: Callable[..., Any]

    def spec(self) -> dict[str, Any]:
        """The registration entry sent in ``agent.register``."""
        return {"name": self.name, "description": self.description, "parameters": self.parameters}


@dataclass
class RpcClient:
    """One session with the adapter over one WebSocket (reconnect with the same session_id)."""

    url: str
    token: str | None = None
    headers: dict[str, str] | None = None
    """Extra HTTP headers for the handshake, e.g. the Agent Server's ``Authorization``
    when the adapter is mounted behind its auth."""
    session_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    on_status: Handler | None = None
    on_delta: Handler | None = None
    on_response: Handler | None = None
    on_tool_call: Handler | None = None
    on_interrupt: Handler | None = None
    on_other: Handler | None = None
    """Any other notification (``session.backlogTruncated``, ...), with its method."""
    tools: dict[str, LocalTool] = field(default_factory=dict)
    ws: ClientConnection | None = None
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))
    _waiting: dict[Any, asyncio.Future[Any]] = field(default_factory=dict)
    _reader: asyncio.Task[None] | None = None
    _tool_tasks: set[asyncio.Task[Any]] = field(default_factory=set)
    interrupts: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Approvals and questions waiting for an answer, by interrupt id."""
    refused: RpcClientError | None = None
    """Why the adapter refused this socket's session (another user's, or a malformed id):
    every call on it then raises this error."""

    def add_tool(self, tool: LocalTool) -> None:
        """Make a local tool available (register again to tell the agent)."""
        self.tools[tool.name] = tool

    def _ws_url(self) -> str:
        parts = urlsplit(self.url)
        query = dict(p.split("=", 1) for p in parts.query.split("&") if "=" in p)
        query["session_id"] = self.session_id
        return urlunsplit(parts._replace(query=urlencode(query)))

    async def connect(self) -> RpcClient:
        """Open (or re-open) the socket for this session."""
        headers = dict(self.headers or {})
        if self.token:
            # Its own header: Authorization may carry the user's token for the Agent Server.
            headers["X-RPC-Token"] = self.token
        self.ws = await websockets.connect(
            self._ws_url(), max_size=None, additional_headers=headers or None
        )
        self._reader = asyncio.create_task(self._read())
        return self

    async def close(self) -> None:
        """Close the socket; the session lives on server-side for its TTL."""
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        for task in list(self._tool_tasks):
            task.cancel()

    async def __aenter__(self) -> RpcClient:
        return await self.connect()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        """Send a request and wait for its result; raises RpcClientError on an error object."""
        assert self.ws is not None, "connect() first"
        rid = next(self._ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        msg = {"jsonrpc": "2.0", "method": method, "id": rid}
        if params is not None:
            msg["params"] = params
        try:
            await self.ws.send(json.dumps(msg, ensure_ascii=False))
        except websockets.ConnectionClosed:
            if self._reader is not None:  # it may still hold the frame saying why
                await asyncio.wait({self._reader}, timeout=5)
            self._waiting.pop(rid, None)
            if fut.done():
                fut.exception()  # the reader failed it too: one error for the caller
            else:
                fut.cancel()
            raise self.refused or ConnectionError("connection closed") from None
        try:
            return await fut
        finally:
            self._waiting.pop(rid, None)

    async def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        """Send a notification (no answer comes back)."""
        assert self.ws is not None, "connect() first"
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        await self.ws.send(json.dumps(msg, ensure_ascii=False))

    async def register(
        self, agent_id: str, *, client_id: str = "python-client", stream: bool = False
    ) -> dict[str, Any]:
        """Register this client's tools with ``agent_id``."""
        result: dict[str, Any] = await self.call(
            "agent.register",
            {
                "client_id": client_id,
                "agent_id": agent_id,
                "tools": [t.spec() for t in self.tools.values()],
                "stream": stream,
            },
        )
        return result

    async def chat(self, message: str, agent_id: str | None = None) -> dict[str, Any]:
        """Send a message; returns when the agent's answer is complete."""
        params: dict[str, Any] = {"message": message}
        if agent_id:
            params["agent_id"] = agent_id
        result: dict[str, Any] = await self.call("agent.chat", params)
        return result

    async def resume(self, interrupt_id: str, **params: Any) -> dict[str, Any]:
        """Answer the approval or question ``interrupt_id`` (``decision=``, ``args=``,
        ``message=``, ``decisions=`` or ``answer=``); returns when the agent answers or
        stops at the next interrupt."""
        result: dict[str, Any] = await self.call(
            "agent.resume", {"interrupt_id": interrupt_id, **params}
        )
        self.interrupts.pop(interrupt_id, None)
        return result

    async def approve(self, interrupt_id: str) -> dict[str, Any]:
        """Approve the action(s) waiting under ``interrupt_id``."""
        return await self.resume(interrupt_id, decision="approve")

    async def reject(self, interrupt_id: str, message: str | None = None) -> dict[str, Any]:
        """Reject the action(s), telling the agent why when ``message`` is given."""
        extra = {"message": message} if message else {}
        return await self.resume(interrupt_id, decision="reject", **extra)

    async def edit(self, interrupt_id: str, args: dict[str, Any]) -> dict[str, Any]:
        """Run the action with ``args`` instead of the ones proposed."""
        return await self.resume(interrupt_id, decision="edit", args=args)

    async def answer(self, interrupt_id: str, answer: str | dict[str, Any]) -> dict[str, Any]:
        """Answer a question (``request_order_info``): text, or field → value."""
        return await self.resume(interrupt_id, answer=answer)

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                data = json.loads(raw)
                for msg in data if isinstance(data, list) else [data]:
                    self._dispatch(msg)
        except websockets.ConnectionClosed:
            pass
        finally:
            for fut in self._waiting.values():
                if not fut.done():
                    fut.set_exception(self.refused or ConnectionError("connection closed"))

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" not in msg:
            if msg.get("id") is None and "error" in msg and self.refused is None:
                err = msg["error"]
                data = err.get("data")
                if isinstance(data, dict) and data.get("reason") in _REFUSALS:
                    self.refused = RpcClientError(err["code"], err["message"], data)
            fut = self._waiting.get(msg.get("id"))
            if fut is None or fut.done():
                return
            if "error" in msg:
                err = msg["error"]
                fut.set_exception(RpcClientError(err["code"], err["message"], err.get("data")))
            else:
                fut.set_result(msg.get("result"))
            return
        method, params = msg["method"], msg.get("params") or {}
        if method == "agent.interrupt":
            self.interrupts[str(params.get("interrupt_id"))] = params
        handler = {
            "agent.status": self.on_status,
            "agent.delta": self.on_delta,
            "agent.response": self.on_response,
            "agent.interrupt": self.on_interrupt,
        }.get(method)
        if handler is not None:
            handler(params)
        elif method != "agent.toolCall" and self.on_other is not None:
            self.on_other({"method": method, **params})
        if method == "agent.toolCall":
            if self.on_tool_call is not None:
                self.on_tool_call(params)
            task = asyncio.create_task(self._run_tool(params))
            self._tool_tasks.add(task)
            task.add_done_callback(self._tool_tasks.discard)

    async def _run_tool(self, params: dict[str, Any]) -> None:
        name, call_id = params.get("tool_name", ""), params.get("call_id")
        tool = self.tools.get(name)
        answer: dict[str, Any] = {"call_id": call_id, "tool_name": name}
        try:
            if tool is None:
                raise LookupError(f"no local tool named {name!r}")
            args = params.get("arguments") or {}
            if inspect.iscoroutinefunction(tool.fn):
                out = await tool.fn(**args)
            else:
                out = await asyncio.to_thread(tool.fn, **args)
                if inspect.isawaitable(out):
                    out = await out
            answer.update(success=True, result=out)
        except Exception as exc:
            answer.update(success=False, result=None, error=f"{type(exc).__name__}: {exc}")
        try:
            await self.call("agent.submitToolResult", answer)
        except (RpcClientError, ConnectionError) as exc:
            logger.warning("tool result for %s not accepted: %s", call_id, exc)
