"""The buyer's language, read from the conversation's human messages.

An order agent's conversation starts with the orchestrator's delegation message, whose
section headers (【任务目标】...) are Chinese whatever the buyer wrote; the buyer's own
words are its 【需求正文】/【分析需求正文】 section. The newest human message with
letters in it decides, by its sentence structure (:func:`is_chinese`): "order 500 IU7 from
重庆摩配" is English, "NGK IU7 x 200，月底前到货" Chinese. The offline planner answers by
the same rule, so its reply and the approval card share a language.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain_core.messages import BaseMessage, HumanMessage

from graphs.messages import is_notification, message_text
from graphs.orders.words import Lang

__all__ = ["buyer_language", "is_chinese", "language_of"]

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
# Characters that only Chinese sentence structure uses (particles, measure words, verbs of
# asking): a message with English words around them is still Chinese.
_ZH_STRUCTURE = re.compile(
    r"[的了吗呢吧个给把帮请要是在和一下哪些么从向跟找订买查改删取消比分析看做还有多少]"
)


def is_chinese(text: str) -> bool:
    """Whether ``text`` is a Chinese sentence: it has Chinese function words, or more runs
    of Chinese characters than English words. "order 500 IU7 from 重庆摩配" (an English
    sentence naming a Chinese company) is English, "帮我 compare 一下 brake pads 的价格"
    Chinese. Codes, brands in capitals and model numbers ("NGK", "IU7", "x 200") are the
    same in both languages and do not count as English words."""
    if not _CJK.search(text):
        return False
    if _ZH_STRUCTURE.search(text):
        return True
    runs = re.findall(_CJK.pattern + "+", text)
    words = [
        w for w in re.findall(r"[A-Za-z][A-Za-z0-9-]*", text)
        if len(w) > 1 and not w.isupper() and not any(c.isdigit() for c in w)
    ]  # fmt: skip
    return len(runs) >= len(words)


_LETTER = re.compile(r"[A-Za-z\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_BODY = re.compile(r"【(?:分析)?需求正文】(.*?)(?=【[^】]+】|\Z)", re.S)
_HEADER = re.compile(r"【[^】]+】")


def language_of(text: str) -> Lang | None:
    """``zh`` / ``en`` for a text with letters in it, None for one without (``"200"``)."""
    body = _BODY.search(text)
    words = body.group(1) if body else _HEADER.sub(" ", text)
    if not _LETTER.search(words):
        return None
    return "zh" if is_chinese(words) else "en"


def buyer_language(messages: Sequence[BaseMessage], default: Lang = "zh") -> Lang:
    """The language of the newest human message that has words (not a task notification)."""
    for message in reversed(messages):
        if isinstance(message, HumanMessage) and not is_notification(message):
            found = language_of(message_text(message))
            if found is not None:
                return found
    return default
