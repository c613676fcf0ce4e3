"""What buyers ask about a supplier rather than of it, through the planner's real decision
path against the real seeded ERP.

From the eleventh red-team round: "力帆还能下单吗" (a blocked supplier) listed the parts of it
below safety stock under "whether to place this order is your call"; "what currency do we
pay Pirelli in?" asked which category to analyse; "帮我给NGK写封邮件要求降价" answered that
the ERP has no category called "写封邮件"; "NGK IU7 的官网价是多少" showed a menu, and "what
does Bosch charge for NDM6 on their website?" gave the ERP's contract prices as if they
were the website's; "汤浅的电瓶最近买过吗" was read as an order held for an opinion. Each
expected fact is read from the ERP here; nothing may be ordered, changed or sent.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from graphs.orders.words import supplier_status_word
from tests.unit.planner_harness import (
    TODAY,
    PlannerWorld,
    Script,
    analysis_scope,
    nothing_done,
    sold_part,
)


async def _one_of_each_status(world: PlannerWorld) -> list[dict[str, Any]]:
    suppliers = await world.suppliers()
    chosen = [next(s for s in suppliers if s["status"] == st)
              for st in ("active", "on_hold", "blocked")]  # fmt: skip
    return chosen


@pytest.mark.parametrize(
    ("template", "zh"),
    [
        ("{zh}还能下单吗", True),
        ("还能从{zh}买{category}吗？", True),
        ("can we still order from {en}?", False),
        ("are we allowed to buy from {en}?", False),
    ],
)
async def test_whether_a_supplier_takes_orders_is_its_status(
    world: PlannerWorld, template: str, zh: bool
) -> None:
    category = (await world.erp("/categories"))["items"][1]["name_zh"]
    for supplier in await _one_of_each_status(world):
        text = template.format(zh=supplier["name_zh"], en=supplier["name_en"], category=category)
        run = await world.run(text)
        nothing_done(run)
        answer = run.last_text
        word = supplier_status_word(supplier["status"], "zh" if zh else "en")
        assert word in answer and supplier["code"] in answer, (text, answer)
        refused = ("不能给它下单", "不接受新订单") if zh else ("no orders can be", "no new orders")
        says_no = any(w in answer for w in refused)
        assert says_no == (supplier["status"] != "active"), (text, answer)
        if supplier["status"] == "active":
            assert ("可以给它下单" if zh else "we can order from it") in answer, answer
        assert "下不下这张单由你决定" not in answer and "your call" not in answer, answer


@pytest.mark.parametrize(
    "template",
    ["what currency do we pay {en} in?", "{zh}用什么币种结算？", "what country is {en} based in?"],
)
async def test_a_suppliers_record_asked_with_price_words(
    world: PlannerWorld, template: str
) -> None:
    suppliers = await world.suppliers()
    supplier = suppliers[len(suppliers) // 2]
    run = await world.run(template.format(en=supplier["name_en"], zh=supplier["name_zh"]))
    nothing_done(run)
    field = "country" if "country" in template else "currency"
    assert supplier[field] in run.last_text and supplier["code"] in run.last_text, run.last_text


@pytest.mark.parametrize(
    "template",
    [
        "帮我给{zh}写封邮件要求降价",
        "给{code}发个询价",
        "跟{zh}谈一下价格",
        "让{code}便宜点",
        "draft an email to {en} asking for a discount",
        "send an RFQ to {code} for 500 {model}",
        "negotiate a better price with {en}",
        "can you write to {en} and ask them for a better price?",
    ],
)
async def test_writing_to_or_bargaining_with_a_supplier_is_said_not_done(
    world: PlannerWorld, template: str
) -> None:
    part, supplier, _ = await sold_part(world)
    text = template.format(zh=supplier["name_zh"], en=supplier["name_en"],
                           code=supplier["code"], model=part["model"])  # fmt: skip
    before = world.fingerprint()
    run = await world.run(text)
    nothing_done(run)
    assert world.fingerprint() == before
    zh = bool(re.search(r"[\u4e00-\u9fff]", template))
    assert ("什么都没有发出去" if zh else "nothing was sent") in run.last_text, run.last_text
    assert "类别" not in run.last_text and "category" not in run.last_text, run.last_text


async def test_a_negated_bargain_keeps_the_comparison_asked(world: PlannerWorld) -> None:
    category = (await world.erp("/categories"))["items"][1]
    run = await world.run(f"不用跟他们谈价，直接做个{category['name_zh']}比价")
    assert len(run.delegations) == 1, run.last_text
    assert category["code"] in analysis_scope(run.delegations[0]).get("categories", [])


@pytest.mark.parametrize(
    ("template", "yes"),
    [
        ("{model} 的官网价是多少", "好的"),
        ("what does {brand} charge for {model} on their website?", "yes please"),
    ],
)
async def test_a_website_price_is_not_the_contract_price(
    world: PlannerWorld, template: str, yes: str
) -> None:
    part, _, _ = await sold_part(world)
    text = template.format(model=part["model"], brand=part.get("brand") or "")
    run = await world.run(text)
    nothing_done(run)
    zh = yes == "好的"
    assert ("不是官网价" if zh else "not website prices") in run.last_text, run.last_text
    assert part["sku"] in run.last_text  # the ERP's offers are still shown, as such
    history = world.thread()
    declined = await world.run("thanks", history=history)
    nothing_done(declined)
    started = await world.run(yes, history=history, script=Script())
    assert len(started.delegations) == 1, started.last_text
    scope = analysis_scope(started.delegations[0])  # one part: "part", several: "parts"
    assert scope.get("parts", [scope.get("part")]) == [part["sku"]], scope


@pytest.mark.parametrize(
    "template", ["{supplier}的{category}最近买过吗", "have we bought any {category_en} from {en}?"]
)
async def test_whether_we_bought_is_the_orders_we_placed(
    world: PlannerWorld, template: str
) -> None:
    orders = await world.erp_pages("/orders/search-details", date_from="2026-06-01",
                                   date_to=TODAY.isoformat())  # fmt: skip
    placed = sorted((o for o in orders if o["status"] != "cancelled"),
                    key=lambda o: (o["order_date"], o["order_no"]), reverse=True)  # fmt: skip
    newest = placed[len(placed) // 3]
    part = await world.erp(f"/parts/{newest['lines'][0]['part_id']}")
    category = next(c for c in (await world.erp("/categories"))["items"]
                    if c["code"] == part["category_code"])  # fmt: skip
    ids = {p["id"] for p in await world.erp_pages("/parts", category=category["code"])}
    supplier = next(s for s in await world.suppliers() if s["code"] == newest["supplier_code"])
    theirs = [o for o in placed if o["supplier_code"] == supplier["code"]
              and any(ln["part_id"] in ids for ln in o["lines"])]  # fmt: skip
    text = template.format(supplier=supplier["name_zh"], category=category["name_zh"],
                           category_en=category["name_en"].lower() + "s",
                           en=supplier["name_en"])  # fmt: skip
    run = await world.run(text)
    assert run.proposal is None and not run.called("order_create"), run.calls
    assert theirs[0]["order_no"] in run.last_text, (text, theirs[0]["order_no"], run.last_text)
    assert "下不下这张单由你决定" not in run.last_text, run.last_text


@pytest.mark.parametrize(
    ("asked", "named"),
    [
        ("{zh}官网价比合同价低，那我们直接从官网买？", None),  # said: no category "直接"
        ("顺便比一下价格吧", None),
        ("头盔哪家便宜", "头盔"),  # a thing the catalogue lacks is still named
    ],
)
async def test_an_adverb_is_never_taken_for_a_missing_category(
    world: PlannerWorld, asked: str, named: str | None
) -> None:
    supplier = (await world.suppliers())[2]
    run = await world.run(asked.format(zh=supplier["name_zh"]))
    nothing_done(run)
    categories = (await world.erp("/categories"))["items"]
    assert all(c["name_zh"] in run.last_text for c in categories), run.last_text  # which one?
    missing = re.findall(r"没有“([^”]+)”这个零件类别", run.last_text)
    assert missing == ([named] if named else []), run.last_text
