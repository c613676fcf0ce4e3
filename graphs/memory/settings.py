"""Settings of the memory layer: how long the ERP's supplier names are trusted, and waited for."""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

__all__ = ["MemorySettings"]


class MemorySettings(BaseSettings):
    """Where MemoryUpdate's supplier names come from, and for how long they are cached."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", populate_by_name=True)

    suppliers_ttl_s: float = Field(
        default=600.0,
        gt=0,
        validation_alias=AliasChoices("MEMORY_SUPPLIERS_TTL_S", "suppliers_ttl_s"),
        description="How long the supplier list is cached.",
    )
    timeout_s: float = Field(
        default=5.0,
        gt=0,
        validation_alias=AliasChoices("MEMORY_ERP_TIMEOUT_S", "timeout_s"),
        description="Longest wait for one page of the ERP's supplier list (an MCP call).",
    )
