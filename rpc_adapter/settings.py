"""The adapter's settings (env prefix ``RPC_``; the issue's names also work unprefixed)."""

from __future__ import annotations

from typing import Annotated

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from core.settings import CommonSettings


def _alias(name: str) -> AliasChoices:
    return AliasChoices(f"RPC_{name}", name, name.lower())


class RpcSettings(CommonSettings):
    """Configuration of the JSON-RPC adapter, standalone or mounted in the Agent Server."""

    model_config = SettingsConfigDict(
        env_file=".env", env_prefix="RPC_", extra="ignore", populate_by_name=True
    )

    # Only prefixed: platforms set a bare PORT/HOST for the Agent Server itself.
    host: str = Field(default="127.0.0.1", validation_alias=AliasChoices("RPC_HOST", "host"))
    port: int = Field(default=8999, validation_alias=AliasChoices("RPC_PORT", "port"))
    langgraph_url: str = Field(
        default="http://127.0.0.1:2024",
        validation_alias=AliasChoices("RPC_LANGGRAPH_URL", "LANGGRAPH_URL", "langgraph_url"),
        description="Agent Server URL used when the adapter runs standalone.",
    )
    langgraph_token: SecretStr | None = Field(
        default=None,
        validation_alias=AliasChoices("RPC_LANGGRAPH_TOKEN", "langgraph_token"),
        description=(
            "Standalone only: the bearer token the adapter sends to an Agent Server whose "
            "auth is on (a service account of server/auth.py: AGENT_AUTH_SERVICE_TOKENS)."
        ),
    )
    token: str | None = Field(
        default=None,
        validation_alias=_alias("TOKEN"),
        description="Shared secret clients send as ?token= or 'Authorization: Bearer'.",
    )
    allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: ["127.0.0.1", "localhost", "[::1]", "::1"],
        validation_alias=_alias("ALLOWED_ORIGINS"),
        description="Browser Origins accepted (hosts or full origins); '*' accepts any.",
    )
    max_message_size: int = Field(
        default=1_048_576, ge=1024, validation_alias=_alias("MAX_MESSAGE_SIZE")
    )
    max_in_flight: int = Field(
        default=256,
        ge=1,
        validation_alias=_alias("MAX_IN_FLIGHT"),
        description="Requests one session may have running at once; more get -32000.",
    )
    agent_timeout: float = Field(
        default=300.0,
        gt=0,
        validation_alias=_alias("AGENT_TIMEOUT"),
        description="Seconds one Agent Server run segment may take before -32003.",
    )
    tool_timeout: float = Field(
        default=60.0,
        gt=0,
        validation_alias=_alias("TOOL_TIMEOUT"),
        description="Seconds a client has to answer agent.toolCall.",
    )
    session_ttl: float = Field(
        default=600.0,
        gt=0,
        validation_alias=_alias("SESSION_TTL"),
        description="Seconds a disconnected session is kept for a reconnect.",
    )

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str) and not value.lstrip().startswith("["):
            return [v.strip() for v in value.split(",") if v.strip()]
        return value
