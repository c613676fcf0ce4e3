"""Tool arguments → a Vega / Vega-Lite spec → PNG or SVG through vl-convert (offline)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from viz_gateway import charts, diagrams
from viz_gateway.themes import Look, look_from_args

SpecFormat = Literal["vega", "vega-lite"]
Builder = Callable[[dict[str, Any], Look], dict[str, Any]]

BUILDERS: dict[str, tuple[SpecFormat, Builder]] = {
    "generate_area_chart": ("vega-lite", lambda a, lk: charts.area_or_line(a, lk, "area")),
    "generate_line_chart": ("vega-lite", lambda a, lk: charts.area_or_line(a, lk, "line")),
    "generate_bar_chart": ("vega-lite", lambda a, lk: charts.bar_or_column(a, lk, True)),
    "generate_column_chart": ("vega-lite", lambda a, lk: charts.bar_or_column(a, lk, False)),
    "generate_pie_chart": ("vega-lite", charts.pie),
    "generate_histogram_chart": ("vega-lite", charts.histogram),
    "generate_scatter_chart": ("vega-lite", charts.scatter),
    "generate_boxplot_chart": ("vega-lite", charts.boxplot),
    "generate_violin_chart": ("vega-lite", charts.violin),
    "generate_dual_axes_chart": ("vega-lite", charts.dual_axes),
    "generate_waterfall_chart": ("vega-lite", charts.waterfall),
    "generate_funnel_chart": ("vega", diagrams.funnel),
    "generate_radar_chart": ("vega", diagrams.radar),
    "generate_treemap_chart": ("vega", diagrams.treemap),
    "generate_sankey_chart": ("vega", diagrams.sankey),
    "generate_venn_chart": ("vega", diagrams.venn),
    "generate_word_cloud_chart": ("vega", diagrams.word_cloud),
    "generate_liquid_chart": ("vega", diagrams.liquid),
    "generate_fishbone_diagram": ("vega", diagrams.fishbone),
    "generate_mind_map": ("vega", diagrams.mind_map),
    "generate_organization_chart": ("vega", diagrams.organization_chart),
    "generate_flow_diagram": ("vega", diagrams.flow_diagram),
    "generate_network_graph": ("vega", diagrams.network_graph),
    "generate_spreadsheet": ("vega", diagrams.spreadsheet),
}
"""Every tool rendered locally (all but the three maps)."""

RENDERER_VERSION = "vl2"
"""Part of every content hash: bump when output for the same arguments changes."""


@dataclass(frozen=True)
class ChartSpec:
    """A built spec and the dialect vl-convert must read it as."""

    format: SpecFormat
    spec: dict[str, Any]


def build_spec(tool: str, args: dict[str, Any], font: str, bold_font: str = "") -> ChartSpec:
    """The spec for ``tool`` called with (validated, defaulted) ``args``, its text in the
    ``font`` family and its bold text in ``bold_font`` (default: ``font``)."""
    fmt, builder = BUILDERS[tool]
    return ChartSpec(fmt, builder(args, look_from_args(args, font, bold_font)))


class Renderer:
    """Turns specs into images; counts renders (for tests and the benchmark)."""

    def __init__(self) -> None:
        self.renders = 0
        self.seconds = 0.0
        self._lock = threading.Lock()

    def render(self, chart: ChartSpec, fmt: Literal["png", "svg"] = "png") -> bytes:
        """PNG or SVG bytes of ``chart``: blocking; call it from a worker thread."""
        import vl_convert

        started = time.perf_counter()
        if chart.format == "vega-lite":
            out: bytes | str = (
                vl_convert.vegalite_to_png(chart.spec)
                if fmt == "png"
                else vl_convert.vegalite_to_svg(chart.spec)
            )
        else:
            out = (
                vl_convert.vega_to_png(chart.spec)
                if fmt == "png"
                else vl_convert.vega_to_svg(chart.spec)
            )
        with self._lock:
            self.renders += 1
            self.seconds += time.perf_counter() - started
        return out.encode() if isinstance(out, str) else out


__all__ = ["BUILDERS", "RENDERER_VERSION", "ChartSpec", "Renderer", "build_spec"]
