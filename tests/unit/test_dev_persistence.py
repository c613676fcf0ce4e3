"""``langgraph dev``'s in-memory runtime keeps saving checkpoints after its first run.

The runtime saves the dicts registered in its flush registry. Each run's
``Checkpointer(unpack_hook=...)`` builds a throw-away saver whose dicts took over the
checkpoint files' entries; once it was gone the entries were dropped, and the live
checkpoints were never saved again (a killed server came back without any thread's
state). The runtime's own functions run here in a child process set up as
``langgraph dev`` sets up its server (the runtime reads that environment at import); the
end to end proof is tests/e2e/test_stack_agent_restart.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from runstack.processes import ROOT

# What the server does: its own saver at start-up, then a saver per run writing into the
# shared dicts; then what the flush loop would write to disk, read back.
SCRIPT = """
import gc, json, pickle, sys
from pathlib import Path
from typing import Any
from langgraph.checkpoint.memory import PersistentDict

loads = []
original_load = PersistentDict.load
def counted_load(self, *args, **kwargs):
    if ".langgraph_checkpoint." in self.filename:
        loads.append(self.filename)
    return original_load(self, *args, **kwargs)
PersistentDict.load = counted_load
if sys.argv[1] == "fixed":
    from server.dev_persistence import keep_checkpoints_flushed
    assert keep_checkpoints_flushed() and keep_checkpoints_flushed()
from langgraph_runtime_inmem import _persistence, checkpoint
checkpoint.Checkpointer()
for thread_id in ("thread-a", "thread-b"):
    saver = checkpoint.Checkpointer(unpack_hook=lambda code, data: data)
    saver.storage[thread_id][""]["checkpoint-1"] = ("a checkpoint", "metadata", None)
    del saver
    gc.collect()
for ref in list(_persistence._stores.values()):
    if ref() is not None and ref().filename.endswith("checkpoint.1.pckl"):
        ref().sync()
path = Path(".langgraph_api/.langgraph_checkpoint.1.pckl")
saved = sorted(pickle.loads(path.read_bytes())) if path.exists() else []
_persistence.stop_flush_loop()
print(json.dumps({"saved": saved, "loads": len(loads)}))
"""
# The variables langgraph dev sets before its runtime is imported (langgraph_api/cli.py).
DEV_ENV = {
    "MIGRATIONS_PATH": "__inmem",
    "DATABASE_URI": ":memory:",
    "REDIS_URI": "fake",
    "LANGSMITH_LANGGRAPH_API_VARIANT": "local_dev",
    "LANGGRAPH_RUNTIME_EDITION": "inmem",
    "LANGGRAPH_ALLOW_BLOCKING": "true",
}


def run_server_steps(tmp_path: Path, mode: str, script: str = SCRIPT) -> dict[str, Any]:
    """``script`` run as the server would run it; the JSON it printed last. For SCRIPT: what
    reached the disk (``saved``: thread ids) and how many files were read (``loads``)."""
    pythonpath = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", script, mode],
        cwd=tmp_path,
        env={**os.environ, **DEV_ENV, "PYTHONPATH": pythonpath},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_checkpoints_of_every_run_reach_the_disk(tmp_path: Path) -> None:
    result = run_server_steps(tmp_path, "fixed")
    assert result["saved"] == ["thread-a", "thread-b"]
    # Only the live saver reads the three files; a run's throw-away saver no longer loads
    # every thread's checkpoints from disk to discard them (40% of the server's CPU with
    # 16 concurrent analyses in bench_analysis_ramp).
    assert result["loads"] == 3


def test_without_the_fix_every_run_reads_every_file(tmp_path: Path) -> None:
    assert run_server_steps(tmp_path, "released")["loads"] == 9


def test_without_the_fix_the_runtime_stops_saving_them(tmp_path: Path) -> None:
    # The runtime as released: the failure the fix is for. If this starts failing, the
    # runtime was fixed upstream and server/dev_persistence.py can go.
    assert run_server_steps(tmp_path, "released")["saved"] != ["thread-a", "thread-b"]


# Right after a restart: the files hold a thread's checkpoints, and two threads ask for a
# saver at the same moment (a resumed run, a client reading a thread). The runtime builds its
# live saver on first use, without a lock, reading the files as it builds it. The reads are
# ordered here as they fell when a killed server came back without its state: the first
# asker is still reading when the second starts building, and the second ends last.
RESTART_RACE = """
import json, pickle, sys, threading, time
from pathlib import Path
Path(".langgraph_api").mkdir()
saved = {"thread-a": {"": {"checkpoint-1": ("a checkpoint", "metadata", None)}}}
Path(".langgraph_api/.langgraph_checkpoint.1.pckl").write_bytes(pickle.dumps(saved))
from langgraph.checkpoint.memory import PersistentDict
original_load = PersistentDict.load
first_reading, second_reading = threading.Event(), threading.Event()
def ordered_load(self):
    asker = threading.current_thread().name
    if asker == "first" and not first_reading.is_set():
        first_reading.set()
        second_reading.wait(5)
    elif asker == "second":
        second_reading.set()
        time.sleep(0.3)
    return original_load(self)
PersistentDict.load = ordered_load
if sys.argv[1] == "fixed":
    from server.dev_persistence import keep_checkpoints_flushed
    assert keep_checkpoints_flushed()
from langgraph_runtime_inmem import _persistence, checkpoint
def ask():
    checkpoint.Checkpointer(unpack_hook=lambda code, data: data)
first = threading.Thread(target=ask, name="first")
second = threading.Thread(target=ask, name="second")
first.start()
first_reading.wait(0.5)
second.start()
first.join()
second.join()
live = checkpoint.Checkpointer()
live.storage["thread-b"][""]["checkpoint-1"] = ("a checkpoint", "metadata", None)
for ref in list(_persistence._stores.values()):
    if ref() is not None and ref().filename.endswith("checkpoint.1.pckl"):
        ref().sync()
on_disk = pickle.loads(Path(".langgraph_api/.langgraph_checkpoint.1.pckl").read_bytes())
_persistence.stop_flush_loop()
print(json.dumps({"in_memory": sorted(live.storage), "on_disk": sorted(on_disk)}))
"""


def test_two_first_requests_at_once_after_a_restart_keep_the_saved_state(
    tmp_path: Path,
) -> None:
    result = run_server_steps(tmp_path, "fixed", RESTART_RACE)
    assert result == {
        "in_memory": ["thread-a", "thread-b"],  # what was saved before the restart is back
        "on_disk": ["thread-a", "thread-b"],  # and what comes after it is saved
    }


# A dict the event loop changes while the flush loop pickles it: the first write raises
# "dictionary changed size during iteration", as under load. The runtime's own flush loop
# then runs one round, and is asked whether it is still alive.
FLAKY_SYNC = """
import json, sys, threading, time
from pathlib import Path
if sys.argv[1] == "fixed":
    from server.dev_persistence import keep_checkpoints_flushed
    assert keep_checkpoints_flushed()
from langgraph.checkpoint.memory import PersistentDict
from langgraph_runtime_inmem import _persistence, checkpoint

failures = [RuntimeError("dictionary changed size during iteration")]
original_dump = PersistentDict.dump
def flaky_dump(self, fileobj):
    if failures and self.filename.endswith("checkpoint.1.pckl"):
        raise failures.pop()
    return original_dump(self, fileobj)
PersistentDict.dump = flaky_dump
threading.excepthook = lambda args: None  # quiet: the dead thread is what is measured
saver = checkpoint.Checkpointer()
saver.storage["thread-a"][""]["checkpoint-1"] = ("a checkpoint", "metadata", None)
# The runtime's own loop, on a short interval (its thread waits 10 s before its first round).
_persistence._flush_interval = 0.2
stop = threading.Event()
loop = threading.Thread(target=_persistence._flush_loop, args=(stop,), daemon=True)
loop.start()
time.sleep(1.5)
alive = loop.is_alive()
saved = Path(".langgraph_api/.langgraph_checkpoint.1.pckl").exists()
stop.set()
print(json.dumps({"alive": alive, "saved": saved}))
"""


def test_a_write_disturbed_by_another_thread_does_not_stop_the_saving(tmp_path: Path) -> None:
    assert run_server_steps(tmp_path, "fixed", FLAKY_SYNC) == {"alive": True, "saved": True}


def test_without_the_fix_one_disturbed_write_ends_the_flush_loop(tmp_path: Path) -> None:
    assert run_server_steps(tmp_path, "released", FLAKY_SYNC)["alive"] is False


# A thread deleted (the retention sweep, a client), then a run of another thread leaves a
# pending write (an order waiting for approval is one); what reaches the disk, per dict.
DELETION = """
import asyncio, json, pickle, sys
from pathlib import Path
from langgraph_runtime_inmem import _persistence, checkpoint, ops
from server.dev_persistence import keep_checkpoints_flushed
released = ops._delete_checkpoints_for_thread
assert keep_checkpoints_flushed()
if sys.argv[1] == "saving-only":  # the other fixes kept, the runtime's own deletion
    ops._delete_checkpoints_for_thread = released

checkpoint.Checkpointer()
saver = checkpoint.Checkpointer(unpack_hook=lambda code, data: data)
for thread_id in ("thread-a", "thread-b"):
    saver.storage[thread_id][""]["checkpoint-1"] = ("a checkpoint", "metadata", None)
    saver.writes[(thread_id, "", "checkpoint-1")][("task", 0)] = ("task", "x", "v", "")
    saver.blobs[(thread_id, "", "messages", "1")] = ("msgpack", b"m" * 1000)
asyncio.run(ops._delete_checkpoints_for_thread("thread-a", None))
later = checkpoint.Checkpointer(unpack_hook=lambda code, data: data)
later.writes[("thread-b", "", "checkpoint-2")][("task", 0)] = ("task", "__interrupt__", "v", "")
for ref in list(_persistence._stores.values()):
    if ref() is not None:
        ref().sync()
saved = {}
for name in ("1", "2", "3"):
    path = Path(f".langgraph_api/.langgraph_checkpoint.{name}.pckl")
    data = pickle.loads(path.read_bytes()) if path.exists() else {}
    saved[name] = sorted({k if isinstance(k, str) else "/".join(k[:3:2]) for k in data})
_persistence.stop_flush_loop()
print(json.dumps(saved))
"""


def test_a_deleted_thread_leaves_nothing_and_later_writes_are_still_saved(
    tmp_path: Path,
) -> None:
    saved = run_server_steps(tmp_path, "fixed", DELETION)
    assert saved["1"] == ["thread-b"]  # checkpoints
    assert saved["2"] == ["thread-b/checkpoint-1", "thread-b/checkpoint-2"]  # pending writes
    assert saved["3"] == ["thread-b/messages"]  # channel values: thread-a's are gone


def test_without_the_fix_deleted_threads_leave_their_values_and_writes_go_unsaved(
    tmp_path: Path,
) -> None:
    # The runtime's own deletion (if this starts failing, it was fixed upstream).
    saved = run_server_steps(tmp_path, "saving-only", DELETION)
    assert "thread-a/messages" in saved["3"]  # kept for ever
    assert "thread-b/checkpoint-2" not in saved["2"]  # the approval waiting is not saved
