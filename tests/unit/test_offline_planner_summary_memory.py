"""Summarisation and memory-extraction policies: bounded, labelled, read the ERP's names."""

from __future__ import annotations

import json

from langchain_core.messages import HumanMessage

from graphs.messages import parse_json
from graphs.offline import LABEL, MARKS, OfflinePlanner


def test_summary_is_a_bounded_labelled_digest_keeping_the_requests() -> None:
    history = "\n".join(
        ["human: 帮我对链条做供应商比价分析"] + [f"tool: row {i} " + "x" * 80 for i in range(500)]
    )
    reply = OfflinePlanner(policy="summary").invoke([HumanMessage(content=history)])
    text = str(reply.content)
    assert text.startswith(MARKS[True]) and reply.response_metadata["policy"] == "summary"
    assert reply.response_metadata["offline_label"] == LABEL
    assert "帮我对链条做供应商比价分析" in text
    assert len(text) < 3000


def memory_prompt(conversation: str) -> str:
    known = [{"code": "DID", "name_zh": "大同工业 DID", "name_en": "Daido Kogyo D.I.D"},
             {"code": "KMC", "name_zh": "桂盟", "name_en": "KMC Chain"}]  # fmt: skip
    return (
        f"KNOWN_SUPPLIERS: {json.dumps(known, ensure_ascii=False)}\nCONVERSATION:\n{conversation}"
    )


def test_memory_extracts_known_suppliers_and_the_query() -> None:
    prompt = memory_prompt("human: 比较一下桂盟和 DID 的链条报价\nai: 好的")
    reply = OfflinePlanner(policy="memory").invoke([HumanMessage(content=prompt)])
    data = parse_json(str(reply.content))
    assert data == {"suppliers": ["大同工业 DID", "桂盟"], "query": "比较一下桂盟和 DID 的链条报价"}


def test_small_talk_changes_nothing() -> None:
    reply = OfflinePlanner(policy="memory").invoke([HumanMessage(content=memory_prompt(
        "human: 你好，桂盟在吗\nai: 你好"))])  # fmt: skip
    assert parse_json(str(reply.content)) == {"suppliers": [], "query": None}
