"""Fixtures of the end-to-end tests: one stack per test module.

``stack`` is the four services on free ports (a module that restarts ``langgraph dev``
starts its own servers on it); ``served`` adds ``langgraph dev`` on top, as
``stack.agent``; ``client`` is an SDK client of that server; ``catalogue`` and ``cases``
are the ERP's parts and equivalents and the substitution requests built from them. A module
with other needs (auth on, another environment) defines its own ``stack``.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from tests.e2e.agents_stack import Stack, langgraph_dev, services
from tests.e2e.substitution import Case, Catalogue, build_cases, load_catalogue


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


@pytest.fixture(scope="module")
def catalogue(stack: Stack) -> Catalogue:
    return load_catalogue(stack.erp.url)


@pytest.fixture(scope="module")
def cases(catalogue: Catalogue) -> dict[str, Case]:
    return build_cases(catalogue)
