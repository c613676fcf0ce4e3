"""Settings of the simulated ERP (env prefix ``SIM_ERP_``; ``ERP_DATABASE_URL``, ``ERP_SEED``)."""

from __future__ import annotations

from pydantic import AliasChoices, Field
from pydantic_settings import SettingsConfigDict

from core.settings import CommonSettings
from sim.catalog import DEFAULT_SEED


class ErpSettings(CommonSettings):
    """Where the ERP listens, which database it uses and which seed fills it."""

    model_config = SettingsConfigDict(
        env_prefix="SIM_ERP_", env_file=".env", extra="ignore", populate_by_name=True
    )

    host: str = Field(default="127.0.0.1", description="Interface the REST API binds.")
    port: int = Field(default=8080, ge=1, le=65535, description="Port of the REST API.")
    database_url: str | None = Field(
        default=None,
        validation_alias=AliasChoices("ERP_DATABASE_URL", "database_url"),
        description="Any SQLAlchemy URL; default a SQLite file DATA_DIR/erp.sqlite3.",
    )
    seed: int = Field(
        default=DEFAULT_SEED,
        validation_alias=AliasChoices("ERP_SEED", "seed"),
        description="Seed of the generated master data and order history.",
    )

    price_warning_percent: float = Field(
        default=10.0,
        ge=0,
        le=1000,
        description="Warn when a unit price is this many percent above the 12-month average.",
    )
    quantity_warning_factor: float = Field(
        default=10.0,
        ge=1,
        le=1000,
        description="Warn when a line's quantity is more than this many times the part's usual "
        "level (largest order line in 12 months, stock on hand, safety stock).",
    )
    expedite_ratio: float = Field(
        default=0.5,
        gt=0,
        le=1,
        description="An expedited delivery takes this share of the lead time; sooner is refused.",
    )

    @property
    def resolved_database_url(self) -> str:
        """The database URL actually used."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.data_dir / 'erp.sqlite3'}"
