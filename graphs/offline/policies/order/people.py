"""Who asked for (or approved) the orders, when a buyer names them ("what did Zhang Wei order
last month?", "张伟上个月下了哪些单", "li.na 的订单", "陈静批了哪些单").

The ERP knows its people only as user ids ("zhang.wei"). A message that seems to name a
person (a user id, two capitalised words, or a Chinese name: a common family name and one
or two characters) has the ERP list its requesters, or its approvers when the message is
about approving, once (``order_summary`` by requester or approver); a name matches an id
when their letters agree (pinyin for Chinese: 张伟 → zhangwei, either order for Latin: "Wei
Zhang"). No match, no filter, unless a person was surely named: then that nobody in that
role has the name is said.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from pypinyin import lazy_pinyin

from graphs.offline.entities import Grounding
from graphs.offline.policies.base import Decision
from graphs.offline.policies.order.facts import Facts

__all__ = ["Person", "me", "person"]

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
# Who approved, not who asked ("陈静批了哪些单", "what did Chen Jing approve?", "orders approved
# by Chen Jing").
_APPROVED = re.compile(
    r"批了|批准了|批过|批的|审批了|审批过|审批的|(?<![a-z])approv(?:e|ed|es)\b", re.I
)


# The buyer themself ("我上个月下了几张单", "我的订单", "my orders", "what did I order last
# month?", "orders I placed", "我批的单"): the signed-in user, as the ERP records them. "我们"
# is the company, "帮我下的单" somebody's help.
_ME = re.compile(
    r"(?<![帮给替让叫和跟与])我(?!们)(?:自己)?(?:这个月|上个月|上周|这周|本周|今年|去年|本月|最近|之前|"
    r"以前|刚才|刚|上次)?(?:下的|订的|买的|申请的|提的|下了|订了|买了|申请了|提了|花了|批的|批了|批准的|"
    r"批准了|审批的|审批了|批过|的?(?:那|这)?(?:一)?(?:张|个|笔)?(?:订单|单子|单|采购单))"
    r"|(?<![a-z])my(?:\s+[\w-]+){0,2}?\s+(?:orders?|pos?|purchase\s+orders?|spend(?:ing)?)(?![a-z])"
    r"|(?<![a-z])(?:did|have|had)\s+i\s+(?:\w+\s+)?(?:order|place|buy|purchas|approv|spen[dt])\w*"
    r"|(?<![a-z])(?:orders?|pos?)\s+(?:that\s+)?i\s+(?:placed|made|raised|ordered|approved|created)"
    r"(?![a-z])|(?<![a-z])i\s+(?:ordered|placed|raised|approved|spent|bought)(?![a-z])",
    re.I,
)
# Who the run is for, as ContextInjection tells the model.
_CURRENT_USER = re.compile(r"user_id=([^,;\s]+)")


@dataclass(frozen=True)
class Person:
    """Who the orders are narrowed to: an order field (``requested_by``, ``approved_by``) and
    the ERP's user id."""

    field: str
    user: str

    def said(self, zh: bool) -> str:
        """ "申请人 zhang.wei", "approved by chen.jing"."""
        if self.field == "approved_by":
            return f"批准人 {self.user}" if zh else f"approved by {self.user}"
        return f"申请人 {self.user}" if zh else f"requested by {self.user}"


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


# A person surely named ("what did Liu Yang order", "orders by Liu Yang", "Liu Yang's orders",
# "liu.yang 的订单", "刘洋下了哪些单"): a name no requester has is said, never answered with
# everybody's orders as if they were that person's.
_SURELY = re.compile(
    r"(?:\b(?:did|by|for)\s+)([A-Z][a-z]{1,15}\s+[A-Z][a-z]{1,15})\b"
    r"|\b([A-Z][a-z]{1,15}\s+[A-Z][a-z]{1,15})['’]s\b"
    rf"|{_USER_ID.pattern}"
    rf"|^\s*([{_SURNAMES}][\u4e00-\u9fff]{{1,2}}?)(?:这个月|上个月|今年|去年|本月|最近)?"
    r"(?:下了|订了|买了|花了|申请了|提了|的订单|的单|批了|批准了|批过|审批了|审批过|审批的)"
)


def _surely_named(text: str, found: Grounding) -> str | None:
    named = {m.term.lower() for m in (*found.suppliers, *found.parts, *found.categories)}
    for m in _SURELY.finditer(text):
        name = next(g for g in m.groups() if g)
        if name.lower() not in named and "." + name.split(".")[-1].lower() not in _FILE_ENDS:
            return name
    return None


# "report.pdf", "notes.md": a file, not a user id.
_FILE_ENDS = {".pdf", ".md", ".csv", ".xlsx", ".xls", ".txt", ".png", ".html", ".json", ".doc"}


def me(facts: Facts) -> Person | None:
    """The signed-in buyer when the message is about their own orders ("我上个月下了几张单",
    "cancel my last order"), as requester or approver; None when it is not, or when the run
    has no user (every order then, as before)."""
    if _ME.search(facts.body) is None:
        return None
    user = _CURRENT_USER.search(facts.view.system)
    if user is None:
        return None
    return Person("approved_by" if _APPROVED.search(facts.body) else "requested_by", user[1])


def person(facts: Facts, found: Grounding) -> Person | Decision | None:
    """The requester (or, when the message is about approving, the approver) it names (the
    buyer themself: :func:`me`), the ERP read that lists them, the answer that nobody in
    that role has the name a person was surely called by, or None (no one named, or nobody
    of a name that may not be a person's)."""
    mine = me(facts)
    if mine is not None:
        return mine
    keys = _keys(facts.body, found)
    if not keys:
        return None
    approver = _APPROVED.search(facts.body) is not None
    role = facts.say("批准人", "approver") if approver else facts.say("申请人", "requester")
    ask = {"group_by": "approver" if approver else "requester"}
    data = facts.read("order_summary", ask)
    if data is None:
        return Decision(facts.say(f"查找{role}。", f"Looking up the ERP's {role}s."),
                        [("order_summary", ask)], note="people-read")  # fmt: skip
    groups: list[Any] = (data.get("groups") if isinstance(data, dict) else None) or []
    users = [str(g.get("key") or "") for g in groups if isinstance(g, dict)]
    for user in users:
        if user and re.sub(r"[._\s-]", "", user.lower()) in keys:
            return Person("approved_by" if approver else "requested_by", user)
    name = _surely_named(facts.body, found)
    if name is None:
        return None
    known = ("、" if facts.zh else ", ").join(u for u in users if u)
    return Decision(
        facts.say(f"ERP 里没有叫“{name}”的{role}（订单上的{role}：{known}），没有按这个名字查。"
                  "请告诉我是其中哪一位。",
                  f'No {role} in the ERP is called "{name}" (the {role}s on its orders: '
                  f"{known}), so nothing was looked up by that name. Which of them do you mean?"),
        note="person-unknown",
    )  # fmt: skip
