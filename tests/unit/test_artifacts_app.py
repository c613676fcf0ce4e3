"""The artifacts route (owner only, no path escapes) and the download_artifact tool."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import HumanMessage, ToolMessage
from starlette.applications import Starlette
from starlette.authentication import (
    AuthCredentials,
    AuthenticationBackend,
    BaseUser,
    SimpleUser,
)
from starlette.middleware import Middleware
from starlette.middleware.authentication import AuthenticationMiddleware
from starlette.requests import HTTPConnection
from starlette.testclient import TestClient

from graphs.context import Context
from graphs.sandbox import workspace_path
from graphs.tools.artifacts import artifact_url, check_artifact_path, make_download_artifact
from server.artifacts_app import ArtifactSettings, artifact_routes
from tests.unit.test_mw_support import agent, call, make_env, scripted, thread

THREADS: dict[str, dict[str, Any]] = {
    "t-alice": {"owner": "alice"},
    "t-bob": {"user_id": "bob"},
    # alice's analyst, started in-process: no owner, only its parent.
    "t-analyst": {"parent_thread_id": "t-alice", "subagent_name": "analyst"},
    "t-sub-sub": {"parent_thread_id": "t-analyst"},
    "t-orphan": {"parent_thread_id": "t-gone"},
    # An owner of its own wins over any parent it names.
    "t-claims": {"owner": "bob", "parent_thread_id": "t-alice"},
}


class HeaderAuth(AuthenticationBackend):
    """Stands in for the Agent Server's auth: ``Authorization: User <name>``."""

    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, BaseUser] | None:
        header = conn.headers.get("authorization", "")
        if not header.startswith("User "):
            return None
        return AuthCredentials(["authenticated"]), SimpleUser(header.removeprefix("User "))


class IdentityUser(SimpleUser):
    @property
    def identity(self) -> str:
        return self.username


class IdentityAuth(HeaderAuth):
    async def authenticate(self, conn: HTTPConnection) -> tuple[AuthCredentials, BaseUser] | None:
        found = await super().authenticate(conn)
        return None if found is None else (found[0], IdentityUser(found[1].display_name))


async def lookup(thread_id: str, headers: dict[str, str]) -> dict[str, Any] | None:
    assert "authorization" in headers or not headers  # the caller's credentials go along
    return THREADS.get(thread_id)


@pytest.fixture
def sandboxes(tmp_path: Path) -> Path:
    root = tmp_path / "sandboxes"
    for tid in THREADS:
        ws = workspace_path(root, tid)
        (ws / "analysis").mkdir(parents=True)
        (ws / "data").mkdir()
        (ws / "analysis" / "report_20260101.md").write_text(f"# report of {tid}\n")
        (ws / "data" / "chart.png").write_bytes(b"\x89PNG\r\n\x1a\nfake")
        (ws / ".skills-sync.json").write_text("{}")
    outside = tmp_path / "secret.txt"
    outside.write_text("host secret")
    os.symlink(outside, workspace_path(root, "t-alice") / "analysis" / "leak.md")
    return root


def _client(sandboxes: Path, *, loopback: bool = False) -> TestClient:
    app = Starlette(
        routes=artifact_routes(
            lookup=lookup,
            sandboxes_dir=sandboxes,
            settings=ArtifactSettings(allow_loopback_without_auth=loopback),
        ),
        middleware=[Middleware(AuthenticationMiddleware, backend=IdentityAuth())],
    )
    return TestClient(app)


def test_owner_gets_report_and_chart(sandboxes: Path) -> None:
    client = _client(sandboxes)
    alice = {"authorization": "User alice"}
    r = client.get("/artifacts/t-alice/analysis/report_20260101.md", headers=alice)
    assert r.status_code == 200 and r.text == "# report of t-alice\n"
    assert r.headers["content-type"].startswith("text/markdown")
    png = client.get("/artifacts/t-alice/data/chart.png", headers=alice)
    assert png.status_code == 200 and png.content.startswith(b"\x89PNG")
    bob = client.get(
        "/artifacts/t-bob/analysis/report_20260101.md", headers={"authorization": "User bob"}
    )
    assert bob.status_code == 200  # owner from metadata.user_id


def test_other_user_and_unknown_thread_are_404(sandboxes: Path) -> None:
    client = _client(sandboxes)
    bob = {"authorization": "User bob"}
    r = client.get("/artifacts/t-alice/analysis/report_20260101.md", headers=bob)
    assert r.status_code == 404 and "not yours" in r.json()["error"]
    assert client.get("/artifacts/t-nobody/analysis/x.md", headers=bob).status_code == 404


def test_unauthenticated_is_401(sandboxes: Path) -> None:
    r = _client(sandboxes).get("/artifacts/t-alice/analysis/report_20260101.md")
    assert r.status_code == 401


def test_loopback_dev_mode_is_opt_in(sandboxes: Path) -> None:
    r = _client(sandboxes, loopback=True).get("/artifacts/t-alice/analysis/report_20260101.md")
    assert r.status_code == 200


@pytest.mark.parametrize(
    "path",
    [
        "analysis/../../t-bob/analysis/report_20260101.md",
        "analysis/%2e%2e/%2e%2e/t-bob/analysis/report_20260101.md",
        ".skills-sync.json",
        "etc/passwd",
        "analysis/.hidden",
        "analysis",
    ],
)
def test_paths_outside_the_artifact_folders_are_refused(sandboxes: Path, path: str) -> None:
    r = _client(sandboxes).get(
        f"/artifacts/t-alice/{path}", headers={"authorization": "User alice"}
    )
    assert r.status_code in (400, 404), r.text
    assert "report of t-bob" not in r.text


def test_symlink_out_of_the_workspace_is_not_followed(sandboxes: Path) -> None:
    r = _client(sandboxes).get(
        "/artifacts/t-alice/analysis/leak.md", headers={"authorization": "User alice"}
    )
    assert r.status_code == 404 and "host secret" not in r.text


def test_a_fifo_or_any_link_is_404_not_a_hang(sandboxes: Path) -> None:
    ws = workspace_path(sandboxes, "t-alice")
    os.mkfifo(ws / "data" / "pipe.csv")  # an open for reading would block forever
    (ws / "data" / "alias.png").symlink_to("chart.png")  # a link, even one staying inside
    client = _client(sandboxes)
    for path in ("data/pipe.csv", "data/alias.png"):
        r = client.get(f"/artifacts/t-alice/{path}", headers={"authorization": "User alice"})
        assert r.status_code == 404, (path, r.text)


def test_download_headers(sandboxes: Path) -> None:
    ws = workspace_path(sandboxes, "t-alice")
    (ws / "analysis" / "报告.md").write_text("# 报告\n")
    client = _client(sandboxes)
    alice = {"authorization": "User alice"}

    r = client.get("/artifacts/t-alice/analysis/%E6%8A%A5%E5%91%8A.md", headers=alice)
    png = client.get("/artifacts/t-alice/data/chart.png", headers=alice)

    assert r.status_code == 200 and r.text == "# 报告\n"
    assert r.headers["content-length"] == str(len("# 报告\n".encode()))
    assert r.headers["content-disposition"] == "attachment; filename*=utf-8''%E6%8A%A5%E5%91%8A.md"
    assert png.headers["content-type"] == "image/png"
    assert png.headers["content-disposition"] == 'attachment; filename="chart.png"'


def test_check_artifact_path() -> None:
    assert check_artifact_path("/analysis/report.md") is None
    assert check_artifact_path("/data/x/y.png") is None
    for bad in (
        "analysis/x",
        "/",
        "/analysis/",
        "/skills/x/SKILL.md",
        "/analysis/../x",
        "/data/a\\b",
    ):
        assert check_artifact_path(bad) is not None, bad


def test_artifact_url() -> None:
    url = artifact_url("t 1", "/analysis/报告.md", base_url="https://agents.example/")
    assert url.startswith("https://agents.example/artifacts/t%201/analysis/%E6%8A%A5%E5%91%8A.md?")
    # No public URL configured: the route's path, never the server's loopback address.
    assert artifact_url("t-1", "/analysis/r.md").startswith("/artifacts/t-1/analysis/r.md?exp=")


def test_a_signed_link_opens_that_file_only_without_credentials(sandboxes: Path) -> None:
    client = _client(sandboxes)
    link = artifact_url("t-alice", "/analysis/report_20260101.md")
    r = client.get(link)  # a browser's <img>: no credentials
    assert r.status_code == 200 and r.text == "# report of t-alice\n"
    assert client.get(link, headers={"authorization": "User bob"}).status_code == 200
    other = link.replace("t-alice", "t-bob")  # the signature names the thread and the path
    assert client.get(other).status_code == 401
    forged = link[:-4] + ("0000" if not link.endswith("0000") else "1111")
    assert client.get(forged).status_code == 401
    expired = re.sub(r"exp=\d+", "exp=1", link)
    assert client.get(expired).status_code == 401


async def test_download_artifact_tool(tmp_path: Path) -> None:
    env = make_env(tmp_path)
    config = thread()
    tid = config["configurable"]["thread_id"]
    env.sandbox.for_thread(tid).upload_files([("/analysis/report_20260101.md", b"# r\n")])
    tool = make_download_artifact(sandbox=env.sandbox, base_url="http://agents.test")
    other = "t-analyst-task"
    env.sandbox.for_thread(other).upload_files([("/analysis/r.md", b"# analyst\n")])
    turns = [
        [call("download_artifact", {"path": "/analysis/report_20260101.md"}, 0)],
        [call("download_artifact", {"path": "/analysis/missing.md"}, 1)],
        [call("download_artifact", {"path": "/etc/passwd"}, 2)],
        [call("download_artifact", {"path": "/analysis/r.md", "task_id": other}, 3)],
    ]
    graph = agent(env, scripted(*turns, "done"), [], tools=[tool])
    result = await graph.ainvoke(
        {"messages": [HumanMessage("link")]}, config, context=Context(user_id="u1")
    )
    texts = [m.text for m in result["messages"] if isinstance(m, ToolMessage)]
    assert texts[0].startswith(
        f"/analysis/report_20260101.md (4 bytes): http://agents.test/artifacts/{tid}/analysis/report_20260101.md?exp="
    )
    assert "does not exist" in texts[1]
    assert "refused" in texts[2]
    assert f"http://agents.test/artifacts/{other}/analysis/r.md?exp=" in texts[3]


def test_a_subagents_thread_belongs_to_its_parents_owner(sandboxes: Path) -> None:
    client = _client(sandboxes)
    alice, bob = {"authorization": "User alice"}, {"authorization": "User bob"}
    for tid in ("t-analyst", "t-sub-sub"):
        url = f"/artifacts/{tid}/analysis/report_20260101.md"
        mine = client.get(url, headers=alice)
        assert mine.status_code == 200 and mine.text == f"# report of {tid}\n"
        assert client.get(url, headers=bob).status_code == 404
    orphan = client.get("/artifacts/t-orphan/analysis/report_20260101.md", headers=alice)
    assert orphan.status_code == 404
    claims = "/artifacts/t-claims/analysis/report_20260101.md"
    assert client.get(claims, headers=alice).status_code == 404
    assert client.get(claims, headers=bob).status_code == 200


async def test_the_owner_lookup_stops_at_a_loop() -> None:
    from server.artifacts_app import thread_owner

    calls: list[str] = []

    async def looping(thread_id: str, headers: dict[str, str]) -> dict[str, Any]:
        calls.append(thread_id)
        return {"parent_thread_id": "a" if thread_id == "b" else "b"}

    assert await thread_owner({"parent_thread_id": "a"}, {}, looping) is None
    assert len(calls) == 4  # MAX_PARENT_DEPTH + 1 lookups at most


def test_a_remote_sandbox_is_read_through_its_backend(sandboxes: Path, tmp_path: Path) -> None:
    """With a remote provider there is no local folder: the route downloads the file through
    the thread's backend (here a workspace standing in for the remote container)."""
    from graphs.sandbox import SandboxSettings, ThreadSandboxBackend, WorkspaceFiles

    made: list[str] = []

    def remote(thread_id: str, *, settings: SandboxSettings) -> Any:
        made.append(thread_id)
        return WorkspaceFiles(workspace_path(sandboxes, thread_id))

    settings = SandboxSettings(data_dir=tmp_path / "elsewhere", provider="opensandbox")
    router = ThreadSandboxBackend(settings=settings, factory=remote)
    app = Starlette(
        routes=artifact_routes(lookup=lookup, sandbox=router),
        middleware=[Middleware(AuthenticationMiddleware, backend=IdentityAuth())],
    )
    client = TestClient(app)
    alice = {"authorization": "User alice"}
    r = client.get("/artifacts/t-alice/analysis/report_20260101.md", headers=alice)
    assert r.status_code == 200 and r.text == "# report of t-alice\n"
    assert r.headers["content-type"].startswith("text/markdown")
    assert 'filename="report_20260101.md"' in r.headers["content-disposition"]
    assert client.get("/artifacts/t-alice/analysis/none.md", headers=alice).status_code == 404
    assert made == ["t-alice"]
    assert not (tmp_path / "elsewhere").exists()  # nothing local was made
