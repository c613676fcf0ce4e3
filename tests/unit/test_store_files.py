"""The Store routes' large and binary files keep their bytes on disk under ``langgraph dev``.

What a buyer's archive needs is checked through the file tools' backend, as the agents use
it: a report's PDF, HTML page and charts read back byte for byte, listed at their real size,
edited and deleted; the Store itself holds only a small record per file (what keeps the
in-memory runtime's memory flat). A file whose bytes went missing or changed is an error
the model can read, not a crash.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

import pytest
from deepagents.backends import CompositeBackend, StoreBackend
from deepagents.backends.filesystem import FilesystemBackend
from langgraph.store.memory import InMemoryStore
from PIL import Image

from graphs.store_files import (
    OffloadingStoreBackend,
    StoreFileSettings,
    offload_folder,
    route_backend,
    sweep_unreferenced,
)
from graphs.tools.artifacts_report import make_export_report
from tests.blocking import no_blocking_calls

NS = ("files", "reports")


def _png() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (300, 200), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def store() -> InMemoryStore:
    return InMemoryStore()


@pytest.fixture
def shelf(tmp_path: Path, store: InMemoryStore) -> OffloadingStoreBackend:
    return OffloadingStoreBackend(
        folder=tmp_path / "store-files", min_bytes=4096, namespace=lambda _rt: NS, store=store
    )


def _value_bytes(store: InMemoryStore, key: str) -> int:
    item = store.get(NS, key)
    assert item is not None, key
    return len(json.dumps(item.value))


def test_binary_files_keep_their_bytes_on_disk_and_read_back_whole(
    shelf: OffloadingStoreBackend, store: InMemoryStore, tmp_path: Path
) -> None:
    pdf = b"%PDF-1.7\n" + bytes(range(256)) * 2400  # 600 kB, not UTF-8
    chart = _png()
    done = shelf.upload_files([("/alice/r.pdf", pdf), ("/alice/charts/r_1.png", chart)])
    assert [d.error for d in done] == [None, None]
    # The Store keeps a record of a few hundred bytes, not 800 kB of base64.
    assert _value_bytes(store, "/alice/r.pdf") < 600
    on_disk = tmp_path / "store-files" / "files" / "reports" / "alice" / "r.pdf"
    assert on_disk.read_bytes() == pdf
    got = {
        d.path: d.content for d in shelf.download_files(["/alice/r.pdf", "/alice/charts/r_1.png"])
    }
    assert got["/alice/r.pdf"] == pdf
    Image.open(io.BytesIO(got["/alice/charts/r_1.png"] or b"")).load()
    # Listed at their real size, with the folder.
    listed = {e["path"]: e for e in shelf.ls("/alice/").entries or []}
    assert listed["/alice/r.pdf"]["size"] == len(pdf)
    assert listed["/alice/charts/"]["is_dir"]
    found = {m["path"]: m["size"] for m in shelf.glob("**/*.png", "/alice/").matches or []}
    assert found == {"/alice/charts/r_1.png": len(chart)}
    # read_file gets the binary file as the Store backend gives it: base64 file data.
    read = shelf.read("/alice/charts/r_1.png")
    assert read.error is None and read.file_data is not None
    assert read.file_data["encoding"] == "base64"


def test_small_text_stays_in_the_store_and_long_text_moves_out(
    shelf: OffloadingStoreBackend, store: InMemoryStore, tmp_path: Path
) -> None:
    index = "# 报告索引\n\n- [r.md](r.md) 火花塞比价\n"
    page = "<html>" + "<p>比价 报价 供应商</p>\n" * 400 + "</html>\n"
    shelf.upload_files([("/alice/index.md", index.encode()), ("/alice/r.html", page.encode())])
    item = store.get(NS, "/alice/index.md")
    assert item is not None and item.value["content"] == index  # as before: readable in the Store
    assert _value_bytes(store, "/alice/r.html") < 600
    assert not (tmp_path / "store-files" / "files" / "reports" / "alice" / "index.md").exists()
    # The long page reads by lines exactly as the Store kept it before, and edits in place.
    plain = StoreBackend(namespace=lambda _rt: NS, store=InMemoryStore())
    plain.upload_files([("/alice/r.html", page.encode())])
    read, before = shelf.read("/alice/r.html", offset=1, limit=2), plain.read("/alice/r.html", 1, 2)
    assert read.file_data is not None and before.file_data is not None
    assert read.file_data["content"] == before.file_data["content"]
    assert read.file_data["content"].startswith("<p>比价 报价 供应商</p>\n<p>")
    edited = shelf.edit("/alice/r.html", "<html>", '<html lang="zh-CN">')
    assert edited.error is None and edited.occurrences == 1
    [got] = shelf.download_files(["/alice/r.html"])
    assert got.content == page.replace("<html>", '<html lang="zh-CN">', 1).encode()
    assert shelf.edit("/alice/r.html", "nowhere", "x").error  # nothing to replace: said


def test_overwrite_and_delete_leave_no_stale_bytes(
    shelf: OffloadingStoreBackend, store: InMemoryStore, tmp_path: Path
) -> None:
    folder = tmp_path / "store-files" / "files" / "reports" / "alice"
    shelf.upload_files([("/alice/notes.md", b"x" * 10_000), ("/alice/old/r.pdf", b"\xff" * 9000)])
    assert (folder / "notes.md").exists()
    assert shelf.write("/alice/notes.md", "short now").error is None
    assert not (folder / "notes.md").exists()  # inline again: the old bytes are gone
    [got] = shelf.download_files(["/alice/notes.md"])
    assert got.content == b"short now"
    assert shelf.delete("/alice/old").error is None  # a folder, recursively
    assert not (folder / "old" / "r.pdf").exists()
    assert store.get(NS, "/alice/old/r.pdf") is None
    assert shelf.delete("/alice/old").error  # nothing left to delete: said


def test_missing_or_changed_bytes_are_a_readable_error(
    shelf: OffloadingStoreBackend, tmp_path: Path
) -> None:
    shelf.upload_files([("/alice/a.pdf", b"\xff" * 9000), ("/alice/b.pdf", b"\xfe" * 9000)])
    folder = tmp_path / "store-files" / "files" / "reports" / "alice"
    (folder / "a.pdf").unlink()
    (folder / "b.pdf").write_bytes(b"tampered")
    assert "missing" in (shelf.read("/alice/a.pdf").error or "")
    assert "changed" in (shelf.read("/alice/b.pdf").error or "")
    answers = shelf.download_files(["/alice/a.pdf", "/alice/b.pdf"])
    assert [a.error for a in answers] == ["file_not_found", "file_not_found"]


def test_a_path_that_climbs_out_is_refused_and_writes_nothing(
    shelf: OffloadingStoreBackend, store: InMemoryStore, tmp_path: Path
) -> None:
    [done] = shelf.upload_files([("/alice/../../../escape.pdf", b"\xff" * 9000)])
    assert done.error == "invalid_path"
    assert store.search(NS) == []
    assert not list(tmp_path.rglob("escape.pdf"))


def test_where_the_bytes_go(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    monkeypatch.setenv("LANGGRAPH_RUNTIME_EDITION", "inmem")  # langgraph dev
    assert offload_folder() == tmp_path / "store-files"
    assert isinstance(route_backend("reports"), OffloadingStoreBackend)
    monkeypatch.setenv("LANGGRAPH_RUNTIME_EDITION", "postgres")  # a deployment: the Store
    assert offload_folder() is None
    assert not isinstance(route_backend("reports"), OffloadingStoreBackend)
    monkeypatch.delenv("LANGGRAPH_RUNTIME_EDITION")  # no Agent Server (a script): the Store
    assert offload_folder() is None
    monkeypatch.setenv("STORE_FILES_WHERE", "disk")
    assert offload_folder(StoreFileSettings()) == tmp_path / "store-files"


async def test_the_report_export_archives_through_it_without_blocking(
    tmp_path: Path, store: InMemoryStore
) -> None:
    workspace = tmp_path / "ws"
    (workspace / "analysis" / "charts").mkdir(parents=True)
    (workspace / "analysis" / "r.md").write_text(
        "# 火花塞比价\n\n| 供应商 | 价格 |\n|---|---|\n| 天顶 | 24.00 |\n\n"
        "![价格](charts/r_1.png)\n",
        encoding="utf-8",
    )
    (workspace / "analysis" / "charts" / "r_1.png").write_bytes(_png())
    shelf = OffloadingStoreBackend(
        folder=tmp_path / "store-files", min_bytes=64 * 1024, namespace=lambda _rt: NS, store=store
    )
    backend = CompositeBackend(
        default=FilesystemBackend(root_dir=workspace, virtual_mode=True),
        routes={"/reports/": shelf},
    )
    tool = make_export_report(backend=backend)
    runtime = SimpleNamespace(config={"configurable": {"thread_id": "t-1"}})
    with no_blocking_calls(["graphs.store_files", "deepagents"]):
        out = await tool.coroutine(
            runtime=runtime, path="/analysis/r.md", copy_to="/reports/alice/"
        )
        [pdf] = await backend.adownload_files(["/reports/alice/r.pdf"])
        read = await backend.aread("/reports/alice/r.html", limit=5)
    assert "Error" not in out, out
    assert (pdf.content or b"").startswith(b"%PDF")
    assert read.error is None and read.file_data is not None
    assert "<html" in read.file_data["content"]
    assert _value_bytes(store, "/alice/r.pdf") < 600  # the PDF: a record only
    assert (tmp_path / "store-files" / "files" / "reports" / "alice" / "r.pdf").exists()


class _StoreApi:
    """The LangGraph SDK's ``client.store.search_items`` over an InMemoryStore."""

    def __init__(self, store: InMemoryStore) -> None:
        self.store = SimpleNamespace(search_items=self._search)
        self._inner = store

    async def _search(self, prefix: list[str], *, limit: int, offset: int) -> dict[str, Any]:
        found = self._inner.search(tuple(prefix), limit=limit, offset=offset)
        return {"items": [{"key": i.key, "value": i.value} for i in found]}


async def test_the_sweep_removes_bytes_whose_record_was_deleted_behind_its_back(
    shelf: OffloadingStoreBackend, store: InMemoryStore, tmp_path: Path
) -> None:
    await asyncio.to_thread(
        shelf.upload_files,
        [("/alice/kept.pdf", b"\xff" * 9000), ("/alice/gone.pdf", b"\xfe" * 9000)],
    )
    store.delete(NS, "/alice/gone.pdf")  # through the Store API, not the backend
    folder = tmp_path / "store-files"
    # Just written: a record may be about to be put, so nothing goes yet.
    assert await sweep_unreferenced(_StoreApi(store), folder, ["reports"]) == 0
    assert await sweep_unreferenced(_StoreApi(store), folder, ["reports"], older_than_s=-1) == 1
    assert (folder / "files" / "reports" / "alice" / "kept.pdf").exists()
    assert not (folder / "files" / "reports" / "alice" / "gone.pdf").exists()
    [kept] = await asyncio.to_thread(shelf.download_files, ["/alice/kept.pdf"])
    assert kept.content == b"\xff" * 9000


class _SlowStore(InMemoryStore):
    """A Store whose reads take a while, as a busy server's do: the window in which two
    edits of one file read the same content and the later write drops the earlier line."""

    def get(self, *args: Any, **kwargs: Any) -> Any:
        found = super().get(*args, **kwargs)
        time.sleep(0.02)
        return found


@pytest.mark.parametrize("size", [200, 10_000], ids=["in the store", "on disk"])
def test_concurrent_edits_of_one_file_all_land(tmp_path: Path, size: int) -> None:
    shelf = OffloadingStoreBackend(
        folder=tmp_path / "files", min_bytes=4096, namespace=lambda _rt: NS, store=_SlowStore()
    )
    rule = "|---|---|"
    head = "# index\n" + "x" * size + "\n" + rule + "\n"
    assert shelf.write("/alice/index.md", head).error is None

    def add(n: int) -> str | None:
        return shelf.edit("/alice/index.md", rule, f"{rule}\n| report {n} |").error

    with ThreadPoolExecutor(8) as pool:
        errors = list(pool.map(add, range(8)))
    assert errors == [None] * 8
    [got] = shelf.download_files(["/alice/index.md"])
    text = (got.content or b"").decode()
    assert sorted(re.findall(r"\| report (\d) \|", text)) == [str(n) for n in range(8)]


# -- the archive never replaces a file -------------------------------------------------

Where = Literal["disk", "store"]


def _archive(tmp_path: Path, where: Where, store: InMemoryStore) -> StoreBackend:
    """The reports route as the agents get it, with its bytes on disk or in the Store."""
    settings = StoreFileSettings(where=where, data_dir=tmp_path, min_bytes=4096)
    shelf = route_backend("reports", settings=settings)
    shelf._store = store  # as deepagents' runtime hands it over
    return shelf


@pytest.mark.parametrize("where", ["disk", "store"])
@pytest.mark.parametrize("size", [200, 10_000], ids=["short", "long"])
def test_two_analyses_that_both_found_no_index_keep_both_lines(
    tmp_path: Path, where: Where, size: int
) -> None:
    # Two analyses of one buyer finish together; each read the archive, found no index
    # and writes a new one. Only one may make it: the other is told the index exists, and
    # its edit adds its line to what the first wrote.
    store = _SlowStore()
    shelf = _archive(tmp_path, where, store)
    rule = "|---|---|"

    def file(n: int) -> str | None:
        new = f"# index\n{'x' * size}\n{rule}\n| report {n} |\n"
        if shelf.write("/alice/index.md", new).error is None:
            return "wrote"
        return shelf.edit("/alice/index.md", rule, f"{rule}\n| report {n} |").error

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(file, range(6)))
    assert sorted(answers, key=str) == [None] * 5 + ["wrote"], answers
    text = shelf.read("/alice/index.md", limit=100_000).file_data
    assert text is not None
    assert sorted(re.findall(r"\| report (\d) \|", text["content"])) == [str(n) for n in range(6)]


@pytest.mark.parametrize("where", ["disk", "store"])
def test_a_write_over_an_archived_file_is_refused_and_changes_nothing(
    tmp_path: Path, where: Where, store: InMemoryStore
) -> None:
    shelf = _archive(tmp_path, where, store)
    assert shelf.write("/alice/index.md", "# index\n| a |\n").error is None
    refused = shelf.write("/alice/index.md", "# index\n| b |\n")
    assert refused.error is not None and "edit_file" in refused.error
    later = asyncio.run(shelf.awrite("/alice/index.md", "# index\n| c |\n"))
    assert later.error is not None and "already exists" in later.error
    got = shelf.read("/alice/index.md").file_data
    assert got is not None and got["content"] == "# index\n| a |\n"
    # An edit still changes it; other routes still replace (a preference file is rewritten).
    assert shelf.edit("/alice/index.md", "| a |", "| a |\n| b |").error is None
    memories = route_backend("memories", settings=StoreFileSettings(where=where, data_dir=tmp_path))
    memories._store = store
    assert memories.write("/alice/preferences.md", "v1").error is None
    assert memories.write("/alice/preferences.md", "v2").error is None
    mine = memories.read("/alice/preferences.md").file_data
    assert mine is not None and mine["content"] == "v2"
