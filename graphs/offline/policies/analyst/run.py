"""Where the analyst's files live, and what one analysis has established so far."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from graphs.offline.history import ToolResult, View
from graphs.offline.policies.base import request_body, say
from graphs.offline.scope import Scope, read_scope
from graphs.offline.text import today_in
from graphs.orders.language import language_of

__all__ = [
    "DETAILS_BATCH", "FX_TO_CNY", "INPUT", "MAX_DETAILS", "MAX_PARTS", "PAGE", "RESULT",
    "SANDBOX_SCRIPT", "SCRIPT", "SKILLS", "SKILL_MD", "URL_MAP", "URL_MAP_DIR", "Paths", "Run",
]  # fmt: skip

SKILLS = "/skills/procurement/"
SKILL_MD = "/skills/procurement/procurement-analysis/SKILL.md"
SCRIPT = "/skills/procurement/procurement-analysis/scripts/analyze.py"
URL_MAP_DIR = "/skills/procurement/supplier-price-urls/data/"
URL_MAP = URL_MAP_DIR + "url_mapping.yaml"
INPUT = "/data/analysis_input.json"
RESULT = "/data/analysis_result.json"
SANDBOX_SCRIPT = "/data/analyze.py"
PAGE = 100
# Parts analysed per category when the request names none: the ones most suppliers offer.
# All of a 24-part category would need ~200 tool calls (the run's limit). Time is not the
# bound (bench_flagship: 13.3 s with six parts and the exports, 16.7 s before with three):
# every model call carries the whole thread (quote pages, orders), and with six parts one
# analysis's trace outgrew its 5 MB budget (tests/e2e/test_traces.py: 5.8 MB), as a real
# model's context would. Four keep both; the report lists the rest with the rule.
MAX_PARTS = 4
MAX_DETAILS = 40  # part details fetched to choose them
# Part details asked in one ``part_query(part_ids=...)`` call (the tool takes up to 50).
# One call per part put ~40 tool messages in the thread, which the Agent Server
# re-serialises at every later turn (issue 18: bench_analysis_ramp). Batched, the
# server's CPU per analysis fell from ~1.03 s to ~0.75 s and 16 concurrent analyses from
# ~27.4 s to ~23.7 s (2-core machine, 2026-12-04). 20 keeps each answer under the size the
# graph moves to a file (the largest seeded category's batch is ~29 kB of 40 kB).
DETAILS_BATCH = 20
FX_TO_CNY = {"CNY": 1.0, "USD": 7.2}
_USER = re.compile(r"user_id=([^;,\s]+)")
_TASK = re.compile(r"task_id=([0-9A-Za-z-]+)")


@dataclass(frozen=True)
class Paths:
    """Where one analysis's files go: named after the day and the task, never reused.

    The report's charts sit in ``charts/`` beside it, in the workspace and in the archive
    alike, so the report's relative image links work wherever it is read."""

    stem: str  # report_YYYYMMDD_<task>
    archive: str  # /reports/{user_id}/

    @property
    def report(self) -> str:
        return f"/analysis/{self.stem}.md"

    @property
    def failure(self) -> str:
        """Why the analysis could not be done (never named like a report)."""
        return f"/analysis/failed_{self.stem.removeprefix('report_')}.md"

    @property
    def archived(self) -> str:
        return f"{self.archive}{self.stem}.md"

    @property
    def index(self) -> str:
        return f"{self.archive}index.md"

    def chart(self, n: int) -> str:
        """The n-th chart's path relative to the report."""
        return f"charts/{self.stem}_{n}.png"


class Run:
    """What this analysis has established so far, re-read from the conversation each step."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.body = request_body(view.request)
        self.zh = (language_of(view.request) or "zh") == "zh"
        self.today: date = today_in(view.system)
        # What the orchestrator resolved (categories, brands, window, part), if it said.
        self.scope: Scope = read_scope(view.request)
        m = _USER.search(view.system)
        self.user_id = m.group(1) if m else "anonymous"
        task = _TASK.search(view.system)
        # The task id names the report; without one (no thread), the request stands in.
        self.task_id = (
            task.group(1)
            if task
            else hashlib.sha1(f"{self.today}{view.request}".encode()).hexdigest()
        )
        # The id's last 8 hex digits: its first ones are a timestamp (UUID v7) and repeat
        # for tasks started within a minute of each other.
        stem = f"report_{self.today.strftime('%Y%m%d')}_{self.task_id.replace('-', '')[-8:]}"
        self.paths = Paths(stem=stem, archive=f"/reports/{self.user_id}/")

    def say(self, chinese: str, english: str) -> str:
        """The sentence in the request's language."""
        return say(self.zh, chinese, english)

    def results(self, tool: str, **args: Any) -> list[ToolResult]:
        """Results of ``tool`` called with (at least) these arguments, oldest first."""
        return [
            r for r in self.view.called(tool) if all(r.args.get(k) == v for k, v in args.items())
        ]
