"""Fixtures of the end-to-end tests: one stack per test module.

``stack`` is the four services on free ports (a module that restarts ``langgraph dev``
starts its own servers on it); ``served`` adds ``langgraph dev`` on top, as
``stack.agent``; ``client`` is an SDK client of that server. A module with other needs
(auth on, another environment) defines its own ``stack``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from tests.e2e.agents_stack import Stack, langgraph_dev, services


@pytest.fixture(scope="module")
def stack() -> Iterator[Stack]:
    with services() as running:
        yield running


@pytest.fixture(scope="module")
def served(stack: Stack) -> Iterator[Stack]:
    with langgraph_dev(stack) as agent:
        stack.agent = agent
        yield stack


@pytest.fixture
async def client(served: Stack) -> AsyncIterator[LangGraphClient]:
    sdk = get_client(url=served.url)
    try:
        yield sdk
    finally:
        await sdk.aclose()
