"""A cgroup for each sandbox command, where the host lets us make one.

cgroup v2 (``pids`` and ``memory`` controllers delegated): each command runs in
``<parent>/run-<id>`` with ``pids.max`` (processes and threads), ``memory.max``,
``memory.swap.max = 0`` and ``memory.oom.group = 1`` (one OOM kill takes the whole
sandbox down), so the kernel holds process count and memory for the sandbox as a
whole, tmpfs pages included; ``cpu.stat`` gives its CPU time and ``cgroup.kill``
stops it at once. The parent is ``SANDBOX_CGROUP_PARENT`` when set, else a
``procurement-sandboxes`` cgroup beside this process's own (at the root when this
process is in the root cgroup).

cgroup v1 ``pids`` hierarchy (hybrid hosts, where ``pids`` and ``memory`` are
bound to v1 and the v2 tree has no controllers; this project's CI): only
``pids.max``, under ``<pids mount>/<own pids cgroup>/procurement-sandboxes``.
The v1 ``memory`` hierarchy is never touched: it is how the host limits the
server itself, and moving the sandbox out of the server's memory cgroup would
escape that limit. Memory then falls to the watchdog (:mod:`graphs.sandbox.watchdog`).

:func:`detect_cgroups` tries v2, then v1 ``pids``, and says why neither works
when neither does (then the watchdog holds every limit).
"""

from __future__ import annotations

import contextlib
import errno
import functools
import logging
import os
import signal
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

logger = logging.getLogger(__name__)

CgroupKind = Literal["v2", "v1-pids"]
REQUIRED_V2 = ("pids", "memory")
"""Controllers a v2 parent must offer; ``cpu`` is enabled too when offered."""
PARENT_NAME = "procurement-sandboxes"

_ATTACH = 'echo 0 > "$1" || exit 125; shift; exec "$@"'
"""Moves the shell into the command's cgroup (``0``: the writer itself), then becomes bwrap."""


@dataclass(frozen=True)
class CgroupSupport:
    """Where per-command cgroups go and of which kind, or why there are none."""

    parent: Path | None
    kind: CgroupKind | None = None
    reason: str = ""
    """Why cgroups (or v2 ones) are not used."""


@dataclass(frozen=True)
class Mount:
    """One cgroup filesystem from ``/proc/self/mountinfo``."""

    path: Path
    version: Literal[1, 2]
    options: frozenset[str]
    """Super-block options: the controllers of a v1 hierarchy."""


def cgroup_mounts(mountinfo: str) -> list[Mount]:
    """The cgroup filesystems listed in a ``/proc/self/mountinfo`` text."""
    found: list[Mount] = []
    for line in mountinfo.splitlines():
        left, _, right = line.partition(" - ")
        fields, after = left.split(), right.split()
        if len(fields) < 5 or len(after) < 3 or after[0] not in ("cgroup", "cgroup2"):
            continue
        found.append(
            Mount(
                path=Path(fields[4].replace("\\040", " ")),
                version=2 if after[0] == "cgroup2" else 1,
                options=frozenset(after[2].split(",")),
            )
        )
    return found


def own_cgroups(proc_cgroup: str) -> dict[str, str]:
    """This process's cgroup per v1 controller, and under ``""`` its v2 cgroup."""
    found: dict[str, str] = {}
    for line in proc_cgroup.splitlines():
        parts = line.split(":", 2)
        if len(parts) == 3:
            for controller in parts[1].split(",") if parts[1] else [""]:
                found[controller] = parts[2] or "/"
    return found


def _controllers(path: Path) -> set[str]:
    return set((path / "cgroup.controllers").read_text().split())


def default_v2_parent(mount: Path, own: str) -> Path:
    """The v2 parent: beside our own cgroup, or under the root if we are in it.

    Beside, not under: a cgroup with processes of its own cannot hand controllers
    to child cgroups (cgroup v2's no-internal-processes rule).
    """
    own_path = mount / own.lstrip("/")
    base = own_path if own_path == mount else own_path.parent
    return base / PARENT_NAME


def _probe(parent: Path, kind: CgroupKind) -> None:
    """Create ``parent`` (v2: with the controllers on) and check a child takes the limits.

    The probe child is removed; so is ``parent`` when it was made here and failed.
    """
    created = not parent.exists()
    parent.mkdir(exist_ok=True)
    try:
        if kind == "v2":
            offered = _controllers(parent)
            missing = [c for c in REQUIRED_V2 if c not in offered]
            if missing:
                msg = f"{parent} does not offer the {', '.join(missing)} controller(s)"
                raise OSError(errno.ENOTSUP, msg)
            wanted = [c for c in (*REQUIRED_V2, "cpu") if c in offered]
            (parent / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in wanted))
        probe = parent / f"probe-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        probe.mkdir()
        try:
            (probe / "pids.max").write_text("8")
            if kind == "v2":
                (probe / "memory.max").write_text(str(64 * 1024 * 1024))
        finally:
            probe.rmdir()
    except OSError:
        if created:
            with contextlib.suppress(OSError):
                parent.rmdir()
        raise


def _detect_v2(configured: Path | None, mounts: list[Mount], own: dict[str, str]) -> CgroupSupport:
    v2 = next((m for m in mounts if m.version == 2), None)
    if v2 is None:
        return CgroupSupport(None, reason="no cgroup2 filesystem is mounted")
    if configured is not None:
        parent = configured
    elif "" not in own:
        return CgroupSupport(None, reason="this process is in no cgroup2 hierarchy")
    else:
        parent = default_v2_parent(v2.path, own[""])
        # Look before writing anything: are the controllers offered here at all?
        try:
            offered = _controllers(parent.parent)
        except OSError as exc:
            return CgroupSupport(None, reason=f"cannot read {parent.parent}: {exc}")
        missing = [c for c in REQUIRED_V2 if c not in offered]
        if missing:
            return CgroupSupport(
                None,
                reason=f"the cgroup2 hierarchy at {parent.parent} offers only "
                f"{', '.join(sorted(offered)) or 'no controllers'}, not {', '.join(missing)} "
                "(on a hybrid host they sit on cgroup v1 hierarchies)",
            )
    try:
        _probe(parent, "v2")
    except OSError as exc:
        return CgroupSupport(None, reason=f"cannot set up cgroups v2 under {parent}: {exc}")
    return CgroupSupport(parent, "v2")


def _detect_v1_pids(mounts: list[Mount], own: dict[str, str]) -> CgroupSupport:
    pids = next((m for m in mounts if m.version == 1 and "pids" in m.options), None)
    if pids is None or "pids" not in own:
        return CgroupSupport(None, reason="no cgroup v1 pids hierarchy either")
    parent = pids.path / own["pids"].lstrip("/") / PARENT_NAME
    try:
        _probe(parent, "v1-pids")
    except OSError as exc:
        return CgroupSupport(None, reason=f"cannot use the v1 pids hierarchy at {parent}: {exc}")
    return CgroupSupport(parent, "v1-pids")


def detect_cgroups(
    configured: Path | None, *, v1_fallback: bool = True, proc: Path = Path("/proc")
) -> CgroupSupport:
    """The best kind of per-command cgroup this host allows us, and where.

    Nothing is written unless the controllers are on offer; then the parent is
    created (v2: with them enabled) and a probe child is made and removed. The
    ``reason`` says why v2 is not used, also when v1 ``pids`` is.
    """
    try:
        mounts = cgroup_mounts((proc / "self" / "mountinfo").read_text())
        own = own_cgroups((proc / "self" / "cgroup").read_text())
    except OSError as exc:
        return CgroupSupport(None, reason=f"cannot read /proc: {exc}")
    v2 = _detect_v2(configured, mounts, own)
    if v2.parent is not None or not v1_fallback:
        return v2
    v1 = _detect_v1_pids(mounts, own)
    return CgroupSupport(
        v1.parent, v1.kind, f"{v2.reason}; {v1.reason}" if v1.reason else v2.reason
    )


@functools.cache
def cgroup_support(configured: Path | None, mode: str) -> CgroupSupport:
    """:func:`detect_cgroups` once per process and setting.

    ``mode`` ``off``: none; ``required``: v2 only (the caller refuses to start without).
    """
    if mode == "off":
        return CgroupSupport(None, reason="disabled by SANDBOX_CGROUPS=off")
    found = detect_cgroups(configured, v1_fallback=mode != "required")
    if found.kind == "v2":
        logger.info("sandbox: each command gets a cgroup v2 under %s", found.parent)
    elif found.kind == "v1-pids":
        logger.info(
            "sandbox: no cgroup v2 limits (%s); each command gets a v1 pids cgroup under %s, "
            "the watchdog holds memory, CPU and disk",
            found.reason,
            found.parent,
        )
    else:
        logger.info("sandbox: no cgroups (%s); the watchdog holds the limits", found.reason)
    return found


class CommandCgroup:
    """The cgroup of one command: limits in, counters and CPU time out, then removed."""

    def __init__(self, support: CgroupSupport, *, processes: int, memory_bytes: int) -> None:
        """Create ``<parent>/run-<id>`` with the limits its kind can hold.

        Raises:
            OSError: the cgroup could not be created or limited.
        """
        assert support.parent is not None and support.kind is not None
        self.kind: CgroupKind = support.kind
        self.path = support.parent / f"run-{uuid.uuid4().hex[:12]}"
        self.path.mkdir()
        try:
            self._write("pids.max", str(processes))
            if self.kind == "v2":
                self._write("memory.max", str(memory_bytes))
                self._write("memory.swap.max", "0", optional=True)
                self._write("memory.oom.group", "1", optional=True)
        except OSError:
            self.remove()
            raise

    @property
    def holds_memory(self) -> bool:
        """Whether the kernel holds the memory limit (v2), not the watchdog."""
        return self.kind == "v2"

    def _write(self, name: str, value: str, *, optional: bool = False) -> None:
        try:
            (self.path / name).write_text(value)
        except FileNotFoundError:
            if not optional:
                raise

    def attach_argv(self, argv: list[str]) -> list[str]:
        """``argv`` run by a shell that first moves itself into this cgroup."""
        return ["/bin/sh", "-c", _ATTACH, "sh", str(self.path / "cgroup.procs"), *argv]

    def _counters(self, name: str) -> dict[str, int]:
        try:
            text = (self.path / name).read_text()
        except OSError:
            return {}
        pairs = (line.split() for line in text.splitlines())
        return {p[0]: int(p[1]) for p in pairs if len(p) == 2 and p[1].isdigit()}

    def pids(self) -> list[int]:
        """The processes in the cgroup now."""
        try:
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def tasks(self) -> int:
        """Processes and threads in the cgroup now (``pids.current``)."""
        try:
            return int((self.path / "pids.current").read_text())
        except (OSError, ValueError):
            return 0

    def pids_refused(self) -> bool:
        """Whether a fork or thread start was refused at ``pids.max``."""
        return self._counters("pids.events").get("max", 0) > 0

    def cpu_seconds(self) -> float | None:
        """CPU time of every process of the command so far (v2 only)."""
        if self.kind != "v2":
            return None
        return self._counters("cpu.stat").get("usage_usec", 0) / 1e6

    def memory_killed(self) -> bool:
        """Whether the kernel's OOM killer fired inside this cgroup (v2 only)."""
        events = self._counters("memory.events") if self.kind == "v2" else {}
        return events.get("oom_kill", 0) > 0 or events.get("oom_group_kill", 0) > 0

    def kill(self) -> None:
        """Kill every process in the cgroup (``cgroup.kill``, else one by one)."""
        if self.kind == "v2":
            try:
                (self.path / "cgroup.kill").write_text("1")
                return
            except OSError:
                pass
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def remove(self) -> None:
        """Remove the cgroup once its processes are gone (blocking; waits up to a second)."""
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError as exc:
                if exc.errno != errno.EBUSY:
                    logger.warning("sandbox: cannot remove cgroup %s: %s", self.path, exc)
                    return
                self.kill()
                time.sleep(0.02)
        logger.warning("sandbox: cgroup %s still busy; left behind", self.path)
