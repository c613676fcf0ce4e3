"""Remote sandbox on an OpenSandbox server (the reference design's choice).

Chosen with ``SANDBOX_PROVIDER=opensandbox``. The SDK (PyPI ``opensandbox``) is an
optional dependency, imported only when this backend is built. One remote sandbox per
thread, labelled with the thread (metadata ``thread``): on first use a backend looks for
the thread's running sandbox and connects to it, and creates one only when there is
none, so the next run of a thread finds its files whichever Agent Server replica or
process it lands on. In the container, the agent's paths are the container's own paths:
``/data/...`` is ``/data/...`` there. File operations go through deepagents'
``BaseSandbox`` (shell commands), uploads and downloads through the SDK's file API.

``deepagents-opensandbox`` (PyPI) wraps the same SDK the same way but neither finds a
thread's sandbox again nor caps output and time as this backend does, so it is not used.
Untested against a real OpenSandbox server: configuration errors and the find-or-create
choice are tested against a stand-in of the SDK.
"""

from __future__ import annotations

import importlib
import threading
from datetime import timedelta
from types import ModuleType
from typing import Any

from deepagents.backends.protocol import (
    ExecuteResponse,
    FileDownloadResponse,
    FileUploadResponse,
)
from deepagents.backends.sandbox import BaseSandbox

from graphs.sandbox.errors import SandboxConfigError
from graphs.sandbox.output import TIMEOUT_EXIT_CODE, OutputCapture
from graphs.sandbox.settings import SandboxSettings
from graphs.sandbox.workspace import safe_thread_id

SDK_PACKAGE = "opensandbox==1.1.1"


def _import_sdk() -> dict[str, Any]:
    """Import the SDK pieces this adapter uses, or say which package is missing."""
    try:
        root: ModuleType = importlib.import_module("opensandbox")
        config = importlib.import_module("opensandbox.config")
        execd = importlib.import_module("opensandbox.models.execd")
        sandboxes = importlib.import_module("opensandbox.models.sandboxes")
    except ImportError as exc:
        msg = (
            "SANDBOX_PROVIDER=opensandbox needs the OpenSandbox SDK: "
            f"`pip install {SDK_PACKAGE}` (not installed: {exc.name})."
        )
        raise SandboxConfigError(msg) from exc
    return {
        "SandboxSync": root.SandboxSync,
        "SandboxManagerSync": root.SandboxManagerSync,
        "ConnectionConfigSync": config.ConnectionConfigSync,
        "RunCommandOpts": execd.RunCommandOpts,
        "NetworkPolicy": sandboxes.NetworkPolicy,
        "SandboxFilter": sandboxes.SandboxFilter,
    }


class OpenSandboxBackend(BaseSandbox):
    """A deepagents sandbox backend running commands in a remote OpenSandbox container."""

    def __init__(self, thread_id: str, *, settings: SandboxSettings | None = None) -> None:
        """Prepare (not yet create) the remote sandbox of ``thread_id``.

        Raises:
            SandboxConfigError: no server configured, or the SDK is not installed.
        """
        self.settings = settings or SandboxSettings()
        if not self.settings.opensandbox_domain:
            msg = (
                "SANDBOX_PROVIDER=opensandbox needs SANDBOX_OPENSANDBOX_DOMAIN "
                "(e.g. localhost:8080) and usually SANDBOX_OPENSANDBOX_API_KEY."
            )
            raise SandboxConfigError(msg)
        self._sdk = _import_sdk()
        self._thread = safe_thread_id(thread_id)
        self._remote: Any = None
        self._create_lock = threading.Lock()

    @property
    def id(self) -> str:
        """``opensandbox-<thread>``, stable before the remote sandbox exists."""
        return f"opensandbox-{self._thread}"

    def _existing(self, config: Any) -> str | None:
        """The id of this thread's running sandbox, made by any replica, if there is one."""
        manager = self._sdk["SandboxManagerSync"].create(connection_config=config)
        try:
            found = manager.list_sandbox_infos(
                self._sdk["SandboxFilter"](metadata={"thread": self._thread}, states=["Running"])
            )
        finally:
            manager.close()
        infos = list(getattr(found, "sandbox_infos", None) or [])
        return str(infos[0].id) if infos else None

    def _sandbox(self) -> Any:
        with self._create_lock:
            if self._remote is None:
                s = self.settings
                key = s.opensandbox_api_key.get_secret_value() if s.opensandbox_api_key else None
                config = self._sdk["ConnectionConfigSync"](
                    domain=s.opensandbox_domain, api_key=key, protocol=s.opensandbox_protocol
                )
                existing = self._existing(config)
                if existing is not None:
                    self._remote = self._sdk["SandboxSync"].connect(
                        existing, connection_config=config
                    )
                    return self._remote
                self._remote = self._sdk["SandboxSync"].create(
                    s.opensandbox_image,
                    connection_config=config,
                    timeout=timedelta(minutes=s.opensandbox_ttl_minutes),
                    resource={"cpu": "1", "memory": f"{s.memory_mb}Mi"},
                    metadata={"thread": self._thread},
                    # Deny all egress: analysis code gets its data from files.
                    network_policy=self._sdk["NetworkPolicy"](defaultAction="deny", egress=[]),
                )
            return self._remote

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        """Run ``command`` in the remote sandbox; output is capped like the local one."""
        wall_s = self.settings.timeout_s if timeout is None else timeout
        if wall_s <= 0 or wall_s > self.settings.max_timeout_s:
            msg = f"timeout must be between 1 and {self.settings.max_timeout_s} seconds"
            raise ValueError(msg)
        opts = self._sdk["RunCommandOpts"](
            working_directory=self.settings.opensandbox_workdir, timeout=timedelta(seconds=wall_s)
        )
        try:
            execution = self._sandbox().commands.run(command, opts=opts)
        except Exception as exc:
            return ExecuteResponse(output=f"[sandbox] OpenSandbox error: {exc}", exit_code=1)
        capture = OutputCapture(self.settings.max_output_bytes)
        for msg in [*execution.logs.stdout, *execution.logs.stderr]:
            capture.feed(msg.text.encode("utf-8", errors="replace"))
        code = execution.exit_code
        if execution.error is not None:
            capture.feed(f"\n[error] {execution.error.name}: {execution.error.value}".encode())
            code = code if code is not None else 1
        if code is None and execution.complete is None:
            code = TIMEOUT_EXIT_CODE
        return ExecuteResponse(
            output=capture.text() or "<no output>", exit_code=code, truncated=capture.truncated
        )

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        """Write files into the remote sandbox."""
        responses = []
        for path, content in files:
            try:
                self._sandbox().files.write_file(path, content, mode=644)
                responses.append(FileUploadResponse(path=path))
            except Exception as exc:
                responses.append(FileUploadResponse(path=path, error=str(exc)[:300]))
        return responses

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        """Read files from the remote sandbox."""
        responses = []
        for path in paths:
            try:
                data = self._sandbox().files.read_bytes(path)
                responses.append(FileDownloadResponse(path=path, content=data))
            except Exception as exc:
                responses.append(FileDownloadResponse(path=path, error=str(exc)[:300]))
        return responses

    def close(self) -> None:
        """Kill the remote sandbox, if one was created."""
        with self._create_lock:
            if self._remote is not None:
                try:
                    self._remote.kill()
                finally:
                    self._remote.close()
                    self._remote = None
