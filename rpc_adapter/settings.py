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
        description=(
            "Shared secret clients send in the 'X-RPC-Token' header, as a "
            "'rpc-token.<token>' WebSocket subprotocol (browsers), as ?token=, or as "
            "'Authorization: Bearer' when the Agent Server's own auth does not use that header."
        ),
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
        description="Requests one session may have running at once (each request of a "
        "batch counts); more get -32000.",
    )
    max_batch: int = Field(
        default=100,
        ge=1,
        validation_alias=_alias("MAX_BATCH"),
        description="Requests one batch may hold; a longer batch gets one -32600 error.",
    )
    max_queue_messages: int = Field(
        default=1000,
        ge=10,
        validation_alias=_alias("MAX_QUEUE_MESSAGES"),
        description="Messages waiting for one socket (or one detached session) at most: a "
        "socket whose client does not read is closed with 4008 when they fill up.",
    )
    max_queue_bytes: int = Field(
        default=4 * 1024 * 1024,
        ge=64 * 1024,
        validation_alias=_alias("MAX_QUEUE_BYTES"),
        description="Bytes waiting for one socket (or one detached session) at most.",
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
    session_store: bool = Field(
        default=True,
        validation_alias=_alias("SESSION_STORE"),
        description="Keep what a reconnect needs in the Agent Server's Store, so a "
        "reconnect to another replica (or after a restart) resumes the session; false "
        "keeps sessions in this process's memory only.",
    )
    background_watch: float = Field(
        default=3600.0,
        gt=0,
        validation_alias=_alias("BACKGROUND_WATCH"),
        description="Seconds a session follows its thread for background results (the "
        "analyst's) after a chat started them.",
    )

    @field_validator("allowed_origins", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str) and not value.lstrip().startswith("["):
            return [v.strip() for v in value.split(",") if v.strip()]
        return value
