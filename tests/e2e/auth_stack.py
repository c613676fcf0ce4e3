"""The end-to-end stack with the shipped auth handler switched on, and its accounts.

For the modules that test auth on a real ``langgraph dev``: the server's config with the
handler (``auth.py`` beside the server's ``http.app``) and ``enable_custom_route_auth``,
the accounts as the handler reads them (``AGENT_AUTH_TOKENS``,
``AGENT_AUTH_SERVICE_TOKENS``), and clients carrying a bearer token.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from typing import Any

from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from runstack.agent_server import PRODUCT_CONFIG, shipped_auth_handler
from runstack.processes import ServiceHandle
from tests.e2e.agents_stack import Stack, langgraph_dev, services


def bearer(token: str) -> dict[str, str]:
    """The ``Authorization`` header of ``token``."""
    return {"Authorization": f"Bearer {token}"}


def with_auth(config: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``config`` (the product's ``langgraph.json`` when None) with the shipped auth handler
    switched on, wherever the server's ``http.app`` package lives."""
    if config is None:
        config = json.loads(PRODUCT_CONFIG.read_text(encoding="utf-8"))
    out = dict(config)
    out["auth"] = {"path": shipped_auth_handler()}
    out["http"] = {**out["http"], "enable_custom_route_auth": True}
    return out


def accounts_env(people: Mapping[str, str], service: tuple[str, str]) -> dict[str, str]:
    """The environment giving the handler its accounts: ``people`` (name → token) and one
    service account ``(name, token)``."""
    return {
        "AGENT_AUTH_TOKENS": ",".join(f"{u}:{t}" for u, t in people.items()),
        "AGENT_AUTH_SERVICE_TOKENS": ":".join(service),
    }


@contextlib.contextmanager
def authed_services(
    people: Mapping[str, str], service: tuple[str, str], **env: str
) -> Iterator[Stack]:
    """The four services, with the Agent Server to come configured for auth: these
    accounts, plus ``env``."""
    with services() as running:
        running.config = with_auth()
        running.env.update(accounts_env(people, service), **env)
        yield running


@contextlib.contextmanager
def authed_agent(stack: Stack, service: tuple[str, str]) -> Iterator[ServiceHandle]:
    """``langgraph dev`` on ``stack``, its readiness probed as the service account."""
    with langgraph_dev(stack, probe_headers=bearer(service[1])) as handle:
        yield handle


def sdk_client(agent: ServiceHandle, token: str) -> LangGraphClient:
    """An SDK client of ``agent`` calling with ``token``."""
    return get_client(url=agent.url, timeout=120, headers=bearer(token))
