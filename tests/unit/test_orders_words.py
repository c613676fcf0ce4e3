"""The order agent's words and rules, checked against the ERP's own lists: every order status
has a word in both languages, every order rule and error code a sentence; the buyer's
language is read from their own words; the approval limits parse strictly."""

from __future__ import annotations

from typing import get_args

import pytest
from langchain_core.messages import AIMessage, HumanMessage

from graphs.context import APPROVE_PERMISSION
from graphs.messages import NOTIFICATION_KEY
from graphs.orders.issues import _RULES, issue_sentence
from graphs.orders.language import buyer_language, language_of
from graphs.orders.policy import ApprovalPolicy, decider_of
from graphs.orders.words import ERROR_SENTENCES, STATUS_WORDS, explain_refusal, money, status_word
from graphs.prompts import DELEGATION_TEMPLATE
from sim.erp.checks import IssueCode
from sim.erp.errors import ErrorCode
from sim.erp.models import ORDER_STATUSES


def test_every_status_rule_and_error_code_has_words() -> None:
    assert set(STATUS_WORDS) == set(ORDER_STATUSES)
    for zh, en in STATUS_WORDS.values():
        assert zh and en and zh != en
    assert set(_RULES) == set(get_args(IssueCode))
    erp_codes = set(get_args(ErrorCode)) - {"METHOD_NOT_ALLOWED", "INTERNAL"}
    assert erp_codes <= set(ERROR_SENTENCES)
    assert status_word("pending_approval", "zh") == "待审批"
    assert status_word("pending_approval", "en") == "awaiting approval"


def test_an_erp_refusal_becomes_one_sentence_with_its_code() -> None:
    text = (
        "Error from erp.order_create: VALIDATION: NGK Spark Plug Co. (NGK) sells SP-NGK-IU7 in "
        "quantities of at least 50 个; 20 is below that minimum order quantity. Details: "
        '{"violation":"BELOW_MOQ","part_id":1,"sku":"SP-NGK-IU7","quantity":20,'
        '"min_order_qty":50,"order_step":10,"suggested":{"quantity":50}}'
    )
    sentence, code = explain_refusal(text, "zh", issue_sentence=issue_sentence)
    assert code == "VALIDATION/BELOW_MOQ"
    assert "起订量是 50" in sentence and "把数量提高到 50" in sentence
    assert "minimum" not in sentence  # the buyer's language only
    sentence, code = explain_refusal("VERSION_CONFLICT: Order PO1 has changed.", "en")
    assert code == "VERSION_CONFLICT" and sentence.startswith("Someone changed the order")
    sentence, code = explain_refusal("Error: MCP server 'erp' at http://x is unreachable", "zh")
    assert code == "MCP_UNREACHABLE" and "连不上 ERP 服务" in sentence


def test_the_buyers_language_comes_from_their_own_words() -> None:
    english = DELEGATION_TEMPLATE.format(
        goal="place an order",
        preferences="无",
        body="Order 200 spark plugs",
        scope="无",
        output="确认",
    )
    assert language_of(english) == "en"  # the Chinese section headers do not count
    chinese = DELEGATION_TEMPLATE.format(
        goal="下单", preferences="无", body="给 NGK 下单 200 个火花塞", scope="无", output="确认"
    )
    assert language_of(chinese) == "zh"
    assert language_of("200") is None
    # The card's language is the planner's: an English sentence naming a Chinese company is
    # English, an order line with a Chinese phrase is Chinese.
    assert language_of("order 500 IU7 from 重庆摩配") == "en"
    assert language_of("NGK IU7 x 200，月底前到货") == "zh"
    notice = HumanMessage("任务完成", additional_kwargs={NOTIFICATION_KEY: {"task": "x"}})
    history = [HumanMessage("Order 200 NGK plugs"), AIMessage("ok"), HumanMessage("300"), notice]
    assert buyer_language(history) == "en"


def test_the_approval_limits() -> None:
    policy = ApprovalPolicy(approver_above="CNY 50_000; USD 7000.50")
    assert policy.limits == {"CNY": 5_000_000, "USD": 700_050}
    assert policy.needs_approver(5_000_001, "CNY") and not policy.needs_approver(5_000_000, "CNY")
    assert policy.needs_approver(1, "EUR")  # a currency not listed: fail closed
    assert policy.needs_approver(None, "CNY")  # an unknown total: fail closed
    assert policy.limit_text("CNY") == money(5_000_000, "CNY") == "50,000.00 CNY"
    assert not ApprovalPolicy(approver_above="off").needs_approver(10**12, "CNY")
    for bad in ("fifty thousand", "CNY 50,000", "50000 CNY"):
        with pytest.raises(ValueError, match="ORDER_APPROVER_ABOVE"):
            ApprovalPolicy(approver_above=bad)


def test_who_decides() -> None:
    none = decider_of({"configurable": {}}, {"user_id": "dave"})
    assert (none.user_id, none.authenticated, none.can_approve) == ("dave", False, False)
    user = {"identity": "bob", "is_authenticated": True, "display_name": "bob"}
    configurable = {
        "langgraph_auth_user": user,
        "langgraph_auth_user_id": "bob",
        "langgraph_auth_permissions": [APPROVE_PERMISSION],
    }
    from langgraph.graph import END, START, StateGraph
    from typing_extensions import TypedDict

    class S(TypedDict):
        who: str

    seen: list[object] = []

    def node(state: S) -> S:
        from langgraph.config import get_config

        seen.append(decider_of(get_config(), {"user_id": "mallory"}))
        return state

    graph = StateGraph(S).add_node("n", node).add_edge(START, "n").add_edge("n", END).compile()
    graph.invoke({"who": ""}, {"configurable": configurable})
    [bob] = seen
    # The context claims mallory; the authenticated caller is bob, and bob decides.
    assert (bob.user_id, bob.authenticated, bob.can_approve) == ("bob", True, True)  # type: ignore[attr-defined]
