"""The buyer's language, read from the conversation's human messages.

An order agent's conversation starts with the orchestrator's delegation message, whose
section headers (【任务目标】...) are Chinese whatever the buyer wrote; the buyer's own
words are its 【需求正文】/【分析需求正文】 section. The newest human message with
letters in it decides: Chinese if it has any CJK ideograph, else English.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage

from graphs.messages import is_notification, message_text
from graphs.orders.words import Lang

__all__ = ["buyer_language", "language_of"]

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_LETTER = re.compile(r"[A-Za-z\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_BODY = re.compile(r"【(?:分析)?需求正文】(.*?)(?=【[^】]+】|\Z)", re.S)
_HEADER = re.compile(r"【[^】]+】")


def language_of(text: str) -> Lang | None:
    """``zh`` / ``en`` for a text with letters in it, None for one without (``"200"``)."""
    body = _BODY.search(text)
    words = body.group(1) if body else _HEADER.sub(" ", text)
    if not _LETTER.search(words):
        return None
    return "zh" if _CJK.search(words) else "en"


def buyer_language(messages: Sequence[BaseMessage], default: Lang = "zh") -> Lang:
    """The language of the newest human message that has words (not a task notification)."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage) and not is_notification(message):
            found = language_of(message_text(message))
            if found is not None:
                return found
    return default
