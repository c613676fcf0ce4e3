"""Chat with an agent through the JSON-RPC adapter from a terminal, lending it local tools.

    python -m rpc_adapter.cli                      # the adapter mounted in the Agent Server
    python -m rpc_adapter.cli -m "帮我查一下火花塞库存" --tools my_tools.py

Approval cards are shown as the agent sends them and answered at the prompt (批准 / 修改 /
拒绝, or approve / edit / reject); questions are answered in free text (``quantity=200``
works too). A background analysis's result is printed when it arrives. Status lines go to
stderr in the user's language, answers to stdout; Ctrl-C leaves cleanly.

Built-in local tools: ``local_time`` and ``read_text_file`` (files under ``--root``).
``--tools FILE`` adds the ``TOOLS`` list (of :class:`rpc_adapter.client.LocalTool`)
defined in a Python file.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime as dt
import importlib.util
import json
import os
import re
import signal
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rpc_adapter.client import LocalTool, RpcClient, RpcClientError

__all__ = ["builtin_tools", "default_url", "main"]

_CJK = re.compile(r"[\u3400-\u9fff]")

TEXTS: dict[str, dict[str, str]] = {
    "zh": {
        "registered": (
            "[已连接] 代理 {agent} · 本地工具 {tools} 个 · 代理可用工具 {synced} 个 · "
            "会话 {session}"
        ),
        "thinking": "[思考中] 代理正在处理…",
        "executing": "[执行中] 正在运行工具…",
        "tools_synced": "[工具] 已同步",
        "waiting": "[等待] 需要你的决定",
        "cancelled": "[已取消]",
        "tool": "[本地工具] {name}({args})",
        "approval": "━━ 需要你的批准：{action} ━━",
        "decide": "批准 / 修改 / 拒绝（a / e / r）> ",
        "decide_no_edit": "批准 / 拒绝（a / r）> ",
        "edit_prompt": "要改的参数（如 quantity=300，或 JSON 对象）> ",
        "reason": "拒绝理由（可留空）> ",
        "question": "━━ 代理需要补充信息：{fields} ━━",
        "options": "可选：{options}",
        "answer": "你的回答> ",
        "unknown_decision": "没听懂，请输入 批准、修改 或 拒绝。",
        "bad_edit": "没能读懂这些参数：{error}",
        "background": "━━ 后台任务完成 ━━",
        "backlog": "[提示] 断线期间有 {n} 条消息未能保留",
        "no_text": "（代理没有文字回答）",
        "error": "[错误 {code}] {message}",
        "connect_failed": "无法连接 {url}：{error}",
        "cleared": "[已清空] 新的对话",
        "bye": "再见。",
        "prompt": "你> ",
    },
    "en": {
        "registered": (
            "[registered] agent={agent} tools={tools} available={synced} session={session}"
        ),
        "thinking": "[thinking] the agent is working…",
        "executing": "[executing] running tools…",
        "tools_synced": "[tools] synced",
        "waiting": "[waiting] your decision is needed",
        "cancelled": "[cancelled]",
        "tool": "[tool] {name}({args})",
        "approval": "━━ Approval needed: {action} ━━",
        "decide": "approve / edit / reject (a / e / r)> ",
        "decide_no_edit": "approve / reject (a / r)> ",
        "edit_prompt": "arguments to change (e.g. quantity=300, or a JSON object)> ",
        "reason": "reason for rejecting (may be empty)> ",
        "question": "━━ The agent needs: {fields} ━━",
        "options": "options: {options}",
        "answer": "your answer> ",
        "unknown_decision": "Please answer approve, edit or reject.",
        "bad_edit": "Could not read those arguments: {error}",
        "background": "━━ Background task finished ━━",
        "backlog": "[note] {n} message(s) were dropped while disconnected",
        "no_text": "(the agent gave no text answer)",
        "error": "[error {code}] {message}",
        "connect_failed": "cannot connect to {url}: {error}",
        "cleared": "[cleared] new conversation",
        "bye": "Bye.",
        "prompt": "you> ",
    },
}

APPROVE = {"a", "y", "yes", "ok", "approve", "批准", "同意", "确认", "是", "好", "可以"}
REJECT = {"r", "n", "no", "reject", "拒绝", "不", "否", "不要", "不同意"}
EDIT = {"e", "edit", "修改", "改", "编辑"}


def default_url() -> str:
    """The adapter mounted in the Agent Server: ``ws://127.0.0.1:$LANGGRAPH_PORT/v1/ws``
    (2024 by default); ``RPC_URL`` overrides it."""
    port = os.environ.get("LANGGRAPH_PORT", "2024")
    return os.environ.get("RPC_URL") or f"ws://127.0.0.1:{port}/v1/ws"


def builtin_tools(root: Path) -> list[LocalTool]:
    """The CLI's own tools: the client's clock and read-only access to files under ``root``."""
    root = root.resolve()

    def local_time() -> str:
        return dt.datetime.now().astimezone().isoformat(timespec="seconds")

    def read_text_file(path: str) -> str:
        target = (root / path).resolve()
        if not target.is_relative_to(root):
            msg = f"{path} is outside {root}"
            raise PermissionError(msg)
        return target.read_text(encoding="utf-8")[:50_000]

    return [
        LocalTool(
            "local_time", "The current time on the user's machine.", {"type": "object"}, local_time
        ),
        LocalTool(
            "read_text_file",
            "Read a UTF-8 text file from the user's working folder (relative path).",
            {
                "type": "object",
                "properties": {"path": {"type": "string", "description": "Relative path"}},
                "required": ["path"],
            },
            read_text_file,
        ),
    ]


def _load_tools(path: str) -> list[LocalTool]:
    spec = importlib.util.spec_from_file_location("rpc_cli_tools", path)
    if spec is None or spec.loader is None:
        msg = f"cannot load tools from {path}"
        raise SystemExit(msg)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tools = getattr(module, "TOOLS", None)
    if not isinstance(tools, list):
        msg = f"{path} must define TOOLS = [LocalTool(...), ...]"
        raise SystemExit(msg)
    return tools


def _value(text: str) -> Any:
    """A typed value from the prompt: JSON when it parses (numbers, lists), else the text."""
    try:
        return json.loads(text)
    except ValueError:
        return text


def parse_pairs(text: str) -> dict[str, Any] | None:
    """``{"a": 1}`` or ``a=1 b=x`` (also ``a=1，b=x``) as a mapping; None for other text."""
    text = text.strip()
    if text.startswith("{"):
        data = _value(text)
        return data if isinstance(data, dict) else None
    parts = [p for p in re.split(r"[\s,，;；]+", text) if p]
    if not parts or not all("=" in p for p in parts):
        return None
    return {k.strip(): _value(v.strip()) for k, v in (p.split("=", 1) for p in parts)}


def apply_edit(args: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """``args`` with ``changes``: a key the args have is replaced; a key only the one item of
    a list of objects has (an order's single line) is replaced there."""
    edited = json.loads(json.dumps(args))
    for key, value in changes.items():
        if key in edited:
            edited[key] = value
            continue
        rows = [v for v in edited.values() if isinstance(v, list) and len(v) == 1]
        target = next((r[0] for r in rows if isinstance(r[0], dict) and key in r[0]), None)
        if target is None:
            msg = f"no argument named {key!r}"
            raise KeyError(msg)
        target[key] = value
    return edited


class LineReader:
    """Lines from stdin, read by a daemon thread (so Ctrl-C never waits for Enter)."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        while True:
            line = sys.stdin.readline()
            self.loop.call_soon_threadsafe(self.lines.put_nowait, line or None)
            if not line:
                return

    async def ask(self, prompt: str) -> str | None:
        """Show ``prompt`` and wait for a line (None at end of input)."""
        print(prompt, end="", flush=True)
        line = await self.lines.get()
        return None if line is None else line.rstrip("\n")


@dataclass
class Cli:
    """One terminal session: the client, the language of its lines, its input."""

    client: RpcClient
    lang: str
    fixed_lang: bool
    reader: LineReader | None = None
    streamed: list[bool] = field(default_factory=lambda: [False])
    background: asyncio.Event = field(default_factory=asyncio.Event)

    def t(self, key: str, **fmt: Any) -> str:
        return TEXTS[self.lang][key].format(**fmt)

    def err(self, line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    def follow_language(self, text: str) -> None:
        """Status lines follow the language the user writes in (unless --lang is given)."""
        if not self.fixed_lang and text.strip():
            self.lang = "zh" if _CJK.search(text) else "en"

    # notifications ------------------------------------------------------------------------

    def on_status(self, p: dict[str, Any]) -> None:
        key = str(p.get("status"))
        if key in TEXTS[self.lang] and key not in {"tool", "error"}:
            self.err(self.t(key))

    def on_delta(self, p: dict[str, Any]) -> None:
        self.streamed[0] = True
        print(p.get("content", ""), end="", flush=True)

    def on_tool_call(self, p: dict[str, Any]) -> None:
        args = ", ".join(f"{k}={v}" for k, v in (p.get("arguments") or {}).items())
        self.err(self.t("tool", name=p.get("tool_name"), args=args[:200]))

    def on_response(self, p: dict[str, Any]) -> None:
        if p.get("background"):
            print(f"\n{self.t('background')}\n{p.get('content') or self.t('no_text')}", flush=True)
            self.background.set()

    def on_other(self, p: dict[str, Any]) -> None:
        if p.get("method") == "session.backlogTruncated":
            dropped = int(p.get("dropped_progress", 0)) + int(p.get("dropped_final", 0))
            self.err(self.t("backlog", n=dropped))

    # interrupts ---------------------------------------------------------------------------

    async def ask(self, prompt: str) -> str | None:
        assert self.reader is not None
        return await self.reader.ask(prompt)

    def show_card(self, card: dict[str, Any]) -> None:
        if card.get("kind") == "question":
            self.err(self.t("question", fields=", ".join(card.get("fields") or [])))
            print(card.get("description") or "", flush=True)
            if card.get("options"):
                print(self.t("options", options=" / ".join(card["options"])), flush=True)
            return
        self.err(self.t("approval", action=card.get("action")))
        print(card.get("description") or json.dumps(card.get("args"), ensure_ascii=False))

    async def decide(self, card: dict[str, Any]) -> dict[str, Any] | None:
        """The person's answer to ``card`` as ``agent.resume`` params (None: input ended)."""
        self.show_card(card)
        if card.get("kind") == "question":
            text = await self.ask(self.t("answer"))
            if text is None:
                return None
            fields = card.get("fields") or []
            pairs = parse_pairs(text)
            if pairs is None and len(fields) == 1 and isinstance(_value(text), int | float):
                pairs = {fields[0]: _value(text)}
            return {"answer": pairs if pairs is not None else text}
        if card.get("kind") == "other":
            text = await self.ask(self.t("answer"))
            return None if text is None else {"resume": _value(text)}
        return await self._approval(card)

    async def _approval(self, card: dict[str, Any]) -> dict[str, Any] | None:
        allowed = card.get("allowed") or ["approve", "edit", "reject"]
        while True:
            text = await self.ask(self.t("decide" if "edit" in allowed else "decide_no_edit"))
            if text is None:
                return None
            word, _, rest = text.strip().partition(" ")
            word = word.lower()
            if word in APPROVE:
                return {"decision": "approve"}
            if word in REJECT:
                reason = rest.strip() or (await self.ask(self.t("reason")) or "").strip()
                return {"decision": "reject", **({"message": reason} if reason else {})}
            if word in EDIT and "edit" in allowed:
                edited = await self._edited(card, rest)
                if edited is not None:
                    return {"decision": "edit", "args": edited}
                continue
            self.err(self.t("unknown_decision"))

    async def _edited(self, card: dict[str, Any], given: str) -> dict[str, Any] | None:
        text = given.strip() or (await self.ask(self.t("edit_prompt")) or "")
        changes = parse_pairs(text)
        try:
            if changes is None:
                raise ValueError(text or "empty")
            return apply_edit(dict(card.get("args") or {}), changes)
        except (KeyError, ValueError) as exc:
            self.err(self.t("bad_edit", error=exc))
            return None

    # turns --------------------------------------------------------------------------------

    async def turn(self, text: str, agent: str) -> bool:
        """Send one message and see it through approvals and questions; False when input
        ended in the middle of one."""
        self.follow_language(text)
        self.streamed[0] = False
        result = await self.client.chat(text, agent_id=agent)
        while result.get("status") == "interrupted":
            for card in result.get("pending") or []:
                params = await self.decide(card)
                if params is None:
                    return False
                self.streamed[0] = False
                result = await self.client.resume(card["interrupt_id"], **params)
                break
            else:
                break
        if self.streamed[0]:
            print()
        elif result.get("status") == "completed":
            print(result.get("content") or self.t("no_text"), flush=True)
        return True


async def _loop(cli: Cli, args: argparse.Namespace) -> None:
    messages = [args.message] if args.message else None
    while True:
        if messages is not None:
            if not messages:
                return
            text: str | None = messages.pop(0)
        else:
            text = await cli.ask(cli.t("prompt"))
            if text is None or text.strip() in {"/quit", "/exit"}:
                return
            if text.strip() == "/clear":
                await cli.client.call("agent.clearHistory", {"agent_id": args.agent})
                cli.err(cli.t("cleared"))
                continue
            if not text.strip():
                continue
        if text is None or not await cli.turn(text, args.agent):
            return


async def run(args: argparse.Namespace) -> int:
    """Connect, register, then chat (one message or a prompt loop)."""
    lang = args.lang if args.lang != "auto" else _locale_lang()
    client = RpcClient(args.url, token=args.token, session_id=args.session or os.urandom(8).hex())
    cli = Cli(client, lang, fixed_lang=args.lang != "auto")
    if args.message:
        cli.follow_language(args.message)
    client.on_status, client.on_tool_call = cli.on_status, cli.on_tool_call
    client.on_response, client.on_other = cli.on_response, cli.on_other
    client.on_delta = cli.on_delta if args.stream else None
    for tool in builtin_tools(Path(args.root)):
        client.add_tool(tool)
    for path in args.tools or []:
        for tool in _load_tools(path):
            client.add_tool(tool)
    try:
        await client.connect()
    except OSError as exc:
        cli.err(cli.t("connect_failed", url=args.url, error=exc))
        return 2
    except Exception as exc:  # refused handshakes (403: token or Origin) and the like
        cli.err(cli.t("connect_failed", url=args.url, error=exc))
        return 2
    cli.reader = LineReader()
    try:
        reg = await client.register(args.agent, client_id=args.client_id, stream=args.stream)
        synced = reg.get("tools_synced")
        cli.err(
            cli.t(
                "registered",
                agent=reg["agent_id"],
                tools=reg["tools_count"],
                synced=len(synced) if isinstance(synced, list) else reg["tools_count"],
                session=reg["session_id"],
            )
        )
        await _loop(cli, args)
        if args.wait_background:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(cli.background.wait(), args.wait_background)
    except RpcClientError as exc:
        cli.err(cli.t("error", code=exc.code, message=exc.message))
        return 1
    except ConnectionError as exc:
        cli.err(cli.t("connect_failed", url=args.url, error=exc))
        return 2
    finally:
        await client.close()
    return 0


def _locale_lang() -> str:
    for var in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(var, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "zh"


async def _main(args: argparse.Namespace) -> int:
    """``run`` with Ctrl-C turned into a clean goodbye (exit status 130)."""
    task = asyncio.current_task()
    interrupted = [False]

    def on_sigint() -> None:
        interrupted[0] = True
        if task is not None:
            task.cancel()

    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):
        loop.add_signal_handler(signal.SIGINT, on_sigint)
    try:
        return await run(args)
    except asyncio.CancelledError:
        if not interrupted[0]:
            raise
        lang = args.lang if args.lang != "auto" else _locale_lang()
        print(f"\n{TEXTS[lang]['bye']}", file=sys.stderr, flush=True)
        return 130


def parser() -> argparse.ArgumentParser:
    """The command line, every option described."""
    p = argparse.ArgumentParser(
        prog="python -m rpc_adapter.cli",
        description="Chat with the procurement agents over JSON-RPC 2.0 (WebSocket): answer "
        "approval cards and questions, lend local tools, see background results arrive.",
        epilog="At the prompt: /clear starts a new conversation, /quit leaves (so does Ctrl-D "
        "or Ctrl-C). Approvals: 批准/approve, 修改/edit (then e.g. quantity=300), 拒绝/reject "
        "[reason].",
    )
    p.add_argument(
        "--url",
        default=default_url(),
        help="the adapter's WebSocket URL (default: the adapter mounted in the Agent Server, "
        "ws://127.0.0.1:$LANGGRAPH_PORT/v1/ws, port 2024; RPC_URL overrides; the standalone "
        "adapter is ws://127.0.0.1:8999/v1/ws)",
    )
    p.add_argument(
        "--agent", default="orchestrator", help="agent to talk to (default: %(default)s)"
    )
    p.add_argument(
        "--token",
        default=os.environ.get("RPC_TOKEN"),
        help="the adapter's token when it requires one (default: $RPC_TOKEN); sent in the "
        "X-RPC-Token header",
    )
    p.add_argument(
        "--client-id", default="rpc-cli", help="client id to register as (default: %(default)s)"
    )
    p.add_argument("--session", help="session id to resume after a disconnect (default: a new one)")
    p.add_argument("-m", "--message", help="send this one message, answer its cards, and exit")
    p.add_argument("--stream", action="store_true", help="print the answer as it is written")
    p.add_argument(
        "--tools", action="append", metavar="FILE", help="Python file defining TOOLS (repeatable)"
    )
    p.add_argument("--root", default=".", help="folder read_text_file may read (default: .)")
    p.add_argument(
        "--lang",
        choices=["auto", "zh", "en"],
        default="auto",
        help="language of status lines: auto follows what you write (default), else zh or en",
    )
    p.add_argument(
        "--wait-background",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="with -m: keep listening this long for a background result before exiting",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run the CLI."""
    return asyncio.run(_main(parser().parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
