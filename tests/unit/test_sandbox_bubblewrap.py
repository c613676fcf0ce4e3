"""The bubblewrap sandbox: what code inside can do, and what it cannot.

These run real bubblewrap processes (local, no sockets of their own except the
loopback listener that proves the network is cut off).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import shutil
import socket
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from graphs.sandbox import (
    BubblewrapSandbox,
    SandboxSettings,
    check_bubblewrap,
    make_bubblewrap_sandbox,
)
from graphs.sandbox.errors import SandboxUnavailableError
from tests.blocking import no_blocking_calls

REPO_ROOT = Path(__file__).resolve().parents[2]

# scripts/setup installs bubblewrap; its absence is a failure here, never a skip.
check_bubblewrap()


def settings_for(tmp_path: Path, **overrides: object) -> SandboxSettings:
    # Explicit limits, so a developer's .env cannot change what these tests see.
    values: dict[str, object] = {
        "data_dir": tmp_path,
        "timeout_s": 60,
        "cpu_s": None,
        "memory_mb": 1024,
        "max_output_bytes": 100_000,
        "max_file_mb": 256,
    }
    return SandboxSettings(**{**values, **overrides})  # type: ignore[arg-type]


@pytest.fixture
def make(tmp_path: Path) -> Callable[..., BubblewrapSandbox]:
    def _make(thread_id: str = "thread-a", **overrides: object) -> BubblewrapSandbox:
        return make_bubblewrap_sandbox(thread_id, settings=settings_for(tmp_path, **overrides))

    return _make


@pytest.fixture
def sandbox(make: Callable[..., BubblewrapSandbox]) -> BubblewrapSandbox:
    return make()


ANALYSIS_SCRIPT = """
import json
import numpy as np
import pandas as pd

df = pd.DataFrame({"supplier": ["NGK", "Bosch", "Denso"], "price": [12.5, 11.0, 13.25]})
df["rank"] = df["price"].rank().astype(int)
result = {
    "mean_price": float(np.mean(df["price"])),
    "suppliers": df.sort_values("rank").to_dict(orient="records"),
}
with open("/data/analysis_result.json", "w", encoding="utf-8") as fh:
    json.dump(result, fh)
print("wrote", len(df), "rows")
"""


def test_script_output_is_visible_to_the_file_tools(sandbox: BubblewrapSandbox) -> None:
    assert sandbox.write("/analysis/analyse.py", ANALYSIS_SCRIPT).error is None

    res = sandbox.execute("python3 /analysis/analyse.py")

    assert res.exit_code == 0, res.output
    assert "wrote 3 rows" in res.output
    read = sandbox.read("/data/analysis_result.json")
    assert read.error is None and read.file_data is not None
    data = json.loads(read.file_data["content"])
    assert data["mean_price"] == pytest.approx(12.25)
    assert [s["supplier"] for s in data["suppliers"]] == ["Bosch", "NGK", "Denso"]
    assert (sandbox.root / "data" / "analysis_result.json").is_file()


def test_relative_paths_and_cwd_are_the_workspace_root(sandbox: BubblewrapSandbox) -> None:
    res = sandbox.execute("pwd && echo hi > data/rel.txt && id -u && echo $HOME")

    assert res.output.split() == ["/", "65534", "/tmp"]
    assert sandbox.read("/data/rel.txt").file_data == {"content": "hi\n", "encoding": "utf-8"}


def test_host_files_outside_the_workspace_are_not_visible(
    sandbox: BubblewrapSandbox, tmp_path: Path
) -> None:
    secret = tmp_path / "host-secret.txt"
    secret.write_text("TOP-SECRET")
    targets = [
        str(secret),
        str(REPO_ROOT / "pyproject.toml"),
        str(REPO_ROOT / ".env"),
        "/etc/shadow",
        "/etc/passwd",
        "/root/.bashrc",
        str(Path.home() / ".bash_history"),
    ]
    script = "; ".join(f"cat {t} 2>&1" for t in targets)

    res = sandbox.execute(script)

    assert "TOP-SECRET" not in res.output
    assert res.output.count("No such file or directory") == len(targets), res.output
    assert (REPO_ROOT / "pyproject.toml").is_file()  # it exists on the host


def test_the_runtime_is_read_only(sandbox: BubblewrapSandbox) -> None:
    res = sandbox.execute(
        "touch /usr/evil 2>&1; python3 -c 'import numpy, pathlib; "
        'pathlib.Path(numpy.__file__).with_name("evil.py").write_text("x")\' 2>&1 | tail -1'
    )

    assert res.output.count("Read-only file system") == 2, res.output


def test_no_network_and_no_dns(sandbox: BubblewrapSandbox) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        # The listener is reachable from the host ...
        socket.create_connection(("127.0.0.1", port), timeout=2).close()

        # ... but not from inside the sandbox, nor is any name resolvable.
        res = sandbox.execute(
            "python3 - <<'EOF'\n"
            "import socket\n"
            "for what, call in [\n"
            f"    ('connect', lambda: socket.create_connection(('127.0.0.1', {port}), 2)),\n"
            "    ('dns', lambda: socket.getaddrinfo('example.com', 80)),\n"
            "]:\n"
            "    try:\n"
            "        call()\n"
            "        print(what, 'OK')\n"
            "    except OSError as exc:\n"
            "        print(what, 'FAILED', type(exc).__name__)\n"
            "EOF"
        )

    assert "connect FAILED ConnectionRefusedError" in res.output, res.output
    assert "dns FAILED gaierror" in res.output, res.output
    assert " OK" not in res.output


def test_host_environment_does_not_leak(
    sandbox: BubblewrapSandbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SUPER_SECRET_TOKEN", "sk-live-123")

    res = sandbox.execute("env")

    assert "sk-live-123" not in res.output
    assert "SUPER_SECRET_TOKEN" not in res.output


def test_cpu_burner_is_killed_at_the_cpu_limit(make: Callable[..., BubblewrapSandbox]) -> None:
    sandbox = make(cpu_s=1)
    started = time.monotonic()

    res = sandbox.execute("python3 -c 'while True: pass'", timeout=20)

    assert time.monotonic() - started < 10
    assert res.exit_code == 152
    assert "CPU-time limit of 1 s exceeded" in res.output


def test_wall_time_limit_kills_the_process_group(sandbox: BubblewrapSandbox) -> None:
    started = time.monotonic()

    res = sandbox.execute("sleep 30 & sleep 30; touch /data/late", timeout=1)

    assert time.monotonic() - started < 5
    assert res.exit_code == 124
    assert "wall-time limit of 1 s exceeded" in res.output
    assert not (sandbox.root / "data" / "late").exists()


def test_memory_hog_is_stopped(make: Callable[..., BubblewrapSandbox]) -> None:
    sandbox = make(memory_mb=512)

    res = sandbox.execute("python3 -c 'x = bytearray(1024 * 1024 * 1024)'")

    assert res.exit_code != 0
    assert "MemoryError" in res.output
    assert "limit is 512 MB" in res.output


def test_file_size_limit(make: Callable[..., BubblewrapSandbox]) -> None:
    sandbox = make(max_file_mb=1)

    res = sandbox.execute("head -c 3000000 /dev/zero > /data/big.bin")

    assert res.exit_code == 153
    assert "larger than 1 MB" in res.output
    assert (sandbox.root / "data" / "big.bin").stat().st_size <= 1024 * 1024


def test_large_output_keeps_head_and_tail(make: Callable[..., BubblewrapSandbox]) -> None:
    sandbox = make(max_output_bytes=10_000)

    res = sandbox.execute("echo FIRST; yes filler | head -n 200000; echo LAST")

    assert res.truncated is True
    assert res.exit_code == 0
    assert res.output.startswith("FIRST")
    assert res.output.rstrip().endswith("LAST")
    assert "bytes omitted" in res.output
    assert len(res.output) < 11_000


def test_background_processes_do_not_outlive_the_command(sandbox: BubblewrapSandbox) -> None:
    res = sandbox.execute("(sleep 1; touch /data/ghost) > /dev/null 2>&1 & echo started")

    assert res.output.strip() == "started"
    time.sleep(1.5)
    assert not (sandbox.root / "data" / "ghost").exists()


def test_two_threads_are_isolated(make: Callable[..., BubblewrapSandbox]) -> None:
    alice, bob = make("thread-alice"), make("thread-bob")
    alice.execute("echo alice-private > /data/secret.txt")

    res = bob.execute("cat /data/secret.txt 2>&1; ls /")

    assert "alice-private" not in res.output
    assert "No such file or directory" in res.output
    assert bob.read("/data/secret.txt").error is not None
    assert alice.root != bob.root and alice.root.parent == bob.root.parent


def test_symlinks_left_by_a_script_do_not_let_file_tools_out(
    sandbox: BubblewrapSandbox, tmp_path: Path
) -> None:
    secret = tmp_path / "outside.txt"
    secret.write_text("TOP-SECRET")
    sandbox.execute(
        f"ln -s {secret} /data/link.txt; ln -s ../../../../../../../ /data/up; "
        "ln -s /usr/bin /data/bin"
    )

    for path in ("/data/link.txt", "/data/up" + str(secret), "/data/bin/bash"):
        res = sandbox.read(path)
        assert res.error is not None and "refused" in res.error, (path, res)
    downloads = sandbox.download_files(["/data/link.txt"])
    assert downloads[0].content is None
    grep = sandbox.grep("TOP-SECRET", "/")
    assert not grep.matches


def test_a_tampered_mount_point_is_repaired(sandbox: BubblewrapSandbox) -> None:
    # Renaming a folder above a mount point and leaving a symlink in its place
    # must neither break the next run nor make bubblewrap follow the link.
    sandbox.execute("mv /usr /usr2 2>/dev/null; mv /root /root2 2>/dev/null; ln -s /etc /root")

    res = sandbox.execute("python3 -c 'import numpy; print(\"ok\")'")

    assert res.output.strip() == "ok", res.output
    assert not (sandbox.root / "root").is_symlink()


def test_bad_timeouts_are_refused(sandbox: BubblewrapSandbox) -> None:
    with pytest.raises(ValueError, match="positive"):
        sandbox.execute("true", timeout=0)
    with pytest.raises(ValueError, match="maximum"):
        sandbox.execute("true", timeout=100_000)
    assert sandbox.execute("").exit_code == 1


async def test_aexecute_does_not_block_the_event_loop(sandbox: BubblewrapSandbox) -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.05)
            ticks += 1

    task = asyncio.create_task(ticker())
    try:
        # A blocking call anywhere on the way (subprocess wait, workspace I/O) raises here.
        with no_blocking_calls(["graphs.sandbox"]):
            res = await sandbox.aexecute("sleep 1; echo done")
    finally:
        task.cancel()
    assert res.output.strip() == "done"
    # And the loop did run other work while the command slept.
    assert ticks >= 1


def _running(marker: str) -> list[int]:
    """Processes whose command line holds ``marker`` (bwrap, the shell, the command)."""
    found = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            with contextlib.suppress(OSError):
                if marker.encode() in (proc / "cmdline").read_bytes():
                    found.append(int(proc.name))
    return found


async def _gone(marker: str, within_s: float = 5.0) -> list[int]:
    """The processes holding ``marker`` still there after ``within_s`` (reaping takes a
    moment); an empty list when they all went."""
    deadline = time.monotonic() + within_s
    while (left := _running(marker)) and time.monotonic() < deadline:  # noqa: ASYNC110 - /proc
        await asyncio.sleep(0.05)
    return left


async def test_cancelling_aexecute_kills_the_command(sandbox: BubblewrapSandbox) -> None:
    # A long command, so that however late the cancel lands on a busy machine, the command
    # is still running then: what is checked is that it is killed, not that it was slow.
    marker = f"cancel-me-{uuid.uuid4().hex}"
    task = asyncio.create_task(sandbox.aexecute(f"sleep 30; touch /data/{marker}"))
    deadline = time.monotonic() + 10
    while not _running(marker) and time.monotonic() < deadline:  # noqa: ASYNC110 - /proc
        await asyncio.sleep(0.02)
    assert _running(marker), "the command never started"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert await _gone(marker) == []
    assert not (sandbox.root / "data" / marker).exists()
    # The lock was released: the sandbox still works.
    assert (await sandbox.aexecute("echo again")).output.strip() == "again"


async def test_a_command_cancelled_at_any_moment_of_its_start_never_runs_on(
    sandbox: BubblewrapSandbox,
) -> None:
    # A run cancelled while its command is still being started (preparing the mounts and
    # limits, spawning bwrap, waiting for the namespaces) must not leave the command going.
    markers = []
    for delay in (0.0, 0.001, 0.003, 0.006, 0.01, 0.02, 0.04, 0.08, 0.15):
        marker = f"cancel-early-{uuid.uuid4().hex}"
        markers.append(marker)
        task = asyncio.create_task(sandbox.aexecute(f"sleep 30; touch /data/{marker}"))
        await asyncio.sleep(delay)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    assert [m for m in markers if await _gone(m)] == []
    assert (await sandbox.aexecute("echo again")).output.strip() == "again"


# A bubblewrap whose namespace init leaves bubblewrap's session at once but binds its
# life to bubblewrap's (--die-with-parent) only later, as the real one's does after its
# mounts: a kill of bubblewrap alone in between orphans the init, and the command runs
# on. This stand-in makes that moment half a second long, so a cancel always lands in it.
_SLOW_TO_BIND_BWRAP = """#!{python}
import json, os, sys, time
args = sys.argv[1:]
if "--info-fd" not in args:  # the start-up check
    os.execv({real!r}, [{real!r}, *args])
at = args.index("--info-fd")
info_fd = int(args[at + 1])
del args[at : at + 2]
init = os.fork()
if init == 0:
    os.setsid()
    time.sleep(0.5)
    os.execv({real!r}, [{real!r}, *args])
os.write(info_fd, json.dumps({{"child-pid": init}}).encode())
os.close(info_fd)
_, status = os.waitpid(init, 0)
sys.exit(os.waitstatus_to_exitcode(status) & 0xFF)
"""


async def test_a_cancel_kills_a_sandbox_init_that_left_bubblewraps_session(
    tmp_path: Path, make: Callable[..., BubblewrapSandbox]
) -> None:
    real = shutil.which("bwrap")
    assert real is not None
    fake = tmp_path / "slow-to-bind-bwrap"
    fake.write_text(_SLOW_TO_BIND_BWRAP.format(python=sys.executable, real=real))
    fake.chmod(0o755)
    sandbox = make(bwrap_path=str(fake))
    marker = f"orphan-{uuid.uuid4().hex}"
    task = asyncio.create_task(sandbox.aexecute(f"sleep 2; touch /data/{marker}"))
    deadline = time.monotonic() + 10
    while len(_running(marker)) < 2 and time.monotonic() < deadline:  # noqa: ASYNC110 - /proc
        await asyncio.sleep(0.01)
    assert len(_running(marker)) >= 2, "the stand-in never forked its init"
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert await _gone(marker) == []
    await asyncio.sleep(3)  # past the command's own sleep: had it lived, it would have written
    assert not (sandbox.root / "data" / marker).exists()


def test_missing_bubblewrap_is_a_clear_start_up_error(tmp_path: Path) -> None:
    settings = settings_for(tmp_path, bwrap_path="/nonexistent/bwrap")

    with pytest.raises(SandboxUnavailableError, match="apt-get install bubblewrap"):
        BubblewrapSandbox(tmp_path / "ws", settings=settings)
    assert not (tmp_path / "ws").exists()


@pytest.fixture
def fake_bwrap(tmp_path: Path) -> Iterator[Path]:
    # A "bwrap" that reports a version but cannot create namespaces.
    fake = tmp_path / "bin" / "bwrap"
    fake.parent.mkdir()
    fake.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = --version ]; then echo "bubblewrap 0.8.0"; exit 0; fi\n'
        "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1\n"
    )
    fake.chmod(0o755)
    yield fake
    check_bubblewrap.cache_clear()


def test_bubblewrap_without_namespaces_is_a_clear_error(fake_bwrap: Path) -> None:
    with pytest.raises(SandboxUnavailableError, match="user namespaces") as err:
        check_bubblewrap(str(fake_bwrap))
    assert "Permission denied" in str(err.value)


def test_runtime_mount_points_stay_out_of_listings(sandbox: BubblewrapSandbox) -> None:
    sandbox.execute("echo x > /data/a.txt")

    assert {e["path"] for e in sandbox.ls("/").entries or []} == {
        "/analysis/",
        "/data/",
        "/skills/",
    }
    assert [m["path"] for m in sandbox.glob("**/*").matches or []] == ["/data/a.txt"]
    assert [m["path"] for m in sandbox.glob("*").matches or []] == ["/data/a.txt"]
