"""Snapshots of the agents' prompts and tool descriptions (CONVENTIONS 7).

A prompt change must be deliberate: update the digest here in the same commit, after
reading the new text. The size bounds keep the fixed per-call overhead small.
"""

from __future__ import annotations

import hashlib
from datetime import date

import pytest
import yaml

from graphs import prompts
from graphs.tools.order_info import REQUEST_ORDER_INFO_DESCRIPTION
from subagents.loader import SUBAGENTS_DIR

ORDER_PROMPT = yaml.safe_load((SUBAGENTS_DIR / "procurement_order.yaml").read_text("utf-8"))[
    "system_prompt"
]

SNAPSHOTS = {
    "ORCHESTRATOR_PROMPT": (prompts.ORCHESTRATOR_PROMPT, "5802bd56c7d4756e", 1200),
    "ANALYST_PROMPT": (prompts.ANALYST_PROMPT, "bc1e60f7fcb1276d", 1200),
    "DELEGATION_TEMPLATE": (prompts.DELEGATION_TEMPLATE, "889e8314a08be61b", 200),
    "REQUEST_ORDER_INFO_DESCRIPTION": (REQUEST_ORDER_INFO_DESCRIPTION, "d6d72456daf4c736", 400),
    "PLAN_SUBSTITUTION_DESCRIPTION": (
        prompts.PLAN_SUBSTITUTION_DESCRIPTION,
        "ad4873d126f5d2cf",
        850,
    ),
    "APPLY_SUBSTITUTION_DESCRIPTION": (
        prompts.APPLY_SUBSTITUTION_DESCRIPTION,
        "0af8eba13a1c2e60",
        400,
    ),
    "procurement_order.yaml system_prompt": (ORDER_PROMPT, "c3a36c7a17696568", 1000),
}


@pytest.mark.parametrize("name", sorted(SNAPSHOTS))
def test_prompt_snapshot(name: str) -> None:
    text, digest, max_chars = SNAPSHOTS[name]
    assert hashlib.sha256(text.encode("utf-8")).hexdigest()[:16] == digest, (
        f"{name} changed; if on purpose, update its digest. New text:\n{text}"
    )
    assert len(text) <= max_chars


def test_prompts_format_with_todays_date() -> None:
    today = date.today().isoformat()
    assert today in prompts.ORCHESTRATOR_PROMPT.format(today=today)
    assert "/memories/{user_id}/preferences.md" in prompts.ORCHESTRATOR_PROMPT.format(today=today)
    analyst = prompts.ANALYST_PROMPT.format(today=today, sites="http://shops.example")
    assert "/reports/{user_id}/" in analyst and "http://shops.example" in analyst
    for section in (
        "【任务目标】",
        "【用户偏好】",
        "【分析需求正文】",
        "【分析范围】",
        "【输出要求】",
    ):
        assert section in prompts.DELEGATION_TEMPLATE
