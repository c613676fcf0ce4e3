"""The analyst's report made portable (issue 15): charts kept beside it, HTML and PDF exports.

- ``save_chart(url, paths)``: the chart server's image, copied into the thread's workspace
  (``/analysis/charts/``) and the user's archive (``/reports/{user_id}/charts/``), so a
  report links its charts relatively (``charts/<name>.png``) and reads correctly off this
  machine. Only images of the configured chart server are fetched (its origin, plus
  ``CHART_IMAGE_ORIGINS`` for a server that hands out another host's URLs).
- ``export_report(path, copy_to)``: the Markdown report as one self-contained HTML file
  (charts embedded as data URIs) and a PDF (WeasyPrint, CJK text in the CJK fonts set-up
  installs), beside the report and in ``copy_to``; both downloadable through
  ``download_artifact`` and ``GET /artifacts/{thread_id}/{path}``.

Writes go through the agent's storage backend, so ``/reports/`` lands in the Store under
the run's own user only (another user's path is refused there). Rendering runs in the PDF
worker process (``pdf_worker``), awaited without holding one of the event loop's threads.
"""

from __future__ import annotations

import asyncio
import logging
import os
import posixpath
import re
from typing import Annotated
from urllib.parse import urlsplit

import httpx
from deepagents.backends.protocol import BackendProtocol
from langchain.tools import ToolRuntime
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import BaseModel, Field

from graphs.tools.artifacts import artifact_url
from graphs.tools.pdf_worker import arender_exports
from graphs.tools.report_page import IMAGE_LINK, IMAGE_MAGIC, render_html
from graphs.tools.web.client import shared_ssl_context

__all__ = [
    "EXPORT_REPORT_DESCRIPTION",
    "SAVE_CHART_DESCRIPTION",
    "make_export_report",
    "make_save_chart",
    "render_html",
]

logger = logging.getLogger(__name__)

SAVE_CHART_DESCRIPTION = (
    "Copy a chart image that generate_visualization drew into files, so the report can link "
    "it relatively: e.g. paths=['/analysis/charts/report_20260101_ab12cd34_1.png', "
    "'/reports/<user_id>/charts/report_20260101_ab12cd34_1.png']."
)
EXPORT_REPORT_DESCRIPTION = (
    "Export a Markdown report (e.g. /analysis/report_20260101_ab12cd34.md, charts linked as "
    "charts/<name>.png) as a self-contained .html (charts embedded) and a .pdf beside it; "
    "copy_to (e.g. /reports/<user_id>/) also gets both files. Answers each file's download link."
)
_MAX_IMAGE = 10 * 1024 * 1024
_FOLDERS = ("/analysis/", "/reports/")


class SaveChartInput(BaseModel):
    """Arguments of ``save_chart``."""

    url: Annotated[str, Field(description="The image URL generate_visualization returned.")]
    paths: Annotated[
        list[str],
        Field(
            description="Where to write it: .png files under /analysis/ or /reports/.", min_length=1
        ),
    ]


class ExportReportInput(BaseModel):
    """Arguments of ``export_report``."""

    path: Annotated[str, Field(description="The Markdown report, under /analysis/.")]
    copy_to: Annotated[
        str | None,
        Field(description="A folder that also gets the exports, e.g. /reports/<user_id>/."),
    ] = None


def _allowed_origins(chart_url: str | None) -> set[str]:
    origins = {o.strip().rstrip("/") for o in os.environ.get("CHART_IMAGE_ORIGINS", "").split(",")}
    server = chart_url or os.environ.get("VIZ_MCP_URL") or ""
    parts = urlsplit(server)
    if parts.scheme and parts.netloc:
        origins.add(f"{parts.scheme}://{parts.netloc}")
    return {o for o in origins if o}


def _file_refusal(path: str, suffixes: tuple[str, ...]) -> str | None:
    clean = posixpath.normpath(path)
    if clean != path or not path.startswith(_FOLDERS) or ".." in path.split("/"):
        return f"{path!r}: write under /analysis/ or /reports/<user_id>/, with no '..'"
    if not path.endswith(suffixes):
        return f"{path!r}: the file name must end with {' or '.join(suffixes)}"
    return None


async def _fetch_image(url: str, origins: set[str]) -> bytes | str:
    """The image's bytes, or the reason it was refused."""
    parts = urlsplit(url)
    if f"{parts.scheme}://{parts.netloc}" not in origins:
        return f"{url} is not on the chart server ({', '.join(sorted(origins)) or 'none set'})"
    # The shared TLS context: a client's own would read the CA bundle again, on the event
    # loop (tens of ms; with several charts per report, ~7% of the Agent Server's CPU).
    verify = await shared_ssl_context()
    try:
        async with httpx.AsyncClient(verify=verify, timeout=20, follow_redirects=False) as client:
            response = await client.get(url)
    except httpx.HTTPError as exc:
        return f"the chart server did not answer for {url}: {type(exc).__name__}"
    if response.status_code != 200:
        return f"the chart server answered {response.status_code} for {url}"
    body = response.content
    if len(body) > _MAX_IMAGE or not body.startswith(IMAGE_MAGIC):
        return f"{url} is not a PNG or JPEG image of at most {_MAX_IMAGE // 2**20} MB"
    return body


def make_save_chart(*, backend: BackendProtocol, chart_url: str | None = None) -> BaseTool:
    """The ``save_chart`` tool; ``chart_url``: the chart server (its origin is trusted)."""

    async def run(url: str, paths: list[str]) -> str:
        refusals = [r for p in paths if (r := _file_refusal(p, (".png", ".jpg"))) is not None]
        if refusals:
            return "Error: " + "; ".join(refusals)
        image = await _fetch_image(url, _allowed_origins(chart_url))
        if isinstance(image, str):
            return f"Error: {image}."
        done = await backend.aupload_files([(p, image) for p in paths])
        failed = [f"{d.path}: {d.error}" for d in done if d.error]
        if failed:
            return "Error: could not write " + "; ".join(failed)
        return f"Saved the chart ({len(image)} bytes) to " + ", ".join(paths)

    return StructuredTool.from_function(
        coroutine=run, name="save_chart", description=SAVE_CHART_DESCRIPTION,
        args_schema=SaveChartInput,
    )  # fmt: skip


async def _export_files(markdown: str, images: dict[str, bytes]) -> tuple[str, bytes | str]:
    """(HTML, PDF bytes or the reason there is no PDF): both are made in the PDF worker
    process, the page in a thread here only when that worker failed."""
    title = next((ln[2:].strip() for ln in markdown.splitlines() if ln.startswith("# ")), "")
    lang = "zh-CN" if re.search(r"[\u4e00-\u9fff]", title) else "en"
    try:
        page, pdf = await arender_exports(markdown, images, title=title, lang=lang)
    except (RuntimeError, TimeoutError) as exc:
        logger.warning("export_report: no PDF: %s", exc)
        fallback = await asyncio.to_thread(render_html, markdown, images, title=title, lang=lang)
        return fallback, f"no PDF: {exc}"
    if isinstance(pdf, str):  # WeasyPrint's system libraries (Pango) are missing
        logger.warning("export_report: no PDF: %s", pdf)
        return page, (
            f"no PDF: WeasyPrint could not load its system libraries ({pdf}); "
            "scripts/setup installs them (Debian: libpango-1.0-0 libpangoft2-1.0-0)"
        )
    return page, pdf


async def _read(backend: BackendProtocol, paths: list[str]) -> dict[str, bytes]:
    done = await backend.adownload_files(paths)
    return {d.path: d.content for d in done if d.error is None and d.content is not None}


def make_export_report(*, backend: BackendProtocol) -> BaseTool:
    """The ``export_report`` tool, reading and writing through ``backend``."""

    async def run(path: str, runtime: ToolRuntime, copy_to: str | None = None) -> str:
        refusal = _file_refusal(path, (".md",))
        if refusal is None and not path.startswith("/analysis/"):
            refusal = f"{path!r}: export a report under /analysis/"
        if copy_to is not None and not copy_to.startswith("/reports/"):
            refusal = f"{copy_to!r}: copies go to the user's archive, /reports/<user_id>/"
        if refusal is not None:
            return f"Error: {refusal}."
        found = await _read(backend, [path])
        if path not in found:
            return f"Error: {path} does not exist; write the report first."
        markdown = found[path].decode("utf-8")
        folder = posixpath.dirname(path)
        links = {link for _, link in IMAGE_LINK.findall(markdown) if "://" not in link and link}
        by_path = {posixpath.normpath(posixpath.join(folder, link)): link for link in links}
        images = {by_path[p]: data for p, data in (await _read(backend, list(by_path))).items()}
        page, pdf = await _export_files(markdown, images)
        stem = path[: -len(".md")]
        files: list[tuple[str, bytes]] = [(f"{stem}.html", page.encode("utf-8"))]
        if isinstance(pdf, bytes):
            files.append((f"{stem}.pdf", pdf))
        if copy_to:
            base = posixpath.basename(stem)
            files += [(posixpath.join(copy_to, base + p[len(stem) :]), b) for p, b in files]
        done = await backend.aupload_files(files)
        failed = [f"{d.path}: {d.error}" for d in done if d.error]
        thread = (runtime.config.get("configurable") or {}).get("thread_id")
        lines = ["Exported:"]
        for p, b in files:
            if p in {d.path for d in done if d.error}:
                continue
            # The workspace's files get their download link (the artifacts route).
            link = (
                f": {artifact_url(str(thread), p)}" if thread and p.startswith("/analysis/") else ""
            )
            lines.append(f"{p} ({len(b)} bytes){link}")
        missing = [link for link in links if link not in images]
        if missing:
            lines.append("Charts not found (their titles stand in): " + ", ".join(sorted(missing)))
        if isinstance(pdf, str):
            lines.append(f"Error: {pdf}")
        if failed:
            lines.append("Error: could not write " + "; ".join(failed))
        return "\n".join(lines)

    return StructuredTool.from_function(
        coroutine=run, name="export_report", description=EXPORT_REPORT_DESCRIPTION,
        args_schema=ExportReportInput,
    )  # fmt: skip
