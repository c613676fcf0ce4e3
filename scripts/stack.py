"""The stack launcher: ``scripts/stack up | status | down``.

``up`` starts every service of :mod:`runstack.services` on loopback, refuses a taken
port naming it, waits for each health check, prints the URLs and supervises the
children until Ctrl-C or SIGTERM, when it stops them all. ``up --detach`` does the
same in the background and returns once everything is healthy. ``status`` and
``down`` work from another terminal through a small state file under
``DATA_DIR/run/``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from core.serve import port_is_free
from core.settings import CommonSettings
from runstack.agent_server import moved_port, served_graphs
from runstack.processes import HOST, ServiceHandle, spawn, stop_all
from runstack.services import SERVICES, Service, agent_server_auth, wiring

HEALTH_TIMEOUT_S = 120.0


@dataclass
class Running:
    """A service the launcher started, and its process."""

    service: Service
    handle: ServiceHandle

    @property
    def base_url(self) -> str:
        return self.handle.url


@dataclass
class StopFlag:
    """Set by SIGINT or SIGTERM. A plain flag, not a threading.Event: a signal handler runs
    in the main thread, and taking the lock an Event uses there can deadlock."""

    requested: bool = False

    def set(self) -> None:
        self.requested = True

    def is_set(self) -> bool:
        return self.requested


def _data_dir() -> Path:
    return CommonSettings().data_dir


def _state_path() -> Path:
    return _data_dir() / "run" / "stack.json"


def read_state() -> dict[str, Any] | None:
    """What a running launcher recorded (pids, ports, URLs, links per service), or None."""
    path = _state_path()
    try:
        data: dict[str, Any] = json.loads(path.read_text())
        return data
    except (FileNotFoundError, json.JSONDecodeError):
        return None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie child of ours still answers kill(0); reap it if we can.
    with contextlib.suppress(ChildProcessError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    return True


def _healthy(url: str, timeout: float = 2.0) -> tuple[bool, str]:
    try:
        r = httpx.get(url, timeout=timeout)
    except httpx.HTTPError as exc:
        return False, type(exc).__name__
    return r.status_code == 200, f"HTTP {r.status_code}"


def _selected(only: str | None) -> list[Service]:
    if not only:
        return list(SERVICES)
    names = {n.strip() for n in only.split(",") if n.strip()}
    unknown = names - {s.name for s in SERVICES}
    if unknown:
        known = ", ".join(s.name for s in SERVICES)
        msg = f"unknown service(s) {', '.join(sorted(unknown))}; known: {known}"
        raise SystemExit(msg)
    return [s for s in SERVICES if s.name in names]


def _log(msg: str) -> None:
    print(f"[stack] {msg}", flush=True)


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"


def _taken_port(services: list[Service], ports: Mapping[str, int]) -> str | None:
    """A sentence naming the first port already in use, and its variable; None if all free."""
    for s in services:
        if not port_is_free(HOST, ports[s.name]):
            return (
                f"port {ports[s.name]} ({s.port_env}) for {s.name} is already in use on {HOST}; "
                f"stop what holds it or set {s.port_env} to a free port"
            )
    return None


def _announce_auth() -> dict[str, str]:
    """Say whether the Agent Server's auth is on; the launcher's own credentials if so."""
    auth_path, auth_headers = agent_server_auth()
    if auth_path is None:
        _log("no authentication: services listen on loopback only (development mode)")
    else:
        _log(
            f"Agent Server auth on ({auth_path}): clients send 'Authorization: Bearer <token>'"
            + (
                ""
                if auth_headers
                else "; set AGENT_AUTH_SERVICE_TOKENS so this launcher can check it"
            )
        )
    return auth_headers


def _start(
    services: list[Service], ports: Mapping[str, int], env: Mapping[str, str], log_dir: Path
) -> list[Running]:
    """Start every service (the Agent Server last), each logging to ``log_dir/<name>.out``."""
    children: list[Running] = []
    for s in services:
        log_path = log_dir / f"{s.name}.out"
        port = ports[s.name]
        proc = spawn(s.command(sys.executable, port), env=env, log_path=log_path, append=True)
        handle = ServiceHandle(s.name, port, f"http://{HOST}:{port}", proc, log_path)
        children.append(Running(s, handle))
        _log(f"started {s.name} (pid {proc.pid}) on port {port}")
    return children


def _start_failure(r: Running) -> tuple[int, str] | None:
    """``(exit status, why)`` when ``r`` died or moved away from its port during start-up."""
    if r.handle.process.poll() is not None:
        return 1, (
            f"{r.service.name} exited with code {r.handle.process.returncode} during start-up; "
            f"last lines of {r.handle.log_path}:\n{r.handle.log_tail(15)}"
        )
    # langgraph dev moves silently when its port is taken; an answer elsewhere is no start.
    moved = moved_port(r.handle.log_tail(200))
    if moved:
        return 2, (
            f"{r.service.name} moved to port {moved} because {r.handle.port} was taken; "
            f"refusing: set {r.service.port_env} to a free port"
        )
    return None


def _ready(r: Running, headers: Mapping[str, str]) -> bool:
    """Healthy; for the Agent Server also listing our graphs on our port."""
    ok, _ = r.handle.probe(r.service.health_path, timeout=1.0)
    if ok and r.service.expect_graphs:
        ok = set(r.service.expect_graphs) <= (served_graphs(r.base_url, headers) or set())
    return ok


def _wait_until_ready(
    children: list[Running], headers: Mapping[str, str], stop: StopFlag, log_dir: Path
) -> int | None:
    """None once every child is ready; else the exit status after saying why not."""
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    pending = list(children)
    while pending and not stop.is_set():
        for r in list(pending):
            failure = _start_failure(r)
            if failure:
                _log(failure[1])
                return failure[0]
            if _ready(r, headers):
                _log(f"{r.service.name} is healthy")
                pending.remove(r)
        if pending and time.monotonic() > deadline:
            names = ", ".join(r.service.name for r in pending)
            _log(f"timed out waiting for {names}; see logs in {log_dir}")
            return 1
        if pending:
            time.sleep(0.2)
    return 130 if stop.is_set() else None


def _write_state(children: list[Running]) -> dict[str, Any]:
    """Record what runs, for ``status``, ``down`` and the demo; the record."""
    state = {
        "launcher_pid": os.getpid(),
        "started_at": time.time(),
        "ready": True,
        "services": {
            r.service.name: {
                "pid": r.handle.process.pid,
                "port": r.handle.port,
                "url": r.base_url,
                "health": r.base_url + r.service.health_path,
                "log": str(r.handle.log_path),
                "links": {k: r.base_url + v for k, v in r.service.links.items()},
            }
            for r in children
        },
    }
    path = _state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state, indent=2))
    return state


def _supervise(children: list[Running], stop: StopFlag) -> None:
    """Return on Ctrl-C / SIGTERM, or as soon as one child exits (saying which)."""
    while not stop.is_set():
        time.sleep(0.5)
        for r in children:
            if r.handle.process.poll() is not None:
                _log(
                    f"{r.service.name} exited with code {r.handle.process.returncode}; stopping "
                    f"the stack. Last lines of {r.handle.log_path}:\n{r.handle.log_tail(15)}"
                )
                return


def _stop_on_signals() -> StopFlag:
    """A flag that SIGINT and SIGTERM set (the launcher then stops its children)."""
    stop = StopFlag()

    def on_signal(signum: int, _frame: object) -> None:
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    return stop


def cmd_up(args: argparse.Namespace) -> int:
    """Start the stack; see the module docstring."""
    state = read_state()
    if state and _alive(int(state.get("launcher_pid", 0))):
        _log(
            f"already running (launcher pid {state['launcher_pid']}); "
            "use `scripts/stack status` or `scripts/stack down`"
        )
        return 1
    services = _selected(args.only)
    if args.detach:
        return _detach(args)
    ports = {s.name: s.port() for s in services}
    taken = _taken_port(services, ports)
    if taken:
        _log(taken)
        return 2
    data_dir = _data_dir()
    log_dir = data_dir / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **wiring(ports, HOST), "PYTHONUNBUFFERED": "1", "DATA_DIR": str(data_dir)}
    auth_headers = _announce_auth()
    stop = _stop_on_signals()
    children: list[Running] = []
    try:
        children = _start(services, ports, env, log_dir)
        failed = _wait_until_ready(children, auth_headers, stop, log_dir)
        if failed is not None:
            return failed
        _print_table(_write_state(children))
        _log("stack is up; Ctrl-C (or `scripts/stack down`) stops it")
        _supervise(children, stop)
        return 0
    finally:
        _log("stopping")
        stop_all([r.handle for r in children])
        state = read_state()
        if state and state.get("launcher_pid") == os.getpid():
            with contextlib.suppress(FileNotFoundError):
                _state_path().unlink()
        _log("stopped")


def _detach(args: argparse.Namespace) -> int:
    log = _data_dir() / "logs" / "stack.out"
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "scripts.stack", "up"]
    if args.only:
        cmd += ["--only", args.only]
    proc = spawn(cmd, env=os.environ, log_path=log, append=True)
    _log(f"starting in the background (launcher pid {proc.pid}, log {log})")
    deadline = time.monotonic() + HEALTH_TIMEOUT_S + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _log(f"the launcher exited with code {proc.returncode}:\n{_tail(log)}")
            return proc.returncode or 1
        state = read_state()
        if state and state.get("launcher_pid") == proc.pid and state.get("ready"):
            _print_table(state)
            return 0
        time.sleep(0.2)
    _log("timed out waiting for the stack; stopping it")
    os.kill(proc.pid, signal.SIGTERM)
    return 1


def _print_table(state: dict[str, Any]) -> None:
    for name, info in state["services"].items():
        links = "  ".join(f"{k}: {v}" for k, v in info["links"].items()) or info["url"]
        _log(f"  {name:<14} {links}")


def cmd_status(_args: argparse.Namespace) -> int:
    """Print each service's pid, port and health; 0 when all are healthy, 3 when not running."""
    state = read_state()
    if not state or not _alive(int(state.get("launcher_pid", 0))):
        _log("not running")
        return 3
    _log(f"launcher pid {state['launcher_pid']}")
    all_ok = True
    for name, info in state["services"].items():
        alive = _alive(int(info["pid"]))
        ok, detail = _healthy(info["health"]) if alive else (False, "process gone")
        all_ok &= ok
        _log(
            f"  {name:<14} pid {info['pid']:<7} port {info['port']:<5} "
            f"{'healthy' if ok else 'UNHEALTHY'} ({detail})  {info['url']}"
        )
    return 0 if all_ok else 1


def cmd_down(_args: argparse.Namespace) -> int:
    """Stop a stack started from another terminal (or in the background)."""
    state = read_state()
    if not state:
        _log("not running")
        return 0
    pid = int(state.get("launcher_pid", 0))
    if pid and _alive(pid):
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        while _alive(pid) and time.monotonic() < deadline:
            time.sleep(0.1)
    # Whatever the launcher could not stop (it was killed hard, say), stop here.
    for info in state.get("services", {}).values():
        child = int(info["pid"])
        if _alive(child):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(child, signal.SIGTERM)
    with contextlib.suppress(FileNotFoundError):
        _state_path().unlink()
    _log("stopped")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/stack", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    up = sub.add_parser("up", help="start the services and supervise them")
    up.add_argument("--only", help="comma-separated service names (default: all)")
    up.add_argument(
        "--detach",
        action="store_true",
        help="run in the background; return once every service is healthy",
    )
    sub.add_parser("status", help="show what runs and whether it is healthy")
    sub.add_parser("down", help="stop the stack")
    args = parser.parse_args(argv)
    handler = {"up": cmd_up, "status": cmd_status, "down": cmd_down}[args.command]
    return handler(args)


if __name__ == "__main__":
    raise SystemExit(main())
