"""Fixtures for the unit tests that run the real simulated ERP in-process (erp_inprocess.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from tests.unit.erp_fixtures import make_template
from tests.unit.erp_inprocess import InProcessErp, running_erp
from tests.unit.planner_harness import TODAY, PlannerWorld, planner_world


@pytest.fixture(scope="session")
def erp_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A seeded ERP database, made once; every test runs on its own copy."""
    return make_template(tmp_path_factory.mktemp("erp-template"))


@pytest.fixture
async def real_erp(erp_template: Path, tmp_path: Path) -> AsyncIterator[InProcessErp]:
    """The real ``sim.erp`` app on a fresh copy of the seed, reached without sockets."""
    async with running_erp(erp_template, tmp_path / "erp") as erp:
        yield erp


@pytest.fixture
async def erp_mcp(real_erp: InProcessErp) -> AsyncIterator[Client[Any]]:
    """An in-memory MCP client of ``mcp_erp`` in front of :func:`real_erp`."""
    async with real_erp.mcp_client() as client:
        yield client


@pytest.fixture
async def world(erp_template: Path, tmp_path: Path) -> AsyncIterator[PlannerWorld]:
    """The planner's world (its tools, the real ERP on a fresh copy of the seed) on
    :data:`~tests.unit.planner_harness.TODAY`."""
    async with planner_world(erp_template, tmp_path / "erp", TODAY) as w:
        yield w
