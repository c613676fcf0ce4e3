"""Settings of the visualization gateway (env prefix ``VIZ_``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

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
        default=512.0,
        gt=0,
        description="Size cap of the chart store; the least recently used images go first.",
    )
    store: Literal["local", "s3"] = Field(
        default="local",
        description="Where images are kept: local (DATA_DIR/charts, one gateway) or s3 (a "
        "bucket every gateway replica shares; needs boto3, the s3 extra).",
    )
    s3_bucket: str | None = Field(default=None, description="The bucket (VIZ_STORE=s3).")
    s3_prefix: str = Field(default="charts/", description="Key prefix of the images.")
    s3_endpoint_url: str | None = Field(
        default=None,
        description="An S3-compatible endpoint (MinIO, Ceph, R2, ...); default: AWS S3. "
        "Credentials come from the usual AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY.",
    )
    s3_region: str | None = Field(default=None, description="The bucket's region.")
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
