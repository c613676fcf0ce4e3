"""Fail a test on any blocking call made in the event loop, the way ``langgraph dev`` does.

``langgraph dev`` runs its graphs under BlockBuster (``langgraph_runtime_inmem.queue``):
a ``time.sleep``, a file read or a ``socket.recv`` from a coroutine raises
``BlockingError``. Timing the loop from a ticker task flakes on a loaded machine; this
check does not: it fails on the blocking call itself, however fast it was.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from blockbuster import BlockBuster


@contextmanager
def no_blocking_calls(modules: Sequence[str] | None = None) -> Iterator[BlockBuster]:
    """Raise ``BlockingError`` on a blocking call in the running loop while inside.

    ``modules``: only calls with one of these modules on the stack count (None: every
    module, as ``langgraph dev`` does).
    """
    guard = BlockBuster(scanned_modules=list(modules) if modules else None, excluded_modules=[])
    # The one exception langgraph dev grants too: inspect resolving a module's path.
    guard.functions["os.path.abspath"].can_block_in("inspect.py", "getmodule")
    guard.activate()
    try:
        yield guard
    finally:
        guard.deactivate()
