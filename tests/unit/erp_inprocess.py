"""The real simulated ERP in-process for the mcp_erp unit tests, behind a faulty transport.

``sim.erp``'s own app answers every request over httpx's ``ASGITransport``: no sockets,
and the rules (validation, order states, idempotency, versions) are the ERP's. Only
what the real ERP cannot be told to do on cue is faked, by :class:`FaultyTransport`:
answering 5xx or a page that is not JSON, timing out, refusing the connection. It also
records every request, so tests can count retries and see what the server sent.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
from asgi_lifespan import LifespanManager
from fastmcp import Client
from pydantic_settings import SettingsConfigDict

from mcp_erp.settings import ErpMcpSettings
from sim.erp.app import create_app
from tests.unit.erp_fixtures import fingerprint, settings_for

BASE_URL = "http://erp.test"
"""Where the MCP server believes the ERP is (the ERP's Host guard is told to accept it)."""


class _NoDotEnvSettings(ErpMcpSettings):
    model_config = SettingsConfigDict({**ErpMcpSettings.model_config, "env_file": None})


def pinned_settings(**overrides: Any) -> ErpMcpSettings:
    """Server settings that ignore a developer's .env and pin what the tests count on."""
    values: dict[str, Any] = {
        "erp_base_url": BASE_URL,
        "read_attempts": 3,
        "retry_wait": 0,
        "connect_timeout": 2.0,
        "read_timeout": 10.0,
        "allowed_hosts": ["127.0.0.1", "localhost", "::1"],
        **overrides,
    }
    return _NoDotEnvSettings(**values)


@dataclass(frozen=True)
class Sent:
    """One request as it left the MCP server."""

    method: str
    path: str
    query: dict[str, list[str]]
    body: Any


@dataclass
class Fault:
    """The next ``times`` requests to ``method path`` get ``status`` + ``body``, or ``error``."""

    method: str
    path: str
    times: int
    status: int = 503
    body: bytes = b'{"detail": "injected"}'
    error: type[httpx.TransportError] | None = None


@dataclass
class FaultyTransport(httpx.AsyncBaseTransport):
    """Records each request, then fails it as told or passes it to ``inner``."""

    inner: httpx.AsyncBaseTransport
    sent: list[Sent] = field(default_factory=list)
    faults: list[Fault] = field(default_factory=list)

    def fail(self, method: str, path: str, status: int = 503, times: int = 1, **kw: Any) -> None:
        """Answer the next ``times`` calls of ``method path`` with ``status`` instead."""
        self.faults.append(Fault(method, path, times, status, **kw))

    def raise_on(
        self, method: str, path: str, error: type[httpx.TransportError], times: int = 1
    ) -> None:
        """Raise ``error`` (a timeout, a refused connection, ...) for the next ``times`` calls."""
        self.faults.append(Fault(method, path, times, error=error))

    def count(self, method: str | None = None, path: str | None = None) -> int:
        """How many requests matched ``method`` and ``path`` (None = any)."""
        return sum(
            1
            for s in self.sent
            if (method is None or s.method == method) and (path is None or s.path == path)
        )

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        content = await request.aread()
        self.sent.append(
            Sent(
                request.method,
                request.url.path,
                parse_qs(request.url.query.decode()),
                json.loads(content) if content else None,
            )
        )
        for fault in self.faults:
            if fault.times and (fault.method, fault.path) == (request.method, request.url.path):
                fault.times -= 1
                if fault.error is not None:
                    raise fault.error("injected fault", request=request)
                headers = {"content-type": "application/json"}
                return httpx.Response(fault.status, content=fault.body, headers=headers)
        return await self.inner.handle_async_request(request)


@dataclass
class InProcessErp:
    """A running ``sim.erp`` app: ``transport`` for the MCP server, ``rest()`` for the truth."""

    app: Any
    database_url: str
    transport: FaultyTransport

    def rest(self) -> httpx.AsyncClient:
        """A plain client of the same ERP, unrecorded and never failed: what the ERP holds."""
        return httpx.AsyncClient(transport=httpx.ASGITransport(app=self.app), base_url=BASE_URL)

    async def get(self, path: str, **query: Any) -> Any:
        """The ERP's own JSON answer to ``GET path?query`` (which must succeed)."""
        async with self.rest() as http:
            response = await http.get(path, params=query)
        assert response.status_code == 200, response.text
        return response.json()

    async def resend(self, sent: Sent) -> httpx.Response:
        """The ERP's own answer to ``sent``, sent again straight to it (unrecorded, unfailed)."""
        async with self.rest() as http:
            return await http.request(sent.method, sent.path, params=sent.query, json=sent.body)

    def fingerprint(self) -> dict[str, tuple[int, str]]:
        """Row counts and a digest of every ERP table: equal before and after = nothing changed."""
        return fingerprint(self.database_url)

    @asynccontextmanager
    async def mcp_client(self, **settings: Any) -> AsyncIterator[Client[Any]]:
        """An in-memory MCP client of an ``mcp_erp`` server whose ERP is this one."""
        from mcp_erp.server import create_server

        server = create_server(pinned_settings(**settings), transport=self.transport)
        async with Client(server) as client:
            yield client


@asynccontextmanager
async def running_erp(template: Path, folder: Path) -> AsyncIterator[InProcessErp]:
    """The ERP on a private copy of ``template`` under ``folder``, its lifespan running."""
    settings = settings_for(template, folder)
    settings.allowed_hosts = [*settings.allowed_hosts, httpx.URL(BASE_URL).host]
    async with LifespanManager(create_app(settings)) as manager:
        transport = FaultyTransport(httpx.ASGITransport(app=manager.app))
        yield InProcessErp(manager.app, settings.resolved_database_url, transport)
