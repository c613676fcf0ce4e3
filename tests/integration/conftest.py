"""Fixtures shared by integration modules."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastmcp import Client

from runstack.processes import ServiceHandle


@pytest.fixture
async def mcp(gateway: ServiceHandle) -> AsyncIterator[Client[Any]]:
    """An MCP session with the module's chart ``gateway`` (a module fixture starting one)."""
    async with Client(f"{gateway.url}/mcp", timeout=60) as client:
        yield client
