"""``scripts/approvals``: the orders waiting for a decision, and the decision, over the SDK.

    scripts/approvals list                        # pending approvals across threads
    scripts/approvals show THREAD                 # the full card(s) of one
    scripts/approvals approve THREAD [--confirm-duplicate]
    scripts/approvals reject THREAD [--reason TEXT]
    scripts/approvals edit THREAD [--quantity N | --line PART_ID=N ...] [--date YYYY-MM-DD]
                                  [--note TEXT] [--confirm-duplicate]

It lists the Agent Server's threads whose status is ``interrupted`` and whose pending
interrupt is an order approval (LangChain's HITL request: ``action_requests`` with the
card as ``description``), and answers one with a resume command, as whoever's token it
is given (``--token`` or ``APPROVALS_TOKEN``; with the shipped auth handler an approver
in ``AGENT_AUTH_APPROVERS`` also sees other people's orders that wait for an approver).
Without auth, ``--as USER`` names who decides (recorded as the approver). A decision the
approval policy refuses leaves the order pending: the card then starts with the reason,
which is printed, and the command exits 1.

The server is ``--url``, else ``LANGGRAPH_URL``, else the running stack's Agent Server.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Sequence
from typing import Any

from langgraph_sdk.client import LangGraphClient

from core.agent_client import agent_client
from runstack.threads import interrupts, message_text
from scripts.stack import read_state

REFUSED_MARK = "⚠"
"""How a card starts when the last decision on it did not stand (the approval policy)."""


def _approvals(thread: dict[str, Any]) -> list[dict[str, Any]]:
    """The thread's pending interrupts that are approval requests."""
    return [
        i
        for i in interrupts(thread)
        if isinstance(i.get("value"), dict) and i["value"].get("action_requests")
    ]


def _url(given: str | None) -> str:
    if given:
        return given
    if os.environ.get("LANGGRAPH_URL"):
        return os.environ["LANGGRAPH_URL"]
    services = (read_state() or {}).get("services", {})
    agent = services.get("agent-server")
    return str(agent["url"]) if agent else "http://127.0.0.1:2024"


async def list_pending(client: LangGraphClient) -> int:
    """Print one block per pending approval; 0."""
    threads: Any = await client.threads.search(status="interrupted", limit=100)
    shown = 0
    for thread in threads:
        for pending in _approvals(dict(thread)):
            shown += 1
            metadata = thread.get("metadata") or {}
            owner = metadata.get("owner") or metadata.get("user_id") or "-"
            flag = metadata.get("approval")
            print(
                f"== thread {thread['thread_id']}  owner {owner}" + (f"  [{flag}]" if flag else "")
            )
            for action in pending["value"]["action_requests"]:
                head = str(action.get("description", "")).splitlines()[:3]
                print(f"   {action['name']}: " + " / ".join(head))
    if not shown:
        print("no pending approvals")
    return 0


async def show(client: LangGraphClient, thread_id: str) -> int:
    """Print the whole card of each pending approval of ``thread_id``; 1 when none."""
    thread: Any = await client.threads.get(thread_id)
    pending = _approvals(dict(thread))
    if not pending:
        print(f"thread {thread_id} has no pending approval (status {thread['status']})")
        return 1
    for item in pending:
        for action in item["value"]["action_requests"]:
            print(f"--- {action['name']} {action.get('args')}")
            print(action.get("description", ""))
    return 0


def _edited(args: dict[str, Any], opts: argparse.Namespace) -> dict[str, Any]:
    out = dict(args)
    lines = [dict(line) for line in out.get("lines") or []]
    if opts.quantity is not None:
        if len(lines) != 1:
            raise SystemExit("--quantity needs a one-line order; use --line PART_ID=N")
        lines[0]["quantity"] = opts.quantity
    for spec in opts.line or []:
        part, _, qty = spec.partition("=")
        hits = [line for line in lines if str(line.get("part_id")) == part.strip()]
        if not hits or not qty.strip().isdigit():
            raise SystemExit(f"--line {spec!r}: expected PART_ID=N for a part on the order")
        hits[0]["quantity"] = int(qty)
    if lines:
        out["lines"] = lines
    if opts.date:
        out["expected_date"] = opts.date
    if opts.note is not None:
        out["note"] = opts.note
    if opts.confirm_duplicate:
        out["confirm_duplicate"] = True
    return out


def decisions_for(pending: dict[str, Any], opts: argparse.Namespace) -> list[dict[str, Any]]:
    """One decision per action of the pending approval, as the command asks."""
    out: list[dict[str, Any]] = []
    for action in pending["value"]["action_requests"]:
        if opts.command == "reject":
            decision: dict[str, Any] = {"type": "reject"}
            if opts.reason:
                decision["message"] = opts.reason
        elif opts.command == "edit" or opts.confirm_duplicate:
            edited = _edited(action.get("args") or {}, opts)
            decision = {"type": "edit", "edited_action": {"name": action["name"], "args": edited}}
        else:
            decision = {"type": "approve"}
        out.append(decision)
    return out


async def decide(client: LangGraphClient, opts: argparse.Namespace) -> int:
    """Answer the thread's pending approval; 0 when the decision stood, 1 when refused."""
    thread: Any = await client.threads.get(opts.thread)
    pending = _approvals(dict(thread))
    if not pending:
        print(f"thread {opts.thread} has no pending approval (status {thread['status']})")
        return 1
    answer = {"decisions": decisions_for(pending[0], opts)}
    resume: Any = answer if len(pending) == 1 else {pending[0]["id"]: answer}
    context = {"user_id": opts.as_user} if opts.as_user else None
    result: Any = await client.runs.wait(
        opts.thread, opts.assistant, command={"resume": resume}, context=context
    )
    for item in (result or {}).get("__interrupt__") or []:
        value = item.get("value") if isinstance(item, dict) else None
        actions = (value or {}).get("action_requests") or [{}]
        card = str(actions[0].get("description", ""))
        if card.startswith(REFUSED_MARK):
            print(f"refused; the approval is still pending: {card.splitlines()[0]}")
            return 1
    # An approver may no longer read someone else's thread once the decision stood, so
    # the run's own result is what is printed.
    messages = (result or {}).get("messages") or []
    print(f"{opts.command}: done")
    if messages:
        print(message_text(messages[-1]))
    return 0


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(prog="scripts/approvals", description=__doc__.splitlines()[0])
    p.add_argument("--url", help="the Agent Server (default LANGGRAPH_URL or the stack's)")
    p.add_argument("--token", default=os.environ.get("APPROVALS_TOKEN"),
                   help="bearer token of whoever decides (default APPROVALS_TOKEN)")  # fmt: skip
    p.add_argument("--as", dest="as_user", help="without auth: the user id who decides")
    p.add_argument("--assistant", default="orchestrator", help="graph to resume")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="pending approvals across threads")
    sub.add_parser("show", help="the full card").add_argument("thread")
    for name in ("approve", "reject", "edit"):
        cmd = sub.add_parser(name, help=f"{name} a pending order")
        cmd.add_argument("thread")
        cmd.add_argument("--confirm-duplicate", action="store_true",
                         help="place it although it looks like a duplicate")  # fmt: skip
        if name == "reject":
            cmd.add_argument("--reason")
        if name == "edit":
            cmd.add_argument("--quantity", type=int)
            cmd.add_argument("--line", action="append", metavar="PART_ID=N")
            cmd.add_argument("--date", metavar="YYYY-MM-DD")
            cmd.add_argument("--note")
        else:
            cmd.set_defaults(quantity=None, line=None, date=None, note=None)
    return p


async def _main(opts: argparse.Namespace) -> int:
    headers = {"Authorization": f"Bearer {opts.token}"} if opts.token else None
    client = agent_client(_url(opts.url), timeout=300, headers=headers)
    try:
        if opts.command == "list":
            return await list_pending(client)
        if opts.command == "show":
            return await show(client, opts.thread)
        return await decide(client, opts)
    finally:
        await client.aclose()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit status."""
    opts = parser().parse_args(argv)
    if opts.command == "reject":
        opts.confirm_duplicate = False
    try:
        return asyncio.run(_main(opts))
    except Exception as exc:  # an HTTP error from the server: say it, no traceback
        print(f"approvals: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
