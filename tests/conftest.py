"""Suite-wide set-up: every test writes runtime data under a temporary DATA_DIR."""

from __future__ import annotations

import os
import shutil
import tempfile

# Set before any service settings are read, so no test touches the checkout's .data/.
_DATA_DIR = tempfile.mkdtemp(prefix="procurement-tests-")
os.environ["DATA_DIR"] = _DATA_DIR


def pytest_unconfigure(config: object) -> None:
    shutil.rmtree(_DATA_DIR, ignore_errors=True)
