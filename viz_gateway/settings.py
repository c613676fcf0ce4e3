"""Settings of the visualization gateway (env prefix ``VIZ_``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import NoDecode, SettingsConfigDict

from core.settings import CommonSettings


class VizSettings(CommonSettings):
    """Where the gateway listens, where it keeps images, and how it renders them."""

    model_config = SettingsConfigDict(
        env_prefix="VIZ_", env_file=".env", extra="ignore", populate_by_name=True
    )

    host: str = Field(default="127.0.0.1", description="Interface to bind.")
    port: int = Field(default=1122, ge=1, le=65535, description="HTTP port (MCP at /mcp).")
    public_url: str | None = Field(
        default=None,
        description="Base URL clients use to fetch images; defaults to http://host:port.",
    )
    upstream_url: str | None = Field(
        default=None,
        description="An upstream chart MCP server (streamable HTTP); local rendering is the "
        "fallback when it fails.",
    )
    upstream_timeout: float = Field(default=30.0, gt=0, description="Seconds per upstream call.")
    font_dir: Path | None = Field(
        default=None, description="Folder searched first for a CJK font (WenQuanYi, Noto CJK...)."
    )
    font_family: str | None = Field(
        default=None, description="Font family to use instead of the one discovered."
    )
    cache_max_mb: float = Field(
        default=512.0, gt=0, description="Size cap of DATA_DIR/charts; oldest images go first."
    )
    render_workers: int = Field(
        default=1,
        ge=1,
        le=16,
        description="Worker processes that lay out and draw charts (about 220 MB each).",
    )
    render_max_tasks: int = Field(
        default=500, ge=1, description="Charts a worker draws before it is replaced (bounds RSS)."
    )
    render_timeout: float = Field(default=60.0, gt=0, description="Seconds one render may take.")
    max_points: int = Field(default=20_000, ge=10, description="Most data items one chart accepts.")
    disabled_tools: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        validation_alias=AliasChoices("VIZ_DISABLED_TOOLS", "DISABLED_TOOLS", "disabled_tools"),
        description="Tool names to hide, comma separated (upstream's DISABLED_TOOLS).",
    )

    @field_validator("disabled_tools", mode="before")
    @classmethod
    def _split(cls, value: object) -> object:
        if isinstance(value, str):
            return [v.strip() for v in value.split(",") if v.strip()]
        return value

    @property
    def charts_dir(self) -> Path:
        """The folder images are kept in."""
        return self.data_dir / "charts"

    @property
    def base_url(self) -> str:
        """Base of the image URLs handed to clients, without a trailing slash."""
        return (self.public_url or f"http://{self.host}:{self.port}").rstrip("/")
