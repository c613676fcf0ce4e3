"""Settings of the agent graphs: which model drives them and where their tools live.

Read from the environment (and ``.env``) by pydantic-settings. The model fields are
:class:`core.models.ModelSettings`' (shared with the JSON-RPC adapter's batch-replace).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import AliasChoices, Field

from core.models import ModelSettings
from core.settings import REPO_ROOT

__all__ = ["GraphSettings", "get_settings"]


class GraphSettings(ModelSettings):
    """What the graph factories read at build time (nothing here connects)."""

    mcp_servers_file: Path = Field(
        default=REPO_ROOT / "mcp_servers.yaml",
        validation_alias=AliasChoices("MCP_SERVERS_FILE", "mcp_servers_file"),
        description="The MCP server list (DESIGN section 4, 'MCP servers').",
    )
    mcp_call_timeout_s: float = Field(
        default=60.0,
        gt=0,
        validation_alias=AliasChoices("MCP_CALL_TIMEOUT_S", "mcp_call_timeout_s"),
        description="Longest wait for one MCP tool call.",
    )
    orchestrator_model_call_limit: int | None = Field(
        default=None,
        ge=1,
        validation_alias=AliasChoices(
            "ORCHESTRATOR_MODEL_CALL_LIMIT", "orchestrator_model_call_limit"
        ),
        description="Model calls per orchestrator run before it stops with a message "
        "(default: the orchestrator's table in graphs/stacks.py).",
    )
    tool_result_evict_tokens: int = Field(
        default=10_000,
        ge=1_000,
        validation_alias=AliasChoices("TOOL_RESULT_EVICT_TOKENS", "tool_result_evict_tokens"),
        description="A tool result longer than this many tokens (about 4 characters each) is "
        "saved to /large_tool_results/ in the thread's sandbox and only its head and tail stay "
        "in the thread's state (deepagents' FilesystemMiddleware); read_file pages past it.",
    )
    skills_dir: Path = Field(
        default=REPO_ROOT / "skills",
        validation_alias=AliasChoices("SKILLS_DIR", "skills_dir"),
    )
    subagents_dir: Path = Field(
        default=REPO_ROOT / "subagents",
        validation_alias=AliasChoices("SUBAGENTS_DIR", "subagents_dir"),
    )


@lru_cache(maxsize=1)
def get_settings() -> GraphSettings:
    """The process-wide settings, read once (tests call ``get_settings.cache_clear()``)."""
    return GraphSettings()
