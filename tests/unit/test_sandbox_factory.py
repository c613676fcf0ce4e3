"""Settings and the provider choice; OpenSandbox configuration errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphs.sandbox import (
    OpenSandboxBackend,
    SandboxSettings,
    ThreadSandboxBackend,
    make_sandbox_backend,
)
from graphs.sandbox.__main__ import main as sandbox_cli
from graphs.sandbox.errors import SandboxConfigError


def test_settings_defaults_and_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SANDBOX_TIMEOUT_S", "30")
    monkeypatch.setenv("SANDBOX_MEMORY_MB", "2048")
    monkeypatch.setenv("SANDBOX_CPU_S", "10")
    monkeypatch.setenv("SANDBOX_MAX_OUTPUT_BYTES", "5000")

    s = SandboxSettings()

    assert (s.provider, s.timeout_s, s.memory_mb, s.cpu_s, s.max_output_bytes) == (
        "bubblewrap",
        30,
        2048,
        10,
        5000,
    )
    assert s.sandboxes_dir == tmp_path / "sandboxes"
    assert SandboxSettings(data_dir=tmp_path, timeout_s=60).timeout_s == 60


def test_defaults() -> None:
    s = SandboxSettings(_env_file=None)  # type: ignore[call-arg]

    assert (s.timeout_s, s.memory_mb, s.cpu_s) == (60, 1024, None)


def test_bubblewrap_is_the_default(tmp_path: Path) -> None:
    backend = make_sandbox_backend("t1", settings=SandboxSettings(data_dir=tmp_path))
    assert backend.id == "bwrap-t1"
    assert (tmp_path / "sandboxes" / "t1" / "data").is_dir()


def test_opensandbox_needs_a_server(tmp_path: Path) -> None:
    settings = SandboxSettings(data_dir=tmp_path, provider="opensandbox")

    with pytest.raises(SandboxConfigError, match="SANDBOX_OPENSANDBOX_DOMAIN"):
        make_sandbox_backend("t1", settings=settings)


def test_opensandbox_without_the_sdk_names_the_package(tmp_path: Path) -> None:
    settings = SandboxSettings(
        data_dir=tmp_path, provider="opensandbox", opensandbox_domain="localhost:8080"
    )

    with pytest.raises(SandboxConfigError, match=r"pip install opensandbox==1\.1\.1"):
        OpenSandboxBackend("t1", settings=settings)
    # The thread router does not probe bubblewrap when another provider is chosen.
    router = ThreadSandboxBackend(settings=settings)
    with pytest.raises(SandboxConfigError, match="opensandbox"):
        router.for_thread("t1")


def test_cli_check_reports_failure(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SANDBOX_BWRAP_PATH", "/nonexistent/bwrap")

    assert sandbox_cli(["check"]) == 1
    assert "apt-get install bubblewrap" in capsys.readouterr().err


def test_sandbox_prompt_snapshot(tmp_path: Path) -> None:
    from graphs.sandbox import sandbox_prompt

    settings = SandboxSettings(
        data_dir=tmp_path,
        timeout_s=60,
        cpu_s=None,
        memory_mb=1024,
        max_output_bytes=100_000,
        max_processes=128,
        disk_mb=1024,
    )

    text = sandbox_prompt(settings)

    assert text == (
        "## Running code\n"
        "`execute` runs a bash command in an isolated sandbox of this conversation. Its\n"
        "working directory is `/`, which holds the same files as the file tools: `/data/`,\n"
        "`/analysis/`, `/skills/`, `/AGENTS.md`. `python3` has numpy and pandas. There is\n"
        "no network: fetch data with the web tools first and save it under `/data/`.\n"
        "`/tmp` is private to each command. Per command, all its processes together:\n"
        "60 s wall time, 60 s CPU, 1024 MB memory, 128\n"
        "processes, 100 KB of output (write large results to files and read\n"
        "them back). The workspace holds at most 1024 MB of files."
    )


class _RemoteService:
    """Stands in for an OpenSandbox server: sandboxes by id with their metadata."""

    def __init__(self) -> None:
        self.sandboxes: dict[str, dict[str, str]] = {}
        self.created = 0

    def sdk(self) -> dict[str, object]:
        service = self

        class Remote:
            def __init__(self, sandbox_id: str) -> None:
                self.id = sandbox_id

        class SandboxSync:
            @staticmethod
            def create(image: str, **kw: object) -> Remote:
                service.created += 1
                sandbox_id = f"sb-{service.created}"
                service.sandboxes[sandbox_id] = dict(kw["metadata"])  # type: ignore[call-overload]
                return Remote(sandbox_id)

            @staticmethod
            def connect(sandbox_id: str, **kw: object) -> Remote:
                assert sandbox_id in service.sandboxes
                return Remote(sandbox_id)

        class Info:
            def __init__(self, sandbox_id: str) -> None:
                self.id = sandbox_id

        class Manager:
            @staticmethod
            def create(**kw: object) -> Manager:
                return Manager()

            def list_sandbox_infos(self, flt: dict[str, object]) -> object:
                wanted = flt["metadata"]
                infos = [Info(i) for i, m in service.sandboxes.items() if m == wanted]
                return type("Paged", (), {"sandbox_infos": infos})()

            def close(self) -> None:
                return None

        return {
            "SandboxSync": SandboxSync,
            "SandboxManagerSync": Manager,
            "ConnectionConfigSync": lambda **kw: kw,
            "RunCommandOpts": lambda **kw: kw,
            "NetworkPolicy": lambda **kw: kw,
            "SandboxFilter": lambda **kw: kw,
        }


def test_opensandbox_finds_the_threads_sandbox_from_any_replica(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from graphs.sandbox import opensandbox

    service = _RemoteService()
    monkeypatch.setattr(opensandbox, "_import_sdk", service.sdk)
    settings = SandboxSettings(
        data_dir=tmp_path, provider="opensandbox", opensandbox_domain="sandbox.example:8080"
    )
    first = OpenSandboxBackend("thread-a", settings=settings)._sandbox()
    # Another replica (a new backend object) reaches the same sandbox; another thread not.
    again = OpenSandboxBackend("thread-a", settings=settings)._sandbox()
    other = OpenSandboxBackend("thread-b", settings=settings)._sandbox()
    assert again.id == first.id and other.id != first.id
    assert service.created == 2
