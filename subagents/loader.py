"""Load the subagent specs of this folder, resolving tool names against the tools that exist.

A sync subagent's YAML lists tool names; each must be a local tool of the graphs
or an MCP tool that ``mcp_servers.yaml`` grants that agent. An unknown name is a
configuration mistake and raises at load, naming the file and the tool.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path
from typing import Any, NotRequired, TypedDict

import yaml
from deepagents.middleware.async_subagents import AsyncSubAgent
from langchain_core.tools import BaseTool

__all__ = ["SUBAGENTS_DIR", "SyncSubAgentSpec", "load_async_card", "load_sync_subagent"]

SUBAGENTS_DIR = Path(__file__).resolve().parent


class SyncSubAgentSpec(TypedDict):
    """A sync subagent's YAML, with its tool names resolved."""

    name: str
    description: str
    system_prompt: str
    tools: list[BaseTool]  # local tools, resolved
    mcp_tools: list[str]  # names served by MCP servers, loaded on first use
    interrupt_on: list[str]
    source: NotRequired[str]


def _read(path: Path) -> dict[str, Any]:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError as e:
        msg = f"{path}: subagent spec not found"
        raise ValueError(msg) from e
    except yaml.YAMLError as e:
        msg = f"{path}: not valid YAML: {e}"
        raise ValueError(msg) from e
    if not isinstance(raw, dict):
        msg = f"{path}: expected a mapping at the top level"
        raise ValueError(msg)
    return raw


def _required_str(raw: Mapping[str, Any], key: str, path: Path) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        msg = f"{path}: '{key}' is required (a non-empty string)"
        raise ValueError(msg)
    return value.strip()


def load_sync_subagent(
    path: Path,
    *,
    local_tools: Mapping[str, BaseTool],
    mcp_tools: Collection[str],
) -> SyncSubAgentSpec:
    """Read a sync subagent's YAML and resolve its ``tools``.

    ``local_tools`` are the tool objects the graphs provide; ``mcp_tools`` the names
    the MCP servers grant this agent (listed in ``mcp_servers.yaml``, not fetched).

    Raises:
        ValueError: a missing field, or a tool name that is neither,
            naming the file and the tool.
    """
    raw = _read(path)
    name = _required_str(raw, "name", path)
    names = raw.get("tools") or []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        msg = f"{path}: 'tools' must be a list of tool names"
        raise ValueError(msg)
    resolved: list[BaseTool] = []
    remote: list[str] = []
    for tool_name in names:
        if tool_name in local_tools:
            resolved.append(local_tools[tool_name])
        elif tool_name in mcp_tools:
            remote.append(tool_name)
        else:
            known = sorted({*local_tools, *mcp_tools})
            msg = (
                f"{path}: unknown tool {tool_name!r} for subagent {name!r}; "
                f"known tools: {', '.join(known)}"
            )
            raise ValueError(msg)
    interrupt_on = raw.get("interrupt_on") or []
    unknown_gated = [t for t in interrupt_on if t not in names]
    if unknown_gated:
        msg = f"{path}: interrupt_on names tools not in 'tools': {', '.join(unknown_gated)}"
        raise ValueError(msg)
    if "limits" in raw:
        # One home for call limits: the agent's table. A YAML that still sets them would
        # silently not apply, so it is refused.
        msg = f"{path}: 'limits' are declared in the agent's table (graphs/stacks.py), not here"
        raise ValueError(msg)
    return {
        "name": name,
        "description": _required_str(raw, "description", path),
        "system_prompt": _required_str(raw, "system_prompt", path),
        "tools": resolved,
        "mcp_tools": remote,
        "interrupt_on": list(interrupt_on),
        "source": str(path),
    }


def load_async_card(path: Path) -> AsyncSubAgent:
    """Read an async subagent's card (name, description, graph_id; no url = this server)."""
    raw = _read(path)
    card: AsyncSubAgent = {
        "name": _required_str(raw, "name", path),
        "description": _required_str(raw, "description", path),
        "graph_id": _required_str(raw, "graph_id", path),
    }
    if raw.get("url"):
        card["url"] = str(raw["url"])
    return card
