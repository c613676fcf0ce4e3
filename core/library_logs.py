"""Tame what the libraries under an MCP server log, so the service log stays readable.

Both MCP servers (``mcp_erp``, ``viz_gateway``) call :func:`tame_library_logs` at start.

- FastMCP installs a rich console handler on its ``fastmcp`` logger and stops
  propagation, so its records miss the service's log file; and it logs rejected
  tool arguments in full, which for a 100 KB string costs a second of rich
  rendering per call. Its records now go to the root handlers, capped in length.
- The MCP SDK and httpx log every request at INFO: raised to WARNING.
- The MCP SDK (1.x) logs an ERROR with an ``anyio.ClosedResourceError`` traceback each
  time a client ends its session: its standalone server-to-client stream reads a queue
  the session's own clean-up has just closed, which is how that stream always ends.
  That record alone is dropped; any other error of the stream still shows.
"""

from __future__ import annotations

import logging

import anyio

MAX_MESSAGE_CHARS = 2000
_PER_REQUEST_LOGGERS = ("mcp.server.lowlevel.server", "httpx")


class _ToRootShortened(logging.Handler):
    """Hand each record to the root logger's handlers, its message capped at ``limit``."""

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if len(message) > self.limit:
            record.msg = f"{message[: self.limit]}... [{len(message) - self.limit} chars cut]"
            record.args = None
        logging.getLogger().handle(record)


def _not_a_session_end(record: logging.LogRecord) -> bool:
    exc = record.exc_info[1] if record.exc_info else None
    return not (
        record.msg == "Error in standalone SSE writer"
        and isinstance(exc, anyio.ClosedResourceError)
    )


def tame_library_logs(limit: int = MAX_MESSAGE_CHARS) -> None:
    """Apply the rules above; calling it again changes nothing."""
    fastmcp_logger = logging.getLogger("fastmcp")
    for handler in fastmcp_logger.handlers[:]:
        fastmcp_logger.removeHandler(handler)
    # A handler rather than propagation: a logger's filters never see its children's records.
    fastmcp_logger.addHandler(_ToRootShortened(limit))
    fastmcp_logger.propagate = False
    fastmcp_logger.setLevel(logging.NOTSET)
    for name in _PER_REQUEST_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    transport_logger = logging.getLogger("mcp.server.streamable_http")
    if _not_a_session_end not in transport_logger.filters:
        transport_logger.addFilter(_not_a_session_end)
