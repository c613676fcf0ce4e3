"""Who asked for the orders, when a buyer names them ("what did Zhang Wei order last month?",
"张伟上个月下了哪些单", "li.na 的订单", "how much did Wang Qiang spend this year?").

The ERP knows its requesters only as user ids ("zhang.wei"). A message that seems to name
a person (a user id, two capitalised words, or a Chinese name: a common family name and one
or two characters) has the ERP list its requesters once (``order_summary`` by requester);
a name matches an id when their letters agree (pinyin for Chinese: 张伟 → zhangwei, either
order for Latin: "Wei Zhang"). No match, no filter: the question is answered as before.
"""

from __future__ import annotations

import re
from typing import Any

from pypinyin import lazy_pinyin

from graphs.offline.entities import Grounding
from graphs.offline.policies.base import Decision
from graphs.offline.policies.order.facts import Facts

__all__ = ["requester"]

_USER_ID = re.compile(r"(?<![\w.@/])([a-z]{2,}[._][a-z]{2,})(?![\w@/.])", re.I)
_LATIN = re.compile(r"(?<![A-Za-z])([A-Z][a-z]{1,15})\s+([A-Z][a-z]{1,15})(?![A-Za-z])")
# The most common family names (about nine in ten people in China carry one of them).
_SURNAMES = (
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程"
    "苏魏吕丁任沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝"
    "龚邵万钱严覃武戴莫孔向汤"
)
# A family name starting a name, not a measure word ("这张单", "两张", "三张", "哪张").
_ZH_NAME = re.compile(
    rf"(?<![这那一二三四五六七八九十百几两哪每某多整\d])[{_SURNAMES}][\u4e00-\u9fff]{{1,2}}"
)
_ASK = {"group_by": "requester"}


def _keys(text: str, found: Grounding) -> set[str]:
    """The letters of every name ``text`` may hold (lower case, no separators)."""
    named = " ".join(m.term for m in (*found.suppliers, *found.parts, *found.categories))
    keys = {re.sub(r"[._]", "", m.group(1).lower()) for m in _USER_ID.finditer(text)}
    for first, last in _LATIN.findall(text):
        if f"{first} {last}" not in named:
            keys |= {(first + last).lower(), (last + first).lower()}
    for m in _ZH_NAME.finditer(text):
        name = m.group(0)
        if name in named:
            continue
        for size in (2, 3):  # "张伟上个月": 张伟 and 张伟上
            if len(name) >= size:
                keys.add("".join(lazy_pinyin(name[:size])).lower())
    return keys


def requester(facts: Facts, found: Grounding) -> str | Decision | None:
    """The user id of the requester the message names, the ERP read that lists them, or
    None (no one named, or no requester of that name)."""
    keys = _keys(facts.body, found)
    if not keys:
        return None
    data = facts.read("order_summary", _ASK)
    if data is None:
        return Decision(facts.say("查找申请人。", "Looking up who asks for orders."),
                        [("order_summary", dict(_ASK))], note="requesters-read")  # fmt: skip
    groups: list[Any] = (data.get("groups") if isinstance(data, dict) else None) or []
    for group in groups:
        user = str(group.get("key") or "") if isinstance(group, dict) else ""
        if user and re.sub(r"[._\s-]", "", user.lower()) in keys:
            return user
    return None
