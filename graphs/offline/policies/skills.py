"""Orchestrator sub-policy: skill management, which DESIGN 4 leaves to the orchestrator itself.

The triggers are structure and the tool's own data, never phrasings:

- the request carries a SKILL.md (YAML front matter with a valid ``name`` and a
  ``description``, bare or in a fenced block) → ``assign_skill`` create, then test, then,
  when the test passes, assign to the agent the request names outside the document (by
  its id or its Chinese name), the orchestrator when it names none;
- a request about skills (a skills keyword, ahead of any analysis or order keyword, as the
  keyword classes rank them) with a removal word → list, then
  remove each listed skill of the user's that the request names, from the agent it is
  assigned to (only the named agent's, when one is named);
- any other request about skills with a listing word → list, and show it.

Every step's result goes back to the user as the tool wrote it; a failed step ends the
chain there and says so.
"""

from __future__ import annotations

import re

from graphs.offline.history import ToolResult, View
from graphs.offline.lexicon import first_routing_word
from graphs.offline.policies.base import Decision, say
from graphs.tools.skills import front_matter, is_skill_name

__all__ = ["AGENT_NAMES", "after_result", "skill_document", "start"]

TOOL = "assign_skill"

AGENT_NAMES: dict[str, tuple[str, ...]] = {
    "procurement-order": ("procurement-order", "订单代理", "订单子代理", "order agent"),
    "analyst": ("analyst", "分析师", "分析代理"),
    "orchestrator": ("orchestrator", "主代理", "主助手"),
}
"""How a request may name each agent (its id, or its Chinese name)."""

_SKILL_WORDS = re.compile(r"技能|\bskills?\b|SKILL\.md", re.I)
_REMOVE_WORDS = re.compile(r"删除|移除|去掉|卸载|\bremove\b|\bunassign\b|\bdelete\b|\bdrop\b", re.I)
_LIST_WORDS = re.compile(r"列出|列表|哪些|查看|看看|\blist\b|\bshow\b|\bwhich\b|\bwhat\b", re.I)
_FENCE = re.compile(r"```[\w-]*[ \t]*\n(.*?)```", re.S)
_FRONT_START = re.compile(r"^---[ \t]*$", re.M)
_LISTED = re.compile(r"^- ([a-z0-9][a-z0-9-]*) → (\S+)$", re.M)


def skill_document(text: str) -> tuple[str, str, str] | None:
    """``(name, SKILL.md text, the request without it)`` when ``text`` carries a SKILL.md."""
    chunks = [(m.group(1), m.start(), m.end()) for m in _FENCE.finditer(text)]
    chunks.append((text, 0, len(text)))
    for chunk, start, end in chunks:
        opening = _FRONT_START.search(chunk)
        if opening is None:
            continue
        document = chunk[opening.start() :].strip() + "\n"
        meta = front_matter(document)
        if meta is None or not is_skill_name(meta.get("name")):
            continue
        description = meta.get("description")
        if not isinstance(description, str) or not description.strip():
            continue
        # What the user wrote around the document (where an agent may be named).
        rest = text[:start] + text[end:] if chunk is not text else text[: opening.start()]
        return str(meta["name"]), document, rest
    return None


def _names(text: str, word: str) -> bool:
    """Whether ``text`` contains ``word`` as a whole word (Chinese needs no spaces around
    it, so only ASCII letters, digits and '-' count as joined to it)."""
    return re.search(rf"(?<![A-Za-z0-9-]){re.escape(word)}(?![A-Za-z0-9-])", text, re.I) is not None


def named_agents(text: str) -> list[str]:
    """The agents ``text`` names, in :data:`AGENT_NAMES` order."""
    return [agent for agent, names in AGENT_NAMES.items() if any(_names(text, n) for n in names)]


def _intent(view: View) -> str | None:
    if skill_document(view.request) is not None:
        return "create"
    skill_word = _SKILL_WORDS.search(view.request)
    if skill_word is None:
        return None
    # As with the keyword classes, the earlier word wins: "compare suppliers using my skills"
    # is an analysis, "remove my skill from the analyst" is about skills.
    # An agent's name ("订单代理") is not an order word.
    text = view.request
    for names in AGENT_NAMES.values():
        for name in names:
            text = re.sub(re.escape(name), lambda m: " " * len(m.group(0)), text, flags=re.I)
    routing = first_routing_word(text)
    if routing is not None and routing < skill_word.start():
        return None
    if _REMOVE_WORDS.search(view.request):
        return "remove"
    if _LIST_WORDS.search(view.request):
        return "list"
    return None


def start(view: View, zh: bool) -> Decision | None:
    """The first step for a skill-management request, or None when the request is not one."""
    if not view.has_tool(TOOL):
        return None
    found = skill_document(view.request)
    if found is not None:
        name, document, _ = found
        return Decision(
            say(zh, f"创建技能草稿 {name}。", f"Creating the draft skill {name}."),
            [(TOOL, {"action": "create", "name": name, "content": document})],
            note="skill-create",
        )
    intent = _intent(view)
    if intent in ("remove", "list"):
        return Decision(
            say(zh, "查看你的技能。", "Looking up your skills."),
            [(TOOL, {"action": "list"})],
            note=f"skill-{intent}-list",
        )
    return None


def _failed(result: ToolResult, zh: bool, step: str) -> Decision:
    return Decision(
        say(
            zh,
            f"技能{step}没有成功，未做后续步骤：\n{result.body}",
            f"The skill {step} did not succeed; nothing further was done:\n{result.body}",
        ),
        note="skill-failed",
    )


def _removals(view: View, listing: str) -> list[tuple[str, str]]:
    """``(skill, agent)`` pairs of the listing the request names (its agents, if any)."""
    agents = named_agents(view.request)
    assigned = _LISTED.findall(listing.split("Drafts in", 1)[0])
    return [
        (skill, agent)
        for skill, agent in assigned
        if _names(view.request, skill) and (not agents or agent in agents)
    ]


def after_result(view: View, zh: bool) -> Decision:
    """The next step once an ``assign_skill`` call has answered."""
    turn = [r for r in view.last_turn() if r.name == TOOL] or [view.called(TOOL)[-1]]
    last = turn[-1]
    action = str(last.args.get("action", ""))
    name = str(last.args.get("name", ""))
    if action == "create":
        if not last.ok:
            return _failed(last, zh, say(zh, "创建", "creation"))
        return Decision(
            say(zh, f"测试技能 {name}。", f"Testing the skill {name}."),
            [(TOOL, {"action": "test", "name": name})],
            note="skill-test",
        )
    if action == "test":
        if not last.ok or "Result: passed" not in last.body:
            return _failed(last, zh, say(zh, "测试", "test"))
        found = skill_document(view.request)
        agents = named_agents(found[2] if found else view.request)
        agent = agents[0] if agents else "orchestrator"
        return Decision(
            say(zh, f"测试通过，分配给 {agent}。", f"Test passed; assigning it to {agent}."),
            [(TOOL, {"action": "assign", "name": name, "agent": agent})],
            note="skill-assign",
        )
    if action == "list" and _intent(view) == "remove":
        if not last.ok:
            return _failed(last, zh, say(zh, "查询", "lookup"))
        pairs = _removals(view, last.body)
        if not pairs:
            return Decision(
                say(
                    zh,
                    f"请求里没有点名你已分配的技能，没有删除任何技能。你的技能：\n{last.body}",
                    f"The request names none of your assigned skills; nothing was removed. "
                    f"Your skills:\n{last.body}",
                ),
                note="skill-remove-none",
            )
        return Decision(
            say(zh, "删除技能。", "Removing the skill."),
            [(TOOL, {"action": "remove", "name": s, "agent": a}) for s, a in pairs],
            note="skill-remove",
        )
    body = "\n".join(r.body for r in turn)
    done = all(r.ok for r in turn)
    head = (
        say(zh, "你的技能：", "Your skills:")
        if action == "list"
        else say(zh, "技能操作完成：", "Done:")
    )
    return Decision(
        f"{head}\n{body}"
        if done
        else say(zh, f"技能操作没有全部成功：\n{body}", f"Not every step worked:\n{body}"),
        note=f"skill-{action or 'done'}",
    )
