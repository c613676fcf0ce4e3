"""SkillsAtRunStart: a skill a client pins in a run's input reaches the model as deepagents'
own middleware puts it there, without a graph node before every model call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from deepagents import create_deep_agent
from deepagents.backends import FilesystemBackend
from deepagents.middleware.skills import SkillsMiddleware
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatResult
from langgraph.checkpoint.memory import InMemorySaver
from pydantic import Field

from graphs.middleware.skills_pins import skills_layer
from tests.unit.test_mw_support import ScriptedChatModel, thread

SKILL = """---
name: quote-check
description: How to check a supplier quote against the ERP price.
---
# Quote check

Compare the quoted unit price with the ERP's last order price; flag a rise above 5%.
"""


class SeeingModel(ScriptedChatModel):
    """Answers in turn and keeps the messages of every call (system prompt left out)."""

    seen: list[list[str]] = Field(default_factory=list)

    def _generate(self, messages: list[BaseMessage], *args: Any, **kwargs: Any) -> ChatResult:
        self.seen.append([f"{m.type}:{m.text}" for m in messages if m.type != "system"])
        return super()._generate(messages, *args, **kwargs)


def _backend(tmp_path: Path) -> FilesystemBackend:
    skill = tmp_path / "skills" / "quote-check"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL, encoding="utf-8")
    return FilesystemBackend(root_dir=tmp_path, virtual_mode=True)


def _agent(tmp_path: Path, ours: bool) -> tuple[Any, SeeingModel]:
    backend = _backend(tmp_path)
    model = SeeingModel(messages=iter([AIMessage(content="first"), AIMessage(content="second")]))
    if ours:
        agent = create_deep_agent(
            model=model,
            backend=backend,
            middleware=[skills_layer(backend, ["/skills/"])],
            checkpointer=InMemorySaver(),
        )
    else:  # deepagents' own, for comparison
        agent = create_deep_agent(
            model=model, backend=backend, skills=["/skills/"], checkpointer=InMemorySaver()
        )
    return agent, model


def test_no_node_runs_before_each_model_call(tmp_path: Path) -> None:
    ours, _ = _agent(tmp_path / "a", ours=True)
    stock, _ = _agent(tmp_path / "b", ours=False)
    assert "SkillsMiddleware.before_model" in stock.get_graph().nodes  # what it saves
    assert "SkillsMiddleware.before_model" not in ours.get_graph().nodes
    assert "SkillsMiddleware.before_agent" in ours.get_graph().nodes


async def test_a_pinned_skill_reaches_the_model_as_deepagents_puts_it(tmp_path: Path) -> None:
    seen: dict[bool, list[list[str]]] = {}
    for ours in (True, False):
        agent, model = _agent(tmp_path / str(ours), ours)
        config = thread()
        first = await agent.ainvoke(
            {"messages": [HumanMessage("请按技能核对报价")], "pinned_skills": ["quote-check"]},
            config,
        )
        assert not first.get("pinned_skills")  # taken, not pinned again
        # A later run on the thread pins nothing new.
        await agent.ainvoke({"messages": [HumanMessage("again")]}, config)
        state = (await agent.aget_state(config)).values
        pins = [m for m in state["messages"] if "Compare the quoted unit price" in m.text]
        assert len(pins) == 1
        seen[ours] = model.seen
    # The model saw the request, then the skill's body, in both the first and second run.
    assert seen[True] == seen[False]
    assert seen[True][0][0] == "human:请按技能核对报价"
    assert "Compare the quoted unit price" in seen[True][0][1]


async def test_no_pin_no_extra_message_and_unknown_names_are_skipped(tmp_path: Path) -> None:
    agent, model = _agent(tmp_path, ours=True)
    await agent.ainvoke(
        {"messages": [HumanMessage("hello")], "pinned_skills": ["no-such-skill"]}, thread()
    )
    assert model.seen[0] == ["human:hello"]


def test_it_is_deepagents_skills_middleware_by_name(tmp_path: Path) -> None:
    layer = skills_layer(_backend(tmp_path), ["/skills/"])
    assert isinstance(layer, SkillsMiddleware) and layer.name == "SkillsMiddleware"
