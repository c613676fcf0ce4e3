"""The JSON-RPC methods of DESIGN section 8, bound to one session."""

from __future__ import annotations

import asyncio
import logging
import re
import time
from collections.abc import Awaitable, Callable
from typing import Any

import jsonschema
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, ValidationError, field_validator

from core.client_tools import ClientToolAnswer
from rpc_adapter.agents import AgentService
from rpc_adapter.interrupts import PendingInterrupt, ResumeParams, parse_resume
from rpc_adapter.protocol import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    NOT_REGISTERED,
    PROTOCOL_VERSION,
    SERVER_ERROR,
    RpcError,
    error_response,
    result_response,
)
from rpc_adapter.session_store import StoredCall
from rpc_adapter.sessions import AgentBinding, Session, SessionMoved

__all__ = ["CAPABILITIES", "Methods"]

logger = logging.getLogger(__name__)

_TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_MAX_TOOLS = 128
_FOLLOW_WAIT = 10.0
"""Seconds a takeover looks for the run of a chat whose outcome was not sent (the previous
owner may have been starting it)."""


class _Params(BaseModel):
    model_config = ConfigDict(extra="ignore")


class ClientTool(_Params):
    """A tool the client lends the agent."""

    name: str
    description: str = Field(default="", max_length=4000)
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        validation_alias=AliasChoices("parameters", "input_schema", "inputSchema"),
    )

    @field_validator("name")
    @classmethod
    def _name(cls, v: str) -> str:
        if not _TOOL_NAME.match(v):
            msg = "tool names are 1-64 letters, digits, '_' or '-'"
            raise ValueError(msg)
        return v

    @field_validator("parameters")
    @classmethod
    def _schema(cls, v: dict[str, Any]) -> dict[str, Any]:
        if v.get("type", "object") != "object":
            msg = "parameters must be a JSON schema of type object"
            raise ValueError(msg)
        try:
            jsonschema.Draft202012Validator.check_schema(v)
        except jsonschema.SchemaError as exc:
            msg = f"parameters is not a valid JSON schema: {exc.message}"
            raise ValueError(msg) from None
        return v


class RegisterParams(_Params):
    client_id: str = Field(min_length=1, max_length=200)
    agent_id: str = Field(min_length=1, max_length=200)
    tools: list[ClientTool] = Field(default_factory=list, max_length=_MAX_TOOLS)
    stream: bool = Field(default=False, description="Send agent.delta text chunks.")

    @field_validator("tools")
    @classmethod
    def _unique(cls, v: list[ClientTool]) -> list[ClientTool]:
        names = [t.name for t in v]
        if len(names) != len(set(names)):
            msg = "tool names must be unique"
            raise ValueError(msg)
        return v


class ChatParams(_Params):
    message: str = Field(min_length=1)
    agent_id: str | None = None


class SubmitParams(_Params):
    call_id: str = Field(min_length=1)
    tool_name: str | None = None
    success: bool
    result: Any = None
    error: str | None = None


class AgentParams(_Params):
    agent_id: str | None = None


CAPABILITIES: dict[str, Any] = {
    "batch": True,
    "streaming": True,
    "cancel": True,
    "reconnect": True,
    "client_tools": True,
    "parallel_tool_calls": True,
    "resume": True,
    "interrupts": True,
    "background_results": True,
}


def _params(model: type[_Params], raw: dict[str, Any] | list[Any] | None) -> Any:
    if raw is None or raw == []:
        raw = {}
    if isinstance(raw, list):
        raise RpcError(INVALID_PARAMS, "Invalid params: this method takes named params (an object)")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        details = [
            {"field": ".".join(str(p) for p in e["loc"]), "error": e["msg"]} for e in exc.errors()
        ]
        raise RpcError(INVALID_PARAMS, "Invalid params", details) from None


class Methods:
    """Dispatch table for one session."""

    def __init__(self, session: Session, service: AgentService, settings: Any) -> None:
        self.session = session
        self.service = service
        self.settings = settings
        self.table: dict[str, Callable[[Any], Awaitable[Any]]] = {
            "agent.register": self.register,
            "agent.chat": self.chat,
            "agent.submitToolResult": self.submit_tool_result,
            "agent.clearHistory": self.clear_history,
            "agent.cancel": self.cancel,
            "agent.resume": self.resume,
            "system.ping": self.ping,
            "system.listAgents": self.list_agents,
        }

    async def call(self, method: str, params: dict[str, Any] | list[Any] | None) -> Any:
        """Run ``method``; raises RpcError for every failure a client should see."""
        fn = self.table.get(method)
        if fn is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        return await fn(params)

    def _binding(self, agent_id: str | None) -> AgentBinding:
        agents = self.session.agents
        if agent_id is None:
            if len(agents) == 1:
                return next(iter(agents.values()))
            if not agents:
                raise RpcError(NOT_REGISTERED, "Call agent.register first")
            raise RpcError(INVALID_PARAMS, "Several agents are registered: give agent_id")
        if agent_id not in agents:
            raise RpcError(NOT_REGISTERED, f"Agent {agent_id!r} is not registered in this session")
        return agents[agent_id]

    async def register(self, raw: Any) -> dict[str, Any]:
        p: RegisterParams = _params(RegisterParams, raw)
        known = [a["agent_id"] for a in await self.service.list_agents()]
        if p.agent_id not in known:
            raise RpcError(
                INVALID_PARAMS, f"Unknown agent_id {p.agent_id!r}", {"known_agents": known}
            )
        tools = [t.model_dump() for t in p.tools]
        binding = self.session.agents.get(p.agent_id)
        if binding is None:
            binding = AgentBinding(agent_id=p.agent_id, client_id=p.client_id, tools=tools)
            self.session.agents[p.agent_id] = binding
        binding.client_id, binding.tools, binding.stream = p.client_id, tools, p.stream
        self.session.changed()
        # The reference's shape: every tool the agent now has, the client's and its own.
        builtins = await self.service.agent_tools(p.agent_id)
        client_names = [t["name"] for t in tools]
        synced = [*client_names, *(n for n in builtins if n not in client_names)]
        self.session.status(
            "tools_synced",
            f"{len(tools)} client tool(s) and {len(synced) - len(tools)} of the agent's own "
            f"available to {p.agent_id}",
            p.agent_id,
        )
        return {
            "status": "registered",
            "agent_id": p.agent_id,
            "tools_count": len(tools),
            "tools_synced": synced,
            "protocol_version": PROTOCOL_VERSION,
            "capabilities": {**CAPABILITIES, "max_message_size": self.settings.max_message_size},
            "session_id": self.session.session_id,
            "thread_id": binding.thread_id,
            "stream": binding.stream,
        }

    async def chat(self, raw: Any) -> dict[str, Any]:
        p: ChatParams = _params(ChatParams, raw)
        return await self._run(self._binding(p.agent_id), p.message, None)

    async def resume(self, raw: Any) -> dict[str, Any]:
        """Answer an approval or a question the agent waits on (``agent.interrupt``), then
        run on to the next answer or interrupt (rpc_adapter/interrupts.py)."""
        if isinstance(raw, list):
            raise RpcError(INVALID_PARAMS, "Invalid params: this method takes named params")
        p = parse_resume(raw or {})
        binding, pending = self._pending(p)
        if pending is None:
            # The raw form: a whole Command resume value, as the graph expects it.
            if binding.thread_id is None or p.resume is None:
                raise RpcError(
                    INVALID_PARAMS, "Nothing to resume: no interrupted chat for this agent"
                )
            return await self._run(binding, None, p.resume)
        value = pending.resume_value(p)
        return await self._run(binding, None, {pending.interrupt_id: value})

    def _pending(self, p: ResumeParams) -> tuple[AgentBinding, PendingInterrupt | None]:
        """The binding and the interrupt ``p`` answers (None for the raw form)."""
        if p.interrupt_id is None:
            binding = self._binding(p.agent_id)
            waiting = list(binding.interrupts.values())
            if p.resume is not None or not waiting:
                return binding, None
            if len(waiting) > 1:
                raise RpcError(
                    INVALID_PARAMS,
                    "Several interrupts wait: give interrupt_id",
                    {"interrupt_ids": [w.interrupt_id for w in waiting]},
                )
            return binding, waiting[0]
        for binding in self.session.agents.values():
            if p.agent_id in (None, binding.agent_id) and p.interrupt_id in binding.interrupts:
                return binding, binding.interrupts[p.interrupt_id]
        waiting_ids = [i for b in self.session.agents.values() for i in b.interrupts]
        raise RpcError(
            INVALID_PARAMS,
            f"No interrupt {p.interrupt_id!r} waits in this session",
            {"interrupt_ids": waiting_ids},
        )

    async def _run(self, binding: AgentBinding, message: str | None, resume: Any) -> dict[str, Any]:
        if binding.busy:
            raise RpcError(
                SERVER_ERROR,
                f"A chat with {binding.agent_id} is already running; wait for it or agent.cancel",
            )
        binding.chat = asyncio.create_task(
            self.service.chat(self.session, binding, message, resume=resume)
        )
        try:
            # Shielded: cancelling this request does not cancel the chat by itself (below).
            return await asyncio.shield(binding.chat)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if binding.cancelled and task is not None and not task.cancelling():
                return {"status": "cancelled", "agent_id": binding.agent_id}
            if not self.session.handed_over:  # else its run goes on for the new owner
                binding.chat.cancel()
            raise

    def adopt(self, calls: list[StoredCall]) -> None:
        """Serve again the client-tool calls of a session taken over from the Store: each
        agent's calls wait for their answers (re-sent on attach), then its run resumes here
        and the request that asked for them gets its answer, under its id."""
        by_agent: dict[str, list[StoredCall]] = {}
        for c in calls:
            by_agent.setdefault(c.agent_id, []).append(c)
        for agent_id, group in by_agent.items():
            binding = self.session.agents[agent_id]
            pending = [
                self.session.open_call(
                    agent_id,
                    {"call_id": c.call_id, "tool_name": c.tool_name, "arguments": c.arguments},
                    interrupt_id=c.interrupt_id,
                    request_id=c.request_id,
                    notify=False,
                )
                for c in group
            ]
            # Busy from now on: a new chat waits for these answers, as it would have there.
            binding.chat = asyncio.create_task(
                self.service.resume_calls(self.session, binding, pending)
            )
            self.session.spawn(self._answer_adopted(binding, pending[0].request_id))

    def follow(self) -> None:
        """After a takeover: follow the runs other adapters were streaming on this session's
        threads (:meth:`AgentService.follow`), and the background work they followed."""
        for binding in self.session.agents.values():
            if binding.thread_id is None:
                continue
            if binding.resume_watch:
                binding.resume_watch = False
                self.service.watch(self.session, binding, binding.thread_id)
            if not binding.busy and not binding.interrupts:  # a card waits: nothing runs
                self.session.spawn(self._follow(binding))
            elif not binding.busy:
                binding.answering = False  # the cards are what it ended with (resent)

    async def _follow(self, binding: AgentBinding) -> None:
        # A chat whose outcome was not sent may not have its run on the thread yet (the
        # previous owner was starting it): look again for a while.
        deadline = time.monotonic() + _FOLLOW_WAIT
        while True:
            try:
                runs = await self.service.runs_to_follow(binding)
            except Exception as exc:
                logger.warning("session %s: no run list (%r)", self.session.session_id, exc)
                runs = []
            if runs or binding.busy or not binding.answering or time.monotonic() > deadline:
                break
            await asyncio.sleep(self.service.watch_interval)
        # Busy only once there is something to follow: the client may already be answering.
        if runs and not binding.busy:
            binding.chat = asyncio.create_task(self.service.follow(self.session, binding, runs))
            await self._answer_adopted(binding, None)
        elif not binding.busy and binding.answering:
            sid, agent = self.session.session_id, binding.agent_id
            logger.warning("session %s: the run of %s's last chat was not found", sid, agent)
            binding.answering = False
            self.session.changed()

    async def _answer_adopted(self, binding: AgentBinding, request_id: Any) -> None:
        """Await the binding's chat task started without a request of this socket; answer
        ``request_id`` (the request that started it elsewhere), if any."""
        assert binding.chat is not None
        try:
            reply = result_response(request_id, await asyncio.shield(binding.chat))
        except SessionMoved:
            return
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if not binding.cancelled or (task is not None and task.cancelling()):
                if not self.session.handed_over:  # else its run goes on for the new owner
                    binding.chat.cancel()
                raise
            reply = result_response(
                request_id, {"status": "cancelled", "agent_id": binding.agent_id}
            )
        except RpcError as exc:
            reply = error_response(request_id, exc)
        except Exception:
            logger.exception("session %s: serving a takeover failed", self.session.session_id)
            reply = error_response(request_id, RpcError(INTERNAL_ERROR, "Internal error"))
        if request_id is not None:
            self.session.send(reply)
        elif "error" in reply:  # a followed run: nobody asked here, so say it in the log
            logger.warning("session %s: %s", self.session.session_id, reply["error"]["message"])

    async def submit_tool_result(self, raw: Any) -> dict[str, Any]:
        p: SubmitParams = _params(SubmitParams, raw)
        if not self.session.agents:
            raise RpcError(NOT_REGISTERED, "Call agent.register first")
        answer: ClientToolAnswer = {"success": p.success, "result": p.result}
        if not p.success:
            answer["error"] = (
                p.error
                or (p.result if isinstance(p.result, str) else None)
                or ("the client reported a failure")
            )
        self.session.submit(p.call_id, p.tool_name, answer)
        return {"status": "accepted", "call_id": p.call_id}

    async def clear_history(self, raw: Any) -> dict[str, Any]:
        p: AgentParams = _params(AgentParams, raw)
        binding = self._binding(p.agent_id)
        if binding.busy:
            raise RpcError(SERVER_ERROR, "A chat is running; agent.cancel it before clearing")
        old = binding.thread_id
        binding.interrupts.clear()
        thread_id = await self.service.new_thread(self.session, binding)
        return {
            "status": "cleared",
            "agent_id": binding.agent_id,
            "thread_id": thread_id,
            "previous_thread_id": old,
        }

    async def cancel(self, raw: Any) -> dict[str, Any]:
        p: AgentParams = _params(AgentParams, raw)
        binding = self._binding(p.agent_id)
        if not binding.busy:
            return {"status": "idle", "agent_id": binding.agent_id, "cancelled_calls": []}
        binding.cancelled = True
        binding.interrupts.clear()
        calls = self.session.cancel_calls(binding.agent_id)
        assert binding.chat is not None
        binding.chat.cancel()
        await self.service.cancel_run(binding)
        self.session.status("cancelled", "The chat was cancelled", binding.agent_id)
        return {"status": "cancelled", "agent_id": binding.agent_id, "cancelled_calls": calls}

    async def ping(self, raw: Any) -> dict[str, Any]:
        return {"pong": True, "timestamp": time.time()}

    async def list_agents(self, raw: Any) -> dict[str, Any]:
        return {"agents": await self.service.list_agents()}
