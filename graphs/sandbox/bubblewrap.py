"""Local sandbox: agent commands run under bubblewrap, one workspace per thread.

Inside the sandbox the thread's workspace is mounted read-write as ``/``, so a
script writing ``/data/analysis_result.json`` creates exactly the file the file
tools call ``/data/analysis_result.json``. On top of it bubblewrap mounts, read-only:
``/usr`` (and ``/bin``, ``/lib*``, ``/sbin`` as on the host), the dynamic-linker
files of ``/etc``, and the Python installation running this process (its base
prefix and its virtualenv, at their host paths, so ``python3`` has numpy and
pandas). There is no network, no host ``$HOME``, a private ``/tmp`` and
``/dev/shm`` (size-limited tmpfs), a read-only ``/dev``, a private ``/proc``, a clean
environment (bubblewrap itself, the sandbox's PID 1, gets the same one), an
unprivileged uid, and limits for the whole sandbox on processes, memory, CPU time,
wall time and workspace disk (:mod:`graphs.sandbox.limits`), on top of per-process
limits on CPU time, address space, file size and processes, and a cap on output.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import functools
import json
import logging
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Awaitable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from deepagents.backends.protocol import ExecuteResponse, SandboxBackendProtocol

from graphs.sandbox import beneath
from graphs.sandbox.errors import SandboxUnavailableError
from graphs.sandbox.limits import MB, CommandLimits, require_cgroups
from graphs.sandbox.output import TIMEOUT_EXIT_CODE, OutputCapture
from graphs.sandbox.settings import SandboxSettings
from graphs.sandbox.workspace import WorkspaceFiles, root_fd, workspace_path

logger = logging.getLogger(__name__)

INSTALL_HINT = (
    "Install it with `apt-get install bubblewrap` (Debian/Ubuntu), "
    "`dnf install bubblewrap` (Fedora) or `pacman -S bubblewrap` (Arch)."
)

_SANDBOX_UID = "65534"  # nobody: no privileges even inside the sandbox's user namespace
_ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime")
_ROOT_LINK_DIRS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_MEMORY_HINTS = re.compile(r"MemoryError|Cannot allocate memory|bad_alloc|out of memory", re.I)

# Set limits with the shell's ulimit, then replace the wrapper with the
# command's shell. Hard limits cannot be raised again from inside. The CPU hard
# limit sits one second above the soft one so the kernel sends SIGXCPU (which we
# can name) before SIGKILL (which we cannot tell from other kills). ulimit -u
# counts the processes of the sandbox's own user namespace (Linux 5.14+), so it
# caps this sandbox alone; the kernel exempts real root, hence the pids cgroup or
# the watchdog (graphs.sandbox.limits).
_LIMITS_WRAPPER = (
    'ulimit -S -t "$1" && ulimit -H -t "$(($1 + 1))" && ulimit -v "$2" && ulimit -f "$3" '
    '&& ulimit -u "$4" || { echo "[sandbox] could not set resource limits" >&2; exit 125; }; '
    'shift 4; exec /bin/bash -c "$1"'
)

T = TypeVar("T")


@dataclass(frozen=True)
class BubblewrapInfo:
    """A bubblewrap that was just seen creating its namespaces."""

    path: str
    version: tuple[int, ...]
    disable_userns: bool

    def __str__(self) -> str:
        return f"bubblewrap {'.'.join(map(str, self.version))} at {self.path}"


@functools.lru_cache(maxsize=8)
def check_bubblewrap(bwrap: str = "bwrap") -> BubblewrapInfo:
    """Verify that bubblewrap is installed and can create its namespaces here.

    Runs ``true`` in a throw-away sandbox with the same isolation flags the real
    commands use. Successful results are cached per executable.

    Raises:
        SandboxUnavailableError: bubblewrap is missing, or the kernel or container
            forbids the namespaces it needs; the message says what to do.
    """
    path = shutil.which(bwrap)
    if path is None:
        msg = (
            f"The local sandbox needs bubblewrap ('{bwrap}' not found on PATH). "
            f"{INSTALL_HINT} Agent code is never run on the host without it; "
            "alternatively set SANDBOX_PROVIDER=opensandbox."
        )
        raise SandboxUnavailableError(msg)
    try:
        out = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=10, check=False
        )
        version = tuple(int(n) for n in re.findall(r"\d+", out.stdout)[:3]) or (0,)
    except (OSError, subprocess.SubprocessError) as exc:
        msg = f"Cannot run bubblewrap at {path}: {exc}. {INSTALL_HINT}"
        raise SandboxUnavailableError(msg) from exc
    info = BubblewrapInfo(path=path, version=version, disable_userns=version >= (0, 8))
    probe = [
        *_isolation_args(info),
        "--ro-bind",
        "/usr",
        "/usr",
        *_root_link_args(),
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "/usr/bin/true",
    ]
    try:
        res = subprocess.run(probe, capture_output=True, text=True, timeout=20, check=False)
    except (OSError, subprocess.SubprocessError) as exc:
        msg = f"bubblewrap at {path} failed to start: {exc}"
        raise SandboxUnavailableError(msg) from exc
    if res.returncode != 0:
        msg = (
            f"bubblewrap at {path} cannot create its sandbox: {res.stderr.strip()}. "
            "It needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, "
            "user.max_user_namespaces > 0; on Ubuntu 24.04 an AppArmor profile for bwrap) "
            "and, inside Docker, a seccomp profile that allows unshare/mount."
        )
        raise SandboxUnavailableError(msg)
    return info


def _isolation_args(info: BubblewrapInfo) -> list[str]:
    args = [
        info.path,
        "--unshare-all",
        "--unshare-user",
        "--uid",
        _SANDBOX_UID,
        "--gid",
        _SANDBOX_UID,
        "--cap-drop",
        "ALL",
        "--hostname",
        "sandbox",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
    ]
    if info.disable_userns:
        args.append("--disable-userns")
    return args


def _root_link_args() -> list[str]:
    """Mirror the host's /bin, /lib*, /sbin: symlinks on merged-/usr systems, else binds."""
    args: list[str] = []
    for name in _ROOT_LINK_DIRS:
        host = Path("/") / name
        if host.is_symlink():
            args += ["--symlink", os.readlink(host), f"/{name}"]
        elif host.is_dir():
            args += ["--ro-bind", str(host), f"/{name}"]
    return args


@dataclass(frozen=True)
class RuntimeMounts:
    """The read-only runtime shown inside every sandbox."""

    args: tuple[str, ...]
    """bubblewrap arguments mounting the runtime over the workspace root."""
    dirs: tuple[str, ...]
    """Absolute in-sandbox paths that are directory mount points."""
    files: tuple[str, ...]
    """Absolute in-sandbox paths that are file mount points."""
    links: tuple[tuple[str, str], ...]
    """(path, target) of the symlinks bubblewrap creates."""
    path_env: str
    """PATH inside the sandbox."""

    @property
    def reserved(self) -> frozenset[str]:
        """Top-level names the runtime occupies in the workspace."""
        paths = [*self.dirs, *self.files, *(p for p, _ in self.links), "/proc", "/dev", "/tmp"]
        return frozenset(Path(p).parts[1] for p in paths)


def python_runtime_dirs() -> list[Path]:
    """Folders of the running Python (base install and virtualenv) not under /usr.

    Discovered from ``sys.base_prefix`` and ``sys.prefix`` so the sandbox offers
    the same interpreter and packages, wherever the venv lives.
    """
    found: list[Path] = []
    for prefix in (sys.base_prefix, sys.prefix):
        p = Path(prefix).resolve()
        if p.is_relative_to("/usr") or any(p.is_relative_to(f) for f in found):
            continue
        found.append(p)
    return found


@functools.lru_cache(maxsize=8)
def runtime_mounts(extra_ro_binds: tuple[Path, ...] = ()) -> RuntimeMounts:
    """Work out the read-only mounts that give sandboxed code a Python runtime."""
    args: list[str] = ["--ro-bind", "/usr", "/usr"]
    dirs: list[str] = ["/usr"]
    links: list[tuple[str, str]] = []
    link_args = _root_link_args()
    for i in range(0, len(link_args), 3):
        kind, src, dest = link_args[i : i + 3]
        args += [kind, src, dest]
        if kind == "--symlink":
            links.append((dest, src))
        else:
            dirs.append(dest)
    files: list[str] = []
    for name in _ETC_FILES:
        host = Path("/etc") / name
        if host.exists():
            args += ["--ro-bind", str(host), str(host)]
            (dirs if host.resolve().is_dir() else files).append(str(host))
    extra = [p.resolve() for p in extra_ro_binds]
    for d in [*python_runtime_dirs(), *extra]:
        if d.is_relative_to("/usr") or not d.exists():
            continue
        args += ["--ro-bind", str(d), str(d)]
        dirs.append(str(d))
    search = ["/usr/local/bin", "/usr/bin", "/bin"]
    if sys.prefix != sys.base_prefix:  # a virtualenv: its python3 comes first
        search.insert(0, str(Path(sys.prefix) / "bin"))
    return RuntimeMounts(
        args=tuple(args),
        dirs=tuple(dirs),
        files=tuple(files),
        links=tuple(links),
        path_env=":".join(search),
    )


def sandbox_env(path_env: str) -> dict[str, str]:
    """The whole environment inside the sandbox (and of bubblewrap, its PID 1)."""
    return {
        "PATH": path_env,
        "HOME": "/tmp",
        "TMPDIR": "/tmp",
        "USER": "sandbox",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "PYTHONNOUSERSITE": "1",
        # BLAS thread pools reserve address space per thread; one thread keeps
        # numpy well inside the memory limit.
        "OPENBLAS_NUM_THREADS": "1",
        "OMP_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "MPLBACKEND": "Agg",
        "MPLCONFIGDIR": "/tmp",
    }


def _env_args(env: dict[str, str]) -> list[str]:
    args: list[str] = []
    for key, value in env.items():
        args += ["--setenv", key, value]
    return args


def _remove_at(dir_fd: int, name: str) -> None:
    """Remove ``name`` of ``dir_fd`` whatever it is; a folder's links are removed, not followed."""
    try:
        st = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(name, dir_fd=dir_fd)
    else:
        os.unlink(name, dir_fd=dir_fd)


def _ensure_dir(root: int, parts: list[str]) -> int:
    """Make ``parts`` real folders beneath ``root`` (replacing links a script left); its fd."""
    cur = os.dup(root)
    try:
        for name in parts:
            try:
                st = os.stat(name, dir_fd=cur, follow_symlinks=False)
                if not stat.S_ISDIR(st.st_mode):
                    _remove_at(cur, name)
            except FileNotFoundError:
                pass
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, 0o755, dir_fd=cur)
            nxt = beneath.open_beneath(cur, [name], os.O_RDONLY | os.O_DIRECTORY)
            os.close(cur)
            cur = nxt
        return cur
    except BaseException:
        os.close(cur)
        raise


def _prepare_mount_points(root: Path, mounts: RuntimeMounts) -> None:
    """Repair the workspace's mount points before bubblewrap uses them.

    Code in an earlier run could have replaced a mount point (or a folder above
    one) with a symlink; bubblewrap would follow it while setting up. Every step
    goes through descriptors, never following a link.
    """
    with root_fd(root) as rfd:
        for d in [*mounts.dirs, "/proc", "/dev", "/tmp"]:
            os.close(_ensure_dir(rfd, beneath.split_parts(d)))
        # A file mount point may stay a file; a link or folder in its place goes.
        # bubblewrap (0.8) refuses to create a symlink that already exists, even
        # one it left itself, so the links are removed before every run.
        for path, keep_files in [
            *((f, True) for f in mounts.files),
            *((ln, False) for ln, _ in mounts.links),
        ]:
            parts = beneath.split_parts(path)
            fd = _ensure_dir(rfd, parts[:-1])
            try:
                st = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
                if not (keep_files and stat.S_ISREG(st.st_mode)):
                    _remove_at(fd, parts[-1])
            except FileNotFoundError:
                pass
            finally:
                os.close(fd)


async def _stop(proc: asyncio.subprocess.Process, limits: CommandLimits) -> None:
    """Kill the whole sandbox of ``proc`` and reap bubblewrap, even when cancelled."""
    # ``limits.kill``: the namespace's init first (every process inside dies with it, at
    # once), then bubblewrap, then what the cgroup holds; then bubblewrap's own process
    # group (bubblewrap leads it; the sandboxed processes are in a session of their own).
    limits.kill()
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)
    # Reap it (SIGKILL makes this quick) so no transport is left unclosed.
    await asyncio.shield(proc.wait())


async def _to_the_end(aw: Awaitable[T]) -> tuple[T, bool]:
    """Await ``aw`` to its end even when cancelled meanwhile, and say whether we were.

    For short steps that must not be cut in half (starting a process); the caller
    then acts on the cancel itself.
    """
    fut = asyncio.ensure_future(aw)
    cancelled = False
    while True:
        try:
            return await asyncio.shield(fut), cancelled
        except asyncio.CancelledError:
            if fut.cancelled():
                raise
            cancelled = True


def run_coroutine_sync(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion from sync code, even under a running event loop."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    # Called from a loop's own thread: run on a private loop in a helper thread
    # rather than fail (the caller is blocked either way, by its own choice).
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coro).result()


class BubblewrapSandbox(WorkspaceFiles, SandboxBackendProtocol):
    """A deepagents sandbox backend: bubblewrap commands plus confined host file access.

    Use it as ``create_deep_agent(backend=...)`` or as the ``default`` of a
    ``CompositeBackend``; either way the agent gets the ``execute`` tool. Files are
    read and written on the host inside the workspace; commands see the same
    files at the same paths.
    """

    def __init__(self, workspace: str | Path, *, settings: SandboxSettings | None = None) -> None:
        """Serve ``workspace`` (created if missing) and check that bubblewrap works.

        Raises:
            SandboxUnavailableError: bubblewrap is missing or cannot run here, or
                ``SANDBOX_CGROUPS=required`` and no cgroup v2 can be used.
        """
        self.settings = settings or SandboxSettings()
        self._bwrap = check_bubblewrap(self.settings.bwrap_path)
        require_cgroups(self.settings)  # also finds out once what this host allows
        self._mounts = runtime_mounts(tuple(self.settings.extra_ro_binds))
        super().__init__(
            Path(workspace).resolve(),
            reserved=self._mounts.reserved,
            quota_bytes=self.settings.disk_mb * MB,
        )

    @property
    def id(self) -> str:
        """Identifies the workspace: ``bwrap-<folder name>``."""
        return f"bwrap-{self.root.name}"

    def command_argv(
        self,
        command: str,
        *,
        cpu_s: int,
        file_kb: int | None = None,
        info_fd: int | None = None,
    ) -> list[str]:
        """The full bubblewrap command line that runs ``command`` (for logs and tests).

        ``file_kb`` overrides the per-file size limit (the disk quota left);
        ``info_fd`` is where bubblewrap writes the sandbox's PID and namespaces.
        """
        s = self.settings
        shm = str(s.tmp_mb * MB)
        return [
            *_isolation_args(self._bwrap),
            *(["--info-fd", str(info_fd)] if info_fd is not None else []),
            *_env_args(sandbox_env(self._mounts.path_env)),
            "--bind",
            str(self.root),
            "/",
            # The private /tmp first: a runtime (venv) that lives under /tmp on the host
            # (a checkout in /tmp, as CI's may be) is bound on top of it, not hidden by it.
            "--size",
            shm,
            "--tmpfs",
            "/tmp",
            *self._mounts.args,
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            # /dev is an unlimited tmpfs: only /dev/shm (sized) stays writable.
            "--size",
            shm,
            "--tmpfs",
            "/dev/shm",
            "--remount-ro",
            "/dev",
            "--chdir",
            "/",
            "/bin/bash",
            "-c",
            _LIMITS_WRAPPER,
            "sandbox",
            str(cpu_s),
            str(s.memory_mb * 1024),
            str(file_kb if file_kb is not None else s.max_file_mb * 1024),
            str(s.max_processes),
            command,
        ]

    def _effective_timeout(self, timeout: int | None) -> int:
        effective = self.settings.timeout_s if timeout is None else timeout
        if effective <= 0:
            msg = f"timeout must be a positive number of seconds, got {effective}"
            raise ValueError(msg)
        if effective > self.settings.max_timeout_s:
            limit = self.settings.max_timeout_s
            msg = f"timeout {effective}s exceeds the sandbox maximum of {limit}s"
            raise ValueError(msg)
        return effective

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run ``command`` with ``bash -c`` inside the sandbox; see :meth:`aexecute`."""
        return run_coroutine_sync(self.aexecute(command, timeout=timeout))

    async def aexecute(
        self,
        command: str,
        *,
        timeout: int | None = None,  # noqa: ASYNC109 - the protocol's per-command limit
    ) -> ExecuteResponse:
        """Run ``command`` with ``bash -c`` in the sandbox, the workspace as ``/``.

        Returns combined stdout and stderr (head and tail kept within
        ``max_output_bytes``, ``truncated`` set when bytes were dropped), and the
        exit code: 124 when the wall-time limit killed the command, 152 for the
        CPU-time limit, 153 for the file size limit or the disk quota, 137 when the
        whole sandbox was killed at its memory or process limit; the output then
        ends with a ``[sandbox]`` line saying which limit it was.

        Raises:
            ValueError: ``timeout`` is not positive or above ``max_timeout_s``.
        """
        if not command or not isinstance(command, str):
            return ExecuteResponse(output="Error: Command must be a non-empty string.", exit_code=1)
        wall_s = self._effective_timeout(timeout)
        cpu_s = self.settings.cpu_s or wall_s
        # Poll instead of blocking: the event loop must keep running while a
        # file operation in a worker thread finishes, and a threading lock
        # shared with worker threads cannot be an asyncio.Event.
        while not self._busy.acquire(blocking=False):  # noqa: ASYNC110
            await asyncio.sleep(0.02)
        try:
            await asyncio.to_thread(_prepare_mount_points, self.root, self._mounts)
            limits = await CommandLimits.prepare(self.settings, self.root, cpu_s=cpu_s)
            try:
                return await self._run(command, wall_s, limits)
            finally:
                await limits.close()
        finally:
            self._busy.release()

    async def _start(self, command: str, limits: CommandLimits) -> asyncio.subprocess.Process:
        # A cancel while bubblewrap starts is held until its namespace's init is known:
        # killing bubblewrap alone then (asyncio's own clean-up does only that) can orphan
        # the init before it binds itself to bubblewrap's life (--die-with-parent takes
        # effect only once the init is set up), and the command would run on, unseen.
        info_r, info_w = os.pipe()
        try:
            argv = self.command_argv(
                command, cpu_s=limits.cpu_s, file_kb=limits.file_size_kb, info_fd=info_w
            )
            proc, cancelled = await _to_the_end(
                asyncio.create_subprocess_exec(
                    *limits.wrap(argv),
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=asyncio.subprocess.PIPE,
                    stderr=asyncio.subprocess.STDOUT,
                    start_new_session=True,
                    pass_fds=(info_w,),
                    cwd="/",  # no host working directory in its PWD
                    # bubblewrap becomes the sandbox's PID 1, whose environment any process
                    # inside can read (/proc/1/environ): give it the sandbox's own.
                    env=sandbox_env(self._mounts.path_env),
                )
            )
        except BaseException:
            os.close(info_r)
            raise
        finally:
            os.close(info_w)
        try:
            info, cancelled_too = await _to_the_end(_read_info(info_r))
        finally:
            os.close(info_r)
        limits.watch(proc.pid, info)
        if cancelled or cancelled_too:  # the command must not outlive its caller
            await _stop(proc, limits)
            raise asyncio.CancelledError
        return proc

    async def _run(self, command: str, wall_s: int, limits: CommandLimits) -> ExecuteResponse:
        capture = OutputCapture(self.settings.max_output_bytes)
        proc = await self._start(command, limits)
        timed_out = False
        try:
            async with asyncio.timeout(wall_s):
                assert proc.stdout is not None
                while chunk := await proc.stdout.read(65536):
                    capture.feed(chunk)
                await proc.wait()
        except TimeoutError:
            timed_out = True
            await _stop(proc, limits)
        except BaseException:  # cancelled: the command must not outlive its caller
            await _stop(proc, limits)
            raise
        code = proc.returncode if proc.returncode is not None else -signal.SIGKILL
        if code < 0:  # bwrap itself died of a signal
            code = 128 - code
        output = capture.text()
        code, notes = await limits.outcome(code, output)
        if timed_out:
            code = TIMEOUT_EXIT_CODE
            notes.insert(
                0,
                f"[sandbox] Command killed: wall-time limit of {wall_s} s exceeded. "
                "Make the script faster or pass a larger timeout.",
            )
        elif not notes and (note := self._exit_note(code, output, limits)):
            notes.append(note)
        if notes:
            output = f"{output.rstrip()}\n{chr(10).join(notes)}".lstrip("\n")
        logger.debug("sandbox %s: exit %s, %s output bytes", self.id, code, capture.total)
        return ExecuteResponse(
            output=output or "<no output>", exit_code=code, truncated=capture.truncated
        )

    def _exit_note(self, code: int, output: str, limits: CommandLimits) -> str | None:
        """What a per-process limit did to the command, from its exit code or output."""
        if code == 128 + signal.SIGXCPU:
            return f"[sandbox] Command killed: CPU-time limit of {limits.cpu_s} s exceeded."
        if code == 128 + signal.SIGXFSZ:
            return (
                "[sandbox] Command killed: it wrote a file larger than "
                f"{limits.file_size_kb // 1024} MB (the per-file limit, or the room left in "
                "the workspace's disk quota)."
            )
        if code != 0 and _MEMORY_HINTS.search(output):
            return (
                "[sandbox] The command ran out of memory: the limit is "
                f"{self.settings.memory_mb} MB (per process, and for the whole sandbox)."
            )
        return None


async def _read_info(fd: int, *, timeout_s: float = 10.0) -> dict[str, int] | None:
    """bubblewrap's ``--info-fd`` JSON (sandbox PID, namespaces); None if it wrote none.

    Read without blocking and without a thread: it comes within milliseconds, or
    bubblewrap failed and closed the pipe.
    """
    os.set_blocking(fd, False)
    data = b""
    deadline = time.monotonic() + timeout_s
    while not data.rstrip().endswith(b"}") and time.monotonic() < deadline:
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            await asyncio.sleep(0.002)
            continue
        if not chunk:
            break
        data += chunk
    try:
        found = json.loads(data)
    except ValueError:
        return None
    return {k: v for k, v in found.items() if isinstance(v, int)}


def make_bubblewrap_sandbox(
    thread_id: str, *, settings: SandboxSettings | None = None
) -> BubblewrapSandbox:
    """The bubblewrap sandbox of ``thread_id``, its workspace under DATA_DIR/sandboxes."""
    settings = settings or SandboxSettings()
    return BubblewrapSandbox(workspace_path(settings.sandboxes_dir, thread_id), settings=settings)
