"""Settings of the ERP MCP server (env prefix ``ERP_MCP_``; ``ERP_BASE_URL`` unprefixed)."""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import SettingsConfigDict

from core.settings import CommonSettings


class ErpMcpSettings(CommonSettings):
    """Where the server listens and how it reaches the ERP's REST API."""

    model_config = SettingsConfigDict(
        env_prefix="ERP_MCP_", env_file=".env", extra="ignore", populate_by_name=True
    )

    host: str = Field(default="127.0.0.1", description="Interface the HTTP transport binds.")
    port: int = Field(default=8000, ge=1, le=65535, description="Port of the HTTP transport.")
    path: str = Field(default="/mcp", description="Path of the streamable HTTP endpoint.")
    erp_base_url: str = Field(
        default="http://127.0.0.1:8080",
        validation_alias=AliasChoices("ERP_BASE_URL", "erp_base_url"),
        description="Base URL of the ERP REST API (the simulated one or the company's).",
    )
    connect_timeout: float = Field(default=2.0, gt=0, description="Seconds to open a connection.")
    read_timeout: float = Field(default=10.0, gt=0, description="Seconds to wait for an answer.")
    read_attempts: int = Field(
        default=3, ge=1, le=10, description="Tries per GET (reads only; writes are tried once)."
    )
    retry_wait: float = Field(
        default=0.1, ge=0, description="First back-off between GET tries, in seconds (doubles)."
    )
