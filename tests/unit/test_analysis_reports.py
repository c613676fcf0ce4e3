"""Issue 15's pieces below the graphs: a failed analysis raises, reports export to HTML and PDF.

The exports are checked as a reader gets them: the HTML needs no other file (its charts
are data URIs that decode), the PDF's pages render to PNGs with poppler's ``pdftoppm``
and are not blank, and Chinese text is drawn with a CJK font (ink where the title is).
"""

from __future__ import annotations

import asyncio
import base64
import io
import re
import ssl
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from deepagents.backends.filesystem import FilesystemBackend
from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from PIL import Image

from graphs.middleware.analysis_outcome import (
    AnalysisCategoryNotFound,
    AnalysisOutcome,
    failure_kind,
    failure_line,
)
from graphs.tools.artifacts_report import make_export_report, make_save_chart


def _png(color: tuple[int, int, int]) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (320, 200), color).save(out, format="PNG")
    return out.getvalue()


def _agent(answer: str) -> Any:
    model = GenericFakeChatModel(messages=iter([AIMessage(content=answer)]))
    return create_agent(model=model, tools=[], middleware=[AnalysisOutcome()])


async def test_a_final_answer_marked_failed_ends_the_run_with_its_kind() -> None:
    answer = "没能识别类别。\n\n" + failure_line(
        "no_category", "没能识别类别。ERP 中的类别有：链轮"
    )
    with pytest.raises(AnalysisCategoryNotFound, match="ERP 中的类别有"):
        await _agent(answer).ainvoke({"messages": [("user", "分析雨刷")]})
    # The parent's notification names the class; the orchestrator reads the kind back.
    assert failure_kind("The subagent failed (AnalysisCategoryNotFound).") == "no_category"
    assert failure_kind("The subagent failed (KeyError).") is None


async def test_an_answer_that_only_quotes_the_word_is_not_a_failure() -> None:
    answer = "分析完成。报告：/analysis/report_20261203_ab12cd34.md（ANALYSIS_FAILED 未出现在行首）"
    result = await _agent(answer).ainvoke({"messages": [("user", "分析链轮")]})
    assert result["messages"][-1].content == answer


REPORT = """# 链轮供应商比价分析报告

## 摘要

- **艾克米 链轮 428**：综合成本最低的是 **天顶**。

| 供应商 | 合同价 |
|---|---|
| 天顶 | 24.00 元 |

### 哪家供应商的合同价和官网价更低？

![价格对比](charts/report_20261203_ab12cd34_1.png)

![图表缺失](charts/missing.png)
"""


@pytest.fixture
def backend(tmp_path: Path) -> FilesystemBackend:
    (tmp_path / "analysis" / "charts").mkdir(parents=True)
    (tmp_path / "analysis" / "report_20261203_ab12cd34.md").write_text(REPORT, encoding="utf-8")
    chart = tmp_path / "analysis" / "charts" / "report_20261203_ab12cd34_1.png"
    chart.write_bytes(_png((200, 30, 30)))
    (tmp_path / "reports" / "alice").mkdir(parents=True)
    return FilesystemBackend(root_dir=tmp_path, virtual_mode=True)


async def test_the_report_exports_to_one_html_file_and_a_pdf(
    backend: FilesystemBackend, tmp_path: Path
) -> None:
    tool = make_export_report(backend=backend)
    out = await _export(
        tool, path="/analysis/report_20261203_ab12cd34.md", copy_to="/reports/alice/"
    )
    assert "Exported" in out and "charts/missing.png" in out  # a missing chart is said
    # Each workspace file with its signed link on the artifacts route.
    assert re.search(
        r"^/analysis/report_20261203_ab12cd34\.pdf \(\d+ bytes\): "
        r"/artifacts/t-1/analysis/report_20261203_ab12cd34\.pdf\?exp=\d+&sig=\w+$",
        out,
        re.M,
    ), out
    page = (tmp_path / "analysis" / "report_20261203_ab12cd34.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in page and "<table>" in page
    [uri] = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    Image.open(io.BytesIO(base64.b64decode(uri))).load()  # the chart is inside the page
    assert "charts/report_20261203_ab12cd34_1.png" not in page
    pdf = tmp_path / "reports" / "alice" / "report_20261203_ab12cd34.pdf"
    assert pdf.read_bytes().startswith(b"%PDF")
    assert (tmp_path / "reports" / "alice" / "report_20261203_ab12cd34.html").exists()
    pages = await asyncio.to_thread(_pdf_pages, pdf, tmp_path / "pages")
    assert pages, "pdftoppm rendered no page"
    first = Image.open(pages[0]).convert("L")
    assert int(np.asarray(first).min()) < 128  # ink on the page: not blank
    # The chart's red is on the page (the embedded image was drawn).
    rgb = np.asarray(Image.open(pages[0]).convert("RGB")).reshape(-1, 3)
    assert ((rgb[:, 0] > 150) & (rgb[:, 1] < 80) & (rgb[:, 2] < 80)).any()


async def test_when_the_pdf_worker_fails_the_html_page_is_still_exported(
    backend: FilesystemBackend, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page is made in the PDF worker process with the PDF; a worker that died on
    the way still leaves the reader the HTML page (made here), and the answer says why
    there is no PDF."""
    import graphs.tools.artifacts_report as artifacts_report

    async def died(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the PDF worker stopped (killed)")

    monkeypatch.setattr(artifacts_report, "arender_exports", died)
    tool = make_export_report(backend=backend)
    out = await _export(
        tool, path="/analysis/report_20261203_ab12cd34.md", copy_to="/reports/alice/"
    )
    assert "no PDF" in out and "PDF worker stopped" in out, out
    for folder in ("analysis", "reports/alice"):
        page = (tmp_path / folder / "report_20261203_ab12cd34.html").read_text(encoding="utf-8")
        assert "<table>" in page and 'src="data:image/png;base64,' in page
        assert not (tmp_path / folder / "report_20261203_ab12cd34.pdf").exists()


async def _export(tool: Any, **args: Any) -> str:
    """The tool as a graph's ToolNode calls it, with the run's thread in its runtime."""
    runtime = SimpleNamespace(config={"configurable": {"thread_id": "t-1"}})
    out: str = await tool.coroutine(runtime=runtime, **args)
    return out


def _pdf_pages(pdf: Path, folder: Path) -> list[Path]:
    folder.mkdir()
    subprocess.run(["pdftoppm", "-png", "-r", "40", str(pdf), str(folder / "p")], check=True)
    return sorted(folder.glob("p*.png"))


async def test_exports_and_chart_copies_refuse_paths_outside_the_report_folders(
    backend: FilesystemBackend,
) -> None:
    export = make_export_report(backend=backend)
    assert "Error" in await _export(export, path="/etc/passwd.md")
    assert "Error" in await _export(export, path="/analysis/../etc/x.md")
    assert "does not exist" in await _export(export, path="/analysis/none.md")
    save = make_save_chart(backend=backend, chart_url="http://charts.test/mcp")
    refused = await save.ainvoke({"url": "http://evil.test/x.png", "paths": ["/analysis/c.png"]})
    assert "not on the chart server" in refused
    bad = await save.ainvoke({"url": "http://charts.test/x.png", "paths": ["/skills/x.png"]})
    assert bad.startswith("Error") and "/analysis/" in bad


@pytest.fixture
def chart_server() -> Iterator[str]:
    """A chart server on loopback: ``/c.png`` is a PNG."""
    image = _png((20, 120, 60))

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "image/png")
            self.send_header("Content-Length", str(len(image)))
            self.end_headers()
            self.wfile.write(image)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


async def test_saving_charts_reads_the_ca_bundle_once_not_per_chart(
    backend: FilesystemBackend, chart_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each chart was fetched with a new client that built its own TLS context: reading the
    CA bundle, on the event loop, for every chart of every report."""
    built: list[object] = []
    original = ssl.create_default_context

    def counting(*args: Any, **kwargs: Any) -> ssl.SSLContext:
        built.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(ssl, "create_default_context", counting)
    save = make_save_chart(backend=backend, chart_url=f"{chart_server}/mcp")
    for n in range(4):
        out = await save.ainvoke({"url": f"{chart_server}/c.png", "paths": [f"/analysis/c{n}.png"]})
        assert not out.startswith("Error"), out
    root = Path(backend.cwd)
    for n in range(4):
        with Image.open(root / "analysis" / f"c{n}.png") as picture:
            assert picture.size == (320, 200)
    assert len(built) <= 1, f"{len(built)} TLS contexts built for 4 charts"


def test_the_html_page_embeds_each_chart_as_the_parser_would() -> None:
    """The page is exactly what a Markdown parser makes of the report with its charts
    written inline as data URIs (the parser only ever sees short stand-ins for them)."""
    from markdown_it import MarkdownIt

    from graphs.tools.report_page import render_html

    charts = {}
    for n, colour in enumerate([(200, 30, 30), (30, 30, 200)], 1):
        out = io.BytesIO()
        Image.new("RGB", (120, 80), colour).save(out, format="PNG")
        charts[f"charts/r_{n}.png"] = out.getvalue()
    markdown = (
        "# 火花塞比价 <报告>\n\n![价格 *对比*](charts/r_1.png)\n\n"
        "| 供应商 | 价格 |\n|---|---|\n| A & B | ¥1 |\n\n"
        'Text `src="charts/r_2.png"` in code stays text.\n\n'
        "![trend](charts/r_2.png) and ![missing](charts/r_9.png) "
        "and ![remote](https://example.com/x.png)\n"
    )
    page = render_html(markdown, charts, title="火花塞比价", lang="zh-CN")
    inline = markdown.replace("![missing](charts/r_9.png)", "*missing*")
    for link, data in charts.items():
        inline = inline.replace(
            f"]({link})", f"](data:image/png;base64,{base64.b64encode(data).decode()})"
        )
    expected = MarkdownIt("commonmark", {"html": False}).enable("table").render(inline)
    body = page.split("<body>\n", 1)[1].rsplit("</body>", 1)[0]
    assert body == expected
    assert body.count('src="data:image/png;base64,') == 2
    assert "embedded-" not in page
