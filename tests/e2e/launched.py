"""The whole stack as an operator runs it, for the fault tests: ``scripts/stack up --detach``
on free ports with its data in a temporary folder, the graphs on the offline planner; the
launcher's state file says where everything is, and the tests kill, restart and read
its services as an operator would (``kill``, ``scripts/stack restart NAME``, ``status``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

import httpx
from langgraph_sdk.client import LangGraphClient

from runstack.agent_server import offline_env
from runstack.processes import ROOT, free_port
from runstack.services import SERVICES
from runstack.threads import NOTIFICATION, interrupts, thread_messages


@dataclass
class Launched:
    """A stack started by the launcher, and how to reach and hurt it."""

    data_dir: Path
    env: dict[str, str]

    def stack(self, *args: str, timeout: float = 240) -> subprocess.CompletedProcess[str]:
        """``scripts/stack ARGS`` against this stack."""
        return subprocess.run(
            [sys.executable, "-m", "scripts.stack", *args], cwd=ROOT, env=self.env, text=True,
            capture_output=True, timeout=timeout, check=False,
        )  # fmt: skip

    def state(self) -> dict[str, Any]:
        """The launcher's state file."""
        state: dict[str, Any] = json.loads((self.data_dir / "run" / "stack.json").read_text())
        return state

    def service(self, name: str) -> dict[str, Any]:
        info: dict[str, Any] = self.state()["services"][name]
        return info

    @property
    def agent_url(self) -> str:
        return str(self.service("agent-server")["url"])

    def kill(self, name: str) -> int:
        """SIGKILL ``name``'s whole process group, as a crash or the OOM killer would; its pid."""
        pid = int(self.service(name)["pid"])
        os.killpg(pid, signal.SIGKILL)
        return pid

    def wait_state(self, name: str, state: str, *, restarts: int, within: float = 180) -> None:
        """Until the launcher reports ``name`` in ``state`` after ``restarts`` restarts."""
        deadline = time.monotonic() + within
        info: dict[str, Any] = {}
        while time.monotonic() < deadline:
            info = self.service(name)
            if info["state"] == state and info["restarts"] >= restarts:
                return
            time.sleep(0.2)
        msg = f"{name} not {state} after {restarts} restart(s) within {within:g} s: {info}"
        raise AssertionError(msg)

    def erp_orders(self, args: Mapping[str, Any], sku: str = "SP-NGK-IU7") -> list[dict[str, Any]]:
        """ERP orders an order card's ``args`` made (read over the ERP's REST API): placed
        today with its supplier and lines (part, quantity); each test orders its own
        quantity."""
        url = self.service("sim-erp")["url"]
        found = httpx.get(
            f"{url}/orders/search-details", params={"sku": sku, "size": 100}, timeout=10
        )
        found.raise_for_status()
        want = sorted((int(ln["part_id"]), int(ln["quantity"])) for ln in args["lines"])
        today = date.today().isoformat()
        return [
            o for o in found.json()["items"]
            if o.get("order_date") == today and o.get("supplier_id") == args["supplier_id"]
            and sorted((int(ln["part_id"]), int(ln["quantity"])) for ln in o["lines"]) == want
        ]  # fmt: skip

    def workspace(self, thread_id: str) -> Path:
        """The sandbox folder of a thread."""
        from graphs.sandbox.workspace import workspace_path

        return workspace_path(self.data_dir / "sandboxes", thread_id)


@contextlib.contextmanager
def launched(root: Path, **extra_env: str) -> Iterator[Launched]:
    """``scripts/stack up --detach`` with its data under ``root``; ``scripts/stack down``
    afterwards (whatever the test did to the services)."""
    env = {**offline_env(), "DATA_DIR": str(root / "data"), **extra_env}
    for svc in SERVICES:
        env[svc.port_env] = str(free_port())
    stack = Launched(root / "data", env)
    up = stack.stack("up", "--detach")
    try:
        if up.returncode != 0:
            raise RuntimeError(f"scripts/stack up failed:\n{up.stdout}\n{up.stderr}")
        yield stack
    finally:
        stack.stack("down", timeout=60)


async def run(
    client: LangGraphClient, thread_id: str, user: Mapping[str, str], **kwargs: Any
) -> dict[str, Any]:
    """One orchestrator run on ``thread_id``, waited for; the thread afterwards."""
    await client.runs.wait(thread_id, "orchestrator", context=dict(user), **kwargs)
    thread: Any = await client.threads.get(thread_id)
    return dict(thread)


async def order_waiting_for_approval(
    client: LangGraphClient, request: str, user: Mapping[str, str]
) -> tuple[str, dict[str, Any]]:
    """A new thread asked ``request`` (an order), up to its approval; ``(thread, the card's
    arguments)``."""
    thread_id = str((await client.threads.create())["thread_id"])
    message = {"messages": [{"role": "user", "content": request}]}
    thread = await run(client, thread_id, user, input=message)
    [approval] = interrupts(thread)
    action = approval["value"]["action_requests"][0]
    assert action["name"] == "order_create", action
    return thread_id, dict(action["args"])


APPROVE: Any = {"resume": {"decisions": [{"type": "approve"}]}}


def tool_texts(messages: list[dict[str, Any]], name: str | None = None) -> list[str]:
    """The text of every tool message (of tool ``name``) in a thread's messages."""
    return [
        str(m.get("content"))
        for m in messages
        if m.get("type") == "tool" and (name is None or m.get("name") == name)
    ]


async def notifications(client: LangGraphClient, thread_id: str) -> list[dict[str, Any]]:
    """The task notifications a parent thread received (messages that woke it)."""
    messages = await thread_messages(client, thread_id)
    return [m for m in messages if NOTIFICATION in (m.get("additional_kwargs") or {})]


ORDER_NO = re.compile(r"PO\d{11}")
