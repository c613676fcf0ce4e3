"""Fixtures shared by integration modules."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from fastmcp import Client

from runstack.processes import ServiceHandle
from tests.integration.postgres import PostgresMissing, postgres_server


@pytest.fixture
async def mcp(gateway: ServiceHandle) -> AsyncIterator[Client[Any]]:
    """An MCP session with the module's chart ``gateway`` (a module fixture starting one)."""
    async with Client(f"{gateway.url}/mcp", timeout=60) as client:
        yield client


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    """A private PostgreSQL server for the module (SQLAlchemy URL of an empty database); a
    machine without one fails, saying how to get it (a skip would hide a broken machine)."""
    try:
        with postgres_server() as url:
            yield url
    except PostgresMissing as exc:
        pytest.fail(str(exc))
