"""Descriptions of the graphs' own tools: short on purpose, snapshot-tested.

Long reference material lives in skills (``skills/procurement/chart_params.md`` for
charts). Constants are prefixed by the tool they belong to.
"""

from __future__ import annotations

__all__ = [
    "GENERATE_VISUALIZATION_DESCRIPTION",
    "VIZ_INVALID_CONFIG",
    "VIZ_SERVER_DOWN",
    "VIZ_UNKNOWN_TYPE",
]

GENERATE_VISUALIZATION_DESCRIPTION = """\
Make a chart image and get its URL (embed it in Markdown as ![title](url)).
Pick chart_type from the table; chart_config holds that chart's fields ("?" = optional).

Common optional fields, every chart: title, width (600), height (400), \
theme ("default"|"academy"|"dark"), style {palette: [colors], backgroundColor}. \
Charts with axes also take axisXTitle, axisYTitle.

Category-value, data: [{category, value, group?}]
- column: group? (true: side by side), stack? — best for comparing suppliers
- bar: horizontal bars; stack? (default true), group?
- pie: innerRadius? (0.6 = donut); funnel: stages in order
- waterfall: data [{category, value?, isIntermediateTotal?, isTotal?}]
Time-value, data: [{time, value, group?}] (time is a string: "2026-03")
- line: price trends; area: stack?
- dual_axes: categories [str], series [{type "column"|"line", data [num], axisYTitle?}]
Distribution
- histogram: data [num], binNumber?
- boxplot, violin: data [{category, value, group?}]
- scatter: data [{x, y, group?}]
Multi-dimension / flow / sets
- radar: data [{name, value, group?}] (one group per supplier)
- sankey: data [{source, target, value}], nodeAlign?
- treemap: data [{name, value, children? [{name, value, children?}]}]
- venn: data [{sets [str], value, label?}]
- network_graph, flow_diagram: data {nodes [{name}], edges [{source, target, name?}]}
- word_cloud: data [{text, value}]
Special
- liquid: percent (0-1), shape? (circle|rect|pin|triangle)
- mind_map, fishbone_diagram: data {name, children? [{name, children?}]}, names unique
- organization_chart: data {name, description?, children?}, orient? (vertical|horizontal)
- spreadsheet: data [{column: value}], columns?, rows?, values? (pivot)
Maps (need the online chart server; offline they fail): district_map, pin_map, path_map: \
title + Chinese place names.

Example: chart_type="column", chart_config={"title": "链条报价对比", "axisYTitle": "元", \
"data": [{"category": "DID", "value": 88, "group": "ERP"}, \
{"category": "DID", "value": 85, "group": "官网"}]}
An invalid config returns every bad field at once: fix them all, then call again. \
Full parameters and an example per type: /skills/procurement/chart_params.md"""

VIZ_UNKNOWN_TYPE = (
    "Error: unknown chart_type {chart_type!r}. Use one of: {valid}. "
    "See /skills/procurement/chart_params.md for their fields."
)

VIZ_INVALID_CONFIG = (
    "Error: chart_config is not valid for chart_type {chart_type!r} ({tool}):\n{errors}\n"
    "Fix all of these and call generate_visualization again. "
    "Fields: /skills/procurement/chart_params.md"
)

VIZ_SERVER_DOWN = (
    "Error: the chart server at {url} is unreachable ({reason}). No chart was made. "
    "Carry on without this chart (say so in the report) or try once more later; an operator "
    "can start it with `python -m viz_gateway` or point VIZ_MCP_URL at a running one."
)
