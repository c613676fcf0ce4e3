"""The visualization gateway as clients meet it: a real ``python -m viz_gateway`` process on
a free loopback port, called over streamable HTTP (and once over stdio), its images fetched
over HTTP, and ``generate_visualization`` pointed at it."""

from __future__ import annotations

import asyncio
import io
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from PIL import Image

from graphs.tools.visualization import make_generate_visualization
from runstack.processes import ROOT, ServiceHandle, free_port
from runstack.services import run_services
from viz_gateway.examples import EXAMPLES

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServiceHandle]:
    data = tmp_path_factory.mktemp("viz-data")
    env = {"DATA_DIR": str(data), "VIZ_UPSTREAM_URL": "", "VIZ_RENDER_WORKERS": "1"}
    with run_services(["viz-gateway"], env, log_dir=data) as running:
        yield running["viz-gateway"]


def decode(content: bytes) -> Image.Image:
    image = Image.open(io.BytesIO(content))
    image.load()
    return image


async def test_tools_charts_and_images_over_http(mcp: Client[Any], gateway: ServiceHandle) -> None:
    names = {t.name for t in await mcp.list_tools()}
    assert len(names) == 27 and "generate_dual_axes_chart" in names
    args = {**EXAMPLES["generate_dual_axes_chart"], "width": 800, "height": 500}
    result = await mcp.call_tool("generate_dual_axes_chart", args)
    url = result.content[0].text
    assert url.startswith(f"{gateway.url}/charts/") and url.endswith(".png")
    async with httpx.AsyncClient(timeout=30) as http:
        png = await http.get(url)
        assert png.status_code == 200 and png.headers["content-type"] == "image/png"
        assert decode(png.content).size == (800, 500)
        svg = await http.get(url.replace(".png", ".svg"))
        assert svg.status_code == 200 and "<svg" in svg.text[:200]
        again = await mcp.call_tool("generate_dual_axes_chart", args)
        assert again.content[0].text == url and again.structured_content["cached"] is True
        health = (await http.get(f"{gateway.url}/health")).json()
        assert health["status"] == "ok" and health["renders"] >= 1


async def test_bad_input_gets_errors_and_the_gateway_stays_up(
    mcp: Client[Any], gateway: ServiceHandle
) -> None:
    bad_calls: list[tuple[str, dict[str, Any]]] = [
        ("generate_pie_chart", {"data": []}),
        ("generate_scatter_chart", {"data": [{"x": "a", "y": None}]}),
        ("generate_histogram_chart", {"data": [1.5] * 200_000}),
        ("generate_network_graph", {"data": {"nodes": [], "edges": []}}),
        ("generate_path_map", EXAMPLES["generate_path_map"]),
    ]
    for tool, args in bad_calls:
        result = await mcp.call_tool(tool, args, raise_on_error=False)
        assert result.is_error, tool
        assert "Traceback" not in result.content[0].text
    async with httpx.AsyncClient(timeout=10) as http:
        assert (await http.get(f"{gateway.url}/health")).status_code == 200
        refused = await http.get(f"{gateway.url}/health", headers={"Host": "evil.example"})
        assert refused.status_code == 403
        missing = await http.get(f"{gateway.url}/charts/{'f' * 32}.png")
        assert missing.status_code == 404
    ok = await mcp.call_tool("generate_word_cloud_chart", EXAMPLES["generate_word_cloud_chart"])
    assert not ok.is_error


async def test_generate_visualization_against_the_process(gateway: ServiceHandle) -> None:
    tool = make_generate_visualization(f"{gateway.url}/mcp")
    call = {
        "name": "generate_visualization",
        "id": "c1",
        "type": "tool_call",
        "args": {"chart_type": "radar", "chart_config": EXAMPLES["generate_radar_chart"]},
    }
    msg = await tool.ainvoke(call)
    assert msg.status == "success", msg.content
    async with httpx.AsyncClient(timeout=30) as http:
        image = decode((await http.get(msg.artifact["url"])).content)
    assert image.size == (600, 400)
    bad = {**call, "args": {"chart_type": "radar", "chart_config": {"data": [{"name": 1}]}}}
    msg = await tool.ainvoke(bad)
    assert msg.status == "error" and "data[0].value: required field is missing" in msg.content


async def test_sessions_end_without_a_traceback(gateway: ServiceHandle) -> None:
    for _ in range(3):
        async with Client(f"{gateway.url}/mcp") as client:
            await client.ping()
    await asyncio.sleep(0.5)
    log = gateway.log_tail(2000)
    assert log.count("Terminating session") >= 3  # the sessions did end, and were logged
    assert "ClosedResourceError" not in log and "Traceback" not in log, log


async def test_generate_visualization_when_the_server_is_down() -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    tool = make_generate_visualization(url, timeout=5)
    msg = await tool.ainvoke(
        {
            "name": "generate_visualization",
            "id": "c2",
            "type": "tool_call",
            "args": {"chart_type": "bar", "chart_config": EXAMPLES["generate_bar_chart"]},
        }
    )
    assert msg.status == "error" and f"{url} is unreachable" in msg.content


async def test_stdio_transport(tmp_path: Path) -> None:
    port = free_port()
    transport = StdioTransport(
        command=sys.executable,
        args=["-m", "viz_gateway", "--stdio"],
        env={
            "DATA_DIR": str(tmp_path),
            "VIZ_PORT": str(port),
            "PATH": "/usr/bin:/bin",
            "PYTHONPATH": str(ROOT),
            "VIZ_UPSTREAM_URL": "",
            "VIZ_RENDER_WORKERS": "1",
        },
        cwd=str(ROOT),
    )
    try:
        async with Client(transport, timeout=60) as client:
            names = {t.name for t in await client.list_tools()}
            assert "generate_fishbone_diagram" in names
            result = await client.call_tool(
                "generate_fishbone_diagram", EXAMPLES["generate_fishbone_diagram"]
            )
            url = result.content[0].text
            assert url.startswith(f"http://127.0.0.1:{port}/charts/")
            # The stdio process also serves its images over HTTP.
            async with httpx.AsyncClient(timeout=30) as http:
                assert decode((await http.get(url)).content).size == (600, 400)
            assert _processes_with(f"DATA_DIR={tmp_path}"), "server processes not found"
    finally:
        await transport.close()  # FastMCP keeps stdio servers alive until told
    # The server and its render worker are gone, not orphaned.
    left = await asyncio.to_thread(_wait_gone, f"DATA_DIR={tmp_path}", 15.0)
    assert left == []


def _wait_gone(marker: str, timeout: float) -> list[int]:
    deadline = time.monotonic() + timeout
    while (left := _processes_with(marker)) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


def _processes_with(marker: str) -> list[int]:
    """Live processes whose environment holds ``marker`` (ours, by their unique DATA_DIR)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes().split(b"\0")
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if state != "Z" and marker.encode() in environ:
            found.append(int(entry))
    return found
