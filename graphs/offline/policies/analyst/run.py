"""Where the analyst's files live, and what one analysis has established so far."""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from graphs.offline.history import ToolResult, View
from graphs.offline.policies.base import request_body, say
from graphs.offline.scope import Scope, read_scope
from graphs.offline.text import is_chinese, today_in

__all__ = [
    "FX_TO_CNY", "INPUT", "MAX_DETAILS", "MAX_PARTS", "PAGE", "RESULT", "SANDBOX_SCRIPT",
    "SCRIPT", "SKILLS", "SKILL_MD", "URL_MAP", "URL_MAP_DIR", "Run",
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
MAX_PARTS = 3  # parts analysed per request: the ones most suppliers offer
MAX_DETAILS = 40  # part details fetched to choose them
FX_TO_CNY = {"CNY": 1.0, "USD": 7.2}
_USER = re.compile(r"user_id=([^;,\s]+)")


class Run:
    """What this analysis has established so far, re-read from the conversation each step."""

    def __init__(self, view: View) -> None:
        self.view = view
        self.body = request_body(view.request)
        self.zh = is_chinese(self.body)
        self.today: date = today_in(view.system)
        # What the orchestrator resolved (categories, brands, window, part), if it said.
        self.scope: Scope = read_scope(view.request)
        m = _USER.search(view.system)
        self.user_id = m.group(1) if m else "anonymous"

    def say(self, chinese: str, english: str) -> str:
        """The sentence in the request's language."""
        return say(self.zh, chinese, english)

    def results(self, tool: str, **args: Any) -> list[ToolResult]:
        """Results of ``tool`` called with (at least) these arguments, oldest first."""
        return [
            r for r in self.view.called(tool) if all(r.args.get(k) == v for k, v in args.items())
        ]
