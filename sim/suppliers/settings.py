"""Settings of the simulated supplier shops (env prefix ``SIM_SUPPLIERS_``)."""

from __future__ import annotations

from pydantic import Field
from pydantic_settings import SettingsConfigDict

from core.settings import CommonSettings
from sim.catalog import DEFAULT_SEED


class SuppliersSettings(CommonSettings):
    """Where the shops listen, which seed they sell from, and how badly they behave."""

    model_config = SettingsConfigDict(
        env_prefix="SIM_SUPPLIERS_", env_file=".env", extra="ignore", populate_by_name=True
    )

    host: str = "127.0.0.1"
    port: int = Field(default=8300, ge=1, le=65535)
    seed: int = Field(default=DEFAULT_SEED, description="The generator's seed (sim.catalog).")
    misbehave: bool = Field(
        default=True,
        description="on: 403 without a browser User-Agent, 429s, a slow shop, malformed and "
        "GBK pages, as configured below; off: every shop behaves.",
    )
    slow_seconds: float = Field(
        default=3.0, ge=0, description="Delay of the slow shop's quote pages."
    )
    rate_limit_window: float = Field(
        default=60.0,
        ge=0,
        description="The rate-limited shop answers 429 to the first request for a page in "
        "each window of this many seconds.",
    )
    retry_after: int = Field(default=1, ge=0, description="Retry-After (seconds) sent with 429.")
    page_size: int = Field(default=20, ge=1, description="Items per page of paginated listings.")
