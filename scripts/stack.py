"""The stack launcher: ``scripts/stack up | status | down``.

``up`` starts every service of :mod:`scripts.services` on loopback, refuses a taken
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
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from core.serve import port_is_free
from core.settings import CommonSettings
from scripts.services import SERVICES, Service, agent_server_auth, wiring

HOST = "127.0.0.1"
HEALTH_TIMEOUT_S = 120.0


@dataclass
class Running:
    service: Service
    port: int
    proc: subprocess.Popen[bytes]
    log_path: Path

    @property
    def base_url(self) -> str:
        return f"http://{HOST}:{self.port}"


def _data_dir() -> Path:
    return CommonSettings().data_dir


def _state_path() -> Path:
    return _data_dir() / "run" / "stack.json"


def _read_state() -> dict[str, Any] | None:
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


def _serves_graphs(r: Running, headers: dict[str, str]) -> tuple[bool, str]:
    """For the Agent Server: our graphs are listed on our port (it moves silently when its
    port is taken, so an answer elsewhere would not count). ``headers``: the launcher's
    credentials when the server's auth is on."""
    try:
        found = httpx.post(
            f"{r.base_url}/assistants/search",
            json={"limit": 100},
            headers=headers,
            timeout=5,
        )
        ids = {a.get("graph_id") for a in found.json()}
    except (httpx.HTTPError, ValueError, AttributeError):
        return False, "not listing graphs yet"
    missing = set(r.service.expect_graphs) - ids
    return not missing, f"missing graphs {sorted(missing)}" if missing else "ok"


def _moved_port(r: Running) -> str | None:
    """The port langgraph dev says it moved to, if its log says so."""
    for line in _tail(r.log_path, 200).splitlines():
        if "already in use, using port" in line:
            return line.rsplit("using port", 1)[1].split()[0]
    return None


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


def _stop(children: list[Running], grace: float = 10.0) -> None:
    """SIGTERM every child's process group, then SIGKILL what is left after ``grace``."""
    for r in reversed(children):
        if r.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(r.proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for r in children:
        remaining = max(0.1, deadline - time.monotonic())
        try:
            r.proc.wait(timeout=remaining)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(r.proc.pid, signal.SIGKILL)
            r.proc.wait(timeout=5)


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except FileNotFoundError:
        return "(no log)"


def cmd_up(args: argparse.Namespace) -> int:
    """Start the stack; see the module docstring."""
    state = _read_state()
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
    for s in services:
        if not port_is_free(HOST, ports[s.name]):
            _log(
                f"port {ports[s.name]} ({s.port_env}) for {s.name} is already in use on {HOST}; "
                f"stop what holds it or set {s.port_env} to a free port"
            )
            return 2

    data_dir = _data_dir()
    log_dir = data_dir / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, **wiring(ports, HOST), "PYTHONUNBUFFERED": "1", "DATA_DIR": str(data_dir)}
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

    children: list[Running] = []
    stopping = False

    def on_signal(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)

    try:
        for s in services:
            log_path = log_dir / f"{s.name}.out"
            cmd = s.command(sys.executable, ports[s.name])
            with open(log_path, "ab") as out:
                proc = subprocess.Popen(
                    cmd,
                    env=env,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
            children.append(Running(s, ports[s.name], proc, log_path))
            _log(f"started {s.name} (pid {proc.pid}) on port {ports[s.name]}")

        deadline = time.monotonic() + HEALTH_TIMEOUT_S
        pending = list(children)
        while pending and not stopping:
            for r in list(pending):
                if r.proc.poll() is not None:
                    _log(
                        f"{r.service.name} exited with code {r.proc.returncode} during start-up; "
                        f"last lines of {r.log_path}:\n{_tail(r.log_path)}"
                    )
                    _stop(children)
                    return 1
                moved = _moved_port(r)
                if moved:
                    _log(
                        f"{r.service.name} moved to port {moved} because {r.port} was taken; "
                        f"refusing: set {r.service.port_env} to a free port"
                    )
                    _stop(children)
                    return 2
                ok, _ = _healthy(r.base_url + r.service.health_path, timeout=1.0)
                if ok and r.service.expect_graphs:
                    ok, _ = _serves_graphs(r, auth_headers)
                if ok:
                    _log(f"{r.service.name} is healthy")
                    pending.remove(r)
            if pending and time.monotonic() > deadline:
                names = ", ".join(r.service.name for r in pending)
                _log(f"timed out waiting for {names}; see logs in {log_dir}")
                _stop(children)
                return 1
            if pending:
                time.sleep(0.2)
        if stopping:
            _stop(children)
            return 130

        state = {
            "launcher_pid": os.getpid(),
            "started_at": time.time(),
            "ready": True,
            "services": {
                r.service.name: {
                    "pid": r.proc.pid,
                    "port": r.port,
                    "url": r.base_url,
                    "health": r.base_url + r.service.health_path,
                    "log": str(r.log_path),
                    "links": {k: r.base_url + v for k, v in r.service.links.items()},
                }
                for r in children
            },
        }
        path = _state_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(state, indent=2))
        _print_table(state)
        _log("stack is up; Ctrl-C (or `scripts/stack down`) stops it")

        while not stopping:
            for r in children:
                if r.proc.poll() is not None:
                    _log(
                        f"{r.service.name} exited with code {r.proc.returncode}; stopping the "
                        f"stack. Last lines of {r.log_path}:\n{_tail(r.log_path)}"
                    )
                    stopping = True
                    break
            time.sleep(0.5)
        return 0
    finally:
        _log("stopping")
        _stop(children)
        state = _read_state()
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
    with open(log, "ab") as out:
        proc = subprocess.Popen(
            cmd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
    _log(f"starting in the background (launcher pid {proc.pid}, log {log})")
    deadline = time.monotonic() + HEALTH_TIMEOUT_S + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            _log(f"the launcher exited with code {proc.returncode}:\n{_tail(log)}")
            return proc.returncode or 1
        state = _read_state()
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
    state = _read_state()
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
    state = _read_state()
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
