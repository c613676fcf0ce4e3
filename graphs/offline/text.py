"""Reading numbers, dates and references out of a buyer's words: quantities (with their
sign and fractions, Chinese and English number words), delivery dates (absolute and
relative: 下周五, 两周内, 月底, "end of the month", "Dec 20"), history windows (近 6 个月,
"last quarter"), order numbers, model-number-like tokens, and the reply language.

Everything here is general; names (suppliers, parts, categories) are matched against the
ERP's own answers by :mod:`graphs.offline.entities`, never against a list of phrases.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

import opencc

from graphs.names import CJK
from graphs.orders.language import is_chinese

__all__ = [
    "Quantity",
    "find_date",
    "find_order_no",
    "find_quantity",
    "find_shift",
    "find_window_months",
    "fold_width",
    "has_quantity",
    "is_chinese",
    "model_tokens",
    "quantities_written",
    "read_quantity",
    "relative_quantity",
    "to_simplified",
    "to_traditional",
    "today_in",
    "unread_date",
    "words_to_digits",
]

# --- language ---------------------------------------------------------------------------

# OpenCC's character and phrase tables, loaded once at import (the graph is built off the
# event loop; a conversion is then pure computation). Every Simplified string of our
# corpora, catalogue and lexicon converts to itself under t2s, so reading a message through
# it changes only what was written in Traditional characters.
_T2S = opencc.OpenCC("t2s")
_S2T = opencc.OpenCC("s2tw")  # Taiwan standard characters (核對, not 覈對)


# Full-width letters, digits and hyphens (ＩＵ７, ＫＮ－１８９, ２００), as some input methods
# type them, read as the ASCII they stand for; full-width punctuation (，：？) is kept.
_WIDE = {c: c - 0xFEE0 for c in (*range(0xFF10, 0xFF1A), *range(0xFF21, 0xFF3B),
                                 *range(0xFF41, 0xFF5B), 0xFF0D, 0xFF0E, 0xFF0F)}  # fmt: skip
_WIDE[0x3000] = 0x20


def fold_width(text: str) -> str:
    """``text`` with full-width letters, digits and ``－．／`` as ASCII."""
    return text.translate(_WIDE)


def to_simplified(text: str) -> str:
    """``text`` with Traditional Chinese characters as Simplified (everything else unchanged)."""
    return _T2S.convert(text) if CJK.search(text) else text


def to_traditional(text: str) -> str:
    """``text`` in Traditional characters (for a buyer who wrote in them)."""
    return _S2T.convert(text) if CJK.search(text) else text


# --- numbers ----------------------------------------------------------------------------

_ZH_DIGITS = {"零": 0, "〇": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}  # fmt: skip
_ZH_UNITS = {"十": 10, "百": 100, "千": 1000, "万": 10000}
_ZH_NUMBER = re.compile(r"[零〇一二两三四五六七八九十百千万]+")
_ZH_UNITS_ALL = "十百千万"
_EN_SMALL = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13,
    "fourteen": 14, "fifteen": 15, "sixteen": 16, "seventeen": 17, "eighteen": 18,
    "nineteen": 19, "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60,
    "seventy": 70, "eighty": 80, "ninety": 90, "a couple": 2, "a dozen": 12, "dozen": 12,
}  # fmt: skip
_EN_SCALE = {"hundred": 100, "thousand": 1000, "million": 1_000_000}
_EN_NUMBER = re.compile(
    r"(?<![a-z])((?:" + "|".join(sorted(_EN_SMALL, key=len, reverse=True)) + "|"
    + "|".join(_EN_SCALE) + r")(?:[\s-]+(?:and\s+)?(?:"
    + "|".join(sorted(_EN_SMALL, key=len, reverse=True)) + "|" + "|".join(_EN_SCALE)
    + r"))*)(?![a-z])",
    re.I,
)  # fmt: skip


# The financial (大写) numerals, as on invoices and contracts: 贰佰 is 两百.
_FORMAL = str.maketrans("壹贰貳叁參肆伍陆陸柒捌玖拾佰仟萬兩", "一二二三三四五六六七八九十百千万两")


def zh_number(text: str) -> int | None:
    """A Chinese numeral (两百, 一千五百, 三十, 贰佰) as an int, or None."""
    text = text.translate(_FORMAL)
    if not text or not _ZH_NUMBER.fullmatch(text):
        return None
    total, section, digit, last = 0, 0, None, 0
    for ch in text:
        if ch in _ZH_DIGITS:
            digit = _ZH_DIGITS[ch]
        elif ch == "万":
            total += (section + (digit or 0)) * 10000
            section, digit, last = 0, None, 10000
        else:
            last = _ZH_UNITS[ch]
            section += (digit if digit is not None else 1) * last
            digit = None
    if digit and last >= 100 and text[-2] in _ZH_UNITS_ALL:
        # "两百五" is 250, "一千二" 1200, "三万五" 35000: a last digit right after a unit of
        # a hundred or more counts in the unit below it (as people say them)
        return total + section + digit * (last // 10)
    return total + section + (digit or 0)


def en_number(text: str) -> int | None:
    """An English number in words ("thirty", "two hundred", "a thousand"), or None."""
    words = re.split(r"[\s-]+", text.lower().replace(" and ", " "))
    total, current, seen = 0, 0, False
    i = 0
    while i < len(words):
        pair = " ".join(words[i : i + 2])
        if pair in _EN_SMALL:
            current += _EN_SMALL[pair]
            i += 2
            seen = True
            continue
        word = words[i]
        if word in _EN_SMALL:
            current += _EN_SMALL[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in ("thousand", "million"):
            total += max(current, 1) * _EN_SCALE[word]
            current = 0
        elif word:
            return None
        seen = True
        i += 1
    return total + current if seen else None


# --- quantities -------------------------------------------------------------------------

# An order number as buyers write it: PO20261100598, PO-2026…, "PO 2026…", "po#2026…",
# "P.O. No. 2026…", "订单号 2026…", or its 11 digits alone (20261100598: the ERP's year,
# month and sequence).
_ORDER_NO = re.compile(
    r"(?<![A-Za-z0-9])(?:P\.?O\.?\s*(?:#|no\.?|number)?\s*[-_:：#]?\s*(?P<po>\d{6,}[-\d]*)"
    r"|(?:订单号|单号|采购单号|order\s*(?:#|no\.?|number)\s*[:：]?)\s*(?P<no>\d{6,}[-\d]*)"
    r"|(?P<bare>20\d{9}))(?![A-Za-z0-9])",
    re.I,
)
_UNITS = (
    r"个|件|只|套|条|片|副|支|盒|箱|包|袋|桶|卷|根|台|对|pcs|pc|pieces|piece|units|unit|sets|set"
    r"|pairs|pair|boxes|box|cases|case|cartons|carton|packs|pack|pallets|pallet"
)
# Units that count packages, not items: "5 箱", "3 boxes" say how many items only with the
# package's size (unless the part itself is sold by the box).
PACK_UNITS = frozenset({"盒", "箱", "包", "袋", "桶", "卷", "box", "boxes", "case", "cases",
                        "carton", "cartons", "pack", "packs", "pallet", "pallets"})  # fmt: skip
_NUM = r"-?\d[\d,]*(?:\.\d+)?"
_UNIT_AFTER = rf"(?:\s*(?P<unit>{_UNITS})(?![a-z]))"
_QTY_PATTERNS = (
    re.compile(rf"(?:数量|qty|quantity)\s*(?:[:：=为是]|of|to)?\s*({_NUM})", re.I),
    re.compile(
        rf"(?:改成|改为|调整为|变成|加到|减到|增加到|减少到|\bto)\s*({_NUM}){_UNIT_AFTER}?", re.I
    ),
    re.compile(rf"({_NUM}){_UNIT_AFTER}", re.I),
    re.compile(
        # "order 100", "an order for 100 IU7", "a purchase of 200"
        rf"(?:下|订|买|采购|购买|\border|\bbuy|\bpurchase|\bget me|\bneed)"
        rf"(?:\s+(?:for|of))?\s*({_NUM})",
        re.I,
    ),
    # A count written as a multiplication, as order lists do: "VM22 x 30", "G22 ×100".
    re.compile(rf"(?<![A-Za-z0-9])[x×*]\s*({_NUM})(?![\w.])", re.I),
)
_DATEISH = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}\s*月\s*\d{1,2}\s*[日号]?|\d+\s*天|\d+\s*days?|"
    r"(?<![\d/.\-])\d{1,2}/\d{1,2}(?![\d/.\-])|\d+\s*周|\d+\s*weeks?|\d+\s*个?月|\d+\s*months?|\d+\s*(?:号|日)|"
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d{1,2}(?:st|nd|rd|th)?",
    re.I,
)

Problem = Literal["negative", "zero", "fraction"]


@dataclass(frozen=True)
class Quantity:
    """A quantity as the buyer wrote it: its value when it is a whole positive number,
    else what is wrong with it."""

    value: int | None
    raw: str
    problem: Problem | None = None
    unit: str | None = None  # the unit written after it ("个", "箱", "boxes"), lower case

    @property
    def packs(self) -> bool:
        """Whether it counts packages ("5 箱", "3 boxes") rather than items."""
        return self.unit in PACK_UNITS


def _judge(raw: str, unit: str | None = None) -> Quantity:
    number = raw.replace(",", "")
    unit = unit.lower() if unit else None
    try:
        value = float(number)
    except ValueError:
        return Quantity(None, raw, unit=unit)
    if value < 0:
        return Quantity(None, raw, "negative", unit)
    if value == 0:
        return Quantity(None, raw, "zero", unit)
    if value != int(value):
        return Quantity(None, raw, "fraction", unit)
    return Quantity(int(value), raw, unit=unit)


def _cleaned(text: str, exclude: Iterable[str]) -> str:
    cleaned = _MONEY.sub(" ", _ORDER_NO.sub(" ", text))
    for token in sorted((t for t in exclude if t), key=len, reverse=True):
        cleaned = re.sub(
            r"(?<![A-Za-z0-9])" + re.escape(token) + r"(?![A-Za-z0-9])", " ", cleaned, flags=re.I
        )
    return _DATEISH.sub(" ", cleaned)


_DOZENS = re.compile(
    r"(\d+|[零〇一二两三四五六七八九十百]+|a|one|two|three|four|five|six|ten)\s*(?:dozens?|打)",
    re.I,
)


def _dozens(text: str) -> str:
    """Counts in dozens as numbers of items ("2 dozen" → 24 pcs, 两打 → 24 个)."""

    def items(m: re.Match[str]) -> str:
        raw = m.group(1)
        count = int(raw) if raw.isdigit() else zh_number(raw) or en_number(raw) or 1
        return f"{count * 12} pcs" if re.search(r"dozen", m.group(0), re.I) else f"{count * 12}个"

    return _DOZENS.sub(items, text)


# Digits with a scale word: "1万", "1.5万", "3千", "2百", "2k", "1.5k", "10 million", "2 thousand".
_SCALED = re.compile(
    r"(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)\s*(万|千|百(?![万千])|k(?![a-z])|thousand(?![a-z])"
    r"|million(?![a-z])|mn(?![a-z]))",
    re.I,
)
_SCALES = {"万": 10_000, "千": 1000, "百": 100, "k": 1000, "thousand": 1000, "million": 1_000_000,
           "mn": 1_000_000}  # fmt: skip


_LONE_ZH_COUNT = re.compile(
    r"(?<![\u4e00-\u9fff])([零〇一二两三四五六七八九]?[十百千万][零〇一二两三四五六七八九十百千万]*)"
    r"(?![\u4e00-\u9fff])"
)
# A scale with one digit after it, as people abbreviate: "1k2" / "1万2" / "3千5" are 1200,
# 12000, 3500 (the digit is a tenth of the scale), never the scale's digits and that one.
_SCALED_TENTHS = re.compile(r"(?<![A-Za-z0-9.])(\d+)\s*(万|千|k)(\d)(?![\d.])", re.I)


def _scaled(text: str) -> str:
    """Digits with a scale word as one number ("1万" → 10000, "2k" → 2000, "1k2" → 1200)."""
    text = _SCALED_TENTHS.sub(
        lambda m: str(int(m.group(1)) * _SCALES[m.group(2).lower()]
                      + int(m.group(3)) * _SCALES[m.group(2).lower()] // 10),
        text,
    )  # fmt: skip

    def value(m: re.Match[str]) -> str:
        number = float(m.group(1)) * _SCALES[m.group(2).lower()]
        return str(int(number)) if number == int(number) else m.group(0)

    return _SCALED.sub(value, text)


# A price, not a count: a number with a currency ("20 元", "¥20", "at 20 CNY each", "$3.5"),
# and "多少钱一个" / "一个多少钱" / "单价…每支" (the price of one, not an order of one).
_MONEY = re.compile(
    r"(?:[¥￥$€£]|\b(?:usd|cny|rmb|eur|jpy|hkd)\b)\s*-?\d[\d,]*(?:\.\d+)?"
    r"|-?\d[\d,]*(?:\.\d+)?\s*(?:元|块钱|块|美元|欧元|日元|港币|人民币"
    r"|(?:usd|cny|rmb|eur|jpy|hkd|dollars?|bucks|yuan|euros?)(?![a-z]))",
    re.I,
)
_PRICE_OF_ONE = re.compile(
    r"(?:多少钱|什么价|啥价|几块钱?|价格|价钱|单价)\s*(?:一|每|1)\s*(?:个|件|只|套|条|片|副|支|盒|根|台|对)"
    r"|(?:一|每|1)\s*(?:个|件|只|套|条|片|副|支|盒|根|台|对)\s*(?:多少钱|什么价|啥价|几块钱?)"
)


_UNIT_NEXT = re.compile(rf"\s*(?:{_UNITS})(?![a-z])", re.I)


def _words_to_digits(text: str) -> str:
    """Chinese and English number words before a unit written as digits (两百条 → 200条),
    digits with a scale as one number (1万 → 10000)."""

    def zh(m: re.Match[str]) -> str:
        # set apart: "HO-1650一千二个" must not read as the model's digits and 1200
        value = zh_number(m.group(1))
        return f" {value}{m.group(2)}" if value is not None else m.group(0)

    # "3百五十": one digit in a Chinese numeral is that numeral's digit (三百五十)
    text = re.sub(
        r"(?<![\d.])(\d)(?=[百千万][零〇一二两三四五六七八九十])",
        lambda m: "零一二三四五六七八九"[int(m.group(1))],
        text.translate(_FORMAL),
    )
    text = _scaled(_dozens(text))
    # "三百" as the whole answer, or "两百" standing alone in a line ("IU7 两百 + BKR7E 一百")
    text = _LONE_ZH_COUNT.sub(lambda m: str(zh_number(m.group(1)) or m.group(1)), text)
    text = re.sub(r"([零〇一二两三四五六七八九十百千万]+)\s*(" + _UNITS + ")", zh, text)
    text = re.sub(
        r"(?<=[订买购下])([零〇一二两三四五六七八九十百千万]{2,})",
        lambda m: str(zh_number(m.group(1)) or m.group(1)),
        text,
    )

    def en(m: re.Match[str]) -> str:
        value = en_number(m.group(1))
        # "a", "an", "one" alone are rarely a count ("the HO-1650 one", "a new PO"): read
        # only when a unit follows ("one box"; "a dozen" is read by _dozens).
        word = m.group(1).lower()
        if word in ("a", "an", "one") and not _UNIT_NEXT.match(text, m.end()):
            return m.group(0)
        return str(value) if value is not None else m.group(0)

    return _EN_NUMBER.sub(en, text)


def words_to_digits(text: str) -> str:
    """``text`` with counts written in words as digits ("两百" → "200", "1k2" → "1200")."""
    return _words_to_digits(text)


# The count a change replaces ("should be 150 not 100", "40 instead of 20", "改成40，而不是20"):
# never the quantity asked.
_REPLACED = re.compile(
    r"(?:(?<![a-z])(?:not|instead\s+of|rather\s+than)|而不是|不是)\s*\d[\d,]*"
    r"(?:\s*(?:个|条|只|件|套|副|盒|箱|pcs|pieces|units?)(?![a-z]))?",
    re.I,
)


def read_quantity(text: str, *, exclude: Iterable[str] = ()) -> Quantity | None:
    """The quantity the buyer asked for, or None when the text gives none.

    A number with a unit (``200 个``, ``200 pcs``, ``两百条``, "thirty"), after 数量 / qty,
    after 改成 / "to", or right after an ordering verb; else a lone number that is not part
    of a date, an order number or a model number (``exclude``). Negative, zero and
    fractional quantities come back with their problem, never as a positive number.
    """
    cleaned = _cleaned(_words_to_digits(_PRICE_OF_ONE.sub(" ", text)), exclude)
    cleaned = _REPLACED.sub(" ", cleaned)  # "150 not 100": the 100 is what it was
    for pattern in _QTY_PATTERNS:
        m = pattern.search(cleaned)
        if m:
            return _judge(m.group(1), m.groupdict().get("unit"))
    lone = [
        m.group(0)  # a full stop after it ends a sentence ("make it 250."), not a decimal
        for m in re.finditer(r"(?<![\w.\-/])-?\d[\d,]*(?:\.\d+)?(?![\w\-/]|\.\w)", cleaned)
    ]
    return _judge(lone[0]) if len(lone) == 1 else None


def quantities_written(text: str, *, exclude: Iterable[str] = ()) -> list[int]:
    """Every different whole count written with a unit ("IU7 100个 150个" → [100, 150]), in
    the order written: more than one for one part means the buyer has not decided."""
    cleaned = _cleaned(_words_to_digits(_PRICE_OF_ONE.sub(" ", text)), exclude)
    found: list[int] = []
    for m in _QTY_PATTERNS[2].finditer(cleaned):
        judged = _judge(m.group(1), m.groupdict().get("unit"))
        if judged.value is not None and judged.value not in found:
            found.append(judged.value)
    return found


# A quantity said relative to the one on the order ("追加50个", "再来五十个", "add 50 more",
# "another 50", "少订20个", "20 fewer", "砍掉一半", "double it"): never the new quantity.
_MORE = re.compile(
    r"(?:追加|再(?:帮我|幫我|给我|給我)?加|多加|加多|再订|再訂|再来|再來|再要|增加|加上|多要|多订|多訂)"
    r"\s*了?\s*(\d+)(?!\s*[天周月号日])"
    r"|(?<![a-z])(?:add|another|an extra|extra)\s+(\d+)(?:\s+more)?(?![\d.])"
    r"|(?<![\w.])(\d+)\s+more\b|(?<![a-z])(?:increase|up|raise)\s+(?:it\s+|that\s+)?by\s+(\d+)",
    re.I,
)
_FEWER = re.compile(
    r"(?:减少|少订|少要|减掉|去掉|砍掉|(?<!至)少)\s*(?!到)(\d+)(?!\s*[天周月号日])"
    r"|(?<![\w.])(\d+)\s+(?:fewer|less)\b"
    r"|(?<![a-z])(?:reduce|cut|lower|decrease)\s+(?:it\s+|that\s+)?by\s+(\d+)",
    re.I,
)
_HALF = re.compile(
    r"减半|砍(?:掉)?一半|少一半|只要一半|一半就(?:行|够|好)|(?<![a-z])(?:halve|half\s+(?:of\s+)?"
    r"(?:it|that|as\s+many))|cut\s+(?:it\s+|that\s+)?in\s+half",
    re.I,
)
_DOUBLE = re.compile(
    r"翻倍|加倍|翻一番|(?<![a-z])(?:double\s+(?:it|that|the\s+quantity)|twice\s+as\s+many)", re.I
)


def relative_quantity(text: str, base: int) -> int | None:
    """The new quantity when ``text`` changes ``base`` by an amount or a share, or None
    (the text says no such change)."""
    digits = _words_to_digits(text)
    for pattern, sign in ((_MORE, 1), (_FEWER, -1)):
        m = pattern.search(digits)
        if m:
            return base + sign * int(next(g for g in m.groups() if g))
    if _HALF.search(text):
        return (base + 1) // 2
    if _DOUBLE.search(text):
        return base * 2
    return None


def find_quantity(text: str, *, exclude: Iterable[str] = ()) -> int | None:
    """A whole positive quantity the buyer asked for, or ``None``."""
    found = read_quantity(text, exclude=exclude)
    return found.value if found is not None else None


# A quantity stated as a field ("数量 300", "数量：300", "qty 250"), not asked about
# ("数量是多少") or changed to ("数量改成 300": a change, read by the order agent).
_STATED_QTY = re.compile(r"(?:数量|qty|quantity)\s*[:：=]?\s*\d", re.I)


def has_quantity(text: str) -> bool:
    """Whether the text states a number of items (with a unit, after an ordering verb, or
    as a field: "数量 300")."""
    cleaned = _cleaned(_words_to_digits(_PRICE_OF_ONE.sub(" ", text)), ())
    return bool(_STATED_QTY.search(cleaned)) or any(p.search(cleaned) for p in _QTY_PATTERNS[2:])


def find_order_no(text: str) -> str | None:
    """An order number such as ``PO20251100001`` in the text."""
    m = _ORDER_NO.search(text)
    return "PO" + (m.group("po") or m.group("no") or m.group("bare")) if m else None


_MODEL_TOKEN = re.compile(
    r"(?<![A-Za-z0-9.\-/])[A-Za-z0-9][A-Za-z0-9.\-/]*[A-Za-z0-9](?![A-Za-z0-9])"
)


def model_tokens(text: str) -> list[str]:
    """Words that look like part or model numbers: letters and digits mixed (IU7, KN-189,
    C8HSA), or digits joined by punctuation (2.75-18, 428-116L); not order numbers,
    plain numbers, dates or quantities."""
    out: list[str] = []
    for m in _MODEL_TOKEN.finditer(_ORDER_NO.sub(" ", text)):
        token = m.group(0)
        has_digit = any(c.isdigit() for c in token)
        has_alpha = any(c.isalpha() for c in token)
        joined = bool(re.search(r"\d[-/]\d|\d\.\d+-", token))
        if not has_digit or (not has_alpha and not joined):
            continue
        if re.fullmatch(r"\d+(?:st|nd|rd|th|pcs|pc|x)|[x×]\d+", token, re.I):
            continue
        if token not in out:
            out.append(token)
    return out


# --- dates ------------------------------------------------------------------------------

_WEEKDAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_WEEKDAYS_EN = {
    "monday": 0, "tuesday": 1, "wednesday": 2, "thursday": 3,
    "friday": 4, "saturday": 5, "sunday": 6,
}  # fmt: skip
_MONTHS_EN = {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m}
_TODAY = re.compile(r"(?:今天是|今天|[Tt]oday is)\s*(\d{4}-\d{2}-\d{2})")


def today_in(text: str) -> date:
    """The date a prompt says today is (the CurrentDate middleware writes it), else today."""
    m = _TODAY.search(text)
    if m:
        try:
            return date.fromisoformat(m.group(1))
        except ValueError:
            pass
    return date.today()


# A month and day already past by at most this many days is that day, not next year's: on
# 12-03, "11月30号到" is a slip (and the ERP refuses a date in the past, saying so), while
# "1月5号" is next January.
_RECENT_PAST = timedelta(days=62)


def _on_or_after(d: date, today: date) -> date:
    if d >= today or today - d <= _RECENT_PAST:
        return d
    return date(d.year + 1, d.month, d.day)


# 12/28 or 28/12: two numbers, no year, nothing else joined to them (not 2.75-18, not 1/2/3).
_SLASH_DATE = re.compile(r"(?<![\d/.\-])(\d{1,2})/(\d{1,2})(?![\d/.\-])")


def _absolute(text: str, today: date) -> date | None:
    m = re.search(r"(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})", text)
    if m:
        return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    # 30/12/2026, 12/30/2026: the year last (the larger of the first two is the day)
    m = re.search(r"(?<![\d/.])(\d{1,2})[/.](\d{1,2})[/.](\d{4})(?![\d/.])", text)
    if m:
        first, second, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
        month, day = (second, first) if first > 12 else (first, second)
        return date(year, month, day)
    # "1月底", "January end", "EOM Jan", "end of January": the last day of that month
    m = re.search(r"(?<!\d)(\d{1,2})\s*月\s*(?:底|末)", text) or re.search(
        r"\b(?:eom|end of)\s+(" + "|".join(_MONTHS_EN) + r")[a-z]*\b|\b("
        + "|".join(_MONTHS_EN) + r")[a-z]*\s+end\b", text, re.I)  # fmt: skip
    if m:
        raw = next(g for g in m.groups() if g)
        month = int(raw) if raw.isdigit() else _MONTHS_EN[raw.lower()[:3]]
        year = today.year if month >= today.month else today.year + 1
        return date(year, month, calendar.monthrange(year, month)[1])
    m = re.search(
        r"(\d{1,2})\s*月\s*(\d{1,2})\s*(?:[日号]|(?=(?:前|之前|以前|到|交|送|发))"
        r"|(?=\s*(?:$|[，,。.!！；;])))",
        text,
    )
    if m:
        return _on_or_after(date(today.year, int(m.group(1)), int(m.group(2))), today)
    m = re.search(
        r"\b(" + "|".join(_MONTHS_EN) + r")[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b", text, re.I
    )
    if m:
        month = _MONTHS_EN[m.group(1).lower()[:3]]
        return _on_or_after(date(today.year, month, int(m.group(2))), today)
    m = _SLASH_DATE.search(text)
    if m:
        first, second = int(m.group(1)), int(m.group(2))
        # Month first as buyers here write it (12/28); a first number above 12 is a day (28/12).
        month, day = (first, second) if first <= 12 else (second, first)
        return _on_or_after(date(today.year, month, day), today)
    m = re.search(r"(?<![\d月.])(\d{1,2})\s*[号日](?:前|之前|以前|到)", text)
    if m:
        d = date(today.year, today.month, int(m.group(1)))
        return d if d >= today else _next_month(d)
    return None


def _next_month(d: date) -> date:
    year, month = (d.year + 1, 1) if d.month == 12 else (d.year, d.month + 1)
    return date(year, month, min(d.day, calendar.monthrange(year, month)[1]))


def _weekday(text: str, today: date) -> date | None:
    monday = today - timedelta(days=today.weekday())
    m = re.search(r"(下下|下个|下|本|这|)\s*(?:周|星期|礼拜)([一二三四五六日天])", text)
    if m:
        offset = {"下下": 14, "下": 7, "下个": 7}.get(m.group(1), 0)
        d = monday + timedelta(days=offset + _WEEKDAYS_ZH[m.group(2)])
        return d if d > today else d + timedelta(days=7)
    m = re.search(r"\b(next|this|by|on)?\s*(" + "|".join(_WEEKDAYS_EN) + r")\b", text, re.I)
    if m:
        offset = 7 if (m.group(1) or "").lower() == "next" else 0
        d = monday + timedelta(days=offset + _WEEKDAYS_EN[m.group(2).lower()])
        return d if d > today else d + timedelta(days=7)
    return None


def _relative(text: str, today: date) -> date | None:
    low = text.lower()
    if "后天" in text or "day after tomorrow" in low:
        return today + timedelta(days=2)
    if "明天" in text or re.search(r"\btomorrow\b", low):
        return today + timedelta(days=1)
    # "下个月底" contains "月底": next month's end is looked for first.
    if re.search(r"下个?月(?:底|末)|end of next month", low):
        d = _next_month(date(today.year, today.month, 1))
        return date(d.year, d.month, calendar.monthrange(d.year, d.month)[1])
    if re.search(r"月底|月末|本月底|end of (?:the |this )?month", low):
        return date(today.year, today.month, calendar.monthrange(today.year, today.month)[1])
    digits = _words_to_digits(
        re.sub(
            r"([零〇一二两三四五六七八九十])(?=\s*(?:[天周]|个月))",
            lambda m: str(zh_number(m.group(1))),
            text,
        )
    )
    m = re.search(r"(\d+)\s*天(?:内|后|之内|以内)", digits) or re.search(
        r"\b(?:in|within)\s+(\d+)\s+days?\b", digits, re.I
    )
    if m:
        return today + timedelta(days=int(m.group(1)))
    m = re.search(r"(\d+)\s*(?:个)?(?:周|星期|礼拜)(?:内|后|之内|以内)", digits) or re.search(
        r"\b(?:in|within)\s+(\d+)\s+weeks?\b", digits, re.I
    )
    if m:
        return today + timedelta(weeks=int(m.group(1)))
    m = re.search(r"(\d+)\s*个月(?:内|后|之内|以内)", digits) or re.search(
        r"\b(?:in|within)\s+(\d+)\s+months?\b", digits, re.I
    )
    # "近 6 个月内" / "过去3个月内" is a history window, not a delivery date.
    if m and not re.search(r"(?:近|过去|最近|前|last|past)\s*$", digits[: m.start()], re.I):
        d = today
        for _ in range(int(m.group(1))):
            d = _next_month(d)
        return d
    return None


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


def _named_month(text: str, today: date) -> tuple[int, int] | None:
    """The month a phrase names: 下个月 / next month, 本月 / this month, 12月 / December
    (the next one to come); None when it names none."""
    if re.search(r"下个?月|next month", text, re.I):
        d = _next_month(date(today.year, today.month, 1))
        return d.year, d.month
    if re.search(r"本月|这个?月|this month", text, re.I):
        return today.year, today.month
    m = re.search(r"(?<!\d)(\d{1,2})\s*月", text)
    month = int(m.group(1)) if m and 1 <= int(m.group(1)) <= 12 else None
    if month is None:
        m = re.search(r"\b(" + "|".join(_MONTHS_EN) + r")[a-z]*\b", text, re.I)
        month = _MONTHS_EN[m.group(1).lower()[:3]] if m else None
    if month is None:
        return None
    year = today.year if month >= today.month else today.year + 1
    return year, month


# Part of a month: 上旬 / early (by the 10th), 中旬 / mid (the 20th), 下旬 / late / 月底 (the end).
_PART_OF_MONTH = re.compile(
    r"(上旬|月初|中旬|月中(?!旬)|下旬)|\b(early|mid|middle of|late|end of)[\s-]+"
    r"(?=next month|this month|(?:" + "|".join(_MONTHS_EN) + r")[a-z]*\b)",
    re.I,
)
_HOLIDAYS = (
    # Not the lunar one ("Chinese New Year", 春节): that date moves, and is asked about.
    (re.compile(r"元旦|(?<!chinese )(?<!lunar )new year(?:'s)?(?: day)?|\bnye\b", re.I), 1, 1),
    (re.compile(r"圣诞|christmas|xmas", re.I), 12, 25),
)
_BEFORE = re.compile(r"^\s*(?:前|之前|以前)|\bbefore\s*$", re.I)


def _calendar_words(text: str, today: date) -> date | None:
    """Dates buyers name without a day number: the 20th, 下个月15号, 下个月中旬, 元旦前,
    "before Christmas", EOM, year end, this / next week, yesterday."""
    low = text.lower()
    m = re.search(r"(?:下个?月|本月|这个?月)\s*(\d{1,2})\s*[号日]", text)
    if m:
        named = _named_month(m.group(0), today)
        if named:
            return date(named[0], named[1], int(m.group(1)))
    m = _PART_OF_MONTH.search(text)
    if m:
        named = _named_month(text[max(0, m.start() - 6) : m.end() + 16], today)
        year, month = named or (today.year, today.month)
        part = (m.group(1) or m.group(2)).lower()
        day = {"上旬": 10, "月初": 10, "early": 10, "中旬": 20, "月中": 15, "mid": 15,
               "middle of": 15}.get(part)  # fmt: skip
        d = date(year, month, day) if day else _month_end(year, month)
        return d if named or d >= today else _next_month(d)
    for pattern, month, day in _HOLIDAYS:
        h = pattern.search(text)
        if h:
            year = today.year if (month, day) >= (today.month, today.day) else today.year + 1
            d = date(year, month, day)
            before = _BEFORE.search(text[h.end() : h.end() + 3]) or _BEFORE.search(
                text[max(0, h.start() - 8) : h.start()]
            )
            return d - timedelta(days=1) if before else d
    if re.search(r"\beom\b|end of (?:the )?month", low):
        return _month_end(today.year, today.month)
    if re.search(r"年底|年末|\beoy\b|end of (?:the |this )?year|year[- ]end", low):
        return date(today.year, 12, 31)
    friday = today + timedelta(days=(4 - today.weekday()) % 7)
    if re.search(
        r"下周内|下周之内|下个?(?:周|星期|礼拜)(?:内|前|到)|\bnext week\b|end of next week", low
    ):
        return friday + timedelta(days=7)
    this_week = (
        r"本周内|这周内|本周之内|这(?:周|星期|礼拜)(?:内|前)|\beow\b|end of (?:the |this )?week"
    )
    if re.search(this_week + r"|\bthis week\b", low):
        return friday if friday >= today else friday + timedelta(days=7)
    if "昨天" in text or re.search(r"\byesterday\b", low):
        return today - timedelta(days=1)
    m = re.search(r"\b(?:the\s+)?(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:"
                  + "|".join(_MONTHS_EN) + r"))", low)  # fmt: skip
    if m:
        d = date(today.year, today.month, int(m.group(1)))
        return d if d >= today else _next_month(d)
    # "12.20到货", "12.20前": month.day with a delivery word after it (12.20 alone is a price).
    m = re.search(
        r"(?<![\d.])(\d{1,2})\.(\d{1,2})(?![\d.])\s*(?:前|之前|以前|到|号|日|交|送)", text
    )
    if m and 1 <= int(m.group(1)) <= 12:
        return _on_or_after(date(today.year, int(m.group(1)), int(m.group(2))), today)
    m = re.search(r"(?<![\d月.\-/])(\d{1,2})\s*[号日](?!\s*(?:内|后|之内|以内|起))", text)
    if m:
        d = date(today.year, today.month, int(m.group(1)))
        return d if d >= today else _next_month(d)
    return None


# A delivery date the buyer asked for in words this reader does not know ("春节前到货",
# "by Easter", "before Chinese New Year"): asked about, never dropped. "尽快" / "ASAP" /
# "按交期" ask for no particular date.
_DATE_ASKED = (
    re.compile(r"([^\s，,。：:；;]{1,8}?)(?:前|之前|以前)\s*(?:到货|到|交货|交|送到|送达|发货)"),
    re.compile(
        r"(?:到货|交货|交期|到货日期|交货日期|到货时间)\s*(?:是|为|要|定在|[:：])\s*"
        r"([^\s，,。；;]{1,10})"
    ),
    re.compile(
        r"\b(?:by|before|until|no later than|due)\s+(?:the\s+)?"
        r"([A-Z0-9][\w'’-]*(?:\s+[A-Z][\w'’-]*){0,3})"
    ),
)
_NO_DATE = re.compile(
    r"尽快|越快越好|最快|按交期|正常交期|标准交期|不急|随时|\basap\b|as soon as|standard lead|"
    r"normal lead|lead time|no rush|whenever",
    re.I,
)


_DATE_SHAPED = re.compile(
    r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[/.]\d{1,2}[/.]\d{4}|\d{1,2}\s*月\s*\d{1,2}\s*[日号]"
)


def unread_date(text: str, today: date) -> str | None:
    """The words of a delivery date the buyer asked for that :func:`find_date` cannot read
    ("春节前", "Easter", "2月30号": no such day), or None (no date asked, one that reads, or
    "as soon as possible")."""
    shaped = _DATE_SHAPED.search(text)
    if shaped and find_date(shaped.group(0), today) is None:
        return shaped.group(0)
    if _NO_DATE.search(text) or find_date(text, today) is not None:
        return None
    for pattern in _DATE_ASKED:
        for m in pattern.finditer(text):
            words = m.group(1).strip()
            if words and not re.fullmatch(r"PO[\w-]*|\d+(?:\s*(?:pcs|units|sets))?", words, re.I):
                return words
    return None


# A month and day in Chinese numerals ("十二月二十号", "一月五日"): read as digits.
_ZH_MONTH_DAY = re.compile(
    r"([一二三四五六七八九十]{1,2})\s*月\s*([一二三四五六七八九十]{1,3})\s*(?=[日号])"
)


def _zh_dates(text: str) -> str:
    return _ZH_MONTH_DAY.sub(
        lambda m: f"{zh_number(m.group(1))}月{zh_number(m.group(2))}", text.translate(_FORMAL)
    )


def find_date(text: str, today: date) -> date | None:
    """A delivery date in the text (absolute or relative to ``today``), or ``None``."""
    text = _zh_dates(text)
    try:
        return (
            _absolute(text, today)
            or _weekday(text, today)
            or _relative(text, today)
            or _calendar_words(text, today)
        )
    except ValueError:  # 2月30日: no such day
        return None


_SHIFT = re.compile(
    r"(?P<verb>推迟|延后|推后|往后推|向后推|延期|延迟|顺延|提前|往前提|"
    r"push(?:ed)?\b[^,.;]{0,40}?\bback(?:\s+by)?|move[sd]?\b[^,.;]{0,40}?\b(?:back|out)(?:\s+by)?|"
    r"(?:delay|postpone)(?:ed|d)?(?:\b[^,.;]{0,40}?\bby)?|"
    r"bring\b[^,.;]{0,40}?\bforward(?:\s+by)?|pull\b[^,.;]{0,40}?\bin(?:\s+by)?)"
    r"\s*(?P<n>\d+|[零〇一二两三四五六七八九十]+|an?|one|two|three|four|five|six|seven|eight"
    r"|nine|ten)?\s*(?:个)?(?P<unit>天|日|周|星期|礼拜|月|days?|weeks?|months?)(?![a-z])",
    re.I,
)
_EARLIER = ("提前", "往前提", "bring", "pull")


def find_shift(text: str) -> int | None:
    """By how many days the buyer moves a date ("推迟一周" → 7, "提前 3 天" → -3, "push it
    back a week" → 7), or None when the text moves no date by an amount."""
    m = _SHIFT.search(text)
    if m is None:
        return None
    raw = (m.group("n") or "1").lower()
    count = int(raw) if raw.isdigit() else zh_number(raw) or en_number(raw) or 1
    unit = m.group("unit").lower()
    days = count * (7 if unit[0] in "周星礼w" else 30 if unit[0] in "月m" else 1)
    earlier = m.group("verb").lower().startswith(_EARLIER)
    return -days if earlier else days


def find_window_months(text: str) -> int | None:
    """The history window an analysis is limited to, in months (近 6 个月, last quarter)."""
    digits = re.sub(
        r"([零〇一二两三四五六七八九十]+)(?=\s*个?月)", lambda m: str(zh_number(m.group(1))), text
    )
    digits = _words_to_digits(digits)
    m = (
        re.search(r"(?:近|最近|过去|前|这|换成|改成|改为)\s*(\d+)\s*个?月", digits)
        or re.search(r"\b(?:last|past|previous|over the last|over the past)\s+(\d+)\s+months?\b",
                     digits, re.I)
        or re.search(r"\b(?:make it|change it to|to|for)\s+(\d+)\s+months?\b", digits, re.I)
    )  # fmt: skip
    if m:
        return int(m.group(1))
    if re.search(r"半年|half a year|six months|\b6 months\b", digits, re.I):
        return 6
    if re.search(r"上个?季度|本季度|近一个季度|last quarter|past quarter|previous quarter", digits,
                 re.I):  # fmt: skip
        return 3
    if re.search(r"近一年|过去一年|去年|last year|past year|past 12 months", digits, re.I):
        return 12
    return None
