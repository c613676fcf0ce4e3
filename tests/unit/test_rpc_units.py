"""Adapter internals without sockets: frame parsing, sessions, batch-replace inference."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from rpc_adapter.batch_replace import BatchReplaceRequest, apply_rule, batch_replace, infer_rule
from rpc_adapter.outbox import Outbox, Outgoing, outgoing
from rpc_adapter.protocol import Invalid, Request, RpcError, notification, parse_frame
from rpc_adapter.sessions import SessionManager


class Recorder:
    """A socket stand-in: what the session delivers, decoded."""

    def __init__(self) -> None:
        self.got: list[Any] = []

    def deliver(self, item: Outgoing, *, force: bool = False) -> None:
        self.got.append(json.loads(item.text))


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
    deep = parse_frame("[" * 100_000 + "]" * 100_000)
    assert deep.parse_error is not None and deep.parse_error.code == -32700
    assert "deep" in deep.parse_error.message
    empty = parse_frame("[]")
    assert not empty.is_batch and isinstance(empty.items[0], Invalid)
    batch = parse_frame('[{"jsonrpc":"2.0","method":"a","id":"x"}, 5]')
    assert batch.is_batch and len(batch.items) == 2


async def test_session_results_applied_once_then_refused() -> None:
    manager = SessionManager(ttl=0.01)
    session, existed = manager.get_or_create("s1")
    assert not existed and manager.get_or_create("s1") == (session, True)
    sent = Recorder()
    session.attach(sent)
    call = session.open_call("a", {"call_id": "c1", "tool_name": "t", "arguments": {}})
    assert sent.got[-1]["method"] == "agent.toolCall"
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
    owner = Recorder()
    session.attach(owner)
    session.open_call("a", {"call_id": "c1", "tool_name": "t"})
    session.detach(owner)
    session.status("thinking", "while away")
    again = Recorder()
    session.attach(again)
    assert again.got[0]["method"] == "agent.status"
    assert again.got[1]["params"]["resent"] is True
    session.detach(again)
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


def _response(rid: int, size: int = 10) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "result": {"text": "x" * size}, "id": rid}


def test_backlog_drops_progress_first_keeps_finals_and_says_so() -> None:
    box = Outbox(max_messages=10, max_bytes=10_000)
    for i in range(8):
        box.keep(outgoing(_response(i)))
    for i in range(20):
        box.keep(outgoing(notification("agent.delta", {"content": f"chunk {i}"})))
    box.keep(outgoing(notification("agent.response", {"content": "final answer"})))
    kept = [json.loads(item.text) for item in box.items]
    assert len(kept) == 10
    # every response and the final answer survive; only progress was dropped
    assert [m["id"] for m in kept if "id" in m] == list(range(8))
    assert kept[-1]["method"] == "agent.response"
    notice = box.truncation_notice()
    assert notice is not None and notice["method"] == "session.backlogTruncated"
    assert notice["params"]["dropped_progress"] == 19 and notice["params"]["dropped_final"] == 0
    assert box.truncation_notice() is None  # said once


def test_backlog_over_its_bytes_drops_oldest_finals_and_names_them() -> None:
    box = Outbox(max_messages=1000, max_bytes=2_000)
    for i in range(10):
        box.keep(outgoing(_response(i, size=400)))
    assert box.bytes <= 2_000
    notice = box.truncation_notice()
    assert notice is not None
    dropped = notice["params"]["dropped_response_ids"]
    assert dropped == list(range(len(dropped))) and dropped  # the oldest went first
    assert json.loads(box.items[-1].text)["id"] == 9


def test_live_queue_bounds() -> None:
    box = Outbox(max_messages=2, max_bytes=100)
    big = outgoing(_response(1, size=500))
    assert box.fits(big)  # one message always fits an empty queue
    box.append(big)
    assert not box.fits(outgoing(_response(2)))
