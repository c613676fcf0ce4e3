"""Reports are rendered to PDF in a worker process: the server's own heap never holds
WeasyPrint's layout (issue 18's memory), and a worker that dies is replaced."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from graphs.tools import pdf_worker

ROOT = Path(__file__).resolve().parents[2]
PAGE = "<html><body><h1>比价报告</h1><p>NGK IU7 16.56 CNY</p></body></html>"


def test_the_pdf_is_made_without_weasyprint_in_the_calling_process() -> None:
    # A fresh interpreter (other tests may have imported WeasyPrint into this one).
    code = (
        "import sys\n"
        "from graphs.tools.pdf_worker import render_pdf, shutdown\n"
        f"pdf = render_pdf({PAGE!r})\n"
        "shutdown()\n"
        "print(pdf[:5].decode(), len(pdf) > 1000, 'weasyprint' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["%PDF-", "True", "False"]


def test_the_html_page_and_the_pdf_are_both_made_in_the_worker() -> None:
    """Neither the Markdown parse nor the layout runs in the calling process (the Agent
    Server's one core is the ramp's bottleneck); the page embeds its chart."""
    code = (
        "import asyncio, base64, io, sys\n"
        "from PIL import Image\n"
        "from graphs.tools.pdf_worker import arender_exports, shutdown\n"
        "png = io.BytesIO(); Image.new('RGB', (60, 40), (200, 30, 30)).save(png, 'PNG')\n"
        "md = '# 比价报告\\n\\n| 供应商 | 价格 |\\n|---|---|\\n| NGK | 16.56 |\\n\\n"
        "![价格](charts/a.png)\\n'\n"
        "page, pdf = asyncio.run(arender_exports(md, {'charts/a.png': png.getvalue()},"
        " title='比价报告', lang='zh-CN'))\n"
        "shutdown()\n"
        "uri = page.split('src=\"data:image/png;base64,')[1].split('\"')[0]\n"
        "Image.open(io.BytesIO(base64.b64decode(uri))).load()\n"
        "print(pdf[:5].decode(), '<td>NGK</td>' in page, '<html lang=\"zh-CN\">' in page,"
        " 'markdown_it' in sys.modules, 'weasyprint' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["%PDF-", "True", "True", "False", "False"]


def test_a_worker_that_dies_is_replaced() -> None:
    try:
        first = pdf_worker.render_pdf(PAGE)
        pool = pdf_worker._executor()
        [worker] = list(pool._processes.values())  # the one worker process
        worker.kill()
        worker.join(10)
        with pytest.raises(RuntimeError, match="PDF worker stopped"):
            pdf_worker.render_pdf(PAGE)
        again = pdf_worker.render_pdf(PAGE)  # a fresh worker
        assert first.startswith(b"%PDF") and again.startswith(b"%PDF")
    finally:
        pdf_worker.shutdown()


def test_fonts_are_subset_by_harfbuzz() -> None:
    """scripts/setup installs HarfBuzz's subsetter: without it WeasyPrint subsets the CJK fonts
    in Python, about 6.5 s of CPU per report instead of 0.5 s (a failure, never a skip)."""
    from weasyprint.text import ffi

    assert ffi.harfbuzz_subset is not None, "apt-get install libharfbuzz-subset0"
    assert ffi.harfbuzz.hb_version_atleast(4, 1, 0)  # what WeasyPrint asks of it


def test_more_reports_at_once_than_a_worker_makes_are_all_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """16 analyses finishing together: each report gets its PDF, across worker changes
    (Python 3.11's own worker recycling left every report after the 8th waiting for good)."""
    monkeypatch.setattr(pdf_worker, "TIMEOUT_S", 90.0)
    monkeypatch.setattr(pdf_worker, "TASKS_PER_WORKER", 8)  # the mechanism, at a test's size
    count = 2 * pdf_worker.TASKS_PER_WORKER + 3
    pages = [PAGE.replace("16.56", f"{n}.00") for n in range(count)]
    try:
        with ThreadPoolExecutor(count) as pool:
            pdfs = list(pool.map(pdf_worker.render_pdf, pages))
        assert all(pdf.startswith(b"%PDF") for pdf in pdfs)
        assert len(set(pdfs)) == count  # each its own page
        assert pdf_worker.render_pdf(PAGE).startswith(b"%PDF")  # and the next one too
    finally:
        pdf_worker.shutdown()


@pytest.mark.parametrize("awaited", [False, True], ids=["blocking", "awaited"])
def test_a_stuck_worker_is_stopped_and_the_next_report_gets_a_fresh_one(
    awaited: bool, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Both ways of asking for a report: ``render_pdf`` from a thread, ``arender_exports``
    awaited on the event loop (what the agents do)."""
    monkeypatch.setattr(pdf_worker, "_render", _sleep_render)
    monkeypatch.setattr(pdf_worker, "_export", _slow_export)
    monkeypatch.setenv("PDF_WORKERS", "1")

    def pdf(page: str) -> bytes:
        if not awaited:
            return pdf_worker.render_pdf(page)
        _, made = asyncio.run(pdf_worker.arender_exports(page, {}, title="t", lang="en"))
        assert isinstance(made, bytes)
        return made

    pid_file = tmp_path / "worker.pid"
    try:
        # The worker started and loaded first: on a busy machine a new worker's start alone
        # can take longer than the short time-out below (CI once stopped it before the page).
        monkeypatch.setattr(pdf_worker, "TIMEOUT_S", 60.0)
        assert pdf("warm") == b"%PDF warm"
        monkeypatch.setattr(pdf_worker, "TIMEOUT_S", 2.0)
        with pytest.raises(TimeoutError):
            pdf(f"stuck:{pid_file}")
        monkeypatch.setattr(pdf_worker, "TIMEOUT_S", 60.0)
        assert pdf("fine") == b"%PDF fine"  # not queued behind it: a fresh worker
        # The stuck worker is gone (it would otherwise hold the server's exit for 600 s).
        assert _gone(int(pid_file.read_text()))
    finally:
        pdf_worker.shutdown()


def _alive(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    try:
        state = next(ln for ln in status.read_text().splitlines() if ln.startswith("State:"))
    except (FileNotFoundError, StopIteration):
        return False
    return "zombie" not in state


def _sleep_render(page: str) -> bytes:
    if page.startswith("stuck:"):
        Path(page.removeprefix("stuck:")).write_text(str(os.getpid()))
        time.sleep(600)
    return b"%PDF " + page.encode()


async def test_a_report_waiting_for_the_worker_holds_no_thread_of_the_event_loop(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Analyses ending together queue their reports for the worker. Meanwhile every other
    run's file reads and writes (``asyncio.to_thread``: the loop's default pool, cores + 4
    threads) must still get a thread: here the pool has one, and it is free while three
    reports wait for their turn."""
    monkeypatch.setattr(pdf_worker, "_export", _slow_export)
    one = ThreadPoolExecutor(1)
    asyncio.get_running_loop().set_default_executor(one)
    try:
        exports = [
            asyncio.create_task(pdf_worker.arender_exports(f"# r{n}", {}, title="t", lang="en"))
            for n in range(3)
        ]
        await asyncio.sleep(0.5)  # all three handed over
        assert await asyncio.wait_for(asyncio.to_thread(lambda: "a file read"), 30) == (
            "a file read"
        )
        assert not any(e.done() for e in exports)  # still rendering, one after another
        made = await asyncio.gather(*exports)
        assert made == [(f"<p># r{n}</p>", f"%PDF # r{n}".encode()) for n in range(3)]
    finally:
        pdf_worker.shutdown()
        one.shutdown(wait=False)


def _gone(pid: int) -> bool:
    """Whether the process ``pid`` exits within 10 s."""
    deadline = time.monotonic() + 10
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not _alive(pid)


def _slow_export(markdown: str, images: object, title: str, lang: str) -> tuple[str, bytes]:
    """In the worker: a report that takes a second (or for ever, ``stuck:<pid file>``)."""
    if markdown.startswith("stuck:"):
        return "", _sleep_render(markdown)
    time.sleep(1.0)
    return f"<p>{markdown}</p>", f"%PDF {markdown}".encode()


def test_the_next_workers_are_started_and_loaded_before_the_current_ones_retire(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A burst of reports never waits for a fresh worker to import WeasyPrint: the
    successor's processes start a few reports before the current pool's quota, and the
    report after the quota runs on them."""
    monkeypatch.setenv("PDF_WORKERS", "2")
    monkeypatch.setattr(pdf_worker, "TASKS_PER_WORKER", 8)
    quota = 2 * pdf_worker.TASKS_PER_WORKER
    try:
        for n in range(quota - 3):
            assert pdf_worker.render_pdf(PAGE.replace("16.56", str(n))).startswith(b"%PDF")
        assert pdf_worker._next is None  # not yet
        first = pdf_worker._executor()
        for _ in range(2):
            pdf_worker.render_pdf(PAGE)
        successor = pdf_worker._next
        assert successor is not None and successor is not first
        deadline = time.monotonic() + 30
        while len(successor._processes) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(successor._processes) == 2  # both its processes run already
        pdf_worker.render_pdf(PAGE)  # the last of the quota, still on the first pool
        assert pdf_worker._executor() is first
        assert pdf_worker.render_pdf(PAGE).startswith(b"%PDF")  # past the quota
        assert pdf_worker._executor() is successor
    finally:
        pdf_worker.shutdown()


def test_the_worker_count_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PDF_WORKERS", raising=False)
    assert pdf_worker.workers() == pdf_worker.DEFAULT_WORKERS
    default = pdf_worker.DEFAULT_WORKERS
    for raw, expected in (("1", 1), ("3", 3), ("0", 1), ("99", 8), ("two", default)):
        monkeypatch.setenv("PDF_WORKERS", raw)
        assert pdf_worker.workers() == expected
