"""Console plus daily-rotated file logging for the long-running services."""

from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"


def setup_logging(
    service: str, *, level: str = "INFO", log_dir: Path | None = None, backup_count: int = 7
) -> logging.Logger:
    """Log to the console and, when ``log_dir`` is given, to ``<log_dir>/<service>.log``.

    The file rotates at midnight and keeps ``backup_count`` old files. Calling it
    twice does not add handlers twice.
    """
    root = logging.getLogger()
    root.setLevel(level.upper())
    if not any(getattr(h, "_procurement", False) for h in root.handlers):
        console = logging.StreamHandler()
        console.setFormatter(logging.Formatter(_FORMAT))
        console._procurement = True  # type: ignore[attr-defined]
        root.addHandler(console)
        if log_dir is not None:
            log_dir.mkdir(parents=True, exist_ok=True)
            file_handler = logging.handlers.TimedRotatingFileHandler(
                log_dir / f"{service}.log",
                when="midnight",
                backupCount=backup_count,
                encoding="utf-8",
            )
            file_handler.setFormatter(logging.Formatter(_FORMAT))
            file_handler._procurement = True  # type: ignore[attr-defined]
            root.addHandler(file_handler)
    return logging.getLogger(service)
