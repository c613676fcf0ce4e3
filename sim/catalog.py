"""The simulated company's master data, generated deterministically from a seed.

Both simulated outside systems read it: the ERP seeds its database from it
(``sim.erp``) and the supplier web shops derive their catalogues and quotes from it
(``sim.suppliers``). Nothing outside ``sim/`` may import it: the agents learn these
facts only over HTTP, as they would from a real ERP and real supplier sites.

Money is in integer minor units (fen / cents). ``REFERENCE_DATE`` anchors validity
windows and the order history, so the same seed gives the same data on any day.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date, timedelta
from functools import cache

from sim.crossref import CrossReferenceParts, crossref_parts, maker_of
from sim.interchange import Attributes, Equivalence, cross_reference, equivalences_of

DEFAULT_SEED = 20261201
REFERENCE_DATE = date(2026, 12, 1)
HISTORY_MONTHS = 13


@dataclass(frozen=True)
class Category:
    code: str
    name_zh: str
    name_en: str
    unit: str
    base_price: tuple[int, int]  # CNY yuan, inclusive range for a part's list price
    makers: tuple[str, ...]  # supplier codes of the brands that make it
    # Other names buyers use (an ERP's keyword field): colloquial Chinese, Taiwan and Hong
    # Kong names (in Simplified characters: the planner reads Traditional as Simplified),
    # English variants and British spellings. Search and the planner read them from the ERP.
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True)
class Supplier:
    id: int
    code: str
    name_zh: str
    name_en: str
    kind: str  # "maker" (sells its own brand) or "distributor"
    status: str  # active | on_hold | blocked
    rating: float  # 1.0 - 5.0
    website: str
    country: str
    currency: str
    categories: tuple[str, ...]  # category codes it sells


@dataclass(frozen=True)
class Part:
    id: int
    sku: str
    model: str  # the maker's part number, e.g. "CR7HSA"
    name_zh: str
    name_en: str
    category: str  # category code
    category_zh: str
    category_en: str
    brand: str  # brand (= maker) English name
    brand_zh: str
    unit: str


@dataclass(frozen=True)
class SupplierPrice:
    id: int
    supplier_id: int
    part_id: int
    price_minor: int
    currency: str
    min_order_qty: int
    lead_time_days: int
    valid_from: date
    valid_to: date


@dataclass(frozen=True)
class Inventory:
    part_id: int
    on_hand: int
    reserved: int
    on_order: int
    safety_stock: int
    reorder_point: int


@dataclass(frozen=True)
class OrderLine:
    part_id: int
    quantity: int
    unit_price_minor: int
    received_qty: int


@dataclass(frozen=True)
class HistoricalOrder:
    order_no: str
    supplier_id: int
    status: str
    currency: str
    order_date: date
    expected_date: date
    lines: tuple[OrderLine, ...]


@dataclass(frozen=True)
class Catalog:
    seed: int
    reference_date: date
    categories: tuple[Category, ...]
    suppliers: tuple[Supplier, ...]
    parts: tuple[Part, ...]
    prices: tuple[SupplierPrice, ...]
    inventory: tuple[Inventory, ...]
    orders: tuple[HistoricalOrder, ...]
    # Interchangeability (sim.interchange): attributes per part id, equivalences both ways.
    attributes: dict[int, Attributes]
    equivalences: tuple[Equivalence, ...]
    # Cross-reference parts (sim.crossref), after every other part: id → the part it copies.
    copies: dict[int, int] = field(default_factory=dict)
    _by_code: dict[str, Supplier] = field(default_factory=dict, repr=False, compare=False)

    def supplier(self, code: str) -> Supplier:
        """The supplier with this code."""
        if not self._by_code:
            self._by_code.update({s.code: s for s in self.suppliers})
        return self._by_code[code]


# Makers: code, Chinese name, English name, country, currency, categories, brand premium.
_MAKERS: tuple[tuple[str, str, str, str, str, tuple[str, ...], float], ...] = (
    ("NGK", "日本特殊陶业 NGK", "NGK Spark Plug Co.", "JP", "CNY", ("SP", "PC"), 1.15),
    ("BOSCH", "博世", "Bosch", "DE", "CNY", ("SP", "AF", "OF", "BT", "IC"), 1.2),
    ("DENSO", "电装", "Denso", "JP", "CNY", ("SP", "OF", "PC", "IC"), 1.15),
    ("DELPHI", "德尔福", "Delphi", "US", "CNY", ("IC", "BL"), 1.1),
    ("CHAMPION", "冠军", "Champion", "US", "CNY", ("SP", "PC"), 1.0),
    ("BREMBO", "布雷博", "Brembo", "IT", "CNY", ("BP", "BD"), 1.45),
    ("TORCH", "株洲湘火炬", "Torch", "CN", "CNY", ("SP", "PC"), 0.7),
    ("EBC", "EBC刹车", "EBC Brakes", "GB", "CNY", ("BP", "CP", "BD"), 1.2),
    ("FERODO", "菲罗多", "Ferodo", "GB", "CNY", ("BP",), 1.1),
    ("DID", "大同工业 DID", "Daido Kogyo D.I.D", "JP", "CNY", ("CH",), 1.25),
    ("REGINA", "瑞格", "Regina Catene", "IT", "CNY", ("CH",), 1.3),
    ("KMC", "桂盟", "KMC Chain", "CN", "CNY", ("CH",), 0.85),
    ("MAHLE", "马勒", "Mahle", "DE", "CNY", ("AF", "OF"), 1.15),
    ("MANN", "曼牌", "Mann-Filter", "DE", "CNY", ("AF", "OF"), 1.1),
    ("KN", "K&N滤清器", "K&N Engineering", "US", "CNY", ("AF", "OF"), 1.35),
    ("CST", "正新", "CST Cheng Shin", "TW", "CNY", ("TY",), 0.9),
    ("CHAOYANG", "朝阳轮胎", "Chaoyang Tire", "CN", "CNY", ("TY",), 0.75),
    ("PIRELLI", "倍耐力", "Pirelli", "IT", "CNY", ("TY",), 1.5),
    ("DUNLOP", "邓禄普", "Dunlop", "JP", "CNY", ("TY",), 1.3),
    ("YUASA", "汤浅", "Yuasa Battery", "JP", "CNY", ("BT",), 1.2),
    ("SAIL", "风帆", "Sail Battery", "CN", "CNY", ("BT",), 0.8),
    ("CAMEL", "骆驼", "Camel Group", "CN", "CNY", ("BT",), 0.85),
    ("FCC", "FCC离合器", "F.C.C. Co.", "JP", "CNY", ("CP",), 1.2),
    ("PHILIPS", "飞利浦", "Philips Lighting", "NL", "CNY", ("LB",), 1.2),
    ("OSRAM", "欧司朗", "Osram", "DE", "CNY", ("LB",), 1.25),
    ("FSL", "佛山照明", "Foshan Lighting FSL", "CN", "CNY", ("LB",), 0.7),
    ("KYB", "卡雅巴", "KYB Corporation", "JP", "CNY", ("SA",), 1.2),
    ("OHLINS", "奥林斯", "Ohlins Racing", "SE", "CNY", ("SA",), 2.2),
    ("GATES", "盖茨", "Gates", "US", "CNY", ("BL",), 1.15),
    ("BANDO", "阪东", "Bando Chemical", "JP", "CNY", ("BL",), 1.05),
    ("ZONGSHEN", "宗申动力", "Zongshen Power", "CN", "CNY", ("CP", "SA", "BD"), 0.75),
)

# Short Chinese brand names where the company name is not what buyers say.
_BRAND_ZH = {
    "NGK": "NGK",
    "DID": "DID",
    "EBC": "EBC",
    "KN": "K&N",
    "FCC": "FCC",
    "CST": "正新",
    "CHAOYANG": "朝阳",
    "ZONGSHEN": "宗申",
    "TORCH": "火炬",
    "FSL": "佛山照明",
    "YUASA": "汤浅",
    "KYB": "KYB",
}

# Distributors carry several brands' parts of the categories they serve.
_DISTRIBUTORS: tuple[tuple[str, str, str, tuple[str, ...], str], ...] = (
    (
        "CQMP",
        "重庆摩配供应链有限公司",
        "Chongqing Moto Parts Supply Chain",
        ("SP", "BP", "CH", "AF", "OF", "TY", "BT", "CP", "LB", "PC", "SA", "BL", "IC", "BD"),
        "CNY",
    ),
    (
        "GZMT",
        "广州摩托配件贸易有限公司",
        "Guangzhou Motorcycle Parts Trading",
        ("SP", "BP", "AF", "OF", "LB", "PC", "BT", "TY"),
        "CNY",
    ),
    (
        "LONCIN",
        "隆鑫配件销售公司",
        "Loncin Parts Sales",
        ("SP", "CH", "CP", "BL", "SA", "OF"),
        "CNY",
    ),
    ("LIFAN", "力帆摩配", "Lifan Moto Parts", ("BP", "CH", "TY", "BT", "LB", "IC"), "CNY"),
    (
        "QJPARTS",
        "浙江钱江摩配",
        "Qianjiang Moto Parts",
        ("SP", "BP", "AF", "PC", "BD", "BL"),
        "CNY",
    ),
    (
        "HKGLOBAL",
        "香港环球摩配进出口",
        "HK Global Moto Parts Import & Export",
        ("SP", "BP", "CH", "SA", "BD", "TY"),
        "USD",
    ),
    (
        "JSMOTO",
        "江苏摩托车零部件集团",
        "Jiangsu Motorcycle Components Group",
        ("OF", "AF", "BT", "LB", "CP", "IC"),
        "CNY",
    ),
)

_CATEGORIES: tuple[Category, ...] = (
    Category("SP", "火花塞", "Spark Plug", "个", (15, 60), (),
             ("火嘴", "火咀", "点火塞", "火星塞", "sparkplug", "ignition plug")),
    Category("BP", "刹车片", "Brake Pad", "副", (60, 260), (),
             ("刹车皮", "制动片", "刹车块", "来令片", "煞车皮", "煞车片", "brake lining",
              "disc pad")),
    Category("CH", "链条", "Drive Chain", "条", (120, 560), (),
             ("链子", "传动链", "链条总成", "chain", "roller chain", "motorcycle chain")),
    Category("AF", "空气滤清器", "Air Filter", "个", (30, 160), (),
             ("空滤", "空气滤芯", "空气格", "空滤芯", "空气芯", "air cleaner",
              "air filter element")),
    Category("OF", "机油滤清器", "Oil Filter", "个", (15, 70), (),
             ("机滤", "机油滤芯", "机油格", "油滤", "机滤芯", "机油芯", "oil cleaner")),
    Category("TY", "轮胎", "Tire", "条", (160, 820), (),
             ("车胎", "外胎", "胎子", "tyre", "motorcycle tyre")),
    Category("BT", "蓄电池", "Battery", "个", (110, 620), (),
             ("电瓶", "电池", "蓄电瓶", "accumulator", "starter battery")),
    Category("CP", "离合器片", "Clutch Plate Set", "套", (80, 320), (),
             ("离合片", "离合器摩擦片", "摩擦片", "clutch plate", "clutch disc", "clutch kit")),
    Category("LB", "灯泡", "Bulb", "个", (8, 60), (),
             ("灯胆", "车灯泡", "大灯泡", "lamp", "light bulb", "headlight bulb")),
    Category("PC", "火花塞帽", "Spark Plug Cap", "个", (10, 45), (),
             ("火嘴帽", "高压帽", "火花塞帽子", "火星塞帽", "plug cap", "spark cap", "plug boot")),
    Category("SA", "减震器", "Shock Absorber", "支", (280, 2600), (),
             ("避震", "避震器", "减震", "减振器", "shock", "damper", "rear shock")),
    Category("BL", "皮带", "Drive Belt", "条", (80, 420), (),
             ("传动带", "传动皮带", "驱动皮带", "belt", "v-belt", "cvt belt")),
    Category("IC", "点火线圈", "Ignition Coil", "个", (80, 380), (),
             ("高压包", "高压线圈", "点火圈", "考耳", "coil", "ignition coil pack")),
    Category("BD", "刹车盘", "Brake Disc", "片", (200, 1200), (),
             ("碟盘", "刹车碟", "制动盘", "碟刹盘", "煞车碟", "煞车盘", "brake disk",
              "brake rotor", "rotor")),
)  # fmt: skip

# Part-number families per category: (pattern, choices). "{a}" etc. are filled from lists.
_MODEL_PATTERNS: dict[str, tuple[str, ...]] = {
    "SP": (
        "CR{h}HSA",
        "CPR{h}EA-9",
        "DPR{h}EA-9",
        "BKR{h}E",
        "C{h}HSA",
        "D{h}EA",
        "NDM{h}",
        "U{h}FER9",
        "RG{h}YC",
        "A{h}RTC",
        "IU{h}",
        "CR{h}EIX",
    ),
    "BP": ("FA{n3}", "FDB{n4}", "SBS{n3}HH", "07BB{n2}", "MCB{n3}", "FA{n3}HH"),
    "CH": ("428H-{l}L", "520VX3-{l}L", "525ZVM-X-{l}L", "428-{l}L", "530ERV7-{l}L"),
    "AF": ("HFA{n4}", "AF-{n4}", "LX{n4}", "C{n4}", "HA-{n4}"),
    "OF": ("HF{n3}", "OX{n3}", "MH{n3}", "KN-{n3}", "OF-{n3}"),
    "TY": (
        "2.75-{r} 4PR",
        "90/90-{r} TL",
        "110/70-{r} TL",
        "130/70-{r} TL",
        "3.00-{r} 6PR",
        "100/80-{r} TL",
    ),
    "BT": ("YTX{n1}A-BS", "YTZ{n1}V", "12N{n1}-4B-1", "YB{n1}L-B", "YTX{n1}L-BS"),
    "CP": ("CPS-{n3}", "FCC-{n4}", "CK{n4}", "SRK-{n3}"),
    "LB": ("H4 12V{w}W", "HS1 12V{w}W", "BA20D 12V{w}W", "T10 12V{w}W", "H7 12V{w}W"),
    "PC": ("LB{n2}E", "XD{n2}F", "VB{n2}EM", "TC{n2}", "SD{n2}F"),
    "SA": ("RS-{n3}", "KSA-{n3}", "HO-{n4}", "MS-{n3}"),
    "BL": ("23100-K{n2}-V01", "BT-{n3}", "G-{n4}", "VB{n3}"),
    "IC": ("IC-{n3}", "CM{n4}", "ZS-{n3}", "DG-{n3}"),
    "BD": ("MD{n4}", "BD-{n3}", "RD-{n4}", "WD-{n3}"),
}


def _fill(pattern: str, rng: random.Random) -> str:
    return pattern.format(
        h=rng.choice([5, 6, 7, 8, 9]),
        n1=rng.choice([4, 5, 7, 9, 12, 14]),
        n2=rng.randint(10, 99),
        n3=rng.randint(100, 699),
        n4=rng.randint(1000, 9899),
        l=rng.choice([104, 110, 116, 118, 120, 124, 130]),
        r=rng.choice([10, 12, 14, 17, 18]),
        w=rng.choice([5, 10, 21, 35, 55, 60]),
    )


def _round_price(yuan: float) -> int:
    """Round to a plausible contract price in fen (to 5 fen below 100 yuan, else 1 yuan)."""
    if yuan < 100:
        return max(100, round(yuan * 20) * 5)
    return round(yuan) * 100


def _moq(unit_price_minor: int, rng: random.Random) -> int:
    if unit_price_minor < 5000:
        return rng.choice([50, 100, 100, 200])
    if unit_price_minor < 20000:
        return rng.choice([10, 20, 50])
    if unit_price_minor < 80000:
        return rng.choice([5, 10, 20])
    return rng.choice([1, 2, 5])


def _month_start(d: date, months_back: int) -> date:
    y, m = d.year, d.month - months_back
    while m <= 0:
        m += 12
        y -= 1
    return date(y, m, 1)


# Suppliers that take no new orders, and why not.
_HELD = {"CHAMPION": "on_hold", "FERODO": "on_hold", "LIFAN": "blocked"}
_PARTS_PER_CATEGORY = 24


@cache
def generate(seed: int = DEFAULT_SEED) -> Catalog:
    """Build the whole data set for ``seed``; the same seed always gives equal data."""
    # One generator, drawn from in this order: each step's draws depend on the steps before.
    rng = random.Random(seed)
    categories = _categories()
    suppliers = _suppliers(rng)
    parts, list_price = _parts(rng, categories, {s.code: s for s in suppliers})
    prices, sellers = _prices(rng, categories, suppliers, parts, list_price)
    inventory = _inventory(rng, parts)
    orders = _history(rng, suppliers, parts, prices, sellers)
    # Drawn from their own streams (seeded from ``seed``), never from ``rng``, and added
    # after everything else: the data of a seed stays what it was before parts had
    # attributes and cross-reference parts.
    xref = cross_reference(seed, parts)
    by_code = {s.code: s for s in suppliers}
    extra = crossref_parts(
        seed,
        categories,
        parts,
        xref.attributes,
        lambda part_id, cat, maker, model: _part(part_id, cat, by_code[maker], model),
    )
    extra_prices, extra_stock = _crossref_trade(
        seed, suppliers, {p.id: p for p in parts}, extra, list_price, len(prices) + 1
    )
    every_part = parts + extra.parts
    attributes = xref.attributes | extra.attributes
    return Catalog(
        seed=seed,
        reference_date=REFERENCE_DATE,
        categories=categories,
        suppliers=suppliers,
        parts=every_part,
        prices=prices + extra_prices,
        inventory=inventory + extra_stock,
        orders=orders,
        attributes=attributes,
        equivalences=equivalences_of(every_part, attributes),
        copies=extra.copies,
    )


def _crossref_trade(
    seed: int,
    suppliers: tuple[Supplier, ...],
    originals: dict[int, Part],
    extra: CrossReferenceParts,
    list_price: dict[int, float],
    first_price_id: int,
) -> tuple[tuple[SupplierPrice, ...], tuple[Inventory, ...]]:
    """Price rows (the maker, and one or two distributors of the category) and stock of
    the cross-reference parts, from their own stream; price ids after the catalogue's."""
    rng = random.Random(f"{seed}:crossref:trade")
    premium = {m[0]: m[6] for m in _MAKERS}
    by_code = {s.code: s for s in suppliers}
    prices: list[SupplierPrice] = []
    for part in extra.parts:
        source = originals[extra.copies[part.id]]
        maker = by_code[maker_of(part)]
        pool = [s for s in suppliers if s.kind == "distributor" and part.category in s.categories]
        chosen = [maker, *rng.sample(pool, k=min(len(pool), rng.randint(1, 2)))]
        # Priced like the part it matches, scaled by the two brands' standing.
        ratio = premium[maker.code] / premium[maker_of(source)]
        list_yuan = list_price[source.id] * ratio * rng.uniform(0.92, 1.08)
        for s in chosen:
            prices.append(_price(rng, first_price_id + len(prices), s, part.id, list_yuan))
    return tuple(prices), _inventory(rng, extra.parts)


def _categories() -> tuple[Category, ...]:
    """The categories, each with the makers that make it."""
    cat_makers: dict[str, list[str]] = {c.code: [] for c in _CATEGORIES}
    for code, *_rest, cats, _premium in _MAKERS:
        for c in cats:
            cat_makers[c].append(code)
    return tuple(
        Category(
            c.code, c.name_zh, c.name_en, c.unit, c.base_price, tuple(cat_makers[c.code]), c.aliases
        )
        for c in _CATEGORIES
    )


def _suppliers(rng: random.Random) -> tuple[Supplier, ...]:
    """The makers, then the distributors, numbered from 1 in that order."""
    rows = [
        (code, zh, en, "maker", country, currency, cats, (3.4, 4.9), f"www.{code.lower()}-moto")
        for code, zh, en, country, currency, cats, _premium in _MAKERS
    ]
    rows += [
        (
            code,
            zh,
            en,
            "distributor",
            "HK" if code == "HKGLOBAL" else "CN",
            currency,
            cats,
            (3.0, 4.7),
            f"shop.{code.lower()}",
        )
        for code, zh, en, cats, currency in _DISTRIBUTORS
    ]
    return tuple(
        Supplier(
            id=number,
            code=code,
            name_zh=zh,
            name_en=en,
            kind=kind,
            status=_HELD.get(code, "active"),
            rating=round(rng.uniform(*rating), 1),
            website=f"https://{host}.example",
            country=country,
            currency=currency,
            categories=cats,
        )
        for number, (code, zh, en, kind, country, currency, cats, rating, host) in enumerate(
            rows, 1
        )
    )


def _parts(
    rng: random.Random, categories: tuple[Category, ...], by_code: dict[str, Supplier]
) -> tuple[tuple[Part, ...], dict[int, float]]:
    """Parts of every category from its makers in turn, and each part's list price (yuan)."""
    premium = {m[0]: m[6] for m in _MAKERS}
    parts: list[Part] = []
    list_price: dict[int, float] = {}
    for cat in categories:
        seen: set[str] = set()
        i = 0
        while i < _PARTS_PER_CATEGORY:
            maker = by_code[cat.makers[i % len(cat.makers)]]
            model = _fill(rng.choice(_MODEL_PATTERNS[cat.code]), rng)
            key = f"{maker.code}:{model}"
            if key in seen:
                continue
            seen.add(key)
            i += 1
            part = _part(len(parts) + 1, cat, maker, model)
            parts.append(part)
            lo, hi = cat.base_price
            list_price[part.id] = rng.uniform(lo, hi) * premium[maker.code] / 1.1
    return tuple(parts), list_price


def _part(part_id: int, cat: Category, maker: Supplier, model: str) -> Part:
    brand_en = maker.name_en.split(" ")[0] if maker.code != "KN" else "K&N"
    brand_zh = _BRAND_ZH.get(maker.code, maker.name_zh)
    return Part(
        id=part_id,
        sku=f"{cat.code}-{maker.code}-{model.replace(' ', '').replace('/', '')}",
        model=model,
        name_zh=f"{brand_zh} {cat.name_zh} {model}",
        name_en=f"{brand_en} {cat.name_en} {model}",
        category=cat.code,
        category_zh=cat.name_zh,
        category_en=cat.name_en,
        brand=brand_en,
        brand_zh=brand_zh,
        unit=cat.unit,
    )


def _prices(
    rng: random.Random,
    categories: tuple[Category, ...],
    suppliers: tuple[Supplier, ...],
    parts: tuple[Part, ...],
    list_price: dict[int, float],
) -> tuple[tuple[SupplierPrice, ...], dict[int, list[int]]]:
    """Each part's price list at its maker and two or three distributors, and who sells it."""
    by_code = {s.code: s for s in suppliers}
    prices: list[SupplierPrice] = []
    sellers: dict[int, list[int]] = {}
    distributors_by_cat: dict[str, list[Supplier]] = {c.code: [] for c in categories}
    for s in suppliers:
        if s.kind == "distributor":
            for c in s.categories:
                distributors_by_cat[c].append(s)
    for part in parts:
        maker = by_code[part.sku.split("-")[1]]
        pool = distributors_by_cat[part.category]
        chosen = [maker, *rng.sample(pool, k=min(len(pool), rng.randint(2, 3)))]
        sellers[part.id] = [s.id for s in chosen]
        for s in chosen:
            prices.append(_price(rng, len(prices) + 1, s, part.id, list_price[part.id]))
    return tuple(prices), sellers


def _price(
    rng: random.Random, price_id: int, s: Supplier, part_id: int, list_yuan: float
) -> SupplierPrice:
    ref = REFERENCE_DATE
    factor = rng.uniform(0.86, 0.97) if s.kind == "maker" else rng.uniform(0.94, 1.18)
    yuan = list_yuan * factor
    currency = s.currency
    if currency == "USD":
        yuan = yuan / 7.1  # USD list, converted at a fixed planning rate
    price_minor = _round_price(yuan) if currency == "CNY" else max(1, round(yuan * 100))
    valid_from = ref - timedelta(days=rng.randint(120, 420))
    # A few price lists have lapsed: ordering against them must fail validation.
    expired = rng.random() < 0.03
    valid_to = (
        (ref - timedelta(days=rng.randint(5, 60)))
        if expired
        else (ref + timedelta(days=rng.randint(400, 1100)))
    )
    return SupplierPrice(
        id=price_id,
        supplier_id=s.id,
        part_id=part_id,
        price_minor=price_minor,
        currency=currency,
        min_order_qty=_moq(price_minor, rng),
        lead_time_days=rng.randint(3, 10) if s.country == "CN" else rng.randint(7, 35),
        valid_from=valid_from,
        valid_to=valid_to,
    )


def _inventory(rng: random.Random, parts: tuple[Part, ...]) -> tuple[Inventory, ...]:
    """Stock per part; about one part in seven below its safety stock."""
    inventory: list[Inventory] = []
    for part in parts:
        safety = rng.choice([20, 30, 50, 80, 100, 150, 200])
        below = rng.random() < 0.15
        on_hand = rng.randint(0, safety - 1) if below else rng.randint(safety, safety * 4)
        inventory.append(
            Inventory(
                part_id=part.id,
                on_hand=on_hand,
                reserved=rng.randint(0, min(on_hand, safety // 2)),
                on_order=rng.choice([0, 0, safety]) if below else 0,
                safety_stock=safety,
                reorder_point=int(safety * 1.5),
            )
        )
    return tuple(inventory)


def _history(
    rng: random.Random,
    suppliers: tuple[Supplier, ...],
    parts: tuple[Part, ...],
    prices: tuple[SupplierPrice, ...],
    sellers: dict[int, list[int]],
) -> tuple[HistoricalOrder, ...]:
    """Order history: per (supplier, part) a monthly drift, so 12-month trends exist."""
    drift: dict[tuple[int, int], float] = {}
    price_of = {(p.supplier_id, p.part_id): p for p in prices}
    orders: list[HistoricalOrder] = []
    active_ids = {s.id for s in suppliers if s.status == "active"}
    seq = 0
    for months_back in range(HISTORY_MONTHS, 0, -1):
        month = _month_start(REFERENCE_DATE, months_back)
        for _ in range(rng.randint(40, 55)):
            sup = rng.choice([s for s in suppliers if s.id in active_ids])
            candidates = [p for p in parts if sup.id in sellers[p.id]]
            if not candidates:
                continue
            lines: list[OrderLine] = []
            for part in rng.sample(candidates, k=min(len(candidates), rng.randint(1, 3))):
                sp = price_of[(sup.id, part.id)]
                d = drift.setdefault((sup.id, part.id), rng.uniform(-0.012, 0.02))
                paid = sp.price_minor * (1 - d * months_back) * rng.uniform(0.985, 1.015)
                qty = sp.min_order_qty * rng.randint(1, 6)
                lines.append(OrderLine(part.id, qty, max(1, round(paid)), qty))
            seq += 1
            odate = month + timedelta(days=rng.randint(0, 27))
            status = "closed" if months_back > 2 else rng.choice(["received", "closed"])
            if rng.random() < 0.04:
                status = "cancelled"
                lines = [OrderLine(ln.part_id, ln.quantity, ln.unit_price_minor, 0) for ln in lines]
            orders.append(
                HistoricalOrder(
                    order_no=f"PO{odate:%Y%m}{seq:05d}",
                    supplier_id=sup.id,
                    status=status,
                    currency=sup.currency,
                    order_date=odate,
                    expected_date=odate
                    + timedelta(days=price_of[(sup.id, lines[0].part_id)].lead_time_days),
                    lines=tuple(lines),
                )
            )
    return tuple(orders)
