"""The order agent's offline policy on scripted ERP answers: ask, approve, edit, reject, change."""

from __future__ import annotations

from langchain_core.messages import AIMessage

from tests.unit.test_offline_world import World, converse

POLICY = "procurement-order"


def final_text(messages: list) -> str:
    last = messages[-1]
    assert isinstance(last, AIMessage) and not last.tool_calls
    return str(last.content)


def test_missing_quantity_is_asked_then_the_order_is_created_and_verified() -> None:
    world = World(answers=[{"quantity": 150}])
    messages = converse(POLICY, "给 天顶贸易 下单 链轮 428，下周五前到货", world)
    names = [name for name, _ in world.calls]
    assert names.index("request_order_info") < names.index("order_create")
    asked = dict(world.calls[names.index("request_order_info")][1])
    assert asked["fields"] == ["quantity"]
    create = dict(world.calls[names.index("order_create")][1])
    assert create["supplier_id"] == 8
    assert create["lines"] == [{"part_id": 101, "quantity": 150}]
    assert "expected_date" in create and "idempotency_key" not in create
    assert names[-1] == "order_search_details"  # verified after committing
    assert "PO20261200001" in final_text(messages)
    meta = messages[-1].response_metadata
    assert meta["offline_planner"] is True and meta["policy"] == POLICY


def test_english_request_with_quantity_goes_straight_to_approval() -> None:
    world = World()
    converse(POLICY, "Please order 40 Acme Sprocket 520 from Acme", world)
    names = [name for name, _ in world.calls]
    assert "request_order_info" not in names
    create = dict(world.calls[names.index("order_create")][1])
    assert create == {**create, "supplier_id": 7, "lines": [{"part_id": 102, "quantity": 40}]}


def test_ambiguous_part_offers_the_suppliers_models_as_options() -> None:
    world = World(answers=[{"part": "SK-ACME-520"}])
    converse(POLICY, "给艾克米下单 30 个链轮", world)
    asked = next(args for name, args in world.calls if name == "request_order_info")
    assert asked["fields"] == ["part"]
    assert any("SK-ACME-428" in o for o in asked["options"])
    create = next(args for name, args in world.calls if name == "order_create")
    assert create["lines"] == [{"part_id": 102, "quantity": 30}]


def test_reject_creates_nothing_and_says_so() -> None:
    world = World(decisions=[{"type": "reject"}])
    messages = converse(POLICY, "Order 20 Zenith Mirror M8 from Zenith Trading", world)
    assert world.orders == []
    assert "rejected" in final_text(messages).lower()
    assert [n for n, _ in world.calls].count("order_create") == 1  # never retried


def test_edit_commits_the_edited_quantity() -> None:
    edited = {"supplier_id": 8, "lines": [{"part_id": 201, "quantity": 35}]}
    world = World(decisions=[{"type": "edit", "args": edited}])
    converse(POLICY, "Order 20 Zenith Mirror M8 from Zenith Trading", world)
    assert world.orders[0]["lines"][0]["quantity"] == 35


def test_giving_up_after_two_unanswered_questions() -> None:
    world = World(answers=["不知道", "还是不知道"])
    messages = converse(POLICY, "给天顶贸易下单后视镜 M8", world)
    assert [n for n, _ in world.calls].count("request_order_info") == 2
    assert "order_create" not in [n for n, _ in world.calls]
    assert "缺少" in final_text(messages)


def test_update_reads_the_version_then_changes_the_quantity() -> None:
    world = World()
    converse(POLICY, "Order 20 Zenith Mirror M8 from Zenith Trading", world)
    order_no = world.orders[0]["order_no"]
    world.calls.clear()
    converse(POLICY, f"把订单 {order_no} 的数量改成 60", world)
    update = next(args for name, args in world.calls if name == "order_update")
    assert update["order_id"] == order_no and update["expected_version"] == 1
    assert update["lines"] == [{"part_id": 201, "quantity": 60}]


def test_cancel_sets_the_status() -> None:
    world = World()
    converse(POLICY, "Order 20 Zenith Mirror M8 from Zenith Trading", world)
    order_no = world.orders[0]["order_no"]
    converse(POLICY, f"cancel order {order_no}", world)
    assert world.orders[0]["status"] == "cancelled"


def test_lookup_reports_the_order() -> None:
    world = World()
    converse(POLICY, "Order 20 Zenith Mirror M8 from Zenith Trading", world)
    order_no = world.orders[0]["order_no"]
    world.calls.clear()
    messages = converse(POLICY, f"订单 {order_no} 现在什么状态？", world)
    assert [n for n, _ in world.calls] == ["order_search_details"]
    assert order_no in final_text(messages) and "草稿" in final_text(messages)  # draft, in words


def test_a_down_erp_ends_the_run_with_the_servers_error_not_a_loop() -> None:
    down = (
        "Error: MCP server 'erp' at http://127.0.0.1:8000/mcp is unreachable, so tool "
        "'supplier_query' could not run. To fix: start it with `python -m mcp_erp`."
    )
    world = World(extra={"supplier_query": lambda args: down})
    messages = converse(POLICY, "给天顶贸易下单 20 副后视镜 M8", world)
    names = [n for n, _ in world.calls]
    assert "supplier_query" in names and len(names) == len(set(names))  # one turn, no retry
    text = final_text(messages)
    assert "MCP server 'erp'" in text and "python -m mcp_erp" in text


def test_the_supplier_ordered_from_wins_over_a_brand_that_is_also_a_supplier() -> None:
    # "Zenith" is both the mirror's brand and a supplier; the buyer orders from Acme, which
    # sells no mirrors: the agent says so instead of switching supplier, and orders nothing.
    world = World()
    messages = converse(POLICY, "Order 20 Zenith Mirror M8 from Acme Industrial", world)
    lookups = [a for n, a in world.calls if n in ("part_by_supplier", "part_query")
               and "part_id" not in a]  # fmt: skip
    assert lookups and all(a["supplier_id"] == 7 for a in lookups)
    names = [n for n, _ in world.calls]
    assert "order_create" not in names and "request_order_info" not in names
    text = final_text(messages)
    assert "Acme Industrial" in text and "MR-ZEN-M8" in text and "does not supply" in text


def test_bad_quantities_are_refused_with_a_sentence() -> None:
    for request in (
        "Order -20 Zenith Mirror M8 from Zenith Trading",
        "给艾克米下单 2.5 个 SK-ACME-428",
        "order 0 units of 520 from Acme",
    ):
        world = World()
        messages = converse(POLICY, request, world)
        names = [n for n, _ in world.calls]
        assert "order_create" not in names and "request_order_info" not in names, request
        assert "whole positive" in final_text(messages) or "正整数" in final_text(messages)


def test_a_change_without_an_order_number_finds_the_order_and_never_creates_one() -> None:
    world = World()
    converse(POLICY, "Order 20 Zenith Mirror M8 from Zenith Trading", world)
    world.calls.clear()
    converse(POLICY, "把上次给天顶贸易的订单改成 60 副", world)
    names = [n for n, _ in world.calls]
    assert "order_create" not in names
    search = next(a for n, a in world.calls if n == "order_search_details")
    assert search["supplier_id"] == 8
    update = next(a for n, a in world.calls if n == "order_update")
    assert update["order_id"] == world.orders[0]["order_no"]
    assert update["lines"] == [{"part_id": 201, "quantity": 60}]
