"""A throw-away PostgreSQL server for a test: its own cluster in a temporary folder.

    with postgres_server() as url:       # postgresql+psycopg://erp@127.0.0.1:<port>/erp
        ...

The cluster is made with ``initdb`` (trust auth, loopback only, a private socket
folder), started with ``pg_ctl`` on a free port and removed afterwards. PostgreSQL
refuses to run as root, so under root the server runs as the ``postgres`` user the
Debian package creates. ``scripts/setup`` installs the server when it is missing;
without it the caller fails with a message saying so (a skip would hide a broken
machine).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from runstack.processes import HOST, free_port

DATABASE = "erp"
ROLE = "erp"


class PostgresMissing(RuntimeError):
    """No PostgreSQL server binaries on this machine."""


def server_bin_dir() -> Path:
    """The folder holding ``initdb`` and ``pg_ctl`` (Debian keeps them off PATH)."""
    on_path = shutil.which("initdb")
    if on_path:
        # Resolved: a symlink on PATH may sit apart from createdb and pg_ctl.
        return Path(on_path).resolve().parent
    # Newest major version first.
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/initdb"),
        key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0,
    )
    if not found:
        msg = (
            "PostgreSQL server binaries (initdb, pg_ctl) not found: run scripts/setup, "
            "which installs Debian's 'postgresql' package, or install it yourself."
        )
        raise PostgresMissing(msg)
    return Path(found[-1]).parent


def _as_server_user(argv: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", "postgres", "--", *argv]


def _run(argv: list[str]) -> None:
    result = subprocess.run(_as_server_user(argv), capture_output=True, text=True, timeout=120)
    if result.returncode != 0:
        msg = f"{' '.join(argv)} failed ({result.returncode}):\n{result.stdout}{result.stderr}"
        raise RuntimeError(msg)


@contextlib.contextmanager
def postgres_server() -> Iterator[str]:
    """Start a private PostgreSQL server; yield a SQLAlchemy URL of an empty database."""
    bin_dir = server_bin_dir()
    root = Path(tempfile.mkdtemp(prefix="pg-test-"))
    data, log = root / "data", root / "server.log"
    port = free_port()
    if os.geteuid() == 0:
        shutil.chown(root, user="postgres")
        root.chmod(0o700)
    started = False
    try:
        _run(
            [
                str(bin_dir / "initdb"),
                "-D",
                str(data),
                "-A",
                "trust",
                "-U",
                ROLE,
                "-E",
                "UTF8",
                "--locale=C.UTF-8",
                "--no-sync",
            ]
        )
        options = f"-p {port} -k {root} -c listen_addresses={HOST} -c fsync=off"
        _run(
            [str(bin_dir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(log), "-w", "start"]
        )
        started = True
        _run([str(bin_dir / "createdb"), "-h", HOST, "-p", str(port), "-U", ROLE, DATABASE])
        yield f"postgresql+psycopg://{ROLE}@{HOST}:{port}/{DATABASE}"
    finally:
        if started:
            with contextlib.suppress(RuntimeError, subprocess.TimeoutExpired):
                _run([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"])
        shutil.rmtree(root, ignore_errors=True)
