"""Start the simulated supplier shops: ``python -m sim.suppliers``."""

from __future__ import annotations

from core.logs import setup_logging
from core.serve import serve
from sim.suppliers.app import build_app
from sim.suppliers.settings import SuppliersSettings


def main() -> None:
    """Serve every shop on SIM_SUPPLIERS_HOST:SIM_SUPPLIERS_PORT until interrupted."""
    settings = SuppliersSettings()
    log = setup_logging(
        "sim-suppliers",
        level=settings.log_level,
        log_dir=settings.resolved_log_dir,
        backup_count=settings.log_backup_count,
    )
    log.info(
        "supplier shops on http://%s:%s (misbehave=%s)",
        settings.host,
        settings.port,
        "on" if settings.misbehave else "off",
    )
    serve(
        build_app(settings),
        host=settings.host,
        port=settings.port,
        service="sim-suppliers",
        log_level=settings.log_level,
    )


if __name__ == "__main__":
    main()
