"""Model-call and tool-call limits (layers 6 and 7 of DESIGN section 4's stack).

Each agent's numbers are in its table (:mod:`graphs.stacks`).

Per run, a runaway loop stops and the user still gets an answer: the run ends with one
notice in the buyer's language (the language of their newest message) with the count
that was reached, and an English sentence for developers in the message's
``response_metadata["limit"]``.

- **Model calls**: the call past the limit is not made; the notice is the model's answer.
- **Tool calls**: a model answer whose tool calls would go past the limit keeps the calls
  that fit, each refused call gets an error result ("Tool call limit exceeded", as
  langchain's ``ToolCallLimitMiddleware`` words it), and none of the answer's calls runs:
  the run ends with the notice.

Both are one ``wrap_model_call`` layer, counting in the run's own (untracked, never
saved) state. langchain's ``ModelCallLimitMiddleware`` and ``ToolCallLimitMiddleware``
do the same with ``before_model`` / ``after_model`` hooks, and each hook is a node of the
agent's graph: three more supersteps (a checkpoint and a stream event each) for every
model call. Over an analysis that was about a fifth of the Agent Server's CPU
(issue 18's ramp: 0.67 s → 0.55 s per analysis without them).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Annotated, Any, NotRequired, TypedDict

from langchain.agents.middleware import AgentMiddleware, ModelRequest, ModelResponse
from langchain.agents.middleware.types import (
    AgentState,
    ExtendedModelResponse,
    PrivateStateAttr,
)
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langgraph.channels.untracked_value import UntrackedValue
from langgraph.types import Command

from graphs.orders.language import buyer_language

__all__ = [
    "LIMIT_NOTICE_EN",
    "LIMIT_NOTICE_ZH",
    "CallLimits",
    "Limits",
    "build_limits",
]

LIMIT_NOTICE_ZH = "〔本轮已达到调用上限，先停在这里。请把请求拆小，或发一条新消息让我接着做。〕"
LIMIT_NOTICE_EN = (
    "[This turn reached its call limit, so I stopped here. Split the request, or send a new "
    "message and I will carry on.]"
)
REFUSED = "Tool call limit exceeded. Do not call tools again in this run."
"""The result each refused tool call gets (what the model would read)."""
STOPPED = (
    "Execution stopped before this tool call could run because another tool call in the "
    "same batch exceeded the limit."
)
"""The result of an allowed call in the same answer: the run ends, so it does not run."""


class Limits(TypedDict):
    """Per-run caps of one agent."""

    model_calls: int
    tool_calls: int


class CallLimitsState(AgentState[Any]):
    """This run's counts: untracked, so a new run (a resumed one too) starts at zero."""

    run_model_calls: NotRequired[Annotated[int, UntrackedValue, PrivateStateAttr]]
    run_tool_calls: NotRequired[Annotated[int, UntrackedValue, PrivateStateAttr]]


def _notice(kind: str, limit: int, lang: str) -> str:
    """The buyer's notice: which limit, and the count it reached."""
    if lang == "en":
        return LIMIT_NOTICE_EN.replace(
            "its call limit", f"its call limit ({kind} calls {limit}/{limit})"
        )
    what = "模型" if kind == "model" else "工具"
    return LIMIT_NOTICE_ZH.replace("调用上限", f"调用上限（{what}调用 {limit}/{limit}）", 1)


def _closing(kind: str, limit: int, attempted: int, history: Sequence[BaseMessage]) -> AIMessage:
    """The run's last message: the notice, and the developers' sentence in its metadata."""
    sentence = (
        f"{kind.capitalize()} call limit reached: run limit ({attempted}/{limit} calls); "
        "the run ended here."
    )
    return AIMessage(
        content=_notice(kind, limit, buyer_language(history)),
        response_metadata={"limit": sentence},
    )


class CallLimits(AgentMiddleware[CallLimitsState, Any, Any]):
    """At most ``model_calls`` model calls and ``tool_calls`` tool calls per run."""

    state_schema = CallLimitsState

    def __init__(self, *, model_calls: int, tool_calls: int) -> None:
        super().__init__()
        if model_calls < 1 or tool_calls < 0:
            msg = (
                "call limits need model_calls >= 1 and tool_calls >= 0, "
                f"got model_calls={model_calls}, tool_calls={tool_calls}"
            )
            raise ValueError(msg)
        self.model_calls = model_calls
        self.tool_calls = tool_calls

    def _limited(self, request: ModelRequest[Any]) -> tuple[int, int, AIMessage | None]:
        state: dict[str, Any] = dict(request.state or {})
        made, used = int(state.get("run_model_calls") or 0), int(state.get("run_tool_calls") or 0)
        if made < self.model_calls:
            return made, used, None
        return made, used, _closing("model", self.model_calls, made + 1, request.messages)

    def _counted(
        self,
        request: ModelRequest[Any],
        response: ModelResponse[Any] | AIMessage,
        made: int,
        used: int,
    ) -> ExtendedModelResponse[Any]:
        if isinstance(response, AIMessage):
            response = ModelResponse(result=[response], structured_response=None)
        result = list(response.result)
        answer = next((m for m in reversed(result) if isinstance(m, AIMessage)), None)
        calls = list(answer.tool_calls) if answer is not None else []
        counts = {"run_model_calls": made + 1, "run_tool_calls": used + len(calls)}
        room = self.tool_calls - used
        if len(calls) > room:
            fits = {c["id"] for c in calls[: max(room, 0)]}
            result += [
                ToolMessage(
                    content=STOPPED if c["id"] in fits else REFUSED,
                    tool_call_id=c["id"],
                    name=c["name"],
                    status="error",
                )
                for c in calls
            ]
            history = [*request.messages, *result]
            result.append(_closing("tool", self.tool_calls, used + len(calls), history))
            response = ModelResponse(result=result, structured_response=None)
        return ExtendedModelResponse(model_response=response, command=Command(update=counts))

    def wrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], ModelResponse[Any]],
    ) -> ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]:
        """Stop before a call past the model-call limit; refuse tool calls past the other."""
        made, used, stop = self._limited(request)
        if stop is not None:
            return stop
        return self._counted(request, handler(request), made, used)

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any] | AIMessage | ExtendedModelResponse[Any]:
        """Stop before a call past the model-call limit; refuse tool calls past the other."""
        made, used, stop = self._limited(request)
        if stop is not None:
            return stop
        return self._counted(request, await handler(request), made, used)


def build_limits(limits: Limits) -> list[CallLimits]:
    """The limit layer for ``limits``, ending the run with a notice."""
    return [CallLimits(model_calls=limits["model_calls"], tool_calls=limits["tool_calls"])]
