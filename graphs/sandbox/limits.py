"""Limits for the whole sandbox during one command, and what the tool result says about them.

DESIGN section 9: CPU time, wall time, total memory, process count and workspace
disk hold for the sandbox as a whole, not per process. What holds each one, by
what the host allows (:mod:`graphs.sandbox.cgroups` finds out at start-up):

===========  ======================  =====================  ============================
limit        cgroup v2 delegated     cgroup v1 ``pids``     no cgroup
                                     (hybrid host; CI)
===========  ======================  =====================  ============================
processes    ``pids.max``            ``pids.max``           ``RLIMIT_NPROC`` in the
                                                            sandbox's user namespace (not
                                                            for root), and the watchdog
memory       ``memory.max``, no      the watchdog           the watchdog
             swap, ``oom.group``
CPU time     the watchdog on         the watchdog on ``/proc/<pid>/stat``
             ``cpu.stat``
disk         the watchdog (workspace walk, open unlinked files), ``RLIMIT_FSIZE`` at
             the quota left, and quota-checked host writes (``WorkspaceFiles``)
wall time    asyncio timeout, then the process group is killed
===========  ======================  =====================  ============================

When the kernel refuses a fork at the process cap the watchdog stops the command
at once (a fork bomb would otherwise spin on retries until its wall time). Per
process limits stay underneath everywhere (``ulimit -t/-v/-f/-u``); ``/tmp`` and
``/dev/shm`` are size-limited tmpfs and the rest of ``/dev`` is read-only, so no
memory hides in files there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import re
import signal
from dataclasses import dataclass, field
from pathlib import Path

from graphs.sandbox.cgroups import CommandCgroup, cgroup_support
from graphs.sandbox.errors import SandboxUnavailableError
from graphs.sandbox.settings import SandboxSettings
from graphs.sandbox.watchdog import LimitName, Limits, SandboxProbe, Watchdog
from graphs.sandbox.workspace import workspace_usage

logger = logging.getLogger(__name__)

MB = 1024 * 1024
LIMIT_KILL_CODE = 137
"""Exit code when the whole sandbox was killed at its memory or process limit (128 + SIGKILL)."""
CPU_EXIT_CODE = 128 + signal.SIGXCPU
DISK_EXIT_CODE = 128 + signal.SIGXFSZ
_FORK_HINTS = re.compile(
    r"fork: retry|fork: Resource temporarily unavailable|can't start new thread|"
    r"Resource temporarily unavailable",
    re.I,
)


def _pidfd(pid: int | None) -> int | None:
    if pid is None:
        return None
    try:
        return os.pidfd_open(pid)
    except OSError:  # already gone (an instant command), or no pidfd (Linux < 5.3)
        return None


def require_cgroups(settings: SandboxSettings) -> None:
    """Find out (once) which cgroups this host allows; with ``SANDBOX_CGROUPS=required``,
    fail at start-up when cgroup v2 cannot be used.

    Raises:
        SandboxUnavailableError: cgroups are required but not usable here (with why).
    """
    support = cgroup_support(settings.cgroup_parent, settings.cgroups)
    if settings.cgroups == "required" and support.kind != "v2":
        msg = (
            f"SANDBOX_CGROUPS=required, but no cgroup v2 can be used: {support.reason}. "
            "Delegate one (systemd: Delegate=yes) and set SANDBOX_CGROUP_PARENT, or set "
            "SANDBOX_CGROUPS=auto (a cgroup v1 pids cap where there is one, and the watchdog)."
        )
        raise SandboxUnavailableError(msg)


def limits_summary(settings: SandboxSettings) -> str:
    """One line saying what holds each limit of the whole sandbox on this host (for ops)."""
    support = cgroup_support(settings.cgroup_parent, settings.cgroups)
    if support.kind == "v2":
        how = f"cgroup v2 under {support.parent} (pids, memory); watchdog for CPU and disk"
    elif support.kind == "v1-pids":
        how = (
            f"cgroup v1 pids under {support.parent}; watchdog for memory, CPU and disk "
            f"(no cgroup v2: {support.reason})"
        )
    else:
        nproc = "RLIMIT_NPROC and " if os.geteuid() != 0 else ""
        how = f"{nproc}watchdog for processes, memory, CPU and disk ({support.reason})"
    cpu = f"{settings.cpu_s} s CPU" if settings.cpu_s else "CPU up to the wall time"
    return (
        f"{settings.max_processes} processes, {settings.memory_mb} MB memory, {cpu}, "
        f"{settings.disk_mb} MB disk per workspace; {how}"
    )


@dataclass
class CommandLimits:
    """The limits of one command: set before it starts, held while it runs, told after."""

    settings: SandboxSettings
    root: Path
    cpu_s: int
    start_disk: int
    root_stat: os.stat_result
    cgroup: CommandCgroup | None = None
    watchdog: Watchdog | None = None
    _pidfds: list[int] = field(default_factory=list, init=False, repr=False)

    @classmethod
    async def prepare(cls, settings: SandboxSettings, root: Path, *, cpu_s: int) -> CommandLimits:
        """Measure the workspace and make the command's cgroup (when cgroups are usable)."""
        support = await asyncio.to_thread(cgroup_support, settings.cgroup_parent, settings.cgroups)
        start_disk = await asyncio.to_thread(workspace_usage, root)
        root_stat = await asyncio.to_thread(os.stat, root)
        cgroup = None
        if support.parent is not None:
            try:
                cgroup = await asyncio.to_thread(
                    CommandCgroup,
                    support,
                    processes=settings.max_processes,
                    memory_bytes=settings.memory_mb * MB,
                )
            except OSError as exc:
                if settings.cgroups == "required":
                    msg = f"cannot create the command's cgroup: {exc}"
                    raise SandboxUnavailableError(msg) from exc
                logger.warning("sandbox: no cgroup for this command (%s); watchdog only", exc)
        return cls(settings, root, cpu_s, start_disk, root_stat, cgroup)

    @property
    def quota(self) -> int:
        """The workspace's disk quota in bytes."""
        return self.settings.disk_mb * MB

    @property
    def file_size_kb(self) -> int:
        """``ulimit -f``: the per-file limit, or less when the quota has less room left."""
        room = max(self.quota - self.start_disk, MB)
        return min(self.settings.max_file_mb * MB, room) // 1024

    def wrap(self, argv: list[str]) -> list[str]:
        """The command line, entering the command's cgroup first when there is one."""
        return argv if self.cgroup is None else self.cgroup.attach_argv(argv)

    def watch(self, bwrap_pid: int, info: dict[str, int] | None) -> None:
        """Start the watchdog on the sandbox bubblewrap just created (``--info-fd`` data)."""
        info = info or {}
        init_pid = info.get("child-pid")
        probe = SandboxProbe(
            root=self.root,
            root_stat=self.root_stat,
            pid_ns=info.get("pid-namespace"),
            init_pid=init_pid,
            cgroup=self.cgroup,
        )
        limits = Limits(
            processes=self.settings.max_processes,
            memory_bytes=self.settings.memory_mb * MB,
            cpu_s=self.cpu_s,
            disk_bytes=max(self.quota, self.start_disk),
        )
        enforce: set[LimitName] = {"processes", "cpu", "disk"}
        if self.cgroup is None or not self.cgroup.holds_memory:
            enforce.add("memory")
        # Process handles, not PIDs: a PID freed and reused meanwhile is never hit.
        # The namespace's init first: when it dies the kernel kills all inside.
        self._pidfds = [fd for pid in (init_pid, bwrap_pid) if (fd := _pidfd(pid)) is not None]
        self.watchdog = Watchdog(probe, limits, self.kill, enforce=enforce)
        self.watchdog.start()

    def kill(self) -> None:
        """Kill every process of the command now.

        The namespace's init first: when it dies the kernel kills all inside at once
        (no process is left to act between two kills), then bubblewrap, then whatever
        the cgroup still holds.
        """
        for fd in self._pidfds:
            with contextlib.suppress(OSError):
                signal.pidfd_send_signal(fd, signal.SIGKILL)
        if self.cgroup is not None:
            self.cgroup.kill()

    async def close(self) -> None:
        """Stop the watchdog and remove the cgroup (its processes killed first)."""
        if self.watchdog is not None:
            await self.watchdog.aclose()
        for fd in self._pidfds:
            os.close(fd)
        self._pidfds = []
        if self.cgroup is not None:
            await asyncio.to_thread(self.cgroup.remove)

    async def outcome(self, code: int, output: str) -> tuple[int, list[str]]:
        """The exit code to report and the ``[sandbox]`` notes saying which limit was hit."""
        hit = self.watchdog.hit if self.watchdog is not None else None
        if hit is None and self.cgroup is not None:
            hit = "memory" if await asyncio.to_thread(self.cgroup.memory_killed) else None
        notes: list[str] = []
        if hit is not None:
            code, note = self._killed(hit)
            notes += [note] if note else []
        elif code != 0 and await asyncio.to_thread(self._process_limit_reached, output):
            notes.append(
                f"[sandbox] The sandbox's limit of {self.settings.max_processes} processes and "
                "threads was reached: starting more failed."
            )
        disk = await asyncio.to_thread(workspace_usage, self.root)
        if hit == "disk" and self.watchdog is not None:  # it saw files since gone, maybe
            disk = max(disk, self.watchdog.last.disk_bytes)
        if hit == "disk" or disk > max(self.quota, self.start_disk):
            # Also when it finished before the watchdog looked: the model must know.
            code = DISK_EXIT_CODE
            verb = "Command killed: the" if hit == "disk" else "The"
            notes.append(
                f"[sandbox] {verb} workspace's disk quota of {self.settings.disk_mb} MB was "
                f"exceeded ({disk / MB:.0f} MB used). Delete files you no longer need (rm) "
                "before writing more."
            )
        return code, notes

    def _killed(self, hit: LimitName) -> tuple[int, str | None]:
        """Exit code and note for a sandbox killed at limit ``hit`` (disk: noted by the caller)."""
        s = self.settings
        if hit == "processes":
            return LIMIT_KILL_CODE, (
                f"[sandbox] Command killed: the sandbox reached its limit of {s.max_processes} "
                "processes and threads (a fork bomb?). Start fewer processes."
            )
        if hit == "memory":
            return LIMIT_KILL_CODE, (
                f"[sandbox] Command killed: the sandbox's memory limit of {s.memory_mb} MB "
                "(all processes, /tmp and /dev/shm together) was exceeded. Use less memory, "
                "e.g. process the data in chunks."
            )
        if hit == "cpu":
            return CPU_EXIT_CODE, (
                f"[sandbox] Command killed: CPU-time limit of {self.cpu_s} s exceeded "
                "(all its processes together)."
            )
        return DISK_EXIT_CODE, None

    def _process_limit_reached(self, output: str) -> bool:
        if self.cgroup is not None and self.cgroup.pids_refused():
            return True
        return bool(_FORK_HINTS.search(output))
