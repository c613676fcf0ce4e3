"""The visualization gateway through FastMCP's in-memory client: tool list, rendering,
cache, validation, maps offline, disabled tools, the image store and the HTTP routes."""

from __future__ import annotations

import asyncio
import io
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastmcp import Client
from fastmcp.exceptions import ToolError
from PIL import Image

from viz_gateway.examples import EXAMPLES
from viz_gateway.render import BUILDERS
from viz_gateway.settings import VizSettings

# Upstream's tools and their required fields (@antv/mcp-server-chart).
EXPECTED_REQUIRED = {
    "generate_area_chart": ["data"],
    "generate_bar_chart": ["data"],
    "generate_boxplot_chart": ["data"],
    "generate_column_chart": ["data"],
    "generate_district_map": ["title", "data"],
    "generate_dual_axes_chart": ["categories", "series"],
    "generate_fishbone_diagram": ["data"],
    "generate_flow_diagram": ["data"],
    "generate_funnel_chart": ["data"],
    "generate_histogram_chart": ["data"],
    "generate_line_chart": ["data"],
    "generate_liquid_chart": ["percent"],
    "generate_mind_map": ["data"],
    "generate_network_graph": ["data"],
    "generate_organization_chart": ["data"],
    "generate_path_map": ["title", "data"],
    "generate_pie_chart": ["data"],
    "generate_pin_map": ["title", "data"],
    "generate_radar_chart": ["data"],
    "generate_sankey_chart": ["data"],
    "generate_scatter_chart": ["data"],
    "generate_treemap_chart": ["data"],
    "generate_venn_chart": ["data"],
    "generate_violin_chart": ["data"],
    "generate_waterfall_chart": ["data"],
    "generate_word_cloud_chart": ["data"],
    "generate_spreadsheet": ["data"],
}
MAPS = ["generate_district_map", "generate_pin_map", "generate_path_map"]
LOCAL = sorted(set(EXPECTED_REQUIRED) - set(MAPS))


def settings(tmp_path: Path, **kw: Any) -> VizSettings:
    # One render worker: the suite's renders are sequential, and each worker warms up alone.
    return VizSettings(data_dir=tmp_path, public_url="http://charts.test", render_workers=1, **kw)


@pytest.fixture(scope="module")
def shared_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One image store for the module: charts made by one test are cache hits in the next."""
    return tmp_path_factory.mktemp("viz-store")


@pytest.fixture
async def client(shared_dir: Path) -> AsyncIterator[Client[Any]]:
    from viz_gateway.server import create_server

    mcp = create_server(settings(shared_dir), warm_up=False)
    async with Client(mcp) as c:
        c.gateway = mcp.gateway  # type: ignore[attr-defined]
        yield c


def png_of(result: Any) -> Image.Image:
    path = Path(result.structured_content["path"])
    assert path.suffix == ".png"
    image = Image.open(io.BytesIO(path.read_bytes()))
    image.load()
    return image


async def test_tool_names_and_required_fields_match_upstream(client: Client[Any]) -> None:
    tools = {t.name: t for t in await client.list_tools()}
    assert set(tools) == set(EXPECTED_REQUIRED)
    for name, required in EXPECTED_REQUIRED.items():
        assert sorted(tools[name].inputSchema.get("required", [])) == sorted(required), name
    assert len(LOCAL) == 24 and set(LOCAL) == set(BUILDERS)  # 23 chart types + spreadsheet


async def test_defaults_match_upstream(client: Client[Any]) -> None:
    props = {t.name: t.inputSchema["properties"] for t in await client.list_tools()}
    assert props["generate_bar_chart"]["group"]["default"] is False
    assert props["generate_bar_chart"]["stack"]["default"] is True
    assert props["generate_column_chart"]["group"]["default"] is True
    assert props["generate_column_chart"]["stack"]["default"] is False
    assert props["generate_area_chart"]["stack"]["default"] is False
    assert props["generate_pie_chart"]["innerRadius"]["default"] == 0
    assert props["generate_liquid_chart"]["shape"]["default"] == "circle"
    assert props["generate_sankey_chart"]["nodeAlign"]["default"] == "center"
    assert props["generate_organization_chart"]["orient"]["default"] == "vertical"
    for name in LOCAL:
        assert props[name]["width"]["default"] == 600, name
        assert props[name]["height"]["default"] == 400, name
        assert "default" in props[name]["theme"]["enum"], name
    for name in MAPS:
        assert props[name]["width"]["default"] == 1600
        assert props[name]["height"]["default"] == 1000


@pytest.mark.parametrize("tool", LOCAL)
async def test_each_local_type_renders_a_real_png(client: Client[Any], tool: str) -> None:
    args = {**EXAMPLES[tool], "width": 640, "height": 420}
    result = await client.call_tool(tool, args)
    url = result.content[0].text
    assert url.startswith("http://charts.test/charts/") and url.endswith(".png")
    image = png_of(result)
    assert image.format == "PNG" and image.size == (640, 420)
    pixels = np.asarray(image.convert("L"), dtype=float)
    assert pixels.std() > 12, f"{tool} looks blank (std {pixels.std():.1f})"
    assert len(np.unique(np.asarray(image.convert("RGB")).reshape(-1, 3), axis=0)) > 20
    chart = result.meta["chart"]
    assert chart["specFormat"] in ("vega", "vega-lite") and chart["spec"]["width"] == 640
    assert result.structured_content["source"] == "local"


async def test_theme_palette_and_background_are_honoured(client: Client[Any]) -> None:
    base = EXAMPLES["generate_bar_chart"]
    dark = await client.call_tool("generate_bar_chart", {**base, "theme": "dark"})
    pixels = np.asarray(png_of(dark).convert("L"), dtype=float)
    assert pixels[2, 2] < 40  # dark background in the corner
    red = await client.call_tool(
        "generate_bar_chart", {**base, "style": {"palette": ["#ff0000"], "backgroundColor": "#fff"}}
    )
    rgb = np.asarray(png_of(red).convert("RGB")).reshape(-1, 3).astype(int)
    reds = ((rgb[:, 0] > 230) & (rgb[:, 1] < 30) & (rgb[:, 2] < 30)).sum()
    assert reds > 2000


async def test_chinese_title_renders_with_real_glyphs(tmp_path: Path) -> None:
    from viz_gateway import fonts
    from viz_gateway.render import ChartSpec, Renderer
    from viz_gateway.scene import Scene
    from viz_gateway.themes import look_from_args

    font = fonts.activate()
    title = "火花塞供应商比价分析"
    assert fonts.has_glyphs(font, title)
    # The font really draws these characters: each glyph differs from the .notdef box.
    from PIL import ImageFont

    pil = ImageFont.truetype(str(font.path), 32, index=font.index)
    tofu = bytes(pil.getmask("\U000f0000"))
    assert all(bytes(pil.getmask(ch)) != tofu for ch in title)

    def title_only(text: str) -> np.ndarray:
        scene = Scene(look_from_args({"width": 400, "height": 80}, font.family))
        scene.text(200, 40, text, 28, align="center", baseline="middle")
        png = Renderer().render(ChartSpec("vega", scene.to_vega()))
        return np.asarray(Image.open(io.BytesIO(png)).convert("L"), dtype=float)

    chinese = title_only(title)
    boxes = title_only("\U000f0000" * len(title))  # what missing glyphs would look like
    assert chinese.std() > 10
    assert np.abs(chinese - boxes).mean() > 2, "Chinese title drawn as empty boxes"


async def test_repeated_call_is_served_from_cache(client: Client[Any]) -> None:
    gateway = client.gateway  # type: ignore[attr-defined]
    args = {**EXAMPLES["generate_line_chart"], "title": "缓存测试 cache test"}
    first = await client.call_tool("generate_line_chart", args)
    assert gateway.renders == 1
    second = await client.call_tool("generate_line_chart", args)
    assert gateway.renders == 1  # no second render
    assert second.content[0].text == first.content[0].text
    assert second.structured_content["cached"] is True
    assert second.meta["chart"]["spec"] == first.meta["chart"]["spec"]
    # Explicit defaults are the same chart as omitted ones.
    third = await client.call_tool(
        "generate_line_chart", {**args, "width": 600, "theme": "default"}
    )
    assert third.content[0].text == first.content[0].text and gateway.renders == 1


async def test_repeat_call_after_eviction_renders_again(client: Client[Any]) -> None:
    gateway = client.gateway  # type: ignore[attr-defined]
    args = {**EXAMPLES["generate_column_chart"], "title": "淘汰后重画 evicted"}
    first = await client.call_tool("generate_column_chart", args)
    png = Path(first.structured_content["path"])
    assert gateway.renders == 1
    await asyncio.to_thread(png.unlink)  # as the size cap would (raises if it was not there)
    again = await client.call_tool("generate_column_chart", args)
    assert gateway.renders == 2
    assert again.structured_content["cached"] is False
    assert again.content[0].text == first.content[0].text
    with Image.open(png) as image:
        assert image.size == (args.get("width", 600), args.get("height", 400))


async def test_repeating_a_refused_call_is_refused_again(client: Client[Any]) -> None:
    bad = {"data": [{"category": "火花塞", "value": "many"}]}
    for _ in range(2):
        with pytest.raises(ToolError, match=r"data\[0\]\.value"):
            await client.call_tool("generate_bar_chart", bad)
    assert client.gateway.renders == 0  # type: ignore[attr-defined]


async def test_concurrent_identical_calls_render_once(client: Client[Any]) -> None:
    gateway = client.gateway  # type: ignore[attr-defined]
    args = {**EXAMPLES["generate_pie_chart"], "title": "并发测试 concurrency test"}
    results = await asyncio.gather(
        *(client.call_tool("generate_pie_chart", args) for _ in range(4))
    )
    assert len({r.content[0].text for r in results}) == 1
    assert gateway.renders == 1


BAD_CALLS = [
    ("generate_bar_chart", {}, ["data: required field is missing"]),
    ("generate_bar_chart", {"data": []}, ["data: [] should be non-empty"]),
    (
        "generate_bar_chart",
        {"data": [{"category": 3, "value": "high"}], "width": "wide"},
        [
            "data[0].category: 3 is not of type 'string'",
            "data[0].value: 'high' is not of type",
            "width: 'wide' is not of type 'number'",
        ],
    ),
    (
        "generate_line_chart",
        {"data": [{"time": "2026-01", "value": float("nan")}]},
        ["data[0].value"],
    ),
    (
        "generate_line_chart",
        {"data": [{"time": "2026-01", "value": float("inf")}]},
        ["data[0].value"],
    ),
    ("generate_histogram_chart", {"data": [1.0] * 1_000_000}, ["too many", "aggregate"]),
    ("generate_liquid_chart", {"percent": 1.7}, ["percent: 1.7 is greater than the maximum of 1"]),
    (
        "generate_pie_chart",
        {"data": [{"category": "a", "value": 1}], "theme": "neon"},
        ["theme: 'neon' is not one of"],
    ),
    (
        "generate_flow_diagram",
        {"data": {"nodes": [{"name": "下单"}], "edges": [{"source": "下单", "target": "入库"}]}},
        ["data.edges[0].target: '入库' is not one of data.nodes"],
    ),
    (
        "generate_mind_map",
        {"data": {"name": "根", "children": [{"name": "根"}]}},
        ["node names must be unique"],
    ),
    (
        "generate_dual_axes_chart",
        {"categories": ["Q1", "Q2"], "series": [{"type": "line", "data": [1]}]},
        ["series[0].data: 1 values for 2 categories"],
    ),
    (
        "generate_sankey_chart",
        {
            "data": [
                {"source": "A", "target": "B", "value": 1},
                {"source": "B", "target": "A", "value": 1},
            ]
        },
        ["cycle"],
    ),
]


@pytest.mark.parametrize(("tool", "args", "expected"), BAD_CALLS)
async def test_invalid_calls_get_clear_errors_and_the_gateway_stays_up(
    client: Client[Any], tool: str, args: dict[str, Any], expected: list[str]
) -> None:
    result = await client.call_tool(tool, args, raise_on_error=False)
    assert result.is_error
    text = result.content[0].text
    for fragment in expected:
        assert fragment in text, text
    assert "Traceback" not in text
    ok = await client.call_tool("generate_funnel_chart", EXAMPLES["generate_funnel_chart"])
    assert not ok.is_error


async def test_all_field_errors_come_back_at_once(client: Client[Any]) -> None:
    bad = {"data": [{"category": 1}, {"value": "x"}], "height": "tall", "stack": "yes"}
    result = await client.call_tool("generate_column_chart", bad, raise_on_error=False)
    lines = [ln for ln in result.content[0].text.splitlines() if ln.startswith("- ")]
    assert len(lines) >= 6, lines


@pytest.mark.parametrize("tool", MAPS)
async def test_maps_offline_say_why(client: Client[Any], tool: str) -> None:
    result = await client.call_tool(tool, EXAMPLES[tool], raise_on_error=False)
    assert result.is_error
    text = result.content[0].text
    assert "online geodata" in text and "VIZ_UPSTREAM_URL" in text


async def test_disabled_tools_are_hidden(tmp_path: Path) -> None:
    from viz_gateway.server import create_server

    hidden = ["generate_pie_chart", "generate_district_map"]
    mcp = create_server(settings(tmp_path, disabled_tools=hidden), warm_up=False)
    async with Client(mcp) as c:
        names = {t.name for t in await c.list_tools()}
    assert names == set(EXPECTED_REQUIRED) - set(hidden)


def test_disabled_tools_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DISABLED_TOOLS", "generate_pie_chart, generate_venn_chart")
    assert VizSettings().disabled_tools == ["generate_pie_chart", "generate_venn_chart"]


def test_store_evicts_oldest_first(tmp_path: Path) -> None:
    from viz_gateway.store import ChartStore

    store = ChartStore(tmp_path / "charts", max_bytes=2500)
    keys = [f"{i:032x}" for i in range(4)]
    for key in keys:
        store.put(key, "png", b"x" * 1000)
        time.sleep(0.01)
    assert store.total <= 2500
    assert store.find(keys[0]) is None and store.find(keys[1]) is None
    assert store.find(keys[3]) == "png"
    # Using an image makes it recent: it outlives an older unused one.
    assert store.find(keys[2]) == "png"
    store.put(f"{9:032x}", "png", b"y" * 1000)
    assert store.find(keys[2]) == "png" and store.find(keys[3]) is None
    # A new store over the same folder sees what is there.
    again = ChartStore(tmp_path / "charts", max_bytes=2500)
    assert again.stats()["charts"] == 2


def test_http_routes(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from viz_gateway.server import create_app

    app = create_app(settings(tmp_path, allowed_hosts=["testserver", "127.0.0.1"]), warm_up=False)
    with TestClient(app) as http:
        health = http.get("/health")
        assert health.status_code == 200 and health.json()["status"] == "ok"
        gateway = app.mcp.gateway

        async def make() -> Any:
            return await gateway.call("generate_radar_chart", EXAMPLES["generate_radar_chart"])

        result = asyncio.run(make())
        key = result.structured_content["hash"]
        png = http.get(f"/charts/{key}.png")
        assert png.status_code == 200 and png.headers["content-type"] == "image/png"
        assert Image.open(io.BytesIO(png.content)).size == (600, 400)
        svg = http.get(f"/charts/{key}.svg")
        assert svg.status_code == 200 and svg.text.lstrip().startswith("<svg")
        assert http.get(f"/charts/{'0' * 32}.png").status_code == 404
        assert http.get(f"/charts/{key}.json").status_code == 404
        assert http.get("/charts/../../etc/passwd").status_code == 404
        assert http.get("/charts/").json()["charts"] >= 1
        evil = http.get("/health", headers={"host": "evil.example"})
        assert evil.status_code == 403


def test_chart_params_skill_has_a_valid_example_for_every_tool() -> None:
    import json
    import re

    from viz_gateway.schemas import TOOLS, short_name
    from viz_gateway.validation import check_arguments

    root = Path(__file__).resolve().parents[2]
    text = (root / "skills/procurement/chart_params.md").read_text(encoding="utf-8")
    by_short = {short_name(t): t for t in TOOLS}
    documented = set()
    for block in re.findall(r"```json\n(.*?)\n```", text, re.S):
        example = json.loads(block)
        tool = by_short[example["chart_type"]]
        assert check_arguments(tool, example["chart_config"], max_points=20_000) == [], tool
        documented.add(tool)
        assert f"### `{example['chart_type']}` ({tool})" in text
    assert documented == set(TOOLS)


def test_no_cjk_font_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from viz_gateway import fonts

    monkeypatch.setattr(fonts, "SEARCH_DIRS", (tmp_path / "none",))
    with pytest.raises(fonts.FontError) as info:
        fonts.find_cjk_font(tmp_path / "empty-fonts")
    message = str(info.value)
    assert "No CJK font found" in message and "VIZ_FONT_DIR" in message
    assert "fonts-wqy-microhei" in message


def test_font_dir_setting_is_searched_first() -> None:
    from viz_gateway import fonts

    found = fonts.find_cjk_font()
    again = fonts.find_cjk_font(found.path.parent)
    assert again.path.parent == found.path.parent and fonts.has_glyphs(again, "刹车片链条")


def test_font_family_setting_picks_that_face_or_warns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from viz_gateway import fonts

    best = fonts.find_cjk_font()
    # Only our folder is searched: a copy of the best font file, as VIZ_FONT_DIR would hold.
    monkeypatch.setattr(fonts, "SEARCH_DIRS", ())
    (tmp_path / best.path.name).symlink_to(best.path)
    faces = fonts._faces(tmp_path / best.path.name)
    last_index, last_family = faces[-1]
    picked = fonts.find_cjk_font(tmp_path, last_family)
    assert (picked.index, picked.family) == (last_index, last_family)
    assert fonts.has_glyphs(picked, "火花塞")
    with caplog.at_level("WARNING", logger=fonts.log.name):
        fallback = fonts.find_cjk_font(tmp_path, "No Such Family 无此字体")
    assert fallback.family != "No Such Family 无此字体" and fonts.has_glyphs(fallback, "刹车片")
    assert "No Such Family" in caplog.text


def test_scene_lifts_text_over_shapes_and_merges_marks_by_kind() -> None:
    import math

    from viz_gateway.scene import Scene
    from viz_gateway.themes import look_from_args

    scene = Scene(look_from_args({"width": 300, "height": 200}, "Sans", "Sans Bold"))
    for i in range(5):  # a mind map's pattern: curve, label, underline per node
        scene.path(f"M0,{i * 30}C10,0 20,0 30,{i * 30}", stroke="#333", strokeWidth=1.5)
        scene.text(40, i * 30 + 0.1 + 0.2, f"节点 {i}", 12, fontWeight="bold" if i == 0 else None)
        scene.line(40, i * 30, 90, i * 30, stroke="#333", strokeWidth=1.5)
    scene.circle(150, 100, 40, fill="#1783FF", stroke="#ffffff")
    scene.clipped("M0,0L300,0L300,200Z", lambda inner: inner.text(150, 100, "内", 20))
    scene.text(150, 180, "after the clip", 10)
    spec = scene.to_vega()

    kinds = [m["type"] for m in spec["marks"]]
    assert kinds == ["path", "arc", "text", "group", "text"]
    values = {d["name"]: d["values"] for d in spec["data"]}
    shapes = values[spec["marks"][0]["from"]["data"]]
    assert len(shapes) == 10 and shapes[1]["path"] == "M40.00,0.00L90.00,0.00"
    labels = values[spec["marks"][2]["from"]["data"]]
    assert [t["text"] for t in labels] == [f"节点 {i}" for i in range(5)]
    assert labels[1]["y"] == 30.3  # pixels rounded to 1/100
    assert labels[0]["font"] == "Sans Bold" and "font" not in labels[1]
    assert spec["marks"][2]["encode"]["enter"]["font"] == {"field": "font"}
    circle = values[spec["marks"][1]["from"]["data"]][0]
    assert circle["endAngle"] == 2 * math.pi  # angles are never rounded: no seam


def test_diagram_specs_stay_small() -> None:
    from viz_gateway.render import build_spec
    from viz_gateway.schemas import TOOLS, with_defaults

    for tool, (fmt, _builder) in BUILDERS.items():
        if fmt != "vega":
            continue
        spec = build_spec(tool, with_defaults(TOOLS[tool][1], EXAMPLES[tool]), "Sans").spec
        # One mark per kind and layer, not one per node (the spec travels in every result).
        assert len(spec["marks"]) <= 12, (tool, [m["type"] for m in spec["marks"]])


async def test_warm_up_reads_the_store_index_off_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A big chart folder is scanned once; that scan must not stall the first tool call.
    from tests.blocking import no_blocking_calls
    from viz_gateway.server import Gateway, _warm_up

    charts = tmp_path / "charts"
    charts.mkdir()
    for i in range(50):
        (charts / f"{i:032x}.png").write_bytes(b"x" * 10)
    gateway = Gateway(VizSettings(data_dir=tmp_path, render_workers=1))
    started: list[bool] = []

    async def no_workers() -> None:
        started.append(True)

    monkeypatch.setattr(gateway.pool, "warm_up", no_workers)
    with no_blocking_calls(["viz_gateway"]):
        await _warm_up(gateway)
    assert started == [True]
    assert gateway.store._index is not None and len(gateway.store._index) == 50
    assert gateway.store.total == 500
