"""A scripted world for the offline planner's unit tests: a tiny ERP, shops and tools in memory.

Its data is deliberately unlike the simulated company's (other categories, suppliers
and SKUs), so a policy that passes here reads the tool results rather than knowing
the demo's catalogue.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.tools import StructuredTool

from graphs.offline import OfflinePlanner

SUPPLIERS: list[dict[str, Any]] = [
    {"id": 7, "code": "ACME", "name_zh": "艾克米工业", "name_en": "Acme Industrial",
     "status": "active", "rating": 4.1, "country": "US"},
    {"id": 8, "code": "ZENITH", "name_zh": "天顶贸易有限公司", "name_en": "Zenith Trading",
     "status": "active", "rating": 3.8, "country": "CN"},
    {"id": 9, "code": "OLDCO", "name_zh": "旧厂", "name_en": "Old Co", "status": "blocked",
     "rating": 2.0},
]  # fmt: skip

PARTS: list[dict[str, Any]] = [
    {"id": 101, "sku": "SK-ACME-428", "model": "428", "name_zh": "艾克米 链轮 428",
     "name_en": "Acme Sprocket 428", "category_code": "SK", "category_zh": "链轮",
     "category_en": "Sprocket", "brand": "Acme", "brand_zh": "艾克米", "unit": "个"},
    {"id": 102, "sku": "SK-ACME-520", "model": "520", "name_zh": "艾克米 链轮 520",
     "name_en": "Acme Sprocket 520", "category_code": "SK", "category_zh": "链轮",
     "category_en": "Sprocket", "brand": "Acme", "brand_zh": "艾克米", "unit": "个"},
    {"id": 201, "sku": "MR-ZEN-M8", "model": "M8", "name_zh": "天顶 后视镜 M8",
     "name_en": "Zenith Mirror M8", "category_code": "MR", "category_zh": "后视镜",
     "category_en": "Mirror", "brand": "Zenith", "brand_zh": "天顶", "unit": "副"},
]  # fmt: skip


def offer(
    part_id: int, supplier: dict[str, Any], price_minor: int, moq: int = 10
) -> dict[str, Any]:
    return {
        "supplier_id": supplier["id"], "supplier_code": supplier["code"],
        "supplier_name_zh": supplier["name_zh"], "supplier_name_en": supplier["name_en"],
        "price_minor": price_minor, "price": f"{price_minor / 100:.2f}", "currency": "CNY",
        "min_order_qty": moq, "lead_time_days": 10, "valid_from": "2026-01-01",
        "valid_to": "2027-12-31",
    }  # fmt: skip


CATEGORIES: list[dict[str, Any]] = [
    {"code": "SK", "name_zh": "链轮", "name_en": "Sprocket", "unit": "个", "aliases": ["牙盘"],
     "part_count": 2},
    {"code": "MR", "name_zh": "后视镜", "name_en": "Mirror", "unit": "副",
     "aliases": ["反光镜", "side mirror"], "part_count": 1},
]  # fmt: skip

OFFERS = {
    101: [offer(101, SUPPLIERS[0], 2500), offer(101, SUPPLIERS[1], 2400)],
    102: [offer(102, SUPPLIERS[0], 3100)],
    201: [offer(201, SUPPLIERS[1], 8800)],
}


@dataclass
class World:
    """The tools' answers; records every call; ``answers`` feed ``request_order_info``."""

    answers: list[Any] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)  # {"type", "args"?}
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    orders: list[dict[str, Any]] = field(default_factory=list)
    extra: dict[str, Callable[[dict[str, Any]], Any]] = field(default_factory=dict)
    parts: list[dict[str, Any]] = field(default_factory=lambda: PARTS)
    offers: dict[int, list[dict[str, Any]]] = field(default_factory=lambda: OFFERS)

    def detail(self, part: dict[str, Any]) -> dict[str, Any]:
        """A part's record as the ERP's ``GET /parts/{id}`` answers it."""
        return {**part, "offers": self.offers.get(part["id"], []),
                "inventory": {"on_hand": 5, "reserved": 0, "on_order": 0,
                              "safety_stock": 10, "reorder_point": 12}}  # fmt: skip

    def page(self, items: list[Any], args: dict[str, Any]) -> dict[str, Any]:
        page, size = int(args.get("page", 1)), int(args.get("size", 20))
        chunk = items[(page - 1) * size : page * size]
        return {"items": chunk, "total": len(items), "page": page, "size": size,
                "has_more": page * size < len(items)}  # fmt: skip

    def answer(self, name: str, args: dict[str, Any]) -> tuple[str, str]:
        """The tool's text result and status."""
        self.calls.append((name, args))
        if name in self.extra:
            out = self.extra[name](args)
            return (out if isinstance(out, str) else json.dumps(out, ensure_ascii=False)), "success"
        if name == "supplier_query":
            return json.dumps(self.page(SUPPLIERS, args), ensure_ascii=False), "success"
        if name == "part_by_supplier":
            sid = args["supplier_id"]
            items = [
                {**p, "offer": o}
                for p in PARTS
                for o in OFFERS.get(p["id"], [])
                if o["supplier_id"] == sid
            ]
            return json.dumps(self.page(items, args), ensure_ascii=False), "success"
        if name == "part_query":
            by_id = {p["id"]: p for p in self.parts}
            if "part_id" in args:
                detail = self.detail(by_id[args["part_id"]])
                return json.dumps(detail, ensure_ascii=False), "success"
            if "part_ids" in args:  # like the ERP's GET /parts/details
                ids = list(dict.fromkeys(args["part_ids"]))
                if not 1 <= len(args["part_ids"]) <= 50:
                    return "Error: part_ids takes 1 to 50 ids", "error"
                found = {"items": [self.detail(by_id[i]) for i in ids if i in by_id],
                         "missing": [i for i in ids if i not in by_id]}  # fmt: skip
                return json.dumps(found, ensure_ascii=False), "success"
            # Filtered like the ERP's GET /parts: by category code and by who sells the part.
            listed = [
                p for p in self.parts
                if args.get("category") in (None, p["category_code"])
                and (args.get("supplier_id") is None
                     or any(o["supplier_id"] == args["supplier_id"]
                            for o in self.offers.get(p["id"], [])))
            ]  # fmt: skip
            return json.dumps(self.page(listed, args), ensure_ascii=False), "success"
        if name == "category_list":
            return json.dumps({"items": CATEGORIES}, ensure_ascii=False), "success"
        if name == "part_search":
            key = str(args.get("name", "")).lower()
            hits = [p for p in PARTS if any(key in str(p[f]).lower() for f in ("sku", "model"))]
            return json.dumps({"items": hits, "total": len(hits)}, ensure_ascii=False), "success"
        if name == "start_async_task":
            return f"Launched async subagent. task_id: {uuid.uuid4()}", "success"
        if name == "task":
            return "订单代理：已处理。", "success"
        if name == "request_order_info":
            if not self.answers:
                raise AssertionError(f"unexpected question: {args}")
            reply = self.answers.pop(0)
            key = "answers" if isinstance(reply, dict) else "answer"
            return json.dumps({key: reply}, ensure_ascii=False), "success"
        if name in ("order_create", "order_update"):
            decision: dict[str, Any] = (
                self.decisions.pop(0) if self.decisions else {"type": "approve"}
            )
            if decision["type"] == "reject":
                return (f"User rejected the tool call for `{name}` with id x. The tool was not "
                        "executed."), "error"  # fmt: skip
            if decision["type"] == "edit":
                args = dict(decision["args"])
            return json.dumps(self._commit(name, args), ensure_ascii=False), "success"
        if name == "order_search_details":
            found = (
                [o for o in self.orders if o["order_no"] == args.get("order_no")]
                if args.get("order_no")
                else [o for o in reversed(self.orders)
                      if args.get("supplier_id") in (None, o["supplier_id"])]
            )  # fmt: skip
            return json.dumps(self.page(found, args), ensure_ascii=False), "success"
        return f"Error: no scripted answer for {name}", "error"

    def _commit(self, name: str, args: dict[str, Any]) -> dict[str, Any]:
        if name == "order_create":
            order = {
                "id": len(self.orders) + 1, "order_no": f"PO2026120{len(self.orders) + 1:04d}",
                "supplier_id": args["supplier_id"], "status": "draft", "currency": "CNY",
                "version": 1, "expected_date": args.get("expected_date"),
                "supplier_name_zh": "x", "supplier_name_en": "x", "total": "0.00",
                "lines": [{"part_id": ln["part_id"], "sku": "s", "quantity": ln["quantity"]}
                          for ln in args["lines"]],
            }  # fmt: skip
            self.orders.append(order)
            return order
        order = next(o for o in self.orders if o["order_no"] == args["order_id"])
        if "status" in args:
            order["status"] = args["status"]
        if "lines" in args:
            order["lines"] = args["lines"]
        order["version"] += 1
        return order


TOOL_NAMES = (
    "supplier_query", "part_query", "part_by_supplier", "part_search", "order_create",
    "order_update", "order_search_details", "request_order_info", "task", "start_async_task",
    "check_async_task", "ls", "read_file", "write_file", "grep", "execute", "fetch_url",
    "generate_visualization", "category_list", "inventory_warning",
)  # fmt: skip


def tools(
    names: Iterable[str] = TOOL_NAMES, schemas: dict[str, dict[str, Any]] | None = None
) -> list[StructuredTool]:
    """Stand-in tools so the planner knows their names (it never runs them); ``schemas``
    gives some of them their parameters (JSON schema properties), the others list none."""

    def noop(**kwargs: Any) -> str:
        return ""

    return [
        StructuredTool.from_function(
            noop, name=n, description=n,
            args_schema={"type": "object", "properties": (schemas or {}).get(n, {})})
        for n in names
    ]  # fmt: skip


def converse(
    policy: str,
    request: str,
    world: World,
    *,
    system: str = "",
    max_turns: int = 30,
    history: list[BaseMessage] | None = None,
    tools_extra: Iterable[str] = (),
    schemas: dict[str, dict[str, Any]] | None = None,
) -> list[BaseMessage]:
    """Run the planner against ``world`` until it answers without tool calls."""
    bound = tools([*TOOL_NAMES, *tools_extra], schemas)
    model = OfflinePlanner(policy=policy).bind_tools(bound)  # type: ignore[arg-type]
    messages: list[BaseMessage] = list(history or [])
    if system:
        from langchain_core.messages import SystemMessage

        messages.insert(0, SystemMessage(content=system))
    messages.append(HumanMessage(content=request))
    for _ in range(max_turns):
        reply = model.invoke(messages)
        assert isinstance(reply, AIMessage)
        messages.append(reply)
        if not reply.tool_calls:
            return messages
        for call in reply.tool_calls:
            text, status = world.answer(call["name"], dict(call["args"]))
            messages.append(
                ToolMessage(
                    content=text,
                    tool_call_id=call["id"] or str(uuid.uuid4()),
                    name=call["name"],
                    status=status,
                )
            )
    raise AssertionError("the planner did not finish")


def test_world_pages_like_the_erp() -> None:
    world = World()
    first = json.loads(world.answer("part_query", {"page": 1, "size": 2})[0])
    assert first["has_more"] is True and len(first["items"]) == 2
    last = json.loads(world.answer("part_query", {"page": 2, "size": 2})[0])
    assert last["has_more"] is False and len(last["items"]) == 1


def test_world_reads_part_details_in_batches_like_the_erp() -> None:
    world = World()
    single = json.loads(world.answer("part_query", {"part_id": 102})[0])
    found = json.loads(world.answer("part_query", {"part_ids": [201, 999, 102]})[0])
    assert [p["id"] for p in found["items"]] == [201, 102]
    assert found["missing"] == [999]
    assert found["items"][1] == single
    assert world.answer("part_query", {"part_ids": list(range(1, 52))})[1] == "error"
