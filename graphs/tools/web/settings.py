"""fetch_url's settings (env prefix ``WEB_``) and the defaults web_search shares."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any
from urllib.parse import urlsplit

from pydantic import AliasChoices, Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

from graphs.tools.web.guard import hostport

__all__ = ["DEFAULT_SUPPLIER_SITES_URL", "DEFAULT_USER_AGENT", "WebSettings", "load_settings"]

DEFAULT_USER_AGENT = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/131.0.0.0 Safari/537.36"
)
DEFAULT_SUPPLIER_SITES_URL = "http://127.0.0.1:8300"


def _split_list(value: Any) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            return json.loads(text)
        return [v.strip() for v in text.split(",") if v.strip()]
    return value


class WebSettings(BaseSettings):
    """fetch_url's settings (env prefix ``WEB_``; lists as JSON or comma-separated)."""

    model_config = SettingsConfigDict(
        env_prefix="WEB_", env_file=".env", extra="ignore", populate_by_name=True
    )

    supplier_sites_url: str = Field(
        default=DEFAULT_SUPPLIER_SITES_URL,
        validation_alias=AliasChoices("SUPPLIER_SITES_URL", "supplier_sites_url"),
        description="The simulated supplier shops; their host:port is always allowed.",
    )
    allowed_hosts: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="Extra 'host:port' or 'host' entries exempt from the private-address "
        "guard (cloud metadata stays refused).",
    )
    readers: Annotated[list[str], NoDecode] = Field(
        default_factory=lambda: [
            "https://r.jina.ai/",
            "https://markdown.new/",
            "https://defuddle.md/",
        ],
        description="URL-prefix reader services tried in order when a direct fetch fails.",
    )
    user_agent: str = DEFAULT_USER_AGENT
    timeout: float = Field(default=10.0, gt=0, description="Per request, seconds.")
    connect_timeout: float = Field(default=5.0, gt=0)
    total_budget: float = Field(
        default=30.0, gt=0, description="Everything, retries and readers included, seconds."
    )
    max_retries: int = Field(default=3, ge=0, description="Retries after the first attempt.")
    reader_retries: int = Field(default=1, ge=0)
    backoff_base: float = Field(default=0.25, ge=0)
    backoff_max: float = Field(default=4.0, ge=0)
    max_bytes: int = Field(default=3_000_000, ge=1024, description="Response size cap.")
    max_redirects: int = Field(default=5, ge=0)
    max_chars: int = Field(default=20_000, ge=500, description="Text handed to the model.")
    max_json_chars: int = Field(default=8_000, ge=200, description="Per embedded JSON block.")

    _split = field_validator("allowed_hosts", "readers", mode="before")(_split_list)

    def allow_entries(self) -> set[str]:
        """The allow-list, lower-cased, with the supplier shops' host:port added."""
        entries = {e.strip().lower() for e in self.allowed_hosts if e.strip()}
        shops = urlsplit(self.supplier_sites_url)
        if shops.hostname:
            port = shops.port or (443 if shops.scheme == "https" else 80)
            entries.add(hostport(shops.hostname, port))
        return entries


async def load_settings() -> WebSettings:
    """Settings read in a thread: pydantic-settings reads ``.env``, blocking I/O."""
    return await asyncio.to_thread(WebSettings)
