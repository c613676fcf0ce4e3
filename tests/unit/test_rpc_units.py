"""Adapter internals without sockets: frame parsing, sessions, batch-replace inference."""

from __future__ import annotations

import asyncio

import pytest

from rpc_adapter.batch_replace import BatchReplaceRequest, apply_rule, batch_replace, infer_rule
from rpc_adapter.protocol import Invalid, Request, RpcError, parse_frame
from rpc_adapter.sessions import SessionManager


@pytest.mark.parametrize(
    ("frame", "kind"),
    [
        ('{"jsonrpc":"2.0","method":"m","id":1}', "request"),
        ('{"jsonrpc":"2.0","method":"m"}', "notification"),
        ('{"jsonrpc":"2.0","method":"m","id":null}', "request"),
        ('{"jsonrpc":"2.0","method":"m","id":true}', "invalid"),
        ('{"jsonrpc":"2.0","method":"m","params":3,"id":1}', "invalid"),
        ('{"method":"m","id":1}', "invalid"),
    ],
)
def test_single_frames(frame: str, kind: str) -> None:
    (item,) = parse_frame(frame).items
    if kind == "invalid":
        assert isinstance(item, Invalid) and item.error.code == -32600
    else:
        assert isinstance(item, Request)
        assert item.is_notification == (kind == "notification")


def test_parse_error_and_batches() -> None:
    assert parse_frame("{nope").parse_error is not None
    assert parse_frame(b"\xff\xfe").parse_error is not None
    empty = parse_frame("[]")
    assert not empty.is_batch and isinstance(empty.items[0], Invalid)
    batch = parse_frame('[{"jsonrpc":"2.0","method":"a","id":"x"}, 5]')
    assert batch.is_batch and len(batch.items) == 2


async def test_session_results_applied_once_then_refused() -> None:
    manager = SessionManager(ttl=0.01)
    session, existed = manager.get_or_create("s1")
    assert not existed and manager.get_or_create("s1") == (session, True)
    sent: list[object] = []
    session.attach(object(), sent.append)
    call = session.open_call("a", {"call_id": "c1", "tool_name": "t", "arguments": {}})
    assert sent[-1]["method"] == "agent.toolCall"  # type: ignore[index]
    with pytest.raises(RpcError) as mismatch:
        session.submit("c1", "other", {"success": True})
    assert mismatch.value.code == -32002
    session.submit("c1", "t", {"success": True, "result": 1})
    assert call.future.result() == {"success": True, "result": 1}
    with pytest.raises(RpcError, match="Duplicate"):
        session.submit("c1", "t", {"success": True})
    session.open_call("a", {"call_id": "c2", "tool_name": "t"})
    assert session.cancel_calls("a") == ["c2"]
    with pytest.raises(RpcError, match="cancelled"):
        session.submit("c2", "t", {"success": True})


async def test_detached_session_buffers_resends_and_expires() -> None:
    manager = SessionManager(ttl=0.05)
    session, _ = manager.get_or_create("s2")
    owner = object()
    session.attach(owner, lambda m: None)
    session.open_call("a", {"call_id": "c1", "tool_name": "t"})
    session.detach(owner)
    session.status("thinking", "while away")
    got: list[dict[str, object]] = []
    session.attach(object(), got.append)  # type: ignore[arg-type]
    assert got[0]["method"] == "agent.status"
    assert got[1]["params"]["resent"] is True  # type: ignore[index]
    session.detach(session.owner)
    await asyncio.sleep(0.1)
    assert manager.expire() == 1 and "s2" not in manager.sessions


def test_rule_inference_reports_groups() -> None:
    rule = infer_rule("NDM2-250/3300 200A", "NXM-250S/3300 200A")
    assert len(rule.groups) == 2
    r = apply_rule(rule, "NDM2-400/3300 315A")
    assert (r.replaced, r.method) == ("NXM-400S/3300 315A", "rule")


async def test_model_only_for_ambiguous_tasks() -> None:
    asked: list[str] = []

    async def model(old: str, new: str, task: str) -> str:
        asked.append(task)
        return "H4 12V35W-LED"

    req = BatchReplaceRequest(old="H4 12V35W", new="H4 24V35W", tasks=["H7 12V55W", "H4 6V35W"])
    rule_result, model_result = await batch_replace(req, model=model)
    assert asked == ["H4 6V35W"]
    assert rule_result.method == "rule" and rule_result.replaced == "H7 24V55W"
    assert model_result.method == "model" and model_result.to_json()["replaced"] == "H4 12V35W-LED"
