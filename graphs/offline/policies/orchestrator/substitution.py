"""Orchestrator policy for part substitution in a BOM (issue 19).

The deterministic work is the ``plan_substitution`` tool's; this policy only decides when to
call what:

1. a BOM: the newest one in the conversation (a client BOM tool's result, a file attached
   to the message, or the message itself), else the client's BOM tool (found by its
   description, its arguments from the request), else a question asking for the BOM;
2. what to replace and with what, from the request's words grounded in the ERP: the words
   before "换成 / with / to ..." name what to replace (brands, suppliers, categories,
   parts, or "discontinued"), the words after it the target brand or supplier (none named,
   "another supplier": any other brand); nothing to replace named → a question;
3. ``plan_substitution``; its table is the answer, and when some line has an equivalent,
   ``apply_substitution`` puts it up for approval (the graph pauses there; approved, it is
   applied once; rejected, nothing changes and the buyer is told);
4. a plan that matched no line → a question naming the BOM's brands and categories.
"""

from __future__ import annotations

import re
from typing import Any

from langchain_core.messages import ToolMessage

from graphs.offline import lexicon
from graphs.offline.client_tools import build_arguments
from graphs.offline.entities import Grounding, by_head_noun
from graphs.offline.history import ToolResult, View
from graphs.offline.intent import read
from graphs.offline.policies.base import Decision, say
from graphs.offline.policies.orchestrator.analysis import delegation
from graphs.offline.policies.orchestrator.erp import ErpData, read_erp
from graphs.substitution.bom import bom_in_messages, instruction_text
from graphs.substitution.client import bom_tools

__all__ = ["APPLY", "PLAN", "applied_changes", "order_step", "step"]

PLAN = "plan_substitution"
APPLY = "apply_substitution"
_PLAN_ID = re.compile(r"plan_id: ([0-9a-f]{6,64})")
_WITH_COUNT = re.compile(r"plan_id: \w+\s*[（(](\d+)")
# "substitute NGK for Bosch", "用 NGK 替换博世": the target comes first.
_TARGET_FIRST = (
    re.compile(r"\bsubstitut\w*\s+(.+?)\s+for\s+(.+)$", re.I),
    re.compile(r"(?:用|拿)(.+?)(?:替换|代替|替代|换掉|换)(.+)$"),
)
_INSTEAD = re.compile(r"(.+?)\binstead of\b(.+)$", re.I)


def _split(text: str) -> tuple[str, str]:
    """(what to replace, what to switch to) in the request's words."""
    for pattern in _TARGET_FIRST:
        m = pattern.search(text)
        if m:
            return m.group(2), m.group(1)
    m = _INSTEAD.search(text)
    if m:
        return m.group(2), m.group(1)
    verb = lexicon.first(text, "substitute")
    start = verb.end if verb else 0
    for hit in lexicon.find(text, "switch_to"):
        if hit.start >= start or hit.text in ("换成", "换为", "替换成", "替换为", "改用", "换用"):
            return text[: hit.start], text[hit.end :]
    return text, ""


def _terms(mention: Any) -> list[str]:
    record = mention.record
    names = [mention.term, record.get("code"), record.get("name_zh"), record.get("name_en")]
    return [str(n) for n in dict.fromkeys(names) if n]


def _selection(found: Grounding, erp: ErpData, text: str) -> dict[str, Any]:
    makers = [m for m in found.suppliers if m.record.get("kind") != "distributor"]
    sellers = [m for m in found.suppliers if m.record.get("kind") == "distributor"]
    categories = [str(m.record.get("code")) for m in found.categories]
    if not categories and not found.parts:
        categories = [str(c.get("code")) for c in by_head_noun(found.unknown, erp.categories)]
    selection = {
        "brands": [t for m in makers for t in _terms(m)],
        "suppliers": [t for m in sellers for t in _terms(m)],
        "categories": categories,
        "parts": [m.code for m in found.parts] + [str(m.term) for m in found.parts],
        "unavailable": lexicon.has(text, "discontinued"),
    }
    if not any(selection.values()):
        # A brand the ERP knows only on its parts ("Daido" on D.I.D's chains): the tool
        # matches the words against the BOM's parts; none matching, the buyer is asked.
        selection["brands"] = [w for w in found.unknown if len(w) >= 2]
    return selection


def _target(found: Grounding) -> dict[str, Any]:
    makers = [m for m in found.suppliers if m.record.get("kind") != "distributor"]
    sellers = [m for m in found.suppliers if m.record.get("kind") == "distributor"]
    target: dict[str, Any] = {}
    if makers:
        target["target_brand"] = str(makers[0].term)
    if sellers:
        target["target_supplier"] = str(sellers[0].record.get("code"))
    return target


def _bom_tool(view: View) -> str | None:
    names = bom_tools(view.client_tools)
    return names[0] if names else None


def _ask_bom(zh: bool) -> Decision:
    return Decision(
        say(
            zh,
            "要替换哪份 BOM？请把 BOM 贴在消息里（CSV、表格或“行号 型号 数量”），或作为 CSV / "
            "文本文件附上。",
            "Which BOM should I work on? Paste it in your message (CSV, a table or "
            '"line part qty" lines) or attach it as a CSV / text file.',
        ),
        note="ask:bom",
    )


def _ask_what(zh: bool) -> Decision:
    return Decision(
        say(
            zh,
            "要替换 BOM 里的哪些零件？请说品牌、供应商、类别或型号（例如“博世火花塞换成 NGK”）。",
            "Which BOM parts should I replace? Name a brand, supplier, category or part "
            '(e.g. "Bosch spark plugs to NGK").',
        ),
        note="ask:substitution",
    )


def _fetch_bom(view: View, zh: bool) -> Decision:
    """Call the client's BOM tool, or ask for the BOM when there is none (or it failed)."""
    name = _bom_tool(view)
    if name is None:
        return _ask_bom(zh)
    earlier = view.called(name)
    if earlier:
        if not earlier[-1].ok:
            return Decision(
                say(zh, f"读取 BOM 失败（{name}）：{earlier[-1].body}",
                    f"Reading the BOM failed ({name}): {earlier[-1].body}"),
                note="substitution-bom-error",
            )  # fmt: skip
        return _ask_bom(zh)  # it answered, but with nothing that reads as a BOM
    args, missing = build_arguments(view.request, view.client_tools[name]["parameters"])
    if missing:
        return Decision(
            say(zh, f"要读取 BOM，还需要：{'、'.join(missing)}（例如产品编号）。",
                f"To read the BOM I also need: {', '.join(missing)} (e.g. the product code)."),
            note="ask:bom",
        )  # fmt: skip
    return Decision(
        say(zh, f"先用你的工具 {name} 读取 BOM。", f"Reading the BOM with your tool {name}."),
        [(name, args)],
        note="substitution-read-bom",
    )


def _plan(view: View, zh: bool) -> Decision:
    asked = instruction_text(view.request)  # a BOM pasted below names brands too
    erp = read_erp(view, asked, zh)
    if isinstance(erp, Decision):
        return erp
    source, target = _split(asked)
    selection = _selection(erp.ground(source), erp, source)
    if not any(selection.values()):
        return _ask_what(zh)
    args = {**selection, **_target(erp.ground(target)), "lang": "zh" if zh else "en"}
    args = {k: v for k, v in args.items() if v not in ([], False, None)}
    return Decision(
        say(zh, "在 ERP 的等效件对照表里查找替换件。",
            "Looking up equivalents in the ERP's cross-reference."),
        [(PLAN, args)],
        note="substitution-plan",
    )  # fmt: skip


def _after_plan(result: ToolResult, zh: bool) -> Decision:
    body = result.body.strip()
    if not result.ok:
        return Decision(
            say(zh, f"做不出替换表：{body}", f"I could not build the replacement table: {body}"),
            note="substitution-error",
        )
    found = _PLAN_ID.search(body)
    if found is None:  # no BOM line matched what was asked: the tool named what there is
        text = body.removeprefix("NO_MATCH：").removeprefix("NO_MATCH: ")
        question = say(zh, "你要替换哪些？", "Which of them should I replace?")
        return Decision(f"{text}\n{question}", note="ask:substitution")
    table = body[: found.start()].rstrip()
    count = _WITH_COUNT.search(body)
    if count is not None and int(count.group(1)) == 0:
        return Decision(
            table + "\n\n" + say(zh, "没有可替换的行，BOM 保持不变。",
                                 "No line can be replaced; the BOM stays as it is."),
            note="substitution-none",
        )  # fmt: skip
    return Decision(table, [(APPLY, {"plan_id": found.group(1)})], note="substitution-approval")


def _after_apply(result: ToolResult, zh: bool) -> Decision:
    body = result.body.strip()
    if result.ok:
        return Decision(body, note="substitution-applied")
    if body.lower().startswith("user rejected"):
        return Decision(
            say(zh, "好的，已拒绝：BOM 没有任何改动。", "Rejected: nothing in the BOM changed."),
            note="substitution-rejected",
        )
    return Decision(
        say(zh, f"替换没有完成：{body}", f"The replacement was not applied: {body}"),
        note="substitution-error",
    )


def step(view: View, zh: bool) -> Decision:
    """The next step of a substitution request."""
    applied = view.last_result(APPLY)
    if applied is not None:
        return _after_apply(applied, zh)
    planned = view.last_result(PLAN)
    if planned is not None:
        return _after_plan(planned, zh)
    tools = bom_tools(view.client_tools)
    if bom_in_messages(view.messages, tools) is None:
        return _fetch_bom(view, zh)
    if not view.has_tool(PLAN):
        return Decision(
            say(zh, "这个部署没有启用零件替换。", "Part substitution is not enabled here."),
            note="no-substitution",
        )
    return _plan(view, zh)


# --- "and order them": the new lines of the last applied plan, to the order agent ----------

ORDER_AGENT = "procurement-order"


def applied_changes(view: View) -> list[dict[str, Any]]:
    """The changes of the newest plan applied before this request, when the request orders
    "them" (an order with a word pointing back); else none."""
    if read(view.request).intent != "order_create" or not lexicon.has(
        view.request, "back_reference"
    ):
        return []
    for m in reversed(view.messages[: view.request_index]):
        if isinstance(m, ToolMessage) and m.name == APPLY and m.status != "error":
            artifact = m.artifact if isinstance(m.artifact, dict) else {}
            return [c for c in artifact.get("changes") or [] if isinstance(c, dict)]
    return []


def _order_text(change: dict[str, Any], zh: bool) -> str:
    """The order request for one new line, at the quantity its offer can be ordered in."""
    qty = change.get("order_qty") or change.get("qty")
    supplier = change.get("supplier") or ""
    if not isinstance(qty, int | float):
        return say(zh, f"给 {supplier} 下单 {change['new_sku']}",
                   f"Order {change['new_sku']} from {supplier}")  # fmt: skip
    return say(zh, f"给 {supplier} 下单 {qty:g} 个 {change['new_sku']}",
               f"Order {qty:g} x {change['new_sku']} from {supplier}")  # fmt: skip


def _rounded(change: dict[str, Any], zh: bool) -> str:
    """Why the order quantity is not the BOM's, if it is not."""
    qty, order = change.get("qty"), change.get("order_qty")
    if not isinstance(qty, int | float) or not isinstance(order, int) or order == qty:
        return ""
    return say(zh, f"（BOM 用量 {qty:g}，按起订量和订货步长订 {order}）",
               f" (the BOM needs {qty:g}; {order} meets the minimum order and step)")  # fmt: skip


def order_step(view: View, changes: list[dict[str, Any]], zh: bool) -> Decision:
    """One order per new line, each through the order agent (its own checks and approval),
    one after the other; then the order agent's answers together."""
    done = view.called("task")
    if len(done) < len(changes):
        change = changes[len(done)]
        body = _order_text(change, zh)
        args = {"description": delegation(view, analysis=False, scope='{"intent": "order_create"}',
                                          body=body),
                "subagent_type": ORDER_AGENT}  # fmt: skip
        return Decision(
            say(zh, f"第 {len(done) + 1}/{len(changes)} 行交给订单代理：{body}",
                f"Line {len(done) + 1}/{len(changes)} to the order agent: {body}")
            + _rounded(change, zh),
            [("task", args)],
            note="substitution-order",
        )  # fmt: skip
    return Decision("\n\n".join(r.body.strip() for r in done), note="substitution-ordered")
