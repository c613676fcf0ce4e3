"""Library log records: FastMCP's reach the service's handlers capped, noise is quieted."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator

import anyio
import pytest

from core.library_logs import tame_library_logs

_TOUCHED = ("fastmcp", "mcp.server.lowlevel.server", "httpx", "mcp.server.streamable_http")


@pytest.fixture(autouse=True)
def restore_loggers() -> Iterator[None]:
    saved = {}
    for name in _TOUCHED:
        logger = logging.getLogger(name)
        saved[name] = (logger.handlers[:], logger.filters[:], logger.propagate, logger.level)
    try:
        yield
    finally:
        for name, (handlers, filters, propagate, level) in saved.items():
            logger = logging.getLogger(name)
            logger.handlers[:] = handlers
            logger.filters[:] = filters
            logger.propagate = propagate
            logger.setLevel(level)


def test_fastmcp_records_reach_root_capped(caplog: pytest.LogCaptureFixture) -> None:
    tame_library_logs(limit=50)
    tame_library_logs(limit=50)  # twice changes nothing
    assert len(logging.getLogger("fastmcp").handlers) == 1
    with caplog.at_level(logging.WARNING):
        logging.getLogger("fastmcp.server.server").warning("Invalid arguments: %s", "x" * 5000)
    records = [r for r in caplog.records if r.name == "fastmcp.server.server"]
    assert len(records) == 1
    message = records[0].getMessage()
    assert len(message) < 100, message[:200]
    assert message.startswith("Invalid arguments: xxx")
    assert message.endswith("... [4969 chars cut]")


def test_per_request_info_and_session_end_noise_are_dropped(
    caplog: pytest.LogCaptureFixture,
) -> None:
    tame_library_logs()
    tame_library_logs()
    transport = logging.getLogger("mcp.server.streamable_http")
    assert len(transport.filters) == 1
    with caplog.at_level(logging.INFO):
        logging.getLogger("mcp.server.lowlevel.server").info("Processing request")
        logging.getLogger("httpx").info("HTTP Request: GET ...")
        try:
            raise anyio.ClosedResourceError
        except anyio.ClosedResourceError:
            transport.exception("Error in standalone SSE writer")
        try:
            raise RuntimeError("real trouble")
        except RuntimeError:
            transport.error("Error in standalone SSE writer", exc_info=sys.exc_info())
    assert [(r.name, r.levelname) for r in caplog.records] == [
        ("mcp.server.streamable_http", "ERROR")
    ]
    assert "real trouble" in caplog.text
