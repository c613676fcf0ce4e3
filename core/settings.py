"""Settings shared by every service: where runtime data and logs live.

Each service subclasses :class:`CommonSettings` with its own ``env_prefix``; the
shared fields keep their unprefixed names (``DATA_DIR``, ``LOG_DIR``, ...) through
validation aliases so one ``.env`` serves all of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from core.http_guard import normal_origin

REPO_ROOT = Path(__file__).resolve().parent.parent


class CommonSettings(BaseSettings):
    """Fields every long-running service reads."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    data_dir: Path = Field(
        default=REPO_ROOT / ".data",
        validation_alias=AliasChoices("DATA_DIR", "data_dir"),
        description="Runtime data: databases, chart images, sandbox workspaces, logs.",
    )
    log_dir: Path | None = Field(
        default=None,
        validation_alias=AliasChoices("LOG_DIR", "log_dir"),
        description="Daily-rotated log files; defaults to DATA_DIR/logs.",
    )
    log_level: str = Field(default="INFO", validation_alias=AliasChoices("LOG_LEVEL", "log_level"))
    log_backup_count: int = Field(
        default=7, ge=0, validation_alias=AliasChoices("LOG_BACKUP_COUNT", "log_backup_count")
    )
    allowed_hosts: list[str] = Field(
        default_factory=lambda: ["127.0.0.1", "localhost", "[::1]", "::1"],
        validation_alias=AliasChoices("ALLOWED_HOSTS", "allowed_hosts"),
        description="Host header values accepted (DNS-rebinding guard), loopback by default.",
    )
    http_allowed_origins: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        validation_alias=AliasChoices("HTTP_ALLOWED_ORIGINS", "http_allowed_origins"),
        description=(
            "Browser origins (scheme://host:port, comma-separated) the MCP servers and the ERP "
            "accept besides their own; 'null' accepts Origin: null, '*' any origin."
        ),
    )

    @field_validator("http_allowed_origins", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str) and not value.lstrip().startswith("["):
            value = [v.strip() for v in value.split(",") if v.strip()]
        for entry in value if isinstance(value, list) else []:
            if str(entry).lower() not in ("*", "null") and normal_origin(str(entry)) is None:
                msg = (
                    f"{entry!r} is not an origin: write scheme://host[:port] "
                    "(for example http://localhost:3000), 'null' or '*'"
                )
                raise ValueError(msg)
        return value

    @property
    def resolved_log_dir(self) -> Path:
        """The folder log files go to."""
        return self.log_dir or self.data_dir / "logs"
