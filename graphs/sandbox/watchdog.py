"""The sandbox watchdog: measures the whole sandbox while a command runs, kills it at a limit.

Every :data:`INTERVAL_S` (disk: less often in a big workspace) it measures the
sandbox as a whole and, as soon as one limit is reached, kills all of it (its
cgroup, and its PID namespace through the namespace's init) and remembers which:

- processes: ``pids.current`` and ``pids.events`` of the command's cgroup (the
  kernel refuses forks there: reaching the cap stops the command); without a
  cgroup, the threads of every process in the sandbox's PID namespace, where
  ``RLIMIT_NPROC`` caps them when the server is not root and only this count does
  for root;
- memory (unless cgroup v2 ``memory.max`` holds it): resident anonymous, shared
  and swapped memory of those processes (``/proc/<pid>/status``; past the limit,
  their proportional share from ``smaps_rollup``, so pages shared after a fork
  count once), plus what the sandbox's ``/tmp`` and ``/dev/shm`` hold, plus open
  unlinked in-memory files (``memfd``);
- CPU: cgroup v2 ``cpu.stat``, else user and system time of the live processes
  and of every one they reaped (``/proc/<pid>/stat``);
- disk: the workspace's blocks, plus files still open there after being unlinked.

What polling holds is passed by at most what the sandbox manages in one interval
(a fork bomb without a kernel cap: some thousands of processes, for tens of
milliseconds); per-process limits (address space, file size, CPU) stay in force
underneath. The watchdog runs in a thread of its own, started before the
command, so it needs no new thread (nor PID) at the moment it has to act.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from graphs.sandbox.cgroups import CommandCgroup
from graphs.sandbox.workspace import workspace_usage

logger = logging.getLogger(__name__)

LimitName = Literal["processes", "memory", "cpu", "disk"]

INTERVAL_S = 0.02
DISK_COST_RATIO = 20
"""The disk is measured again after this many times what the last measurement took
(a walk of the workspace): every interval for a small workspace, rarely for a huge one."""
_TICK = os.sysconf("SC_CLK_TCK")
_STATUS_FIELDS = ("RssAnon:", "RssShmem:", "VmSwap:")
_ROLLUP_FIELDS = ("Pss_Anon:", "Pss_Shmem:", "SwapPss:")
_TMPFS = ("tmp", "dev/shm")


@dataclass(frozen=True)
class Limits:
    """What the whole sandbox may use during one command."""

    processes: int
    memory_bytes: int
    cpu_s: float
    disk_bytes: int
    """Largest workspace size allowed (never below its size when the command started)."""


@dataclass
class Sample:
    """The sandbox's usage at one moment (the parts that were measured)."""

    processes: int = 0
    memory_bytes: int = 0
    cpu_s: float = 0.0
    disk_bytes: int = 0
    forks_refused: bool = False
    """The kernel refused a fork or thread at the process cap."""


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="ascii", errors="replace") as fh:
            return fh.read()
    except OSError:
        return None


def _stat_fields(pid: int) -> tuple[int, float] | None:
    """(threads, CPU seconds of the process and of the children it reaped)."""
    text = _read(f"/proc/{pid}/stat")
    if text is None or ")" not in text:
        return None
    rest = text[text.rindex(")") + 2 :].split()
    ticks = sum(int(v) for v in rest[11:15])  # utime, stime, cutime, cstime
    return int(rest[17]), ticks / _TICK


def _sum_fields(text: str | None, fields: tuple[str, ...]) -> int:
    total = 0
    for line in (text or "").splitlines():
        if line.startswith(fields):
            total += int(line.split()[1])
    return total


def _rss_kb(pid: int) -> int:
    """Anonymous, shared and swapped memory: an upper bound, read without the mm lock."""
    return _sum_fields(_read(f"/proc/{pid}/status"), _STATUS_FIELDS)


def _pss_kb(pid: int) -> int:
    """The process's proportional share: pages shared after a fork counted once overall.

    Exact but slower (it walks the page tables under the process's mm lock, which a
    process forking in a loop keeps busy): only read when the RSS bound is over.
    """
    return _sum_fields(_read(f"/proc/{pid}/smaps_rollup"), _ROLLUP_FIELDS)


class SandboxProbe:
    """Measures one running sandbox, found by its cgroup or its PID namespace."""

    def __init__(
        self,
        *,
        root: Path,
        root_stat: os.stat_result,
        pid_ns: int | None,
        init_pid: int | None,
        cgroup: CommandCgroup | None = None,
    ) -> None:
        """``pid_ns``/``init_pid`` come from bubblewrap's ``--info-fd``."""
        self.root = root
        self.pid_ns = f"pid:[{pid_ns}]" if pid_ns is not None else None
        self.init_pid = init_pid
        self.cgroup = cgroup
        st = root_stat
        self.workspace_dev = st.st_dev
        self.workspace_id = (st.st_dev, st.st_ino)
        self._disk = 0
        self._unlinked = (0, 0)  # from the last disk check: (on disk, in memory)

    def ns_pids(self, stop_above: int | None = None) -> list[int]:
        """Host PIDs of the processes in the sandbox's PID namespace now.

        Stops counting past ``stop_above``: a fork bomb must be killed at once, not
        measured.
        """
        if self.pid_ns is None:
            return []
        found: list[int] = []
        for name in os.listdir("/proc"):
            if name.isdigit():
                with contextlib.suppress(OSError):
                    if os.readlink(f"/proc/{name}/ns/pid") == self.pid_ns:
                        found.append(int(name))
                        if stop_above is not None and len(found) > stop_above:
                            break
        return found

    def _tmpfs_devices(self) -> dict[str, int]:
        """Devices of the sandbox's /tmp and /dev/shm, once its root is the workspace."""
        base = f"/proc/{self.init_pid}/root"
        try:
            root = os.stat(base)
            if (root.st_dev, root.st_ino) != self.workspace_id:
                return {}  # still setting up: its root is not the workspace yet
            found = {mount: os.stat(f"{base}/{mount}").st_dev for mount in _TMPFS}
        except OSError:
            return {}
        return {m: dev for m, dev in found.items() if dev != root.st_dev}

    def _tmpfs_bytes(self) -> int:
        total = 0
        for mount in self._tmpfs_devices():
            with contextlib.suppress(OSError):
                st = os.statvfs(f"/proc/{self.init_pid}/root/{mount}")
                total += (st.f_blocks - st.f_bfree) * st.f_frsize
        return total

    def _unlinked_open_files(self, pids: list[int]) -> tuple[int, int]:
        """Bytes of files open in the sandbox but unlinked: (on the workspace's disk, in memory)."""
        seen: set[tuple[int, int]] = set()
        disk = memory = 0
        tmpfs_devs = set(self._tmpfs_devices().values())
        for pid in pids:
            with contextlib.suppress(OSError):
                for fd in os.listdir(f"/proc/{pid}/fd"):
                    with contextlib.suppress(OSError):
                        st = os.stat(f"/proc/{pid}/fd/{fd}")
                        key = (st.st_dev, st.st_ino)
                        if not stat.S_ISREG(st.st_mode) or st.st_nlink or key in seen:
                            continue
                        seen.add(key)
                        if st.st_dev == self.workspace_dev:
                            disk += st.st_blocks * 512
                        elif st.st_dev not in tmpfs_devs:  # tmpfs files: counted by statvfs
                            memory += st.st_blocks * 512
        return disk, memory

    def sample(self, watch: Collection[LimitName], limits: Limits) -> Sample:
        """Measure what ``watch`` names (blocking: call it off the event loop).

        Past ``limits.processes`` processes only their number is measured. Memory
        is the cheap RSS bound, or the exact PSS once that bound passes the limit.
        The disk figures (a walk of the workspace, a look at open files) are only
        refreshed when ``watch`` names ``disk``; otherwise the last ones count.
        """
        out = Sample(disk_bytes=self._disk)
        if self.cgroup is not None:
            out.processes = self.cgroup.tasks()
            out.forks_refused = self.cgroup.pids_refused()
            pids = self.cgroup.pids()
        else:
            pids = self.ns_pids(stop_above=limits.processes)
            if len(pids) > limits.processes:
                out.processes = len(pids)
                return out
        cpu = self.cgroup.cpu_seconds() if self.cgroup is not None else None
        for pid in pids:
            fields = _stat_fields(pid)
            if fields is not None:
                out.processes += fields[0] if self.cgroup is None else 0
                out.cpu_s += fields[1]
        out.cpu_s = cpu if cpu is not None else out.cpu_s
        if "memory" in watch:
            out.memory_bytes = self._tmpfs_bytes() + self._unlinked[1]
            rss = sum(_rss_kb(pid) for pid in pids) * 1024
            if out.memory_bytes + rss > limits.memory_bytes:
                rss = sum(_pss_kb(pid) for pid in pids) * 1024
            out.memory_bytes += rss
        if "disk" in watch:
            self._unlinked = self._unlinked_open_files(pids)
            self._disk = out.disk_bytes = workspace_usage(self.root) + self._unlinked[0]
        return out


class Watchdog:
    """Samples a sandbox in a thread of its own; kills it once, at the first limit reached.

    A thread started before the command, not an executor task per sample: a fork bomb
    can leave the host without a free PID, and the watchdog must not need a new
    thread at the very moment it has to act.
    """

    def __init__(
        self,
        probe: SandboxProbe,
        limits: Limits,
        kill: Callable[[], None],
        *,
        enforce: Collection[LimitName],
    ) -> None:
        """Watch the limits named in ``enforce``; ``kill`` stops the whole sandbox."""
        self.probe = probe
        self.limits = limits
        self.kill = kill
        self.enforce = frozenset(enforce)
        self.hit: LimitName | None = None
        self.last = Sample()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="sandbox-watchdog", daemon=True)

    def over(self, sample: Sample) -> LimitName | None:
        """The first enforced limit ``sample`` reaches (processes) or passes, if any."""
        lim = self.limits
        checks: list[tuple[LimitName, bool]] = [
            ("processes", sample.forks_refused or sample.processes >= lim.processes),
            ("memory", sample.memory_bytes > lim.memory_bytes),
            ("cpu", sample.cpu_s > lim.cpu_s),
            ("disk", sample.disk_bytes > lim.disk_bytes),
        ]
        return next((name for name, passed in checks if passed and name in self.enforce), None)

    def start(self) -> None:
        """Start watching (call right after the sandbox started)."""
        self._thread.start()

    def _loop(self) -> None:
        next_disk = 0.0
        while not self._stop.is_set():
            watch = set(self.enforce)
            started = time.monotonic()
            if started < next_disk:
                watch.discard("disk")
            try:
                sample = self.probe.sample(watch, self.limits)
            except Exception:  # a process or cgroup vanished mid-way: measure again
                logger.debug("sandbox watchdog: sample failed", exc_info=True)
                sample = self.last
            if "disk" in watch:
                next_disk = started + DISK_COST_RATIO * (time.monotonic() - started)
            self.last = sample
            hit = self.over(sample)
            if hit is not None and not self._stop.is_set():
                self.hit = hit
                logger.info(
                    "sandbox %s: %s limit reached (%s); killed", self.probe.root, hit, sample
                )
                self.kill()
                return
            self._stop.wait(INTERVAL_S)

    async def aclose(self) -> None:
        """Stop watching and wait for the thread (without blocking the event loop)."""
        self._stop.set()
        # A thread cannot set an asyncio.Event without a loop handle; it ends within
        # one sample, so polling is cheap.
        while self._thread.is_alive():  # noqa: ASYNC110
            await asyncio.sleep(0.01)
