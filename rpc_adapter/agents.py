"""Drive agents on the Agent Server through the LangGraph SDK (and nothing else).

``AgentService`` turns one ``agent.chat`` into Agent Server runs on the
session's thread: stream a run; when it stops on the ClientTools interrupt, ask
the client for every call at once (``agent.toolCall``), wait for the answers or
the tool timeout, and resume by interrupt id with all answers in one command;
repeat until the run ends, then send ``agent.response``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from typing import Any

from langgraph_sdk.client import LangGraphClient

from core.client_tools import (
    CONTEXT_FIELD,
    ClientToolCall,
    ClientToolResume,
    is_client_tool_interrupt,
)
from rpc_adapter.protocol import (
    AGENT_ERROR,
    SERVER_ERROR,
    TIMEOUT_ERROR,
    RpcError,
    notification,
)
from rpc_adapter.sessions import AgentBinding, Session

__all__ = ["AgentService"]

logger = logging.getLogger(__name__)

_AGENT_CACHE_SECONDS = 10.0
_CANCEL_WAIT = 5.0
_LIST_TIMEOUT = 3.0  # the SDK retries a refused connection for longer than a client waits


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return "" if content is None else str(content)


def _is_ai(message: Any) -> bool:
    return isinstance(message, dict) and message.get("type") in ("ai", "AIMessageChunk")


class AgentService:
    """The adapter's view of the Agent Server: agents, threads and runs."""

    def __init__(
        self,
        client_factory: Callable[[], LangGraphClient],
        *,
        agent_timeout: float,
        tool_timeout: float,
    ) -> None:
        self._factory = client_factory
        self._client: LangGraphClient | None = None
        self.agent_timeout = agent_timeout
        self.tool_timeout = tool_timeout
        self._agents: list[dict[str, Any]] = []
        self._agents_at = 0.0

    @property
    def client(self) -> LangGraphClient:
        """The SDK client, created on first use (never at import)."""
        if self._client is None:
            self._client = self._factory()
        return self._client

    async def aclose(self) -> None:
        """Close the SDK client's connections."""
        if self._client is not None:
            await self._client.aclose()
            self._client = None

    # agents --------------------------------------------------------------------------

    async def list_agents(self, *, fresh: bool = False) -> list[dict[str, Any]]:
        """The Agent Server's graphs (one entry per graph's default assistant)."""
        if not fresh and self._agents and time.monotonic() - self._agents_at < _AGENT_CACHE_SECONDS:
            return self._agents
        try:
            async with asyncio.timeout(_LIST_TIMEOUT):
                found = await self.client.assistants.search(limit=100)
        except Exception as exc:
            raise RpcError(SERVER_ERROR, f"Agent Server unreachable: {type(exc).__name__}") from exc
        agents: dict[str, dict[str, Any]] = {}
        for a in found:
            gid = a["graph_id"]
            if gid in agents and (a.get("metadata") or {}).get("created_by") != "system":
                continue
            agents[gid] = {
                "agent_id": gid,
                "assistant_id": a["assistant_id"],
                "name": a.get("name") or gid,
                "description": a.get("description") or "",
            }
        self._agents = sorted(agents.values(), key=lambda x: x["agent_id"])
        self._agents_at = time.monotonic()
        return self._agents

    async def ready(self) -> bool:
        """True when the Agent Server answers (within a few seconds)."""
        try:
            await self.list_agents(fresh=True)
        except RpcError:
            return False
        return True

    async def new_thread(self, session: Session, binding: AgentBinding) -> str:
        """Create the agent's thread for this session, tagged with client and session ids."""
        try:
            metadata = {
                "client_id": binding.client_id,
                "session_id": session.session_id,
                "agent_id": binding.agent_id,
                "source": "rpc_adapter",
            }
            if session.user_id is not None:
                # The in-process client skips the server's auth handler, so the thread's
                # owner is set here: the artifacts route serves the files to that user.
                metadata["owner"] = session.user_id
            thread = await self.client.threads.create(metadata=metadata)
        except Exception as exc:
            raise RpcError(
                SERVER_ERROR, f"could not create a thread: {type(exc).__name__}"
            ) from exc
        binding.thread_id = str(thread["thread_id"])
        return binding.thread_id

    # chat ------------------------------------------------------------------------------

    async def chat(
        self,
        session: Session,
        binding: AgentBinding,
        message: str | None,
        *,
        resume: Any = None,
    ) -> dict[str, Any]:
        """Run one user message (or resume an interrupted run with ``resume``) to its final
        answer, serving client-tool calls on the way."""
        thread_id = binding.thread_id or await self.new_thread(session, binding)
        # With the Agent Server's auth on, the session belongs to an authenticated user and
        # the run is theirs. Otherwise the adapter's token identifies the client application,
        # not a person: the client id is the best user id it has (keeps one client's memories
        # apart from another's).
        context = {
            CONTEXT_FIELD: binding.tools,
            "user_id": session.user_id or binding.client_id,
            "client_id": binding.client_id,
            "session_id": session.session_id,
        }
        run_input: dict[str, Any] | None = None
        command: dict[str, Any] | None = None
        if message is None:
            command = {"resume": resume}
        else:
            run_input = {"messages": [{"role": "user", "content": message}]}
        binding.cancelled = False
        tool_calls = 0
        session.status("thinking", "The agent is working on your message", binding.agent_id)
        while True:
            interrupts, last_ai = await self._segment(
                session, binding, thread_id, run_input, command, context
            )
            if not interrupts:
                break
            ours = [i for i in interrupts if is_client_tool_interrupt(i.get("value"))]
            calls = [c for i in ours for c in i["value"].get("calls", [])]
            if not calls:
                # Not ours (e.g. a human approval): hand it to the client as it is.
                return {
                    "status": "interrupted",
                    "agent_id": binding.agent_id,
                    "thread_id": thread_id,
                    "interrupts": [
                        {"id": i.get("id"), "value": i.get("value")} for i in interrupts
                    ],
                }
            tool_calls += len(calls)
            answers = await self._ask_client(session, binding, calls)
            # One resume value per interrupt id: its calls' answers, keyed by call id.
            by_interrupt: dict[str, ClientToolResume] = {
                i["id"]: {c["call_id"]: answers[c["call_id"]] for c in i["value"].get("calls", [])}
                for i in ours
            }
            run_input, command = None, {"resume": by_interrupt}
            session.status(
                "thinking", "Tool results received; the agent continues", binding.agent_id
            )
        if last_ai is None:
            last_ai = await self._last_ai(thread_id)
        content = _text(last_ai.get("content")) if last_ai else ""
        session.send(
            notification("agent.response", {"content": content, "agent_id": binding.agent_id})
        )
        return {
            "status": "completed",
            "content": content,
            "agent_id": binding.agent_id,
            "thread_id": thread_id,
            "tool_calls": tool_calls,
        }

    async def _segment(
        self,
        session: Session,
        binding: AgentBinding,
        thread_id: str,
        run_input: dict[str, Any] | None,
        command: dict[str, Any] | None,
        context: dict[str, Any],
    ) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """Stream one run until it ends or interrupts; returns (interrupts, last AI message)."""
        modes: list[Any] = ["updates", "messages-tuple"] if binding.stream else ["updates"]
        interrupts: list[dict[str, Any]] = []
        last_ai: dict[str, Any] | None = None
        try:
            async with asyncio.timeout(self.agent_timeout):
                async for part in self.client.runs.stream(  # type: ignore[call-overload]
                    thread_id,
                    binding.agent_id,
                    input=run_input,
                    command=command,
                    context=context,
                    stream_mode=modes,
                    multitask_strategy="reject",
                    on_disconnect="cancel",
                ):
                    event, data = part.event, part.data
                    if event == "metadata" and isinstance(data, dict):
                        binding.run_id = data.get("run_id")
                    elif event == "updates" and isinstance(data, dict):
                        for node, update in data.items():
                            if node == "__interrupt__":
                                interrupts.extend(update or [])
                            elif isinstance(update, dict):
                                for m in update.get("messages") or []:
                                    if _is_ai(m):
                                        last_ai = m
                                if node == "tools":
                                    session.status(
                                        "executing", "Running agent tools", binding.agent_id
                                    )
                    elif event == "messages" and isinstance(data, list) and data:
                        chunk = data[0]
                        text = _text(chunk.get("content")) if _is_ai(chunk) else ""
                        if text:
                            session.send(
                                notification(
                                    "agent.delta", {"content": text, "agent_id": binding.agent_id}
                                )
                            )
                    elif event == "error":
                        msg = data.get("message") if isinstance(data, dict) else str(data)
                        raise RpcError(AGENT_ERROR, f"The agent failed: {msg}")
        except TimeoutError as exc:
            await self.cancel_run(binding, thread_id)
            raise RpcError(
                TIMEOUT_ERROR,
                f"The agent did not finish within {self.agent_timeout:g} s",
                {"agent_id": binding.agent_id},
            ) from exc
        except RpcError:
            raise
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            logger.warning("run on thread %s failed: %r", thread_id, exc)
            raise RpcError(AGENT_ERROR, f"The agent run failed: {type(exc).__name__}") from exc
        return interrupts, last_ai

    async def _ask_client(
        self, session: Session, binding: AgentBinding, calls: list[ClientToolCall]
    ) -> ClientToolResume:
        """Send every call to the client and collect answers (timeouts answered as errors)."""
        pending = [session.open_call(binding.agent_id, c) for c in calls]
        session.status(
            "executing",
            f"Waiting for the client to run {', '.join(p.tool_name for p in pending)}",
            binding.agent_id,
        )
        await asyncio.wait([p.future for p in pending], timeout=self.tool_timeout)
        answers: ClientToolResume = {}
        for p in pending:
            if p.future.cancelled():
                answers[p.call_id] = {"success": False, "error": "cancelled by the client"}
                continue
            if p.future.done():
                answers[p.call_id] = p.future.result()
                continue
            session.close_call(p.call_id, "timed out")
            answers[p.call_id] = {
                "success": False,
                "timeout": True,
                "error": f"the client did not answer within {self.tool_timeout:g} s",
            }
        return answers

    async def _last_ai(self, thread_id: str) -> dict[str, Any] | None:
        state = await self.client.threads.get_state(thread_id)
        values = state.get("values") or {}
        messages = values.get("messages", []) if isinstance(values, dict) else []
        return next((m for m in reversed(messages) if _is_ai(m)), None)

    async def cancel_run(
        self, binding: AgentBinding, thread_id: str | None = None, *, wait: bool = True
    ) -> bool:
        """Stop the agent's current run (waiting briefly until it has stopped, so the thread
        takes the next message); True if the Agent Server accepted the cancel."""
        thread_id = thread_id or binding.thread_id
        if not (thread_id and binding.run_id):
            return False
        with contextlib.suppress(Exception):
            async with asyncio.timeout(_CANCEL_WAIT):
                await self.client.runs.cancel(
                    thread_id, binding.run_id, action="interrupt", wait=wait
                )
            return True
        return False
