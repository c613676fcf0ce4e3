"""Questions about the list of suppliers, answered from the ERP's supplier records.

"哪些供应商停用了", "which of our suppliers are Japanese?", "国产的电瓶供应商有哪些", "评分最高
的5家供应商", "list our distributors", "哪些供应商卖刹车片": the suppliers that fit, each with
its code, name, kind, status, rating and country. A part category narrows the list to the
suppliers with a price valid today for a part of it (read with ``part_query``: the
category's parts, then their offers in batches). Read-only, and never a comparison: a
question that asks about prices ("哪家刹车片最便宜") stays the analysis.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from graphs.offline import lexicon
from graphs.offline.entities import Grounding
from graphs.offline.history import View
from graphs.offline.intent import Reading
from graphs.offline.policies.base import Decision, local_name, say
from graphs.offline.policies.orchestrator.erp import read_erp
from graphs.offline.policies.orchestrator.quote import current_offers
from graphs.offline.policies.orchestrator.replies import quality_note
from graphs.offline.policies.order.facts import paged
from graphs.offline.text import today_in
from graphs.orders.words import supplier_status_word

__all__ = ["supplier_directory"]

Record = dict[str, Any]
_BATCH = 20  # part ids per part_query(part_ids=...) read: the analyst's batch, kept in the thread

# A question for a list of suppliers, not about one or about prices.
_LIST = re.compile(
    r"(?:哪些|哪几家|哪几个|有几家|多少家|几家|几个|多少个|列出|列一下|所有|全部)[^，,。？?]{0,8}?"
    r"(?:供应商|厂家|厂商|经销商)"
    r"|(?:供应商|厂家|厂商|经销商)[^，,。？?]{0,6}?(?:有哪些|都有哪些|有几家|有多少家|名单|列表|清单)"
    r"|(?:评分|评级|评价)最(?:高|好)|最好的\s*\d*\s*家"
    r"|(?<![a-z])(?:which|what|list|show|all)\s+(?:of\s+)?(?:the\s+|our\s+|my\s+)?(?:\w+\s+)?"
    r"(?:suppliers|vendors|distributors|makers|manufacturers)(?![a-z])"
    r"|(?<![a-z])(?:top|best)[-\s]+(?:\d+\s+)?(?:rated\s+)?(?:suppliers|vendors)(?![a-z])"
    r"|(?<![a-z])(?:highest|best|top)[-\s]+rated(?![a-z])|(?:评分|评级|评价)\s*(?:最高|最好|前)"
    # which is best in quality ("灯泡哪个牌子质量好", "which brake pad supplier is most reliable?")
    r"|(?:哪个|哪家|哪些|什么)(?:牌子|品牌|供应商|厂家)?[^，,。？?]{0,4}?(?:质量|品质|口碑|靠谱|可靠)"
    r"|(?<![a-z])(?:which|what)\s+(?:[\w-]+\s+){0,3}?(?:brands?|suppliers?|vendors?|makers?)\b"
    r"[^.?!]{0,30}?\b(?:quality|reliable)",
    re.I,
)
_PRICES = re.compile(
    r"便宜|贵|价格|价钱|报价|比价|比较|对比|分析|划算|cheap|expensive|price|cost|compar|analy",
    re.I,
)
_COUNTRIES: tuple[tuple[str, str], ...] = (
    ("JP", r"日本|日系|japan(?:ese)?"), ("DE", r"德国|德系|german[y]?"),
    ("US", r"美国|美系|america(?:n)?|\busa\b"), ("IT", r"意大利|ital(?:y|ian)"),
    ("GB", r"英国|british|\buk\b|england"), ("TW", r"台湾|taiwan(?:ese)?"),
    ("CN", r"中国|国产|国内|本土|chin(?:a|ese)|domestic"), ("KR", r"韩国|korea(?:n)?"),
    ("HK", r"香港|hong\s*kong"),
    ("FR", r"法国|fren?ch|france"), ("TH", r"泰国|thai(?:land)?"),
    ("IN", r"印度|india(?:n)?"),
)  # fmt: skip
_STATUS = (
    ("blocked", r"停用|拉黑|黑名单|禁用|blocked|blacklist"),
    ("on_hold", r"暂停|冻结|on\s*hold|paused|suspended"),
    ("active", r"正常合作|在合作|合作中|active"),
)
_KINDS = (("maker", r"厂家|制造商|生产商|原厂|makers?|manufacturers?"),
          ("distributor", r"经销商|贸易商|代理商|distributors?|traders?|dealers?"))  # fmt: skip
_TOP = re.compile(r"(?:前|最好的|top|best)\s*(\d+|[一二三四五六七八九十])|(\d+)\s*家", re.I)


@dataclass
class _Filters:
    statuses: set[str]
    countries: set[str]
    kinds: set[str]
    foreign: bool  # "进口", "imported": every country but CN
    top: int | None  # the N best rated

    def said(self, zh: bool) -> str:
        words = [supplier_status_word(s, "zh" if zh else "en") for s in sorted(self.statuses)]
        words += [say(zh, f"国家 {c}", f"country {c}") for c in sorted(self.countries)]
        words += [say(zh, "进口", "imported")] if self.foreign else []
        kinds = {
            "maker": say(zh, "厂家", "makers"),
            "distributor": say(zh, "经销商", "distributors"),
        }
        words += [kinds[k] for k in sorted(self.kinds)]
        if self.top:
            words.append(say(zh, f"评级最高的 {self.top} 家", f"the {self.top} best rated"))
        return ("、" if zh else ", ").join(words)


def _filters(text: str) -> _Filters:
    low = text.lower()
    top = None
    if re.search(r"最(?:高|好)|highest|best|top", low) or lexicon.QUALITY.search(low):
        m = _TOP.search(text)
        raw = (m.group(1) or m.group(2)) if m else "5"
        top = int(raw) if raw.isdigit() else "一二三四五六七八九十".index(raw) + 1
    return _Filters(
        {s for s, p in _STATUS if re.search(p, low)},
        {c for c, p in _COUNTRIES if re.search(p, low)},
        {k for k, p in _KINDS if re.search(p, low)},
        lexicon.has(text, "imported"),
        top,
    )


def _line(supplier: Record, zh: bool) -> str:
    kind = {"maker": ("厂家", "maker"), "distributor": ("经销商", "distributor")}.get(
        str(supplier.get("kind")), (str(supplier.get("kind")), str(supplier.get("kind")))
    )
    status = supplier_status_word(str(supplier.get("status") or ""), "zh" if zh else "en")
    return say(
        zh,
        f"- {supplier.get('code')} {local_name(supplier, zh)}：{kind[0]}，{status}，"
        f"评级 {supplier.get('rating')}，{supplier.get('country')}",
        f"- {supplier.get('code')} {local_name(supplier, zh)}: {kind[1]}, {status}, "
        f"rating {supplier.get('rating')}, {supplier.get('country')}",
    )


Calls = list[tuple[str, dict[str, Any]]]


def _sellers(view: View, code: str, today: date) -> set[int] | Calls:
    """Ids of the suppliers with a price valid today for a part of category ``code``, or
    the reads still to make."""
    parts, more = paged(view, "part_query", category=code)
    if more is not None:
        return [("part_query", more)]
    ids = [int(p["id"]) for p in parts if p.get("id") is not None]
    offers: dict[int, Record] = {}
    for _result, data in view.iter_data("part_query"):
        for item in (data or {}).get("items") or [] if isinstance(data, dict) else []:
            if isinstance(item, dict) and "offers" in item:
                offers[int(item["id"])] = item
    missing = [i for i in ids if i not in offers]
    if missing:
        return [("part_query", {"part_ids": missing[:_BATCH]})]
    return {int(o["supplier_id"]) for item in offers.values()
            for o in current_offers(item, today) if o.get("supplier_id") is not None}  # fmt: skip


def _asks_list(view: View, reading: Reading) -> bool:
    text = view.request
    return (
        reading.intent in ("analysis", "out_of_scope", "inventory")
        and bool(_LIST.search(text))
        and not _PRICES.search(text)
        and not lexicon.has(text, "order_noun", "order_verb", "inventory")
    )


def supplier_directory(view: View, reading: Reading, zh: bool) -> Decision | None:
    """The suppliers a list question asks for (None: not such a question)."""
    if not _asks_list(view, reading):
        return None
    erp = read_erp(view, view.request, zh)
    if isinstance(erp, Decision):
        return erp
    found: Grounding = erp.ground(view.request)
    chosen = _filters(view.request)
    filtered = chosen.said(zh) != ""
    if found.parts or (found.suppliers and not found.categories and not filtered):
        return None  # about one supplier or one part: its own answer ("香港的供应商" filters)
    suppliers = list(erp.suppliers)
    scope = chosen.said(zh)
    if found.categories:
        category = found.categories[0].record
        sellers = _sellers(view, str(category.get("code")), today_in(view.system))
        if isinstance(sellers, list):
            return Decision(say(zh, "查询这类零件的报价。", "Reading the category's prices."),
                            sellers, note="directory-read")  # fmt: skip
        suppliers = [s for s in suppliers if int(s["id"]) in sellers]
        sold = say(zh, f"有{local_name(category, zh)}有效报价的", f"with prices for "
                   f"{local_name(category, zh)}")  # fmt: skip
        scope = ("，" if zh else "; ").join(w for w in (sold, scope) if w)
    suppliers = _narrowed(suppliers, chosen)
    if not suppliers:
        return Decision(say(zh, f"ERP 里没有符合条件（{scope or '全部'}）的供应商。",
                            f"No supplier in the ERP fits ({scope or 'all'})."),
                        note="directory")  # fmt: skip
    head = say(zh, f"ERP 中的供应商（{scope or '全部'}）：{len(suppliers)} 家\n",
               f"Suppliers in the ERP ({scope or 'all'}): {len(suppliers)}\n")  # fmt: skip
    tail = say(zh, "\n要看某一家的详情、报价或订单，告诉我它的名字。",
               "\nName one for its details, prices or orders.")  # fmt: skip
    if lexicon.QUALITY.search(view.request):
        tail = quality_note(zh, ranked=True) + tail
    return Decision(head + "\n".join(_line(s, zh) for s in suppliers) + tail, note="directory")


def _narrowed(suppliers: list[Record], chosen: _Filters) -> list[Record]:
    if chosen.statuses:
        suppliers = [s for s in suppliers if s.get("status") in chosen.statuses]
    if chosen.countries:
        suppliers = [s for s in suppliers if s.get("country") in chosen.countries]
    if chosen.foreign:
        suppliers = [s for s in suppliers if s.get("country") != "CN"]
    if chosen.kinds:
        suppliers = [s for s in suppliers if s.get("kind") in chosen.kinds]
    if chosen.top:
        suppliers = sorted(suppliers, key=lambda s: -float(s.get("rating") or 0))[: chosen.top]
    return suppliers
