"""Keep the stack's services running (DESIGN section 10): one that exits is started again
with backoff and reported, and one can be restarted alone on request.

The launcher (``scripts/stack``) starts every service, waits until all are healthy, then
hands them to a :class:`Supervisor` and calls :meth:`Supervisor.tick` about twice a
second. Each service is in one of four states:

- ``running``: healthy since its last start;
- ``starting``: started again, not yet healthy (given ``start_timeout`` seconds; a
  ``langgraph dev`` that moved to another port counts as a failed start);
- ``backoff``: it exited (or failed to start); the next start is due after a delay that
  doubles with each failure in a row, from ``first_delay`` up to ``max_delay``, and that
  starts afresh once the service has stayed up for ``stable_after`` seconds;
- ``stopping``: a restart was requested; it got SIGTERM (SIGKILL after ``stop_grace``
  seconds) and starts again as soon as it is gone.

Nothing else is stopped when one service exits: the Agent Server keeps serving while a
sidecar is down (its tools report the outage), and the sidecars keep serving while the
Agent Server restarts. Each service runs in its own process group; what is left of a
group whose leader exited (workers forked by the service, which may hold its port) is
killed before the service starts again.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import AliasChoices, Field
from pydantic_settings import SettingsConfigDict

from core.settings import CommonSettings
from runstack.agent_server import moved_port
from runstack.processes import ServiceHandle
from runstack.services import Service

__all__ = ["Child", "RestartPolicy", "StackSettings", "Supervisor", "describe_exit"]

State = Literal["running", "starting", "backoff", "stopping"]
_NEW_OUTPUT_BYTES = 64 * 1024


@dataclass(frozen=True)
class RestartPolicy:
    """When and how the supervisor restarts a service."""

    first_delay: float = 1.0
    max_delay: float = 60.0
    stable_after: float = 30.0
    start_timeout: float = 120.0
    stop_grace: float = 10.0

    def delay(self, failures: int) -> float:
        """Seconds to wait before the next start after ``failures`` failures in a row."""
        return float(min(self.max_delay, self.first_delay * 2 ** max(0, failures - 1)))


class StackSettings(CommonSettings):
    """The launcher's own settings (env prefix ``STACK_``)."""

    model_config = SettingsConfigDict(
        env_prefix="STACK_", env_file=".env", extra="ignore", populate_by_name=True
    )

    restart_delay: float = Field(
        default=1.0,
        gt=0,
        validation_alias=AliasChoices("STACK_RESTART_DELAY", "restart_delay"),
        description="Seconds before a service that exited is started again (doubles per "
        "failure in a row).",
    )
    restart_max_delay: float = Field(
        default=60.0,
        gt=0,
        validation_alias=AliasChoices("STACK_RESTART_MAX_DELAY", "restart_max_delay"),
        description="The longest wait between two starts of a failing service.",
    )
    log_max_mb: float = Field(
        default=20.0,
        gt=0,
        validation_alias=AliasChoices("STACK_LOG_MAX_MB", "log_max_mb"),
        description="Size at which a service's captured output (logs/<service>.out) rotates.",
    )
    log_backups: int = Field(
        default=5,
        ge=0,
        validation_alias=AliasChoices("STACK_LOG_BACKUPS", "log_backups"),
        description="Rotated copies of each captured output kept (<service>.out.1 ...).",
    )

    def policy(self) -> RestartPolicy:
        """The restart policy these settings describe."""
        return RestartPolicy(
            first_delay=self.restart_delay,
            max_delay=max(self.restart_delay, self.restart_max_delay),
        )


@dataclass
class Child:
    """One supervised service: its current process and its history."""

    service: Service
    port: int
    handle: ServiceHandle
    state: State = "running"
    restarts: int = 0
    failures: int = 0
    started_at: float = 0.0
    healthy_since: float | None = None
    next_start: float | None = None
    stop_deadline: float | None = None
    last_exit: dict[str, Any] | None = None
    log_offset: int = 0
    restart_requested: bool = False

    @property
    def name(self) -> str:
        return self.service.name

    def new_output(self) -> str:
        """What the current process wrote to the log so far (its last 64 KB)."""
        try:
            with self.handle.log_path.open("rb") as log:
                size = log.seek(0, os.SEEK_END)
                # The log may have been rotated (truncated) since this process started.
                start = self.log_offset if self.log_offset <= size else 0
                log.seek(max(start, size - _NEW_OUTPUT_BYTES))
                return log.read().decode("utf-8", errors="replace")
        except OSError:
            return ""


def describe_exit(code: int | None) -> str:
    """``exit code 1`` or ``signal SIGKILL`` for a process's return code."""
    if code is None:
        return "no exit code"
    if code < 0:
        with contextlib.suppress(ValueError):
            return f"signal {signal.Signals(-code).name}"
        return f"signal {-code}"
    return f"exit code {code}"


def _kill_group(pgid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


class Supervisor:
    """Restarts the services it is given; see the module docstring."""

    def __init__(
        self,
        children: list[Child],
        *,
        spawn: Callable[[Service, int], ServiceHandle],
        ready: Callable[[Child], bool],
        policy: RestartPolicy,
        log: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``spawn(service, port)`` starts a service; ``ready(child)`` says whether it is
        healthy; ``log`` reports what happens; ``clock`` is monotonic seconds."""
        self.children = {c.name: c for c in children}
        self._spawn = spawn
        self._ready = ready
        self.policy = policy
        self._log = log
        self._clock = clock
        now = clock()
        for child in children:
            child.started_at = child.started_at or now
            child.healthy_since = child.healthy_since or now

    def request_restart(self, name: str) -> None:
        """Restart ``name`` at the next tick (``KeyError`` naming the known services)."""
        if name not in self.children:
            msg = f"unknown service {name!r}; running: {', '.join(self.children)}"
            raise KeyError(msg)
        self.children[name].restart_requested = True

    def tick(self) -> bool:
        """Look at every service once and act; True when something changed."""
        changed = False
        for child in self.children.values():
            changed |= self._step(child, self._clock())
        return changed

    def handles(self) -> list[ServiceHandle]:
        """The current process of every service (stopped or not), in start order."""
        return [c.handle for c in self.children.values()]

    def snapshot(self, wall: Callable[[], float] = time.time) -> dict[str, dict[str, Any]]:
        """Each service's state for the launcher's state file (times as epoch seconds)."""
        now, now_wall = self._clock(), wall()
        out: dict[str, dict[str, Any]] = {}
        for child in self.children.values():
            out[child.name] = {
                "state": child.state,
                "pid": child.handle.process.pid,
                "restarts": child.restarts,
                "last_exit": child.last_exit,
                "next_start_at": (
                    None if child.next_start is None else now_wall + child.next_start - now
                ),
            }
        return out

    # -- one service, one tick ------------------------------------------------------------

    def _step(self, child: Child, now: float) -> bool:
        if child.restart_requested:
            child.restart_requested = False
            return self._begin_restart(child, now)
        if child.state == "backoff":
            if child.next_start is not None and now >= child.next_start:
                self._start(child, now)
                return True
            return False
        exited = child.handle.process.poll() is not None
        if child.state == "stopping":
            return self._finish_stop(child, now, exited)
        if exited:
            self._failed(child, now, describe_exit(child.handle.process.returncode))
            return True
        if child.state == "starting":
            return self._check_start(child, now)
        if child.failures and now - (child.healthy_since or now) >= self.policy.stable_after:
            child.failures = 0  # up long enough: the next failure starts the backoff afresh
        return False

    def _check_start(self, child: Child, now: float) -> bool:
        moved = moved_port(child.new_output()) if child.service.argv is not None else None
        if moved:
            _kill_group(child.handle.process.pid, signal.SIGKILL)
            child.handle.process.wait(timeout=5)
            why = f"moved to port {moved} because {child.port} was taken"
            self._failed(child, now, why)
            return True
        if self._ready(child):
            child.state, child.healthy_since, child.next_start = "running", now, None
            self._log(
                f"{child.name} is healthy again (pid {child.handle.process.pid}, "
                f"restart {child.restarts})"
            )
            return True
        if now - child.started_at > self.policy.start_timeout:
            _kill_group(child.handle.process.pid, signal.SIGKILL)
            child.handle.process.wait(timeout=5)
            self._failed(child, now, f"not healthy after {self.policy.start_timeout:g} s")
            return True
        return False

    def _failed(self, child: Child, now: float, why: str) -> None:
        """Record an exit or a failed start and schedule the next start."""
        during = " during start-up" if child.state == "starting" else ""
        # Workers the service forked may outlive it and hold its port: clear the group.
        _kill_group(child.handle.process.pid, signal.SIGKILL)
        child.failures += 1
        delay = self.policy.delay(child.failures)
        child.state, child.next_start, child.healthy_since = "backoff", now + delay, None
        child.last_exit = {"why": why + during, "at": time.time()}
        in_a_row = f", {child.failures} failures in a row" if child.failures > 1 else ""
        self._log(
            f"{child.name} (pid {child.handle.process.pid}) stopped: {why}{during}; "
            f"starting it again in {delay:g} s (restart {child.restarts + 1}{in_a_row}); "
            f"the other services keep running. Last lines of {child.handle.log_path}:\n"
            f"{_tail(child.new_output(), 15)}"
        )

    def _begin_restart(self, child: Child, now: float) -> bool:
        if child.state == "backoff":
            self._log(f"{child.name}: restart requested; starting it now")
            self._start(child, now)
            return True
        if child.state == "stopping":
            return False
        self._log(f"{child.name}: restart requested; stopping pid {child.handle.process.pid}")
        _kill_group(child.handle.process.pid, signal.SIGTERM)
        child.state, child.stop_deadline = "stopping", now + self.policy.stop_grace
        return True

    def _finish_stop(self, child: Child, now: float, exited: bool) -> bool:
        if not exited:
            if child.stop_deadline is not None and now > child.stop_deadline:
                _kill_group(child.handle.process.pid, signal.SIGKILL)
            return False
        _kill_group(child.handle.process.pid, signal.SIGKILL)  # forked workers, if any
        code = describe_exit(child.handle.process.returncode)
        child.last_exit = {"why": f"restart requested ({code})", "at": time.time()}
        child.failures = 0
        self._start(child, now)
        return True

    def _start(self, child: Child, now: float) -> None:
        try:
            child.log_offset = child.handle.log_path.stat().st_size
        except OSError:
            child.log_offset = 0
        child.handle = self._spawn(child.service, child.port)
        child.restarts += 1
        child.state, child.started_at, child.next_start = "starting", now, None
        child.stop_deadline = None
        self._log(
            f"started {child.name} again (pid {child.handle.process.pid}, port {child.port}, "
            f"restart {child.restarts})"
        )


def _tail(text: str, lines: int) -> str:
    return "\n".join(text.splitlines()[-lines:]) or "(nothing)"
