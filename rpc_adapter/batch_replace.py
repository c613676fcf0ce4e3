"""Batch-replace: learn a part-number rewrite from one example pair, apply it to many.

``{old, new, tasks}`` → ``{results: [{original, replaced, method, ...}]}``.
The example pair is split into tokens (letter runs, numbers, separators) and
diffed; each task is aligned token by token with ``old``. Where the tokens the
example changes are literally present in the task, the rewrite is applied and
the task's own numbers, units and separators that differ from the example are
carried over (``method="rule"``). Where the example's changed tokens are absent
the task is left as it is (``method="no_match"``). Where they are present but
with other values (the rule cannot say what a different number becomes), a
model is asked if one is configured (``method="model"``), otherwise the task is
returned unchanged with ``method="ambiguous"`` and the reason.
"""

from __future__ import annotations

import difflib
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, Field

__all__ = [
    "BatchReplaceRequest",
    "Rewrite",
    "Rule",
    "batch_replace",
    "infer_rule",
]

logger = logging.getLogger(__name__)

Method = Literal["rule", "model", "no_match", "ambiguous"]
ModelRewriter = Callable[[str, str, str], Awaitable[str | None]]

_TOKEN = re.compile(r"\d+(?:\.\d+)?|[A-Za-z]+|\s+|[^\sA-Za-z\d]")


class BatchReplaceRequest(BaseModel):
    """Body of ``POST /api/batch-replace``."""

    old: str = Field(min_length=1, max_length=200, description="Example before the rewrite.")
    new: str = Field(max_length=200, description="The same example after the rewrite.")
    tasks: list[str] = Field(max_length=1000, description="Strings to rewrite the same way.")


@dataclass(frozen=True)
class Rewrite:
    """One task's outcome."""

    original: str
    replaced: str
    method: Method
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        """The wire form of the result."""
        out: dict[str, Any] = {
            "original": self.original,
            "replaced": self.replaced,
            "method": self.method,
        }
        if self.reason:
            out["reason"] = self.reason
        return out


def tokenize(text: str) -> list[str]:
    """Letter runs, numbers (with decimals), whitespace runs and single other characters."""
    return _TOKEN.findall(text)


def _kind(token: str) -> str:
    if token[0].isdigit():
        return "N"
    if token.isascii() and token.isalpha():
        return "A"
    return "S"  # whitespace and punctuation both act as separators


def _key(token: str) -> str:
    return token.lower()


@dataclass
class _Group:
    """Old tokens ``start:end`` become ``new`` (an insertion when start == end)."""

    start: int
    end: int
    new: list[str]


@dataclass
class Rule:
    """The edit script that turns ``old`` into ``new``, token by token."""

    old: list[str]
    new: list[str]
    groups: list[_Group] = field(default_factory=list)

    def group_at(self, i: int) -> _Group | None:
        """The replacement/deletion group covering old token ``i``, if any."""
        return next((g for g in self.groups if g.start <= i < g.end), None)


def infer_rule(old: str, new: str) -> Rule:
    """Diff the example pair into replacement, deletion and insertion groups."""
    a, b = tokenize(old), tokenize(new)
    sm = difflib.SequenceMatcher(None, [_key(t) for t in a], [_key(t) for t in b], autojunk=False)
    groups = [_Group(i1, i2, b[j1:j2]) for op, i1, i2, j1, j2 in sm.get_opcodes() if op != "equal"]
    return Rule(old=a, new=b, groups=groups)


def _align(old: list[str], task: list[str]) -> dict[int, int]:
    """Map old token index → task token index (same text, or same kind in a like-sized block)."""
    sm = difflib.SequenceMatcher(
        None, [_key(t) for t in old], [_key(t) for t in task], autojunk=False
    )
    mapping: dict[int, int] = {}
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal" or (
            op == "replace"
            and i2 - i1 == j2 - j1
            and all(
                _kind(old[i]) == _kind(task[j])
                for i, j in zip(range(i1, i2), range(j1, j2), strict=True)
            )
        ):
            mapping.update(zip(range(i1, i2), range(j1, j2), strict=True))
    return mapping


def apply_rule(rule: Rule, task: str) -> Rewrite:
    """Apply ``rule`` to ``task`` deterministically, or say why it cannot."""
    if not rule.groups:
        return Rewrite(task, task, "rule", "the example pair is identical")
    toks = tokenize(task)
    mapping = _align(rule.old, toks)
    present, absent, differing = [], [], []
    for g in rule.groups:
        if g.start == g.end:
            continue
        idx = [mapping.get(i) for i in range(g.start, g.end)]
        if all(j is None for j in idx):
            absent.append(g)
        elif any(
            j is None or _key(toks[j]) != _key(rule.old[i])
            for i, j in zip(range(g.start, g.end), idx, strict=True)
        ):
            differing.append(g)
        else:
            present.append(g)
    changing = [g for g in rule.groups if g.start != g.end]
    if changing and not present and not differing:
        return Rewrite(task, task, "no_match", "the part the example changes is not in this task")
    if differing or absent:
        changed = " ".join("".join(rule.old[g.start : g.end]) for g in differing + absent)
        return Rewrite(
            task,
            task,
            "ambiguous",
            f"this task has other values where the example changes {changed!r}",
        )
    inv = {j: i for i, j in mapping.items()}
    inserts = {g.start: g.new for g in rule.groups if g.start == g.end}
    out: list[str] = []
    emitted: set[int] = set()
    for j, tok in enumerate(toks):
        i = inv.get(j)
        if i is None:
            out.append(tok)
            continue
        if i in inserts and i not in emitted:
            out.extend(inserts[i])
            emitted.add(i)
        grp = rule.group_at(i)
        if grp is None:
            out.append(tok)
        elif i == grp.start:
            out.extend(grp.new)
    end = len(rule.old)
    if end in inserts and (end - 1) in mapping:
        out.extend(inserts[end])
    return Rewrite(task, "".join(out), "rule")


async def batch_replace(
    req: BatchReplaceRequest, *, model: ModelRewriter | None = None
) -> list[Rewrite]:
    """Rewrite every task like the example; ask ``model`` only for the ambiguous ones."""
    rule = infer_rule(req.old, req.new)
    results: list[Rewrite] = []
    for task in req.tasks:
        r = apply_rule(rule, task)
        if r.method == "ambiguous" and model is not None:
            try:
                answer = await model(req.old, req.new, task)
            except Exception:
                logger.exception("batch-replace: the model failed; keeping the task unchanged")
                answer = None
            if answer:
                r = Rewrite(task, answer.strip(), "model", r.reason)
        results.append(r)
    return results
