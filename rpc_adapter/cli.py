"""Chat with an agent through the adapter from a terminal, lending it local tools.

    python -m rpc_adapter.cli --url ws://127.0.0.1:8999/v1/ws --agent orchestrator
    python -m rpc_adapter.cli --agent orchestrator -m "帮我查一下火花塞库存" --tools my_tools.py

Built-in local tools: ``local_time`` and ``read_text_file`` (files under ``--root``).
``--tools FILE`` adds the ``TOOLS`` list (of :class:`rpc_adapter.client.LocalTool`)
defined in a Python file. Status lines go to stderr, answers to stdout.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

from rpc_adapter.client import LocalTool, RpcClient, RpcClientError

__all__ = ["builtin_tools", "main"]


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


def _err(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


async def run(args: argparse.Namespace) -> int:
    """Connect, register, then chat (one message or a prompt loop)."""
    streamed: list[bool] = [False]

    def on_status(p: dict[str, Any]) -> None:
        _err(f"[{p.get('status')}] {p.get('message', '')}")

    def on_delta(p: dict[str, Any]) -> None:
        streamed[0] = True
        print(p.get("content", ""), end="", flush=True)

    def on_tool_call(p: dict[str, Any]) -> None:
        args_text = json.dumps(p.get("arguments"), ensure_ascii=False)[:200]
        _err(f"[tool] {p.get('tool_name')}({args_text})")

    client = RpcClient(
        args.url,
        token=args.token,
        session_id=args.session or os.urandom(8).hex(),
        on_status=on_status,
        on_delta=on_delta if args.stream else None,
        on_tool_call=on_tool_call,
    )
    for tool in builtin_tools(Path(args.root)):
        client.add_tool(tool)
    for path in args.tools or []:
        for tool in _load_tools(path):
            client.add_tool(tool)
    try:
        await client.connect()
    except OSError as exc:
        _err(f"cannot connect to {args.url}: {exc}")
        return 2
    try:
        reg = await client.register(args.agent, client_id=args.client_id, stream=args.stream)
        _err(
            f"[registered] agent={reg['agent_id']} tools={reg['tools_count']} "
            f"session={reg['session_id']} protocol={reg['protocol_version']}"
        )
        messages = [args.message] if args.message else None
        while True:
            if messages is not None:
                if not messages:
                    break
                text = messages.pop(0)
            else:
                try:
                    text = await asyncio.to_thread(input, "you> ")
                except EOFError:
                    break
                if text.strip() in {"/quit", "/exit"}:
                    break
                if text.strip() == "/clear":
                    await client.call("agent.clearHistory", {"agent_id": args.agent})
                    _err("[cleared] new conversation")
                    continue
                if not text.strip():
                    continue
            streamed[0] = False
            result = await client.chat(text, agent_id=args.agent)
            if streamed[0]:
                print()
            else:
                print(result.get("content") or json.dumps(result, ensure_ascii=False))
    except RpcClientError as exc:
        _err(f"[error {exc.code}] {exc.message}")
        return 1
    finally:
        await client.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    """Parse arguments and run the CLI."""
    parser = argparse.ArgumentParser(
        prog="python -m rpc_adapter.cli", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--url", default=os.environ.get("RPC_URL", "ws://127.0.0.1:8999/v1/ws"))
    parser.add_argument("--agent", default="orchestrator")
    parser.add_argument("--token", default=os.environ.get("RPC_TOKEN"))
    parser.add_argument("--client-id", default="rpc-cli")
    parser.add_argument("--session", help="session id to resume")
    parser.add_argument("-m", "--message", help="send one message and exit")
    parser.add_argument("--stream", action="store_true", help="print the answer as it is written")
    parser.add_argument("--tools", action="append", help="Python file defining TOOLS")
    parser.add_argument("--root", default=".", help="folder read_text_file may read")
    return asyncio.run(run(parser.parse_args(argv)))


if __name__ == "__main__":
    raise SystemExit(main())
