"""Sandbox settings: which provider runs agent code, and the limits it runs under.

Read from the environment (and ``.env``) with the ``SANDBOX_`` prefix; the shared
``DATA_DIR`` comes from :class:`core.settings.CommonSettings` unprefixed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import SettingsConfigDict

from core.settings import CommonSettings


class SandboxSettings(CommonSettings):
    """Where and how agent-written code runs."""

    model_config = SettingsConfigDict(
        env_prefix="SANDBOX_", env_file=".env", extra="ignore", populate_by_name=True
    )

    provider: Literal["bubblewrap", "opensandbox"] = Field(
        default="bubblewrap",
        description="bubblewrap: local namespaces, one workspace per thread under "
        "DATA_DIR/sandboxes (Linux). opensandbox: a remote OpenSandbox server.",
    )
    timeout_s: int = Field(default=60, ge=1, description="Default wall time per command.")
    max_timeout_s: int = Field(
        default=600, ge=1, description="Largest per-command timeout a caller may ask for."
    )
    memory_mb: int = Field(
        default=1024,
        ge=64,
        description="Memory of the whole sandbox: all its processes together with its /tmp and "
        "/dev/shm (also each process's address-space limit, ulimit -v).",
    )
    cpu_s: int | None = Field(
        default=None,
        ge=1,
        description="CPU seconds of a command, all its processes together (and of each one, "
        "ulimit -t); defaults to the command's wall time.",
    )
    max_processes: int = Field(
        default=128,
        ge=8,
        description="Processes and threads alive at once in the whole sandbox.",
    )
    disk_mb: int = Field(
        default=1024,
        ge=1,
        description="Disk quota of the thread's workspace (every file and folder in it).",
    )
    max_output_bytes: int = Field(
        default=100_000, ge=1_000, description="Output kept per command (head and tail)."
    )
    max_file_mb: int = Field(
        default=256, ge=1, description="Largest file a command may write (ulimit -f)."
    )
    tmp_mb: int = Field(
        default=256, ge=1, description="Size of the private /tmp and of /dev/shm (each a tmpfs)."
    )
    cgroups: Literal["auto", "off", "required"] = Field(
        default="auto",
        description="auto: a cgroup v2 per command where the host delegates one (else the "
        "watchdog holds the limits); required: refuse to start without cgroup v2; off: no cgroups.",
    )
    cgroup_parent: Path | None = Field(
        default=None,
        description="A cgroup v2 folder delegated to this server, for the commands' cgroups "
        "(default: a procurement-sandboxes cgroup beside the server's own).",
    )
    bwrap_path: str = Field(default="bwrap", description="The bubblewrap executable.")
    extra_ro_binds: list[Path] = Field(
        default_factory=list,
        description="More host folders to show read-only inside the sandbox, at the same path.",
    )

    opensandbox_domain: str | None = Field(
        default=None, description="OpenSandbox server, e.g. localhost:8080 or api.example.com."
    )
    opensandbox_protocol: Literal["http", "https"] = "http"
    opensandbox_api_key: SecretStr | None = None
    opensandbox_image: str = Field(
        default="opensandbox/code-interpreter:v1.0.1",
        description="Container image with python3, numpy and pandas.",
    )
    opensandbox_workdir: str = Field(
        default="/", description="Working directory of commands in the remote sandbox."
    )
    opensandbox_ttl_minutes: int = Field(
        default=60, ge=1, description="Server-side lifetime of a remote sandbox."
    )

    @property
    def sandboxes_dir(self) -> Path:
        """The folder holding one workspace per thread."""
        return self.data_dir / "sandboxes"
