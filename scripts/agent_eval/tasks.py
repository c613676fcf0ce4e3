"""Task files: what a buyer says and decides, and what must be true afterwards.

One YAML file holds a list of tasks::

    - id: create-missing-quantity
      family: order_create            # analysis | order_create | order_change | order_cancel
                                      # | order_lookup | inventory | clarification | refusal
                                      # | out_of_scope
      turns: ["给NGK下个IU7的单，下周五前到货"]
      answers: [{quantity: 300}]      # resume values for the agent's questions, in order
      decisions: [approve]            # approve | reject | {edit: {field: value}} per approval
      expect: {...}                   # see scripts/agent_eval/checks.py

Expectations name ERP facts, never their values: ``latest_of: KMC`` is whatever order of
KMC is newest when the attempt starts, ``due: next friday`` is counted from the day the
check runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = ["FAMILIES", "TASKS_DIR", "Task", "load_tasks"]

TASKS_DIR = Path(__file__).resolve().parent / "tasks"
FAMILIES = (
    "analysis", "order_create", "order_change", "order_cancel", "order_lookup", "inventory",
    "clarification", "refusal", "out_of_scope",
)  # fmt: skip


@dataclass(frozen=True)
class Task:
    """One task: the buyer's side of a conversation and what must hold afterwards."""

    id: str
    family: str
    turns: list[str]
    answers: list[Any] = field(default_factory=list)
    decisions: list[Any] = field(default_factory=list)
    expect: dict[str, Any] = field(default_factory=dict)


def _task(raw: dict[str, Any], source: Path) -> Task:
    missing = {"id", "family", "turns"} - set(raw)
    if missing:
        msg = f"{source}: task {raw.get('id', '?')} lacks {sorted(missing)}"
        raise ValueError(msg)
    if raw["family"] not in FAMILIES:
        msg = f"{source}: task {raw['id']}: unknown family {raw['family']!r}; use one of {FAMILIES}"
        raise ValueError(msg)
    turns = raw["turns"] if isinstance(raw["turns"], list) else [raw["turns"]]
    return Task(
        id=str(raw["id"]),
        family=str(raw["family"]),
        turns=[str(t) for t in turns],
        answers=list(raw.get("answers") or []),
        decisions=list(raw.get("decisions") or []),
        expect=dict(raw.get("expect") or {}),
    )


def load_tasks(paths: list[Path] | None = None, only: list[str] | None = None) -> list[Task]:
    """Every task of the files (default: ``tasks/*.yaml``), filtered by id or family."""
    files = paths or sorted(TASKS_DIR.glob("*.yaml"))
    tasks: list[Task] = []
    seen: set[str] = set()
    for path in files:
        for raw in yaml.safe_load(path.read_text(encoding="utf-8")) or []:
            task = _task(raw, path)
            if task.id in seen:
                msg = f"{path}: task id {task.id} is used twice"
                raise ValueError(msg)
            seen.add(task.id)
            tasks.append(task)
    if only:
        tasks = [t for t in tasks if t.id in only or t.family in only]
    return tasks
