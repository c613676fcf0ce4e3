"""deepagents' skills middleware with its pins taken at the start of a run, not before
every model call.

deepagents' ``SkillsMiddleware`` has a ``before_model`` hook for ``pinned_skills`` (the
skills a client names in a run's input: their ``SKILL.md`` goes into the conversation
before the model answers). A ``before_model`` hook is a node of the agent's graph, so
every model call of every run paid one more superstep (a checkpoint of the thread and
its stream events) for a list that is nearly always empty: about a fifth of the steps of
an analysis. Pins arrive with the run's input, which ``before_agent`` already sees, so
:class:`SkillsAtRunStart` pins them there, in the same place in the conversation (after
the input, before the first model call), and has no ``before_model`` node.

Its ``name`` is ``SkillsMiddleware``, so ``create_deep_agent`` puts it in the default's
slot (and gives its sources to the general-purpose subagent) instead of adding its own.
"""

from __future__ import annotations

from typing import Any

from deepagents.backends.protocol import BackendProtocol
from deepagents.middleware.skills import SkillsMiddleware, SkillsState
from langchain.agents.middleware.types import AgentMiddleware
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

__all__ = ["SkillsAtRunStart", "skills_layer"]


class SkillsAtRunStart(SkillsMiddleware):
    """Skills loaded and pinned once per run (``before_agent``); nothing before each model call."""

    # The base hooks: create_agent adds no before_model node for this class.
    before_model = AgentMiddleware.before_model
    abefore_model = AgentMiddleware.abefore_model

    @property
    def name(self) -> str:
        """The public name, so ``create_deep_agent`` swaps out its own default for this one."""
        return "SkillsMiddleware"

    @staticmethod
    def _with_loaded(state: SkillsState, loaded: dict[str, Any]) -> SkillsState:
        """``state`` as the pin sees it: with the skills this same hook just loaded."""
        if "skills_metadata" not in loaded:
            return state
        return {**state, "skills_metadata": loaded["skills_metadata"]}

    def before_agent(  # type: ignore[override]
        self, state: SkillsState, runtime: Runtime[Any], config: RunnableConfig
    ) -> dict[str, Any] | None:
        """Load the skills if the thread has none yet, then pin the named ones."""
        loaded = dict(super().before_agent(state, runtime, config) or {})
        if not state.get("pinned_skills"):
            return loaded or None
        pinned = SkillsMiddleware.before_model(self, self._with_loaded(state, loaded), runtime)
        return {**loaded, **(pinned or {})}

    async def abefore_agent(  # type: ignore[override]
        self, state: SkillsState, runtime: Runtime[Any], config: RunnableConfig
    ) -> dict[str, Any] | None:
        """Async twin of :meth:`before_agent`."""
        loaded = dict(await super().abefore_agent(state, runtime, config) or {})
        if not state.get("pinned_skills"):
            return loaded or None
        pinned = await SkillsMiddleware.abefore_model(
            self, self._with_loaded(state, loaded), runtime
        )
        return {**loaded, **(pinned or {})}


def skills_layer(backend: BackendProtocol, sources: list[str]) -> AgentMiddleware[Any, Any, Any]:
    """The skills middleware for ``create_deep_agent(middleware=[...])`` (no ``skills=``)."""
    return SkillsAtRunStart(backend=backend, sources=sources)
