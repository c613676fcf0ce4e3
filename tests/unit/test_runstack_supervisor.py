"""The launcher's supervisor on real child processes (``python -c`` stand-ins, no sockets)
and a clock the test moves: restarts with doubling backoff, a backoff that starts
afresh once a service stayed up, requested restarts, start-up timeouts and moves, and
the process group of a service that exited cleared before it starts again. Also the
size rotation of the children's captured output."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from runstack.logrotate import rotate_if_large
from runstack.processes import HOST, ServiceHandle, spawn
from runstack.services import Service
from runstack.supervisor import Child, RestartPolicy, StackSettings, Supervisor, describe_exit

SLEEPER = "import time; print('up', flush=True); time.sleep(120)"
# Forks a worker into its own process group, writes its pid, then waits (the worker
# would keep a served port open after its parent died).
FORKER = (
    "import os, sys, time\n"
    "pid = os.fork()\n"
    "if pid == 0:\n    time.sleep(120)\n"
    "open(sys.argv[1], 'w').write(str(pid)); time.sleep(120)\n"
)
POLICY = RestartPolicy(first_delay=1, max_delay=8, stable_after=30, start_timeout=20, stop_grace=5)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class Harness:
    """A supervisor over one stand-in service whose health the test decides."""

    def __init__(self, tmp_path: Path, code: str = SLEEPER, *args: str, argv: bool = False):
        self.log_path = tmp_path / "svc.out"
        self.code, self.args = code, args
        self.healthy = True
        self.clock = Clock()
        self.said: list[str] = []
        # argv: a full command line, as langgraph dev is started (its moves are watched).
        self.service = Service("svc", "svc", "SVC_PORT", 1, argv=("x",) if argv else None)
        self.child = Child(self.service, 4321, self.spawn(self.service, 4321))
        self.supervisor = Supervisor(
            [self.child],
            spawn=self.spawn,
            ready=lambda child: self.healthy,
            policy=POLICY,
            log=self.said.append,
            clock=self.clock,
        )

    def spawn(self, service: Service, port: int) -> ServiceHandle:
        argv = [sys.executable, "-c", self.code, *self.args]
        process = spawn(argv, env=os.environ, log_path=self.log_path, append=True)
        return ServiceHandle(service.name, port, f"http://{HOST}:{port}", process, self.log_path)

    def kill(self) -> None:
        os.killpg(self.child.handle.process.pid, signal.SIGKILL)
        self.child.handle.process.wait(timeout=5)

    def tick(self, advance: float = 0.0) -> bool:
        self.clock.now += advance
        return self.supervisor.tick()

    def stop(self) -> None:
        for handle in self.supervisor.handles():
            if handle.process.poll() is None:
                os.killpg(handle.process.pid, signal.SIGKILL)
                handle.process.wait(timeout=5)


@pytest.fixture
def harness(tmp_path: Path) -> Iterator[Harness]:
    h = Harness(tmp_path)
    yield h
    h.stop()


def test_a_service_that_exits_is_started_again_with_doubling_backoff(harness: Harness) -> None:
    first_pid = harness.child.handle.process.pid
    assert not harness.tick()  # running, nothing to do
    harness.kill()
    assert harness.tick()
    assert harness.child.state == "backoff"
    assert harness.child.last_exit is not None
    assert harness.child.last_exit["why"] == "signal SIGKILL"
    said = f"svc (pid {first_pid}) stopped: signal SIGKILL; starting it again in 1 s"
    assert said in harness.said[-1]
    assert not harness.tick(0.5)  # not due yet
    assert harness.tick(0.6)
    assert harness.child.state == "starting" and harness.child.restarts == 1
    assert harness.child.handle.process.pid != first_pid
    assert harness.tick()  # healthy
    assert harness.child.state == "running"
    assert harness.said[-1].startswith("svc is healthy again (pid ")

    # Failing again soon after: the wait doubles (1, 2, 4, 8, then 8 again).
    delays = []
    for _ in range(5):
        harness.kill()
        harness.tick(1)
        delays.append(round(harness.child.next_start - harness.clock.now, 6))
        harness.tick(delays[-1])
        harness.tick()
    assert delays == [2, 4, 8, 8, 8]
    assert harness.child.restarts == 6

    # Up longer than stable_after: the next failure waits the first delay again.
    harness.tick(31)
    harness.kill()
    harness.tick()
    assert round(harness.child.next_start - harness.clock.now, 6) == 1
    snapshot = harness.supervisor.snapshot(wall=lambda: 50.0)["svc"]
    assert snapshot["state"] == "backoff" and snapshot["restarts"] == 6
    assert round(snapshot["next_start_at"], 6) == 51.0


def test_a_requested_restart_stops_and_starts_at_once(harness: Harness) -> None:
    old = harness.child.handle.process
    harness.supervisor.request_restart("svc")
    assert harness.tick()
    assert harness.child.state == "stopping"
    old.wait(timeout=10)  # SIGTERM ends the sleeper
    assert harness.tick()
    assert harness.child.state == "starting" and harness.child.restarts == 1
    assert harness.child.last_exit is not None
    assert harness.child.last_exit["why"] == "restart requested (signal SIGTERM)"
    harness.tick()
    assert harness.child.state == "running" and harness.child.failures == 0
    with pytest.raises(KeyError, match="unknown service 'nope'; running: svc"):
        harness.supervisor.request_restart("nope")


def test_a_restart_request_ends_a_backoff(harness: Harness) -> None:
    harness.kill()
    harness.tick()
    assert harness.child.state == "backoff"
    harness.supervisor.request_restart("svc")
    harness.tick()  # no waiting for the backoff
    assert harness.child.state == "starting" and harness.child.restarts == 1


def test_a_start_that_never_turns_healthy_is_killed_and_retried(harness: Harness) -> None:
    harness.kill()
    harness.tick()
    harness.tick(1)
    harness.healthy = False
    starting = harness.child.handle.process
    assert not harness.tick(10)
    assert harness.tick(11)  # past start_timeout
    assert starting.poll() is not None
    assert harness.child.state == "backoff"
    assert harness.child.last_exit is not None
    assert harness.child.last_exit["why"] == "not healthy after 20 s during start-up"


def test_an_agent_server_that_moved_port_is_a_failed_start(tmp_path: Path) -> None:
    moving = "print('WARNING Port 4321 is already in use, using port 5555 instead', flush=True)"
    h = Harness(tmp_path, SLEEPER, argv=True)
    try:
        h.kill()
        h.tick()
        h.code = f"{moving}\nimport time; time.sleep(120)"
        h.tick(1)
        deadline = time.monotonic() + 10
        while "already in use" not in h.child.new_output() and time.monotonic() < deadline:
            time.sleep(0.05)
        h.tick()
        assert h.child.state == "backoff"
        assert h.child.last_exit is not None
        assert (
            h.child.last_exit["why"] == "moved to port 5555 because 4321 was taken during start-up"
        )
    finally:
        h.stop()


def test_what_an_exited_service_forked_is_stopped_before_it_starts_again(tmp_path: Path) -> None:
    pid_file = tmp_path / "worker.pid"
    h = Harness(tmp_path, FORKER, str(pid_file))
    try:
        deadline = time.monotonic() + 10
        # The stand-in creates the file, then writes the pid: wait for the pid, not the file.
        while not (pid_file.exists() and pid_file.read_text().strip()):
            assert time.monotonic() < deadline, "the service never wrote its worker's pid"
            time.sleep(0.05)
        worker = int(pid_file.read_text())
        # Only the service's own process dies; its worker lives on in the group.
        os.kill(h.child.handle.process.pid, signal.SIGKILL)
        h.child.handle.process.wait(timeout=5)
        assert _alive(worker)
        h.tick()
        deadline = time.monotonic() + 5
        while _alive(worker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not _alive(worker)
    finally:
        h.stop()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # The worker is our grandchild; once dead it is reaped by init, or a zombie here.
    status = subprocess.run(["ps", "-o", "stat=", "-p", str(pid)], capture_output=True, text=True)
    return bool(status.stdout.strip()) and not status.stdout.strip().startswith("Z")


def test_exit_descriptions() -> None:
    assert describe_exit(-9) == "signal SIGKILL"
    assert describe_exit(2) == "exit code 2"
    assert describe_exit(None) == "no exit code"


def test_bad_launcher_settings_name_their_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    from pydantic import ValidationError

    monkeypatch.setenv("STACK_RESTART_DELAY", "0")
    with pytest.raises(ValidationError, match="greater than 0"):
        StackSettings()
    monkeypatch.setenv("STACK_RESTART_DELAY", "5")
    monkeypatch.setenv("STACK_RESTART_MAX_DELAY", "2")
    policy = StackSettings().policy()
    assert (policy.first_delay, policy.max_delay) == (5, 5)
    assert [policy.delay(n) for n in (1, 2, 3)] == [5, 5, 5]


def test_captured_output_rotates_by_size_and_the_writer_goes_on(tmp_path: Path) -> None:
    path = tmp_path / "svc.out"
    writer = path.open("ab")  # as a child holds it: O_APPEND
    try:
        writer.write(b"a" * 100)
        writer.flush()
        assert not rotate_if_large(path, max_bytes=100, backups=2)
        writer.write(b"b")
        writer.flush()
        assert rotate_if_large(path, max_bytes=100, backups=2)
        assert path.read_bytes() == b""
        assert path.with_name("svc.out.1").read_bytes() == b"a" * 100 + b"b"
        writer.write(b"c" * 200)  # the writer goes on at the start of the emptied file
        writer.flush()
        assert path.read_bytes() == b"c" * 200
        assert rotate_if_large(path, max_bytes=100, backups=2)
        writer.write(b"d" * 101)
        writer.flush()
        assert rotate_if_large(path, max_bytes=100, backups=2)
        assert path.with_name("svc.out.1").read_bytes() == b"d" * 101
        assert path.with_name("svc.out.2").read_bytes() == b"c" * 200
        assert not path.with_name("svc.out.3").exists()  # the oldest copy is dropped
    finally:
        writer.close()
    assert not rotate_if_large(tmp_path / "missing.out", max_bytes=1, backups=1)
