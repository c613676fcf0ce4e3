"""Start a ``python -m <module>`` service on a free loopback port for a test, and stop it.

Shared by the integration tests (and the benchmarks)::

    port = free_port()
    with start_service("sim.erp", {"SIM_ERP_PORT": str(port), "DATA_DIR": str(tmp)}, port) as erp:
        httpx.get(f"{erp.url}/health")

The child runs in its own process group with its output in a log file (a pipe
nobody reads would block it); a child that dies or never turns healthy fails
the start with the tail of that log. On leaving the block the group gets
SIGTERM, then SIGKILL if it lingers, even when the block raised.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"


def free_port(host: str = HOST) -> int:
    """A TCP port nothing listens on right now (the OS picks it)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


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

    def wait_healthy(self, health_path: str = "/health", timeout: float = 20) -> None:
        """Block until ``GET {url}{health_path}`` answers 200; ``RuntimeError`` with the log
        tail when the process exits first or ``timeout`` seconds pass."""
        deadline = time.monotonic() + timeout
        last = "no answer yet"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                msg = (
                    f"{self.module} exited with code {self.process.returncode} before it was "
                    f"healthy; its log:\n{self.log_tail()}"
                )
                raise RuntimeError(msg)
            try:
                response = httpx.get(f"{self.url}{health_path}", timeout=2)
            except httpx.HTTPError as exc:
                last = f"{type(exc).__name__}: {exc}"
            else:
                if response.status_code == 200:
                    return
                last = f"HTTP {response.status_code}: {response.text[:200]}"
            time.sleep(0.1)
        msg = (
            f"{self.module} on port {self.port} was not healthy after {timeout} s "
            f"({last}); its log:\n{self.log_tail()}"
        )
        raise RuntimeError(msg)

    def stop(self, grace: float = 10.0) -> int | None:
        """SIGTERM the service's process group, SIGKILL after ``grace`` s; its exit code."""
        if self.process.poll() is None:
            self._signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                self._signal(signal.SIGKILL)
                self.process.wait(timeout=5)
        return self.process.returncode

    def _signal(self, sig: signal.Signals) -> None:
        # The child leads its own session, so its group id is its pid: only what we started.
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, sig)


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
    log_dir = log_dir or Path(tempfile.mkdtemp(prefix=f"{module.replace('.', '-')}-"))
    log_path = log_dir / f"{module}-{port}.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            cwd=ROOT,
            env={**os.environ, **env},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    handle = ServiceHandle(module, port, f"http://{host}:{port}", process, log_path)
    try:
        if wait:
            handle.wait_healthy(health_path, timeout)
        yield handle
    finally:
        handle.stop()
