"""Start a service process on a loopback port, watch it, and stop it with its children.

Used by the launcher, the benchmarks and the tests::

    port = free_port()
    with start_service("sim.erp", {"SIM_ERP_PORT": str(port), "DATA_DIR": str(tmp)}, port) as erp:
        httpx.get(f"{erp.url}/health")

A child runs in its own process group (its session leader's pid is the group id, so a
signal reaches only what we started) with its output in a log file: a pipe nobody reads
would block it. A child that dies or never turns healthy fails the start with the tail
of that log. On leaving the block the group gets SIGTERM, then SIGKILL if it lingers,
even when the block raised. A log folder made here (no ``log_dir`` given) stays readable
after the block (a test may read the shutdown lines) and is removed when this process
exits.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
"""The checkout this package was loaded from (in an installed copy: site-packages)."""
HOST = "127.0.0.1"


def free_port(host: str = HOST) -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def spawn(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    log_path: Path,
    cwd: Path | None = None,
    append: bool = False,
) -> subprocess.Popen[bytes]:
    """Start ``argv`` with exactly ``env``, in a new session, its output into ``log_path``."""
    with log_path.open("ab" if append else "wb") as log:
        return subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


@dataclass
class ServiceHandle:
    """A running service: its process, where it listens and where it logs."""

    module: str
    port: int
    url: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def log_tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines the service wrote to stdout/stderr."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])

    def exited(self) -> str | None:
        """A sentence with the exit code and the log tail once the process has ended."""
        if self.process.poll() is None:
            return None
        return (
            f"{self.module} exited with code {self.process.returncode}; its log:\n{self.log_tail()}"
        )

    def probe(self, health_path: str = "/health", timeout: float = 2) -> tuple[bool, str]:
        """``(answered 200, what it answered)`` for ``GET {url}{health_path}``."""
        try:
            response = httpx.get(f"{self.url}{health_path}", timeout=timeout)
        except httpx.HTTPError as exc:
            return False, f"{type(exc).__name__}: {exc}"
        if response.status_code == 200:
            return True, "HTTP 200"
        return False, f"HTTP {response.status_code}: {response.text[:200]}"

    def wait_healthy(self, health_path: str = "/health", timeout: float = 20) -> None:
        """Block until ``GET {url}{health_path}`` answers 200; ``RuntimeError`` with the log
        tail when the process exits first or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        last = "no answer yet"
        while time.monotonic() < deadline:
            if ended := self.exited():
                raise RuntimeError(f"before it was healthy, {ended}")
            ok, last = self.probe(health_path)
            if ok:
                return
            time.sleep(0.1)
        msg = (
            f"{self.module} on port {self.port} was not healthy after {timeout} s "
            f"({last}); its log:\n{self.log_tail()}"
        )
        raise RuntimeError(msg)

    def stop(self, grace: float = 10.0) -> int | None:
        """SIGTERM the service's process group, SIGKILL after ``grace`` s; its exit code."""
        stop_all([self], grace)
        return self.process.returncode

    def send_signal(self, sig: signal.Signals) -> None:
        """Send ``sig`` to the service's process group, if it still runs."""
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, sig)


def stop_all(handles: Iterable[ServiceHandle], grace: float = 10.0) -> None:
    """SIGTERM every handle's group at once (the last started first), then SIGKILL what is
    left after ``grace`` seconds in all."""
    handles = list(handles)
    for handle in reversed(handles):
        handle.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + grace
    for handle in handles:
        try:
            handle.process.wait(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            handle.send_signal(signal.SIGKILL)
            handle.process.wait(timeout=5)


_made: list[Path] = []


def _temporary_folder(prefix: str) -> Path:
    """A new temporary folder, removed when this process exits (each test run used to leave
    one per service it started behind: hundreds in the system's temporary folder)."""
    if not _made:
        atexit.register(_remove_made)
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    _made.append(folder)
    return folder


def _remove_made() -> None:
    while _made:
        shutil.rmtree(_made.pop(), ignore_errors=True)


@contextlib.contextmanager
def start_service(
    module: str,
    env: Mapping[str, str],
    port: int,
    health_path: str = "/health",
    timeout: float = 20,
    *,
    args: Sequence[str] = (),
    host: str = HOST,
    log_dir: Path | None = None,
    wait: bool = True,
) -> Iterator[ServiceHandle]:
    """Run ``python -m module *args`` with ``env`` over the current environment, wait until
    ``GET http://host:port{health_path}`` answers 200, yield its handle, stop it afterwards.

    The caller puts ``port`` into ``env`` under the service's own variable name.
    Raises ``RuntimeError`` with the log tail if the service exits or stays unhealthy
    for ``timeout`` seconds. With ``wait=False`` it yields at once, so several
    services can start side by side; call ``handle.wait_healthy()`` on each.
    """
    log_dir = log_dir or _temporary_folder(f"{module.replace('.', '-')}-")
    log_path = log_dir / f"{module}-{port}.log"
    argv = [sys.executable, "-m", module, *args]
    process = spawn(argv, env={**os.environ, **env}, log_path=log_path, cwd=ROOT)
    handle = ServiceHandle(module, port, f"http://{host}:{port}", process, log_path)
    try:
        if wait:
            handle.wait_healthy(health_path, timeout)
        yield handle
    finally:
        handle.stop()
