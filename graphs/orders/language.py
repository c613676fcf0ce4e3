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


# An English word: lower-case letters ("order", "from", "ok"). Codes, model numbers, order
# numbers and capitalised names ("NGK", "C8HSA", "PO2026…", "Bosch") are the same in both
# languages: a message of only those ("NGK 200", "C8HSA") says nothing of its language.
_ENGLISH_WORD = re.compile(r"(?<![A-Za-z])[a-z][a-z']+(?![A-Za-z])")


def _signal(words: str) -> Lang | None:
    if _CJK.search(words):
        return "zh" if is_chinese(words) else "en"
    return "en" if _ENGLISH_WORD.search(words) else None


def language_of(text: str) -> Lang | None:
    """``zh`` / ``en`` for a text written in a language, None for one that only names things
    or counts them (``"200"``, ``"NGK 200"``, ``"PO20261100598"``).

    In a delegation message the buyer's words (【需求正文】) decide; when they say nothing of
    their language, the orchestrator's own words around them (written in the buyer's
    language of the conversation) do."""
    body = _BODY.search(text)
    found = _signal(body.group(1) if body else _HEADER.sub(" ", text))
    if found is None and body:
        around = _HEADER.sub(" ", text[: body.start()] + " " + text[body.end() :])
        found = _signal(re.sub(r"\{.*?\}", " ", around, flags=re.S))
    return found


def buyer_language(messages: Sequence[BaseMessage], default: Lang = "zh") -> Lang:
    """The language of the newest human message written in one (not a task notification):
    a message that only names things ("NGK 200") is answered in the conversation's. A
    conversation with no such message: English for one without Chinese characters ("C8HSA"),
    else ``default``."""
    newest: str | None = None
    for message in reversed(messages):
        if isinstance(message, HumanMessage) and not is_notification(message):
            text = message_text(message)
            newest = text if newest is None else newest
            found = language_of(text)
            if found is not None:
                return found
    if newest is not None and _LETTER.search(newest) and not _CJK.search(newest):
        return "en"
    return default
