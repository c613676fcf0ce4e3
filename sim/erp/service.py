"""The running ERP: its database, the in-memory master data, and reset."""

from __future__ import annotations

import logging
import threading

from sim.erp.checks import Rules
from sim.erp.db import Database
from sim.erp.masterdata import MasterData
from sim.erp.migrate import upgrade
from sim.erp.seed import ensure_seeded, reset
from sim.erp.settings import ErpSettings

log = logging.getLogger("sim-erp")


class Erp:
    """One ERP instance. ``start()`` seeds an empty database (or upgrades an older one) and
    loads the master data."""

    def __init__(self, settings: ErpSettings) -> None:
        self.settings = settings
        self.db = Database(settings.resolved_database_url)
        self.rules = Rules(
            price_warning_percent=settings.price_warning_percent,
            quantity_warning_factor=settings.quantity_warning_factor,
            expedite_ratio=settings.expedite_ratio,
        )
        self._master: MasterData | None = None
        self._reset_lock = threading.Lock()

    @property
    def master(self) -> MasterData:
        """The master data loaded by :meth:`start` (or the last reset)."""
        if self._master is None:
            msg = "the ERP is not started: call start() first"
            raise RuntimeError(msg)
        return self._master

    def start(self) -> None:
        """Seed the database if it is empty (else bring its tables up to date), then load the
        master data into memory."""
        if ensure_seeded(self.db, self.settings.seed):
            log.info("seeded an empty database (seed %s)", self.settings.seed)
        else:
            # A database an older ERP wrote keeps its data and gains the new columns.
            upgrade(self.db.write_engine, self.settings.seed)
        self.reload()

    def reload(self) -> None:
        """Re-read the master data and rebuild the search indexes."""
        with self.db.read() as session:
            self._master = MasterData.load(session)

    def reset(self) -> dict[str, int]:
        """Restore the seed data; returns the row counts loaded."""
        with self._reset_lock:
            counts = reset(self.db, self.settings.seed)
            self.reload()
        return counts

    def close(self) -> None:
        """Release the database connections."""
        self.db.dispose()
