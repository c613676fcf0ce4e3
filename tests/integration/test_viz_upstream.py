"""Upstream mode: the gateway process forwards calls to a stand-in chart MCP server (run in
this test, serving the images it returns), stores what comes back under its own URL, and
falls back to local rendering, saying so, when upstream fails."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from fastmcp import Client, FastMCP
from fastmcp.exceptions import ToolError
from fastmcp.tools import Tool
from fastmcp.tools.base import ToolResult
from mcp.types import TextContent
from PIL import Image
from starlette.requests import Request
from starlette.responses import Response

from runstack.processes import ServiceHandle, free_port
from runstack.services import run_services
from viz_gateway.examples import EXAMPLES

pytestmark = pytest.mark.integration


def _png(color: str) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (320, 200), color).save(buf, format="PNG")
    return buf.getvalue()


IMAGES = {"bar.png": _png("#d62728"), "map.png": _png("#2ca02c")}


class StandInChart(Tool):
    """A chart tool that behaves as told: answer a URL, fail, or answer junk."""

    behaviour: str = "ok"
    image: str = ""
    base: str = ""

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        self.meta = {"last_arguments": arguments}
        if self.behaviour == "error":
            raise ToolError("quota exceeded for today")
        if self.behaviour == "no-url":
            return ToolResult(content=[TextContent(type="text", text="chart is being prepared")])
        return ToolResult(content=[TextContent(type="text", text=f"{self.base}/img/{self.image}")])


class StandIn:
    """A stand-in for the hosted AntV server on a free port, in a thread of this process."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.calls: list[tuple[str, dict[str, Any]]] = []
        mcp = FastMCP("stand-in-antv")
        behaviours = {
            "generate_bar_chart": ("ok", "bar.png"),
            "generate_pin_map": ("ok", "map.png"),
            "generate_column_chart": ("error", ""),
            "generate_line_chart": ("ok", "missing.png"),
            "generate_pie_chart": ("no-url", ""),
            "generate_district_map": ("error", ""),
        }
        calls = self.calls

        class Recording(StandInChart):
            async def run(self, arguments: dict[str, Any]) -> ToolResult:
                calls.append((self.name, arguments))
                return await super().run(arguments)

        for name, (behaviour, image) in behaviours.items():
            mcp.add_tool(
                Recording(
                    name=name,
                    parameters={"type": "object"},
                    behaviour=behaviour,
                    image=image,
                    base=self.url,
                )
            )

        @mcp.custom_route("/img/{name}", methods=["GET"])
        async def image(request: Request) -> Response:
            data = IMAGES.get(request.path_params["name"])
            if data is None:
                return Response("not found", status_code=404)
            return Response(data, media_type="image/png")

        config = uvicorn.Config(
            mcp.http_app(path="/mcp"), host="127.0.0.1", port=self.port, log_level="warning"
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> None:
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("stand-in server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


@pytest.fixture(scope="module")
def standin() -> Iterator[StandIn]:
    server = StandIn()
    server.start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def gateway(tmp_path_factory: pytest.TempPathFactory, standin: StandIn) -> Iterator[ServiceHandle]:
    data = tmp_path_factory.mktemp("viz-upstream")
    env = {
        "DATA_DIR": str(data),
        "VIZ_UPSTREAM_URL": f"{standin.url}/mcp",
        "VIZ_UPSTREAM_TIMEOUT": "10",
        "VIZ_RENDER_WORKERS": "1",
    }
    with run_services(["viz-gateway"], env, log_dir=data) as running:
        yield running["viz-gateway"]


async def fetch(url: str) -> bytes:
    async with httpx.AsyncClient(timeout=30) as http:
        response = await http.get(url)
    assert response.status_code == 200, url
    return response.content


async def test_upstream_image_is_stored_and_served_under_our_url(
    mcp: Client[Any], gateway: ServiceHandle, standin: StandIn
) -> None:
    args = EXAMPLES["generate_bar_chart"]
    result = await mcp.call_tool("generate_bar_chart", args)
    url = result.content[0].text
    assert url.startswith(f"{gateway.url}/charts/")
    assert result.structured_content["source"] == "upstream"
    assert result.meta["chart"]["upstreamUrl"] == f"{standin.url}/img/bar.png"
    assert await fetch(url) == IMAGES["bar.png"]
    # Forwarded as given (upstream applies its own defaults).
    assert ("generate_bar_chart", args) in standin.calls
    again = await mcp.call_tool("generate_bar_chart", args)
    assert again.content[0].text == url and again.structured_content["cached"] is True
    assert sum(1 for name, _ in standin.calls if name == "generate_bar_chart") == 1


async def test_maps_work_through_upstream(mcp: Client[Any]) -> None:
    result = await mcp.call_tool("generate_pin_map", EXAMPLES["generate_pin_map"])
    assert result.structured_content["source"] == "upstream"
    assert await fetch(result.content[0].text) == IMAGES["map.png"]


@pytest.mark.parametrize(
    ("tool", "why"),
    [
        ("generate_column_chart", "quota exceeded"),
        ("generate_line_chart", "missing.png"),
        ("generate_pie_chart", "no image URL"),
        ("generate_area_chart", "generate_area_chart"),  # not offered upstream
    ],
)
async def test_upstream_failure_falls_back_to_local_and_says_so(
    mcp: Client[Any], tool: str, why: str
) -> None:
    result = await mcp.call_tool(tool, EXAMPLES[tool])
    assert not result.is_error
    assert result.structured_content["source"] == "local"
    note = result.content[1].text
    assert "rendered locally" in note and why in note, note
    image = Image.open(io.BytesIO(await fetch(result.content[0].text)))
    assert image.size == (600, 400)


async def test_map_fails_clearly_when_upstream_fails(mcp: Client[Any]) -> None:
    result = await mcp.call_tool(
        "generate_district_map", EXAMPLES["generate_district_map"], raise_on_error=False
    )
    assert result.is_error
    text = result.content[0].text
    assert "online geodata" in text and "quota exceeded" in text


async def test_upstream_down_falls_back_to_local(
    mcp: Client[Any], gateway: ServiceHandle, standin: StandIn
) -> None:
    standin.stop()
    args = {**EXAMPLES["generate_treemap_chart"], "title": "上游宕机时本地渲染"}
    result = await mcp.call_tool("generate_treemap_chart", args)
    assert result.structured_content["source"] == "local"
    assert "unreachable" in result.content[1].text
    image = Image.open(io.BytesIO(await fetch(result.content[0].text)))
    assert image.size == (600, 400)
    async with httpx.AsyncClient(timeout=10) as http:
        assert (await http.get(f"{gateway.url}/health")).status_code == 200
