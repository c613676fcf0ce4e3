"""``langgraph dev``'s in-memory runtime: keep its checkpoints reaching the disk.

The in-memory runtime (langgraph-runtime-inmem, pinned at 0.36.7) keeps threads, runs,
checkpoints and the Store in pickled files under ``.langgraph_api/``, written by a
background loop every 10 seconds and at a clean shutdown; the loop finds the dicts to
write in a registry keyed by file name. Every ``Checkpointer(unpack_hook=...)`` call
(the server makes one per run) builds a second saver whose fresh dicts, loaded from the
same files, take over those registry entries and are then thrown away; the loop drops
entries whose dict is gone. From the first run on, the checkpoints that hold every
thread's messages reach the disk only at a clean shutdown: a ``langgraph dev`` that is
killed (SIGKILL, the OOM killer, a power cut) comes back with runs and threads but
without their state, so a resumed background analysis wakes a parent that has forgotten
it started one.

:func:`keep_checkpoints_flushed` builds the runtime's one live saver at once (the runtime
builds it on first use, without a lock: two threads at once built two, see below) and makes
the registry keep its dicts for their files. What a kill then loses is what
changed in the last 10 seconds, as the runtime intends. The throw-away saver's dicts are
also kept from reading the files (each run read every thread's checkpoints from disk only
to discard them: 40% of the server's CPU at 16 concurrent analyses) and from writing them.
The flush loop also has no error handling: one ``sync`` that raises (pickling a dict the
event loop is changing at that moment: "dictionary changed size during iteration") ends
the loop's thread, and nothing reaches the disk again until a clean shutdown. A long soak
showed the saved state stop changing after five minutes. The sync is therefore tried again
a few times, then logged and left to the next round; it never raises into the loop.

Deleting a thread (the retention sweep, a client) went wrong in two ways too. The runtime
deleted its checkpoints but never its channel values (the ``blobs`` dict: about 90 kB per
analysis thread, kept in memory and on disk for ever: most of a soak's growth), and dropped
its pending writes by building a new, plain ``writes`` dict in place of the registered one:
from the first deletion on, pending writes (an order waiting for approval is one) were no
longer saved, and each deletion copied every thread's writes. A whole-thread deletion now
removes the thread's checkpoints, writes and blobs from the live dicts in place
(``InMemorySaver.delete_thread``).

Nothing changes for another runtime (``langgraph up``, a hosted deployment: PostgreSQL),
which lacks this module.
"""

from __future__ import annotations

import logging
import os
from typing import Any

__all__ = ["keep_checkpoints_flushed"]

logger = logging.getLogger(__name__)


SYNC_ATTEMPTS = 3


def _skip_load(*_: Any) -> None:
    """Stands in for a throw-away dict's ``load``: nothing to read."""


def _steady_sync(original: Any) -> Any:
    """``PersistentDict.sync`` that retries a write another thread disturbed and never
    raises (the flush loop calling it would die)."""

    def sync(self: Any) -> None:
        for attempt in range(1, SYNC_ATTEMPTS + 1):
            try:
                original(self)
                return
            except RuntimeError as exc:  # the dict changed while it was being pickled
                if attempt == SYNC_ATTEMPTS:
                    logger.warning("%s not saved this round: %s", self.filename, exc)
            except Exception:
                logger.exception("%s not saved this round", self.filename)
                return

    sync.steady = True  # type: ignore[attr-defined]
    return sync


def keep_checkpoints_flushed() -> bool:
    """Install the fix in this process (idempotent); False when the in-memory runtime is
    not installed here or no longer looks as described above."""
    try:
        from langgraph_runtime_inmem import _persistence, checkpoint
    except ImportError:
        return False
    current = getattr(checkpoint, "register_persistent_dict", None)
    stores = getattr(_persistence, "_stores", None)
    if current is None or not isinstance(stores, dict):
        logger.warning("langgraph dev persistence fix not applied: the runtime has changed")
        return False
    if getattr(current, "keeps_first", False):
        return True
    original = _persistence.register_persistent_dict

    def register_first(persistent: Any) -> None:
        live = stores.get(persistent.filename)
        built = checkpoint.MEMORY is not None  # then this is a throw-away saver's dict
        if built and live is not None and live() is not None and live() is not persistent:
            # A throw-away saver's copy: the live dict keeps the file. The runtime replaces
            # this copy with the live dicts right away, so it need not read the file (every
            # thread's checkpoints, once per run) and must never write it.
            persistent.flag = "r"
            persistent.load = _skip_load
            return
        original(persistent)

    register_first.keeps_first = True  # type: ignore[attr-defined]
    checkpoint.register_persistent_dict = register_first
    # The live saver is built now, once, before any request or run can ask for one. The
    # runtime builds it lazily, without a lock, and two threads asking at once (a resumed
    # run and a client reading a thread, right after a restart) built two: the second, the
    # one kept, was then taken for a throw-away saver and never read the files, so the
    # server came back without any thread's state and saved nothing more. Only inside
    # langgraph dev's server (which sets the edition before importing its runtime): the
    # saver needs the server's configuration, which a plain import of this app lacks.
    if os.environ.get("LANGGRAPH_RUNTIME_EDITION") == "inmem":
        checkpoint.Checkpointer()
    # The class's method: the flush loop (maybe already running) looks it up at each call.
    from langgraph.checkpoint.memory import PersistentDict

    if not getattr(PersistentDict.sync, "steady", False):
        PersistentDict.sync = _steady_sync(PersistentDict.sync)  # type: ignore[method-assign]
    return _delete_threads_in_place(checkpoint)


def _delete_threads_in_place(checkpoint: Any) -> bool:
    """Make the runtime's thread deletion clear the live dicts in place (see above)."""
    try:
        from langgraph_runtime_inmem import ops
    except ImportError:  # pragma: no cover - the runtime needs langgraph dev's environment
        return False
    original = getattr(ops, "_delete_checkpoints_for_thread", None)
    if original is None:
        logger.warning("langgraph dev thread deletion fix not applied: the runtime has changed")
        return False
    if getattr(original, "in_place", False):
        return True

    async def delete_checkpoints(thread_id: Any, conn: Any, run_id: Any = None) -> None:
        from langgraph_api import config as api_config

        if run_id is not None or api_config.USE_CUSTOM_CHECKPOINTER:
            await original(thread_id, conn, run_id=run_id)  # one run's: deleted in place
            return
        # The live saver (the dicts every run's saver shares): checkpoints, writes, blobs.
        checkpoint.Checkpointer().delete_thread(str(thread_id))

    delete_checkpoints.in_place = True  # type: ignore[attr-defined]
    ops._delete_checkpoints_for_thread = delete_checkpoints
    return True
