"""Limits for the whole sandbox: a fork bomb, a memory bomb and a disk filler are contained.

Each runs twice: with what this host allows (``cgroups=auto``: a cgroup v2, or on a
hybrid host like CI a cgroup v1 ``pids`` cap) and with the watchdog alone
(``cgroups=off``), the fallback. Each time the ``execute`` result names the limit,
another sandbox runs a command meanwhile and afterwards, and nothing of the
offender is left running.

The fork bomb is a real exponential one, but bounded (about 4,000 processes at
most) so that a containment failure cannot take the test machine down with it.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from graphs.sandbox import BubblewrapSandbox, SandboxSettings, make_bubblewrap_sandbox
from graphs.sandbox.bubblewrap import _LIMITS_WRAPPER, check_bubblewrap
from graphs.sandbox.errors import SandboxUnavailableError

MB = 1024 * 1024

# Depth 11: 2 shells per level, so at most 2^12 processes if nothing stops it.
# Each leaf sleeps with a marker argument, to find survivors afterwards.
FORK_BOMB = (
    "bomb() { if [ $1 -gt 0 ]; then bomb $(($1 - 1)) & bomb $(($1 - 1)) & wait; "
    "else sleep 41.MARKER; fi; }; bomb 11"
)
MEMORY_BOMB = (
    "for i in 1 2 3 4; do python3 -c 'import time; x = bytearray(300 * 1024 * 1024); "
    "time.sleep(20)' & done; wait"
)
DISK_FILLER = "for i in 1 2 3; do head -c 200000000 /dev/zero > /data/fill$i.bin & done; wait"

Make = Callable[..., BubblewrapSandbox]


@pytest.fixture(params=["auto", "off"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Make:
    mode = str(request.param)

    def _make(thread_id: str = "offender", **overrides: object) -> BubblewrapSandbox:
        values: dict[str, object] = {
            "data_dir": tmp_path,
            "timeout_s": 60,
            "memory_mb": 1024,
            "max_processes": 64,
            "disk_mb": 1024,
            "cgroups": mode,
            **overrides,
        }
        return make_bubblewrap_sandbox(thread_id, settings=SandboxSettings(**values))  # type: ignore[arg-type]

    return _make


def _survivors(marker: str) -> list[int]:
    """Host processes whose command line carries ``marker``."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline:
            found.append(int(pid))
    return found


async def _with_a_bystander(
    offender_run: asyncio.Task[object], bystander: BubblewrapSandbox
) -> None:
    """Another sandbox and the host work while the offender runs, and after."""
    await asyncio.sleep(0.3)
    during = await bystander.aexecute("echo bystander-ok", timeout=30)
    assert during.exit_code == 0 and during.output.strip() == "bystander-ok", during
    await offender_run
    after = await bystander.aexecute("python3 -c 'print(6 * 7)'", timeout=30)
    assert after.output.strip() == "42", after
    host = await asyncio.create_subprocess_exec("true")
    assert await host.wait() == 0


async def test_a_fork_bomb_is_stopped_at_the_process_limit(make: Make) -> None:
    offender, bystander = make(), make("bystander")
    marker = f"{os.getpid()}{time.monotonic_ns() % 100000}"
    started = time.monotonic()

    run = asyncio.create_task(offender.aexecute(FORK_BOMB.replace("MARKER", marker), timeout=60))
    await _with_a_bystander(run, bystander)
    res = run.result()

    assert time.monotonic() - started < 30
    assert res.exit_code == 137, res.output[-500:]
    assert "reached its limit of 64 processes and threads" in res.output
    await asyncio.sleep(0.2)
    assert _survivors(f"41.{marker}") == []


async def test_a_memory_bomb_is_stopped_at_the_memory_limit(make: Make) -> None:
    # Each process stays under the per-process limit (512 MB); together they do not.
    offender, bystander = make(memory_mb=512), make("bystander")

    run = asyncio.create_task(offender.aexecute(MEMORY_BOMB, timeout=60))
    await _with_a_bystander(run, bystander)
    res = run.result()

    assert res.exit_code == 137, res.output[-500:]
    assert "memory limit of 512 MB" in res.output
    assert _survivors("bytearray(300") == []


async def test_a_disk_filler_is_stopped_at_the_workspace_quota(make: Make) -> None:
    offender, bystander = make(disk_mb=64), make("bystander")

    run = asyncio.create_task(offender.aexecute(DISK_FILLER, timeout=60))
    await _with_a_bystander(run, bystander)
    res = run.result()

    assert res.exit_code == 153, res.output[-500:]
    assert "disk quota of 64 MB was exceeded" in res.output
    # Each file was cut at the room the quota had left; three of them at most.
    written = sum(f.stat().st_size for f in (offender.root / "data").glob("fill*.bin"))
    assert written <= 3 * 64 * MB
    # Over quota: the file tools refuse to write, but cleaning up works and frees it.
    refused = await offender.awrite("/data/more.txt", "x" * 100_000)
    assert refused.error is not None and "disk quota of 64 MB" in refused.error
    cleaned = await offender.aexecute("rm /data/fill*.bin && echo cleaned")
    assert cleaned.output.strip() == "cleaned", cleaned
    assert (await offender.awrite("/data/more.txt", "x" * 100_000)).error is None
    again = await offender.aexecute("head -c 1000000 /dev/zero > /data/small.bin && echo fine")
    assert again.exit_code == 0 and again.output.strip() == "fine", again


def test_cpu_time_counts_every_process_together(make: Make) -> None:
    # Two busy processes: each alone stays under 2 s of CPU per second of wall time.
    sandbox = make(cpu_s=2)
    started = time.monotonic()

    res = sandbox.execute("for i in 1 2; do python3 -c 'while True: pass' & done; wait", timeout=30)

    assert res.exit_code == 152, res.output
    assert "CPU-time limit of 2 s exceeded" in res.output
    assert time.monotonic() - started < 10


def test_dev_is_read_only_and_dev_shm_is_small(make: Make) -> None:
    sandbox = make(tmp_mb=8)

    res = sandbox.execute(
        "echo x > /dev/file 2>&1; head -c 20000000 /dev/zero 2>&1 > /dev/shm/big; "
        "echo to-null > /dev/null && echo null-ok; stat -c %s /dev/shm/big"
    )

    assert "Read-only file system" in res.output
    assert "No space left on device" in res.output
    assert "null-ok" in res.output
    assert 0 < int(res.output.split()[-1]) <= 8 * MB


def test_the_sandboxs_pid_1_has_the_sandboxs_environment(make: Make) -> None:
    # bubblewrap is PID 1 inside; its environment is readable there (/proc/1/environ).
    sandbox = make()

    res = sandbox.execute("tr '\\0' '\\n' < /proc/1/environ; echo ===; env")

    init_env, _, command_env = res.output.partition("===")
    shell_added = ("PWD=", "SHLVL=", "_=")  # shells export these to what they run
    assert {v for v in init_env.split() if not v.startswith(shell_added)} == {
        v for v in command_env.split() if not v.startswith(shell_added)
    }, res.output
    assert f"PWD={os.getcwd()}" not in init_env.split()  # nor the host's working directory
    assert {v.partition("=")[0] for v in init_env.split()} >= {"PATH", "HOME", "LANG"}


def test_cgroups_required_without_cgroup_v2_is_a_start_up_error(tmp_path: Path) -> None:
    not_a_cgroup = tmp_path / "not-a-cgroup"
    settings = SandboxSettings(data_dir=tmp_path, cgroups="required", cgroup_parent=not_a_cgroup)

    with pytest.raises(SandboxUnavailableError, match="not-a-cgroup") as err:
        make_bubblewrap_sandbox("t", settings=settings)
    assert "SANDBOX_CGROUPS=auto" in str(err.value)
    assert not not_a_cgroup.exists()  # the probe cleaned up after itself


def test_rlimit_nproc_caps_a_sandbox_of_a_non_root_server(tmp_path: Path) -> None:
    """The no-cgroup path for servers that are not root: ulimit -u counts per user namespace.

    bubblewrap runs here as an unprivileged user (``nobody``) with the sandbox's own
    wrapper and a bash-only runtime; the bounded fork bomb never gets past the cap.
    """
    info = check_bubblewrap()
    # Once the bomb runs, nothing can fork: wait and count with bash builtins only.
    cmd = (
        "mkfifo /tmp/wait && exec 3<>/tmp/wait; "
        f"{{ {FORK_BOMB.replace('MARKER', '0')}; }} 2>/dev/null & "
        "read -t 2 -u 3; n=0; for p in /proc/[0-9]*; do n=$((n + 1)); done; echo $n"
    )
    argv = [
        info.path,
        "--unshare-all",
        "--unshare-user",
        "--die-with-parent",
        "--ro-bind",
        "/usr",
        "/usr",
        "--symlink",
        "usr/bin",
        "/bin",
        "--symlink",
        "usr/lib",
        "/lib",
        "--symlink",
        "usr/lib64",
        "/lib64",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
        "/bin/bash",
        "-c",
        _LIMITS_WRAPPER,
        "sandbox",
        "30",
        str(512 * 1024),
        str(1024),
        "16",
        cmd,
    ]
    as_nobody = {"user": 65534, "group": 65534, "extra_groups": []} if os.geteuid() == 0 else {}

    res = subprocess.run(
        argv, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL, **as_nobody
    )  # type: ignore[call-overload]

    assert res.returncode == 0, res.stderr
    assert 8 < int(res.stdout.split()[-1]) <= 16, res.stdout  # it filled the cap, no more
