"""``python -m sim.erp`` serves the ERP; ``reset`` restores the seed data; ``seed`` fills an
empty database and leaves a filled one's data alone (upgrading its tables if they are old)."""

from __future__ import annotations

import argparse
import sys

from sqlalchemy.exc import ArgumentError

from core.logs import setup_logging
from core.serve import serve
from sim.erp.settings import ErpSettings


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m sim.erp", description=__doc__)
    parser.add_argument(
        "command",
        nargs="?",
        choices=("serve", "reset", "seed"),
        default="serve",
        help="serve (default), reset the database to the seed data, or seed it if empty",
    )
    args = parser.parse_args(argv)
    settings = ErpSettings()
    log = setup_logging(
        "sim-erp",
        level=settings.log_level,
        log_dir=settings.resolved_log_dir,
        backup_count=settings.log_backup_count,
    )
    from sim.erp.db import Database

    try:
        # Opening no connection yet, this catches a malformed URL or a missing driver.
        db = Database(settings.resolved_database_url)
    except (ValueError, ImportError, ArgumentError) as exc:
        print(f"sim-erp: cannot use ERP_DATABASE_URL: {exc}", file=sys.stderr)
        return 2
    if args.command == "serve":
        from sim.erp.app import create_app

        db.dispose()

        serve(
            create_app(settings),
            host=settings.host,
            port=settings.port,
            service="sim-erp",
            log_level=settings.log_level,
        )
        return 0

    from sim.erp.migrate import upgrade
    from sim.erp.seed import ensure_seeded, reset

    try:
        if args.command == "reset":
            counts = reset(db, settings.seed)
            log.info("reset %s to seed %s: %s", db.dialect, settings.seed, counts)
        elif ensure_seeded(db, settings.seed):
            log.info("seeded %s with seed %s", db.dialect, settings.seed)
        elif upgrade(db.write_engine, settings.seed):
            log.info("the database already holds data; its tables were brought up to date")
        else:
            log.info("the database already holds data; left as it is")
    finally:
        db.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
