"""``langgraph dev`` on a port of our choosing, and proof that it is ours answering there.

``langgraph dev`` silently moves to another port when its port is taken, and a server
of someone else's may answer on the one we asked for. So a start counts only when the
process still runs, its log does not say it moved, ``/ok`` answers on *our* port and
that server lists *our* graphs (every graph of the config it was given).

The config is written into the server's own folder with absolute paths (graphs, the
``http.app`` and ``auth`` modules, dependencies), so the server can run anywhere and
its in-memory runtime's ``.langgraph_api/`` (threads, runs, checkpoints, the Store)
stays out of the checkout. The launcher (``scripts/stack``) does the same under
``DATA_DIR/agent-server/`` and uses :func:`served_graphs` and :func:`moved_port`; the
tests and benchmarks start servers with :func:`langgraph_dev`.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx

from runstack.processes import HOST, ROOT, ServiceHandle, free_port, spawn

PRODUCT_CONFIG = ROOT / "langgraph.json"
"""The checkout's ``langgraph.json`` (the graphs ``orchestrator`` and ``analyst``)."""
MODEL_KEYS = ("DEEPSEEK_API_KEY", "OPENAI_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_API_KEY")
"""Variables that would take the graphs off the offline planner."""
_MOVED = "already in use, using port"


def offline_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (default: the process environment) without model keys, with ``MODEL=offline``
    and LangSmith tracing off: the graphs run on the offline planner."""
    base = os.environ if env is None else env
    out = {k: v for k, v in base.items() if k not in MODEL_KEYS}
    out.update({"MODEL": "offline", "LANGSMITH_TRACING": "false"})
    return out


def absolute_config(
    source: Path | Mapping[str, Any], folder: Path, *, root: Path = ROOT, keep_env: bool = False
) -> Path:
    """``source`` (a ``langgraph.json`` or its content) with every ``./`` path made absolute
    under ``root``, written to ``folder/langgraph.json``; its path.

    The ``env`` file is dropped (whoever starts the server sets its environment), unless
    ``keep_env``: then it is kept, made absolute under ``root`` as well."""
    config = dict(
        json.loads(source.read_text(encoding="utf-8")) if isinstance(source, Path) else source
    )
    config["dependencies"] = [
        str(root / d.removeprefix("./")) if d.startswith(".") else d
        for d in config.get("dependencies", ["."])
    ]
    config["graphs"] = {name: _absolute(spec, root) for name, spec in config["graphs"].items()}
    for section, key in (("http", "app"), ("auth", "path")):
        part = config.get(section)
        if isinstance(part, dict) and isinstance(part.get(key), str):
            config[section] = {**part, key: _absolute(part[key], root)}
    env = config.pop("env", None)
    if keep_env and isinstance(env, str):
        config["env"] = _absolute(env if env.startswith(("/", "./")) else f"./{env}", root)
    path = folder / "langgraph.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def _absolute(spec: str, root: Path) -> str:
    return str(root / spec.removeprefix("./")) if spec.startswith("./") else spec


def shipped_auth_handler(config: Path = PRODUCT_CONFIG) -> str:
    """The shipped auth handler as ``langgraph.json`` names it to switch auth on: ``auth.py``
    beside the server's ``http.app`` (the two live in one package)."""
    app = json.loads(config.read_text(encoding="utf-8"))["http"]["app"]
    return f"{app.rsplit('/', 1)[0]}/auth.py:auth"


def served_graphs(url: str, headers: Mapping[str, str] | None = None) -> set[str] | None:
    """The graph ids the Agent Server at ``url`` lists, or None while it does not answer."""
    try:
        found = httpx.post(
            f"{url}/assistants/search", json={"limit": 100}, headers=headers, timeout=5
        )
        return {a.get("graph_id") for a in found.json()}
    except (httpx.HTTPError, ValueError, AttributeError, TypeError):
        return None


def moved_port(log_text: str) -> str | None:
    """The port ``langgraph dev`` says it moved to, if its log says so."""
    for line in log_text.splitlines():
        if _MOVED in line:
            return line.rsplit("using port", 1)[1].split()[0]
    return None


def _ready(handle: ServiceHandle, graphs: set[str], headers: Mapping[str, str] | None) -> bool:
    """True once ``handle`` serves ``graphs``; ``RuntimeError`` when it exited or moved."""
    if ended := handle.exited():
        raise RuntimeError(f"langgraph dev exited early: {ended}")
    if moved := moved_port(handle.log_tail(200)):
        msg = f"langgraph dev moved to port {moved} because {handle.port} was taken"
        raise RuntimeError(msg)
    if not handle.probe("/ok")[0]:
        return False
    return graphs <= (served_graphs(handle.url, headers) or set())


@contextlib.contextmanager
def langgraph_dev(
    config: Path | Mapping[str, Any] = PRODUCT_CONFIG,
    env: Mapping[str, str] | None = None,
    *,
    folder: Path | None = None,
    jobs: int | None = 8,
    timeout: float = 120,
    headers: Mapping[str, str] | None = None,
    keep: bool = False,
    every: float = 0.1,
) -> Iterator[ServiceHandle]:
    """Serve ``config`` with ``langgraph dev`` on a free loopback port; stop it afterwards.

    ``env`` goes over :func:`offline_env` of the current environment. ``folder`` is the
    server's working directory (reuse it to restart on the same checkpoints); without
    one a temporary folder is made and removed afterwards unless ``keep``. ``jobs``:
    ``--n-jobs-per-worker`` (None: langgraph's default). ``headers``: credentials for the
    readiness probe when the server's auth is on; ``every``: seconds between probes.
    Raises ``RuntimeError`` with the log tail when the server exits, moves, or does not
    list the config's graphs within ``timeout`` seconds."""
    own = folder is None
    folder = Path(tempfile.mkdtemp(prefix="langgraph-dev-")) if folder is None else folder
    folder.mkdir(parents=True, exist_ok=True)
    path = absolute_config(config, folder)
    graphs = set(json.loads(path.read_text(encoding="utf-8"))["graphs"])
    port = free_port()
    child_env = offline_env()
    # Fewer glibc malloc arenas: the server's worker threads otherwise each fragment their
    # own, and its resident size creeps up (as langgraph.json sets for deployed images).
    child_env.setdefault("MALLOC_ARENA_MAX", "2")
    child_env.update(env or {})
    child_env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), os.getenv("PYTHONPATH")]))
    argv = [sys.executable, "-m", "langgraph_cli", "dev", "--no-browser", "--no-reload",
            "--host", HOST, "--port", str(port), "--config", str(path)]  # fmt: skip
    if jobs is not None:
        argv += ["--n-jobs-per-worker", str(jobs)]
    log_path = folder / f"langgraph-dev-{port}.log"
    process = spawn(argv, env=child_env, log_path=log_path, cwd=folder)
    handle = ServiceHandle("langgraph dev", port, f"http://{HOST}:{port}", process, log_path)
    try:
        deadline = time.monotonic() + timeout
        while not _ready(handle, graphs, headers):
            if time.monotonic() > deadline:
                msg = (
                    f"langgraph dev is not serving {sorted(graphs)} on port {port} after "
                    f"{timeout} s:\n{handle.log_tail()}"
                )
                raise RuntimeError(msg)
            time.sleep(every)
        yield handle
    finally:
        handle.stop()
        if own and not keep:
            shutil.rmtree(folder, ignore_errors=True)
