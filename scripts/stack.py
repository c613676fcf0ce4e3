"""The stack launcher: ``scripts/stack up | status | restart NAME | down``.

``up`` starts every service of :mod:`runstack.services` on loopback, refuses a taken
port naming it, waits for each health check, prints the URLs, then supervises the
children until Ctrl-C or SIGTERM, when it stops them all. A service that exits
afterwards (the Agent Server included) is started again with backoff and reported
(:mod:`runstack.supervisor`); the others keep running. ``up --detach`` does the same in
the background and returns once everything is healthy. ``status``, ``restart NAME``
and ``down`` work from another terminal through a small state file under
``DATA_DIR/run/``, which the launcher rewrites whenever a service changes state.

The children's stdout and stderr go to ``DATA_DIR/logs/<service>.out`` (the detached
launcher's own to ``stack.out``), rotated by size (``STACK_LOG_MAX_MB``,
``STACK_LOG_BACKUPS``); the services also keep their own daily-rotated ``.log`` files.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
from pydantic import ValidationError

from core.serve import port_is_free
from core.settings import CommonSettings
from runstack.agent_server import PRODUCT_CONFIG, absolute_config, moved_port, served_graphs
from runstack.logrotate import rotate_if_large
from runstack.processes import HOST, ROOT, ServiceHandle, spawn, stop_all
from runstack.services import SERVICES, Service, agent_server_auth, wiring
from runstack.supervisor import Child, StackSettings, Supervisor, describe_exit

HEALTH_TIMEOUT_S = 120.0
TICK_S = 0.5
ROTATE_EVERY_S = 10.0


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


def _requests_dir() -> Path:
    return _data_dir() / "run" / "requests"


def read_state() -> dict[str, Any] | None:
    """What a running launcher recorded (pids, ports, URLs, links, state and restart count
    per service), or None."""
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


def _stack_settings() -> StackSettings:
    """The launcher's settings; SystemExit naming each bad variable."""
    try:
        return StackSettings()
    except ValidationError as exc:
        problems = "; ".join(
            f"STACK_{str(e['loc'][0]).upper()}: {e['msg']}" if e["loc"] else e["msg"]
            for e in exc.errors()
        )
        raise SystemExit(f"[stack] bad setting in the environment or .env: {problems}") from None


def _spawner(env: Mapping[str, str], log_dir: Path) -> Callable[[Service, int], ServiceHandle]:
    """Starts one service on its port, its output appended to ``log_dir/<name>.out``.

    ``langgraph dev`` runs in ``DATA_DIR/<name>/`` on a copy of ``langgraph.json`` with
    absolute paths: its runtime keeps threads, runs and checkpoints in ``.langgraph_api/``
    of its working directory, which thus belongs to this stack's data, not the checkout
    (another stack on another ``DATA_DIR`` never resumes its runs)."""

    def start_one(s: Service, port: int) -> ServiceHandle:
        log_path = log_dir / f"{s.name}.out"
        cwd, config = None, "langgraph.json"
        if s.argv is not None:
            cwd = _data_dir() / s.name
            cwd.mkdir(parents=True, exist_ok=True)
            config = str(absolute_config(PRODUCT_CONFIG, cwd, root=ROOT, keep_env=True))
        argv = s.command(sys.executable, port, config)
        proc = spawn(argv, env=env, log_path=log_path, cwd=cwd, append=True)
        return ServiceHandle(s.name, port, f"http://{HOST}:{port}", proc, log_path)

    return start_one


def _start(
    services: list[Service],
    ports: Mapping[str, int],
    start_one: Callable[[Service, int], ServiceHandle],
    log_dir: Path,
) -> list[Child]:
    """Start every service (the Agent Server last); each its own :class:`Child`."""
    children: list[Child] = []
    for s in services:
        port = ports[s.name]
        log_path = log_dir / f"{s.name}.out"
        offset = log_path.stat().st_size if log_path.exists() else 0
        handle = start_one(s, port)
        children.append(Child(s, port, handle, state="starting", log_offset=offset))
        _log(f"started {s.name} (pid {handle.process.pid}) on port {port}")
    return children


def _start_failure(child: Child) -> tuple[int, str] | None:
    """``(exit status, why)`` when ``child`` died or moved away from its port during start-up."""
    process = child.handle.process
    if process.poll() is not None:
        return 1, (
            f"{child.name} exited ({describe_exit(process.returncode)}) during start-up; "
            f"last lines of {child.handle.log_path}:\n{child.handle.log_tail(15)}"
        )
    # langgraph dev moves silently when its port is taken; an answer elsewhere is no start.
    moved = moved_port(child.new_output())
    if moved:
        return 2, (
            f"{child.name} moved to port {moved} because {child.port} was taken; "
            f"refusing: set {child.service.port_env} to a free port"
        )
    return None


def _ready_check(headers: Mapping[str, str]) -> Callable[[Child], bool]:
    """Healthy; for the Agent Server also listing our graphs on our port."""

    def ready(child: Child) -> bool:
        ok, _ = child.handle.probe(child.service.health_path, timeout=1.0)
        if ok and child.service.expect_graphs:
            graphs = served_graphs(child.handle.url, headers) or set()
            ok = set(child.service.expect_graphs) <= graphs
        return ok

    return ready


def _wait_until_ready(
    children: list[Child], ready: Callable[[Child], bool], stop: StopFlag, log_dir: Path
) -> int | None:
    """None once every child is ready; else the exit status after saying why not."""
    deadline = time.monotonic() + HEALTH_TIMEOUT_S
    pending = list(children)
    while pending and not stop.is_set():
        for child in list(pending):
            failure = _start_failure(child)
            if failure:
                _log(failure[1])
                return failure[0]
            if ready(child):
                _log(f"{child.name} is healthy")
                child.state = "running"
                pending.remove(child)
        if pending and time.monotonic() > deadline:
            names = ", ".join(child.name for child in pending)
            _log(f"timed out waiting for {names}; see logs in {log_dir}")
            return 1
        if pending:
            time.sleep(0.2)
    return 130 if stop.is_set() else None


def _write_state(supervisor: Supervisor, started_at: float) -> dict[str, Any]:
    """Record what runs, for ``status``, ``restart``, ``down`` and the demo; the record.
    Written whole to a temporary file and renamed, so a reader never sees half of it."""
    snapshot = supervisor.snapshot()
    services: dict[str, Any] = {}
    for child in supervisor.children.values():
        url = child.handle.url
        services[child.name] = {
            "port": child.port,
            "url": url,
            "health": url + child.service.health_path,
            "log": str(child.handle.log_path),
            "links": {k: url + v for k, v in child.service.links.items()},
            **snapshot[child.name],
        }
    state = {
        "launcher_pid": os.getpid(),
        "started_at": started_at,
        "ready": True,
        "services": services,
    }
    path = _state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}")
    temporary.write_text(json.dumps(state, indent=2))
    os.replace(temporary, path)
    return state


def _take_requests(supervisor: Supervisor) -> None:
    """Hand every ``restart NAME`` request waiting in the requests folder to the supervisor."""
    folder = _requests_dir()
    for request in sorted(folder.glob("restart-*")) if folder.is_dir() else []:
        name = request.name.removeprefix("restart-")
        with contextlib.suppress(FileNotFoundError):
            request.unlink()
        try:
            supervisor.request_restart(name)
        except KeyError as exc:
            _log(str(exc.args[0]))


def _rotate_logs(paths: list[Path], settings: StackSettings) -> None:
    limit = int(settings.log_max_mb * 1024 * 1024)
    for path in paths:
        if rotate_if_large(path, max_bytes=limit, backups=settings.log_backups):
            _log(f"rotated {path} (over {settings.log_max_mb:g} MB)")


def _supervise(
    supervisor: Supervisor,
    stop: StopFlag,
    settings: StackSettings,
    *,
    started_at: float,
    own_log: Path | None,
) -> None:
    """Keep the services running until Ctrl-C / SIGTERM; rotate the captured output."""
    next_rotation = 0.0
    while not stop.is_set():
        _take_requests(supervisor)
        if supervisor.tick():
            _write_state(supervisor, started_at)
        if time.monotonic() >= next_rotation:
            logs = [h.log_path for h in supervisor.handles()]
            _rotate_logs([*logs, *([own_log] if own_log else [])], settings)
            next_rotation = time.monotonic() + ROTATE_EVERY_S
        time.sleep(TICK_S)


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
    settings = _stack_settings()
    if args.detach:
        return _detach(args)
    ports = {s.name: s.port() for s in services}
    taken = _taken_port(services, ports)
    if taken:
        _log(taken)
        return 2
    log_dir = _data_dir() / "logs"
    log_dir.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        **wiring(ports, HOST),
        "PYTHONUNBUFFERED": "1",
        "DATA_DIR": str(_data_dir()),
    }
    # The Agent Server runs outside the checkout (see _spawner) and imports it from here.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    ready = _ready_check(_announce_auth())
    stop = _stop_on_signals()
    children: list[Child] = []
    requests = _requests_dir()
    requests.mkdir(parents=True, exist_ok=True)
    for stale in requests.glob("restart-*"):
        stale.unlink()
    try:
        start_one = _spawner(env, log_dir)
        children = _start(services, ports, start_one, log_dir)
        failed = _wait_until_ready(children, ready, stop, log_dir)
        if failed is not None:
            return failed
        supervisor = Supervisor(
            children, spawn=start_one, ready=ready, policy=settings.policy(), log=_log
        )
        started_at = time.time()
        _print_table(_write_state(supervisor, started_at))
        _log("stack is up; Ctrl-C (or `scripts/stack down`) stops it")
        _supervise(supervisor, stop, settings, started_at=started_at, own_log=args.own_log)
        return 0
    finally:
        _log("stopping")
        stop_all([child.handle for child in children])
        state = read_state()
        if state and state.get("launcher_pid") == os.getpid():
            with contextlib.suppress(FileNotFoundError):
                _state_path().unlink()
        _log("stopped")


def _detach(args: argparse.Namespace) -> int:
    log = _data_dir() / "logs" / "stack.out"
    log.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "scripts.stack", "up", "--own-log", str(log)]
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


def _status_line(name: str, info: dict[str, Any]) -> tuple[bool, str]:
    """``(healthy, the line)`` for one service of the state file."""
    alive = _alive(int(info["pid"]))
    state = info.get("state", "running")
    ok, detail = _healthy(info["health"]) if alive and state != "backoff" else (False, "down")
    line = (
        f"  {name:<14} {state:<8} pid {info['pid']:<7} port {info['port']:<5} "
        f"restarts {info.get('restarts', 0):<3} {'healthy' if ok else 'UNHEALTHY'} ({detail})"
        f"  {info['url']}"
    )
    last = info.get("last_exit")
    if last:
        at = time.strftime("%H:%M:%S", time.localtime(last["at"]))
        line += f"\n  {'':<14} last stop {at}: {last['why']}"
    if info.get("next_start_at"):
        line += f"; next start in {max(0.0, info['next_start_at'] - time.time()):.0f} s"
    return ok, line


def cmd_status(_args: argparse.Namespace) -> int:
    """Print each service's state, restart count, pid, port and health; 0 when all are
    healthy, 1 when one is not, 3 when the stack is not running."""
    state = read_state()
    if not state or not _alive(int(state.get("launcher_pid", 0))):
        _log("not running")
        return 3
    up_for = time.time() - float(state.get("started_at", time.time()))
    _log(f"launcher pid {state['launcher_pid']}, supervising for {up_for:.0f} s")
    all_ok = True
    for name, info in state["services"].items():
        ok, line = _status_line(name, info)
        all_ok &= ok
        _log(line)
    return 0 if all_ok else 1


def cmd_restart(args: argparse.Namespace) -> int:
    """Ask the launcher to restart one service alone; wait until it is healthy again.
    0 once it is, 1 when it failed to come back (the launcher keeps trying), 2 for an
    unknown name, 3 when the stack is not running."""
    state = read_state()
    launcher = int((state or {}).get("launcher_pid", 0))
    if not state or not _alive(launcher):
        _log("not running")
        return 3
    name = args.name
    if name not in state["services"]:
        _log(f"unknown service {name!r}; running: {', '.join(state['services'])}")
        return 2
    before = int(state["services"][name].get("restarts", 0))
    _requests_dir().mkdir(parents=True, exist_ok=True)
    (_requests_dir() / f"restart-{name}").write_text(str(time.time()))
    _log(f"asked the launcher (pid {launcher}) to restart {name}")
    deadline = time.monotonic() + HEALTH_TIMEOUT_S + 30
    while time.monotonic() < deadline:
        time.sleep(0.2)
        state = read_state()
        if not state or not _alive(launcher):
            _log("the launcher stopped")
            return 3
        info = state["services"][name]
        if int(info.get("restarts", 0)) <= before:
            continue
        if info.get("state") == "running":
            _log(f"{name} restarted: pid {info['pid']}, restart {info['restarts']}, healthy")
            return 0
        if info.get("state") == "backoff":
            why = (info.get("last_exit") or {}).get("why", "?")
            _log(f"{name} did not come back ({why}); the launcher keeps trying, see {info['log']}")
            return 1
    _log(f"{name} is not healthy yet; see `scripts/stack status`")
    return 1


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
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(int(info["pid"]), signal.SIGTERM)
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
    # The detached launcher's own output file, which it rotates like the services' logs.
    up.add_argument("--own-log", type=Path, help=argparse.SUPPRESS)
    sub.add_parser("status", help="show each service's state, restarts and health")
    restart = sub.add_parser("restart", help="restart one service alone")
    restart.add_argument("name", help="the service, as `scripts/stack status` lists it")
    sub.add_parser("down", help="stop the stack")
    args = parser.parse_args(argv)
    handler = {"up": cmd_up, "status": cmd_status, "restart": cmd_restart, "down": cmd_down}
    return handler[args.command](args)


if __name__ == "__main__":
    raise SystemExit(main())
