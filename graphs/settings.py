"""Settings of the agent graphs: which model drives them and where their tools live.

Read from the environment (and ``.env``) by pydantic-settings. The model fields
keep the names DESIGN section 4 gives them (``MODEL``, ``SUMMARY_MODEL``,
``MODEL_TEMPERATURE``); keys and base URLs use each provider's own variable
names, so a LangSmith deployment's secrets work unchanged.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import SettingsConfigDict

from core.settings import REPO_ROOT, CommonSettings

__all__ = ["GraphSettings", "get_settings"]


class GraphSettings(CommonSettings):
    """What the graph factories read at build time (nothing here connects)."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    model: str = Field(
        default="deepseek:deepseek-v4-pro",
        validation_alias=AliasChoices("MODEL", "model"),
        description="Main model as provider:model (deepseek:..., openai:..., offline).",
    )
    summary_model: str = Field(
        default="deepseek:deepseek-v4-flash",
        validation_alias=AliasChoices("SUMMARY_MODEL", "summary_model"),
        description="Cheaper model for summaries and memory extraction.",
    )
    model_temperature: float = Field(
        default=1.1,
        ge=0.0,
        le=2.0,
        validation_alias=AliasChoices("MODEL_TEMPERATURE", "model_temperature"),
    )
    deepseek_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("DEEPSEEK_API_KEY", "deepseek_api_key")
    )
    deepseek_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices(
            "DEEPSEEK_BASE_URL", "DEEPSEEK_API_BASE", "deepseek_base_url"
        ),
    )
    openai_api_key: SecretStr | None = Field(
        default=None, validation_alias=AliasChoices("OPENAI_API_KEY", "openai_api_key")
    )
    openai_base_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("OPENAI_BASE_URL", "OPENAI_API_BASE", "openai_base_url"),
        description="Any OpenAI-compatible endpoint (vLLM, Ollama, Qwen, Moonshot, ...).",
    )
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
    orchestrator_model_call_limit: int = Field(
        default=50,
        ge=1,
        validation_alias=AliasChoices(
            "ORCHESTRATOR_MODEL_CALL_LIMIT", "orchestrator_model_call_limit"
        ),
        description="Model calls per orchestrator run before it stops with a message "
        "(DESIGN section 4: 50).",
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
