"""Drive agents on the Agent Server through the LangGraph SDK (and nothing else).

``AgentService`` turns one ``agent.chat`` into Agent Server runs on the
session's thread: stream a run; when it stops on the ClientTools interrupt, ask
the client for every call at once (``agent.toolCall``), wait for the answers or
the tool timeout, and resume by interrupt id with all answers in one command;
repeat until the run ends, then send ``agent.response``. A run that stops on an
approval or a question ends the request as ``interrupted`` after an
``agent.interrupt`` notification per interrupt (:mod:`rpc_adapter.interrupts`);
``agent.resume`` continues it.

While the agent has background tasks running (the analyst), the session follows
its thread: a run this adapter did not start (deepagents waking the orchestrator
when the analyst ends) is pushed to the client as ``agent.response`` with
``background: true`` when it ends, attached or not (the backlog keeps it for a
reconnect).

A session taken over from the Store by this adapter (another replica served it before, or
this one before a restart) may have client-tool calls its thread waits on:
:meth:`AgentService.resume_calls` collects their answers and resumes the run from here.
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
    ClientToolResume,
    is_client_tool_interrupt,
)
from rpc_adapter.interrupts import PendingInterrupt, pending_interrupt
from rpc_adapter.protocol import (
    AGENT_ERROR,
    SERVER_ERROR,
    TIMEOUT_ERROR,
    RpcError,
    notification,
)
from rpc_adapter.sessions import CURRENT_REQUEST, AgentBinding, PendingCall, Session, SessionMoved

__all__ = ["AgentService"]

logger = logging.getLogger(__name__)

_AGENT_CACHE_SECONDS = 10.0
_CANCEL_WAIT = 5.0
_LIST_TIMEOUT = 3.0  # the SDK retries a refused connection for longer than a client waits
_UNFINISHED = frozenset({"pending", "running", "waiting"})
_ACTIVE_RUN = frozenset({"pending", "running"})
TOOL_CATALOG_PATH = "/v1/agents/{agent_id}/tools"
"""The Agent Server's route (``server/http_app.py``) listing an agent's own tools."""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") if isinstance(p, dict) else str(p) for p in content)
    return "" if content is None else str(content)


def _is_ai(message: Any) -> bool:
    return isinstance(message, dict) and message.get("type") in ("ai", "AIMessageChunk")


def _last_ai(values: dict[str, Any]) -> dict[str, Any] | None:
    messages = values.get("messages") or []
    return next((m for m in reversed(messages) if _is_ai(m)), None)


def _latest_own(runs: list[dict[str, Any]], binding: AgentBinding) -> str:
    ours = set(binding.own_runs)
    return max((str(r["created_at"]) for r in runs if r["run_id"] in ours), default="")


def _foreign(
    runs: list[dict[str, Any]], binding: AgentBinding, pushed: set[str], since: str
) -> list[dict[str, Any]]:
    """Runs created after ``since`` that this adapter did not start, oldest first."""
    ours = set(binding.own_runs)
    found = [
        r
        for r in runs
        if r["run_id"] not in ours and r["run_id"] not in pushed and str(r["created_at"]) > since
    ]
    return sorted(found, key=lambda r: str(r["created_at"]))


def _unfinished_tasks(values: dict[str, Any]) -> list[str]:
    """Ids of the agent's background tasks that have not ended (deepagents' ``async_tasks``)."""
    tasks = values.get("async_tasks") or {}
    if not isinstance(tasks, dict):
        return []
    return [
        str(tid)
        for tid, task in tasks.items()
        if isinstance(task, dict) and task.get("status") in _UNFINISHED
    ]


class AgentService:
    """The adapter's view of the Agent Server: agents, threads and runs."""

    def __init__(
        self,
        client_factory: Callable[[], LangGraphClient],
        *,
        agent_timeout: float,
        tool_timeout: float,
        watch_interval: float = 1.0,
        watch_limit: float = 3600.0,
    ) -> None:
        self._factory = client_factory
        self._client: LangGraphClient | None = None
        self.agent_timeout = agent_timeout
        self.tool_timeout = tool_timeout
        self.watch_interval = watch_interval
        self.watch_limit = watch_limit
        self._agents: list[dict[str, Any]] = []
        self._agents_at = 0.0
        self._tools: dict[str, list[str]] = {}

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

    async def agent_tools(self, agent_id: str) -> list[str]:
        """The agent's own tools (builtins), from the Agent Server's tool catalog route;
        empty when the server has no such route (the caller still knows the client's)."""
        if agent_id in self._tools:
            return self._tools[agent_id]
        try:
            async with asyncio.timeout(30):  # the first call may build the graph
                found = await self.client.http.get(TOOL_CATALOG_PATH.format(agent_id=agent_id))
            names = [str(n) for n in (found or {}).get("tools", [])]
        except Exception as exc:
            logger.info("no tool catalog for %s (%s): listing client tools only", agent_id, exc)
            return []
        self._tools[agent_id] = names
        return names

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
        # Recorded before the run starts: a reconnect anywhere finds the thread (and follows
        # a run still going on it).
        await session.persist()
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
        # Recorded with the run's id at the session's next write (the thread's, or the
        # socket leaving): an adapter that takes the session over before the outcome is
        # sent follows the run, even if it has ended by then.
        binding.answering = True
        try:
            return await self._chat(session, binding, message, resume)
        finally:
            binding.answering = False

    async def _chat(
        self, session: Session, binding: AgentBinding, message: str | None, resume: Any
    ) -> dict[str, Any]:
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
                # An approval or a question: the person answers it with agent.resume.
                return await self._interrupted(session, binding, thread_id, interrupts)
            tool_calls += len(calls)
            answers = await self._ask_client(session, binding, ours)
            # One resume value per interrupt id: its calls' answers, keyed by call id.
            by_interrupt: dict[str, ClientToolResume] = {
                i["id"]: {c["call_id"]: answers[c["call_id"]] for c in i["value"].get("calls", [])}
                for i in ours
            }
            run_input, command = None, {"resume": by_interrupt}
            session.status(
                "thinking", "Tool results received; the agent continues", binding.agent_id
            )
        if binding.interrupts:
            binding.interrupts.clear()
            session.changed()
        state = await self._state(thread_id)
        if last_ai is None:
            last_ai = _last_ai(state)
        content = _text(last_ai.get("content")) if last_ai else ""
        binding.answering = False  # in the same record as the answer, if it is queued
        session.send(
            notification("agent.response", {"content": content, "agent_id": binding.agent_id})
        )
        background = _unfinished_tasks(state)
        if background:
            self.watch(session, binding, thread_id)
        return {
            "status": "completed",
            "content": content,
            "agent_id": binding.agent_id,
            "thread_id": thread_id,
            "tool_calls": tool_calls,
            "background_tasks": background,
        }

    async def _interrupted(
        self,
        session: Session,
        binding: AgentBinding,
        thread_id: str,
        interrupts: list[dict[str, Any]],
    ) -> dict[str, Any]:
        """Tell the client about each approval or question (once) and end the request."""
        pending: dict[str, PendingInterrupt] = {}
        for raw in interrupts:
            item = pending_interrupt(raw, binding.agent_id, thread_id)
            pending[item.interrupt_id] = item
        known, binding.interrupts = binding.interrupts, pending
        binding.answering = False  # the cards are the outcome: a takeover sends them again
        # Recorded before the client hears of them: a reconnect anywhere sends them again.
        await session.persist()
        for item in pending.values():
            if item.interrupt_id not in known:
                session.send(item.notification())
        session.status(
            "waiting", "The agent waits for your decision (agent.resume)", binding.agent_id
        )
        return {
            "status": "interrupted",
            "agent_id": binding.agent_id,
            "thread_id": thread_id,
            "interrupts": [{"id": i.get("id"), "value": i.get("value")} for i in interrupts],
            "pending": [p.params() for p in pending.values()],
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
                    # A background result may be being delivered on the thread right now
                    # (a run we did not start): queue behind it instead of failing.
                    multitask_strategy="enqueue",
                    on_disconnect="cancel",
                ):
                    event, data = part.event, part.data
                    if event == "metadata" and isinstance(data, dict):
                        binding.run_id = data.get("run_id")
                        if binding.run_id:
                            binding.own_runs.append(str(binding.run_id))
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
        self, session: Session, binding: AgentBinding, interrupts: list[dict[str, Any]]
    ) -> ClientToolResume:
        """Send every call of the ClientTools ``interrupts`` to the client and collect the
        answers (timeouts answered as errors)."""
        request_id = CURRENT_REQUEST.get()
        pending = [
            session.open_call(
                binding.agent_id,
                call,
                interrupt_id=str(i["id"]),
                request_id=request_id,
                notify=False,
            )
            for i in interrupts
            for call in i["value"].get("calls", [])
        ]
        # Recorded before the client hears of them: a reconnect anywhere sends them again.
        await session.persist()
        for p in pending:
            session.send(p.notification())
        return await self.collect(session, binding, pending)

    async def collect(
        self, session: Session, binding: AgentBinding, pending: list[PendingCall]
    ) -> ClientToolResume:
        """Wait for the client's answers to ``pending`` (those not in time are answered as
        timed out). ``SessionMoved`` when another adapter took the session over meanwhile:
        it resumes the run, not this one."""
        session.status(
            "executing",
            f"Waiting for the client to run {', '.join(p.tool_name for p in pending)}",
            binding.agent_id,
        )
        await asyncio.wait([p.future for p in pending], timeout=self.tool_timeout)
        if not all(p.future.done() for p in pending) and not await session.owned():
            raise SessionMoved(session.session_id)
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
        await session.persist()
        return answers

    async def resume_calls(
        self, session: Session, binding: AgentBinding, pending: list[PendingCall]
    ) -> dict[str, Any]:
        """Serve client-tool calls a session taken over from the Store still waits on:
        collect the answers, then resume the thread by interrupt id (only the interrupts it
        still waits on) and run on as :meth:`chat` does."""
        answers = await self.collect(session, binding, pending)
        waiting = await self._waiting_interrupts(binding.thread_id)
        by_interrupt: dict[str, ClientToolResume] = {}
        for p in pending:
            if waiting is None or p.interrupt_id in waiting:
                by_interrupt.setdefault(p.interrupt_id, {})[p.call_id] = answers[p.call_id]
        if not by_interrupt:
            raise RpcError(
                AGENT_ERROR,
                "The agent no longer waits for these tool results (the run was resumed "
                "before the session moved)",
                {"agent_id": binding.agent_id},
            )
        return await self.chat(session, binding, None, resume=by_interrupt)

    async def runs_to_follow(self, binding: AgentBinding) -> list[dict[str, Any]]:
        """After a takeover: the runs on the agent's thread to follow, oldest first. Those
        that have not ended (while background work runs, only the adapter's own: the others
        are the watcher's); and, while the previous owner had not sent the outcome of its
        chat (``binding.answering``), that chat's run even if it has ended since: nobody
        else sends what it ended with. Empty while that run is not on the thread yet."""
        if binding.thread_id is None:
            return []
        runs = [dict(r) for r in await self.client.runs.list(binding.thread_id, limit=5)]
        ours = set(binding.own_runs)
        active = [
            r
            for r in runs
            if r.get("status") in _ACTIVE_RUN and (not binding.watching or r["run_id"] in ours)
        ]
        if active or not binding.answering:
            return sorted(active, key=lambda r: str(r["created_at"]))
        if binding.run_id is not None:
            return [{"run_id": binding.run_id}]
        # Its id was not recorded yet: the newest run the record does not know is the chat's.
        known = ours | set(binding.pushed)
        new = sorted(
            (r for r in runs if r["run_id"] not in known), key=lambda r: str(r["created_at"])
        )
        return new[-1:]

    async def follow(
        self, session: Session, binding: AgentBinding, runs: list[dict[str, Any]]
    ) -> dict[str, Any]:
        """After a takeover: runs another adapter was streaming on the agent's thread when
        the session moved (``runs``, :meth:`runs_to_follow`) end there unseen, so follow
        them from here: wait for them (if they have not ended yet), then send what they
        ended with (client-tool calls, served; approval or question cards; or the answer as
        ``agent.response``)."""
        binding.answering = True  # a move from here on is followed in turn
        try:
            return await self._follow(session, binding, runs)
        finally:
            binding.answering = False

    async def _follow(
        self, session: Session, binding: AgentBinding, runs: list[dict[str, Any]]
    ) -> dict[str, Any]:
        thread_id = binding.thread_id
        assert thread_id is not None
        for run in runs:
            binding.run_id = str(run["run_id"])  # agent.cancel stops it
            if binding.run_id not in binding.own_runs:
                binding.own_runs.append(binding.run_id)  # not a background result
            session.status("thinking", "Following the agent's run", binding.agent_id)
            await self.client.runs.join(thread_id, binding.run_id)
        thread = await self.client.threads.get(thread_id)
        raw: list[dict[str, Any]] = [
            dict(i) for items in (thread.get("interrupts") or {}).values() for i in items
        ]
        tools = [i for i in raw if is_client_tool_interrupt(i.get("value"))]
        if tools:
            answers = await self._ask_client(session, binding, tools)
            by_interrupt: dict[str, ClientToolResume] = {
                i["id"]: {c["call_id"]: answers[c["call_id"]] for c in i["value"]["calls"]}
                for i in tools
            }
            return await self.chat(session, binding, None, resume=by_interrupt)
        if raw:
            return await self._interrupted(session, binding, thread_id, raw)
        last_ai = _last_ai(await self._state(thread_id))
        content = _text(last_ai.get("content")) if last_ai else ""
        binding.answering = False  # in the same record as the answer, if it is queued
        session.send(
            notification(
                "agent.response",
                {"content": content, "agent_id": binding.agent_id, "thread_id": thread_id},
            )
        )
        return {"status": "completed", "content": content, "agent_id": binding.agent_id}

    async def _waiting_interrupts(self, thread_id: str | None) -> set[str] | None:
        """Ids of the interrupts ``thread_id`` waits on; None when the server cannot say."""
        if thread_id is None:
            return set()
        try:
            thread = await self.client.threads.get(thread_id)
        except Exception as exc:
            logger.warning("could not read thread %s (%r)", thread_id, exc)
            return None
        found = (thread.get("interrupts") or {}).values()
        return {str(i.get("id")) for items in found for i in items}

    async def _state(self, thread_id: str) -> dict[str, Any]:
        state = await self.client.threads.get_state(thread_id)
        values = state.get("values") if isinstance(state, dict) else None
        return values if isinstance(values, dict) else {}

    # background results ------------------------------------------------------------------

    def watch(self, session: Session, binding: AgentBinding, thread_id: str) -> None:
        """Follow ``thread_id`` for background results (once per binding at a time)."""
        if binding.watcher is not None and not binding.watcher.done():
            return
        binding.watcher = session.spawn(self._watch(session, binding, thread_id))
        session.changed()  # a reconnect elsewhere follows the thread too

    async def _watch(self, session: Session, binding: AgentBinding, thread_id: str) -> None:
        """Push every run on the thread this adapter did not start, when it ends, while the
        agent still has background tasks (bounded by ``watch_limit`` seconds)."""
        try:
            await self._watch_runs(session, binding, thread_id)
        finally:
            binding.watcher = None
            session.changed()

    async def _watch_runs(self, session: Session, binding: AgentBinding, thread_id: str) -> None:
        deadline = time.monotonic() + self.watch_limit
        since: str | None = None  # when our run that started the background work was created
        polls = 0
        while binding.thread_id == thread_id and time.monotonic() < deadline:
            await asyncio.sleep(self.watch_interval)
            if binding.busy:
                # A chat of ours is starting: its run may be listed before we know its id.
                continue
            polls += 1
            try:
                runs = [dict(r) for r in await self.client.runs.list(thread_id, limit=20)]
                since = since if since is not None else _latest_own(runs, binding)
                for run in _foreign(runs, binding, set(binding.pushed), since):
                    await self._push_background(session, binding, thread_id, run)
                    polls = 0
                # Background tasks end quietly too (the parent was busy and read the result
                # in a run of ours): look at the thread's tasks now and then.
                if polls % 5 == 0 and not _unfinished_tasks(await self._state(thread_id)):
                    return
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                logger.warning("following thread %s failed (%r); retrying", thread_id, exc)

    async def _push_background(
        self, session: Session, binding: AgentBinding, thread_id: str, run: dict[str, Any]
    ) -> None:
        run_id = str(run["run_id"])
        if run.get("status") in _ACTIVE_RUN:
            session.status(
                "thinking", "A background task finished; the agent is reporting", binding.agent_id
            )
            await self.client.runs.join(thread_id, run_id)
        last_ai = _last_ai(await self._state(thread_id))
        content = _text(last_ai.get("content")) if last_ai else ""
        binding.pushed.append(run_id)  # recorded with the message, if it waits for a reconnect
        logger.info("session %s: background result on %s pushed", session.session_id, thread_id)
        session.send(
            notification(
                "agent.response",
                {
                    "content": content,
                    "agent_id": binding.agent_id,
                    "thread_id": thread_id,
                    "run_id": run_id,
                    "background": True,
                },
            )
        )

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
