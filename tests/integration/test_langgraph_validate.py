"""``langgraph validate`` accepts the deployable's langgraph.json with no warning."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from runstack.processes import ROOT

pytestmark = pytest.mark.integration


def test_langgraph_validate_passes_without_warnings() -> None:
    cli = Path(sys.executable).with_name("langgraph")
    done = subprocess.run(
        [str(cli), "validate", "-c", str(ROOT / "langgraph.json")],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    assert "is valid" in out and "(2 graphs found)" in out
    assert "warning" not in out.lower(), out
