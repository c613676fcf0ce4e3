"""Finding out which cgroups a host allows, and the per-command cgroup itself.

The parsing and the decisions are checked on the texts and trees of real hosts
(this hybrid one, and a delegated cgroup v2); the cap is checked on this host's
kernel with whatever kind of cgroup it offers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from graphs.sandbox.cgroups import (
    PARENT_NAME,
    CgroupSupport,
    CommandCgroup,
    cgroup_mounts,
    detect_cgroups,
    own_cgroups,
)

# /proc/self/mountinfo and /proc/self/cgroup of this project's CI (a hybrid host).
HYBRID_MOUNTINFO = """\
31 25 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
HYBRID_CGROUP = "9:name=systemd:/\n8:pids:/\n4:memory:/process_api/3b20\n1:cpu,cpuacct:/\n0::/\n"
# A systemd service with Delegate=yes on a unified host.
UNIFIED_MOUNTINFO = "25 21 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"
UNIFIED_CGROUP = "0::/system.slice/agents.service/server\n"


def test_mounts_and_own_cgroups_of_a_hybrid_host() -> None:
    mounts = cgroup_mounts(HYBRID_MOUNTINFO)
    own = own_cgroups(HYBRID_CGROUP)

    assert [(str(m.path), m.version) for m in mounts] == [
        ("/sys/fs/cgroup/memory", 1),
        ("/sys/fs/cgroup/pids", 1),
        ("/sys/fs/cgroup/systemd", 1),
        ("/sys/fs/cgroup/unified", 2),
    ]
    assert "pids" in mounts[1].options
    assert own == {
        "name=systemd": "/",
        "pids": "/",
        "memory": "/process_api/3b20",
        "cpu": "/",
        "cpuacct": "/",
        "": "/",
    }


def _fake_proc(tmp_path: Path, mountinfo: str, cgroup: str) -> Path:
    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    (proc / "self" / "mountinfo").write_text(mountinfo.replace("/sys/fs/cgroup", str(tmp_path)))
    (proc / "self" / "cgroup").write_text(cgroup)
    return proc


def test_a_v2_tree_without_controllers_is_left_untouched(tmp_path: Path) -> None:
    proc = _fake_proc(tmp_path, HYBRID_MOUNTINFO, HYBRID_CGROUP)
    (tmp_path / "unified").mkdir()
    (tmp_path / "unified" / "cgroup.controllers").write_text("hugetlb\n")

    found = detect_cgroups(None, v1_fallback=False, proc=proc)

    assert found.parent is None
    assert "offers only hugetlb, not pids, memory" in found.reason
    assert not (tmp_path / "unified" / PARENT_NAME).exists()


def test_a_delegated_v2_service_gets_its_parent_beside_its_own_cgroup(tmp_path: Path) -> None:
    proc = _fake_proc(tmp_path, UNIFIED_MOUNTINFO, UNIFIED_CGROUP)
    service = tmp_path / "system.slice" / "agents.service"
    (service / "server").mkdir(parents=True)
    (service / "cgroup.controllers").write_text("cpu memory pids\n")

    # A plain folder is no cgroupfs, so the probe fails: but where it looked, and
    # that it cleaned up after itself, is what this shows.
    found = detect_cgroups(None, v1_fallback=False, proc=proc)

    assert found.parent is None
    assert str(service / PARENT_NAME) in found.reason
    assert not (service / PARENT_NAME).exists()


def test_a_v2_command_cgroup_holds_processes_and_memory(tmp_path: Path) -> None:
    support = CgroupSupport(tmp_path, "v2")

    cg = CommandCgroup(support, processes=64, memory_bytes=512 * 1024 * 1024)
    try:
        assert (cg.path / "pids.max").read_text() == "64"
        assert (cg.path / "memory.max").read_text() == str(512 * 1024 * 1024)
        assert (cg.path / "memory.swap.max").read_text() == "0"
        assert (cg.path / "memory.oom.group").read_text() == "1"
        assert cg.holds_memory
        (cg.path / "cpu.stat").write_text("usage_usec 2500000\nuser_usec 2000000\n")
        (cg.path / "memory.events").write_text("low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n")
        (cg.path / "pids.events").write_text("max 3\n")
        assert cg.cpu_seconds() == 2.5
        assert cg.memory_killed() and cg.pids_refused()
        argv = cg.attach_argv(["/usr/bin/bwrap", "true"])
        assert argv[:2] == ["/bin/sh", "-c"] and argv[-2:] == ["/usr/bin/bwrap", "true"]
        assert str(cg.path / "cgroup.procs") in argv
    finally:
        shutil.rmtree(cg.path)


def _pids_cgroup_of_this_host() -> CgroupSupport:
    if os.geteuid() != 0:
        return CgroupSupport(None, reason="not root")
    return detect_cgroups(None)


def test_detection_matches_what_this_host_offers() -> None:
    found = _pids_cgroup_of_this_host()
    mounts = cgroup_mounts(Path("/proc/self/mountinfo").read_text())
    v2 = [m for m in mounts if m.version == 2]
    v2_pids = bool(v2) and "pids" in (v2[0].path / "cgroup.controllers").read_text().split()
    v1_pids = any(m.version == 1 and "pids" in m.options for m in mounts)

    if os.geteuid() == 0 and v2_pids:
        assert found.kind == "v2", found
    elif os.geteuid() == 0 and v1_pids:
        assert found.kind == "v1-pids", found
        assert "not pids" in found.reason or "no cgroup2" in found.reason
    else:
        assert found.kind is None and found.reason


def test_the_command_cgroup_caps_processes_in_the_kernel() -> None:
    support = _pids_cgroup_of_this_host()
    if support.kind is None:
        pytest.fail(f"expected a cgroup on this host (root, CI): {support.reason}")
    cg = CommandCgroup(support, processes=8, memory_bytes=256 * 1024 * 1024)
    try:
        # 20 forks in a cgroup that allows 8 tasks, the forking process included.
        script = (
            "import os, time\n"
            "refused = 0\n"
            "for _ in range(20):\n"
            "    try:\n"
            "        if os.fork() == 0:\n"
            "            time.sleep(5)\n"
            "            os._exit(0)\n"
            "    except BlockingIOError:\n"
            "        refused += 1\n"
            "print(refused)\n"
        )
        res = subprocess.run(
            cg.attach_argv([sys.executable, "-c", script]),
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert res.returncode == 0, res.stderr
        assert int(res.stdout) >= 12, res.stdout  # 7 children at most got through
        assert 0 < cg.tasks() <= 8
        assert cg.pids_refused()
    finally:
        cg.kill()
        cg.remove()
    assert not cg.path.exists()


def test_the_check_command_says_what_holds_the_limits(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from graphs.sandbox.__main__ import main as sandbox_cli

    monkeypatch.setenv("SANDBOX_CGROUPS", "off")
    monkeypatch.setenv("SANDBOX_MAX_PROCESSES", "48")

    assert sandbox_cli(["check"]) == 0
    out = capsys.readouterr().out
    assert "sandbox limits: 48 processes, 1024 MB memory, CPU up to the wall time" in out
    assert "watchdog for processes, memory, CPU and disk (disabled by SANDBOX_CGROUPS=off)" in out
