"""The chart tools' names, descriptions and JSON input schemas, matching AntV's mcp-server-chart.

Field names, required fields and defaults follow the published ``@antv/mcp-server-chart``
tools so that an agent written for the hosted server works unchanged here. The schemas
are written out by hand (draft-07, as upstream emits them).
"""

from __future__ import annotations

from typing import Any

from viz_gateway.themes import G2_PALETTE

JsonSchema = dict[str, Any]

_THEME: JsonSchema = {
    "type": "string",
    "enum": ["default", "academy", "dark"],
    "default": "default",
    "description": "Set the theme for the chart, optional, default is 'default'.",
}
_TEXTURE: JsonSchema = {
    "type": "string",
    "enum": ["default", "rough"],
    "default": "default",
    "description": "Set the texture for the chart, optional, default is 'default'. "
    "'rough' refers to hand-drawn style.",
}
_BG: JsonSchema = {
    "type": "string",
    "description": "Background color of the chart, such as, '#fff'.",
}
_PALETTE: JsonSchema = {
    "type": "array",
    "items": {"type": "string"},
    "description": "Color palette for the chart, it is a collection of colors.",
}
_LINE_WIDTH: JsonSchema = {
    "type": "number",
    "description": "Line width for the lines of chart, such as 4.",
}
_START_AT_ZERO: JsonSchema = {
    "type": "boolean",
    "description": "Whether to start the axis at zero, optional, default is false.",
}


def _size(side: str, of: str, default: int) -> JsonSchema:
    return {
        "type": "number",
        "default": default,
        "description": f"Set the {side} of {of}, default is {default}.",
    }


_WIDTH = _size("width", "chart", 600)
_HEIGHT = _size("height", "chart", 400)
_TITLE: JsonSchema = {"type": "string", "default": "", "description": "Set the title of chart."}
_AXIS_X: JsonSchema = {
    "type": "string",
    "default": "",
    "description": "Set the x-axis title of chart.",
}
_AXIS_Y: JsonSchema = {
    "type": "string",
    "default": "",
    "description": "Set the y-axis title of chart.",
}
_MAP_TITLE: JsonSchema = {
    "type": "string",
    "description": "The map title should not exceed 16 characters. The content should be "
    "consistent "
    "with the information the map wants to convey and should be accurate, rich, creative, and "
    "attractive.",
}
_MAP_WIDTH = _size("width", "map", 1600)
_MAP_HEIGHT = _size("height", "map", 1000)
_POIS: JsonSchema = {
    "type": "array",
    "items": {"type": "string"},
    "minItems": 1,
    "description": "A list of keywords for the names of points of interest (POIs) in Chinese, "
    'descriptive enough to be unambiguous ("杭州西湖" is better than "西湖"). For example, '
    '["西安钟楼", "西安大唐不夜城", "西安大雁塔"].',
}


def _style(*extra: str, palette: bool = True, bg: bool = True) -> JsonSchema:
    props: dict[str, JsonSchema] = {}
    if bg:
        props["backgroundColor"] = _BG
    if palette:
        props["palette"] = _PALETTE
    props["texture"] = _TEXTURE
    for name in extra:
        props[name] = {"lineWidth": _LINE_WIDTH, "startAtZero": _START_AT_ZERO}[name]
    return {
        "type": "object",
        "properties": props,
        "description": "Style configuration for the chart with a JSON object, optional.",
    }


_TEXTURE_ONLY_STYLE: JsonSchema = {
    "type": "object",
    "properties": {"texture": _TEXTURE},
    "description": "Style configuration for the chart with a JSON object, optional.",
}


def _records(fields: dict[str, JsonSchema], required: list[str], description: str) -> JsonSchema:
    return {
        "type": "array",
        "minItems": 1,
        "items": {"type": "object", "properties": fields, "required": required},
        "description": description,
    }


def _obj(props: dict[str, JsonSchema], required: list[str]) -> JsonSchema:
    return {
        "type": "object",
        "properties": props,
        "required": required,
        "$schema": "http://json-schema.org/draft-07/schema#",
    }


def _common(*, axes: bool = True, title: bool = True) -> dict[str, JsonSchema]:
    out: dict[str, JsonSchema] = {"theme": _THEME, "width": _WIDTH, "height": _HEIGHT}
    if title:
        out["title"] = _TITLE
    if axes:
        out["axisXTitle"] = _AXIS_X
        out["axisYTitle"] = _AXIS_Y
    return out


def _tree_node(depth: int, value: bool = False, description: bool = False) -> JsonSchema:
    """A non-recursive tree of ``depth`` levels (upstream avoids $ref for client support)."""
    props: dict[str, JsonSchema] = {"name": {"type": "string"}}
    required = ["name"]
    if value:
        props["value"] = {"type": "number"}
        required.append("value")
    if description:
        props["description"] = {"type": "string"}
    if depth > 1:
        props["children"] = {"type": "array", "items": _tree_node(depth - 1, value, description)}
    return {"type": "object", "properties": props, "required": required}


_S = {"type": "string"}
_N = {"type": "number"}
_CAT_VALUE = {"category": _S, "value": _N}
_CAT_VALUE_GROUP = {"category": _S, "value": _N, "group": _S}
_GRAPH: JsonSchema = {
    "type": "object",
    "properties": {
        "nodes": {
            "type": "array",
            "minItems": 1,
            "items": {"type": "object", "properties": {"name": _S}, "required": ["name"]},
        },
        "edges": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "source": _S,
                    "target": _S,
                    "name": {"type": "string", "default": ""},
                },
                "required": ["source", "target"],
            },
        },
    },
    "required": ["nodes", "edges"],
}


def _graph(description: str) -> JsonSchema:
    return {**_GRAPH, "description": description}


TOOLS: dict[str, tuple[str, JsonSchema]] = {
    "generate_area_chart": (
        "Generate a area chart to show data trends under continuous independent variables and "
        "observe the overall data trend, such as, displacement = velocity (average or "
        "instantaneous) × time: s = v × t.",
        _obj(
            {
                "data": _records(
                    {"time": _S, "value": _N, "group": _S},
                    ["time", "value"],
                    "Data for area chart, such as, [{ time: '2015', value: 23 }, { time: '2016', "
                    "value: 32 }], when stacking is needed the data should contain a `group` "
                    "field.",
                ),
                "stack": {
                    "type": "boolean",
                    "default": False,
                    "description": "Whether stacking is enabled. When enabled, area charts require "
                    "a 'group' field in the data.",
                },
                "style": _style("lineWidth"),
                **_common(),
            },
            ["data"],
        ),
    ),
    "generate_bar_chart": (
        "Generate a horizontal bar chart to show data for numerical comparisons among different "
        "categories, such as, comparing categorical data and for horizontal comparisons.",
        _obj(
            {
                "data": _records(
                    _CAT_VALUE_GROUP,
                    ["category", "value"],
                    "Data for bar chart, such as, [{ category: '分类一', value: 10 }, { category: "
                    "'分类二', value: 20 }], when grouping or stacking is needed for bar, the data "
                    "should contain a `group` field.",
                ),
                "group": {
                    "type": "boolean",
                    "default": False,
                    "description": "Whether grouping is enabled. When enabled, bar charts require "
                    "a "
                    "'group' field in the data. When `group` is true, `stack` should be false.",
                },
                "stack": {
                    "type": "boolean",
                    "default": True,
                    "description": "Whether stacking is enabled. When enabled, bar charts require "
                    "a "
                    "'group' field in the data. When `stack` is true, `group` should be false.",
                },
                "style": _style(),
                **_common(),
            },
            ["data"],
        ),
    ),
    "generate_boxplot_chart": (
        "Generate a boxplot chart to show data for statistical summaries among different "
        "categories, such as, comparing the distribution of data points across categories.",
        _obj(
            {
                "data": _records(
                    _CAT_VALUE_GROUP,
                    ["category", "value"],
                    "Data for boxplot chart, such as, [{ category: '分类一', value: 10 }] or "
                    "[{ category: '分类二', value: 20, group: '组别一' }].",
                ),
                "style": _style("startAtZero"),
                **_common(),
            },
            ["data"],
        ),
    ),
    "generate_column_chart": (
        "Generate a column chart, which are best for comparing categorical data, such as, when "
        "values are close, column charts are preferable because our eyes are better at judging "
        "height than other visual elements like area or angles.",
        _obj(
            {
                "data": _records(
                    _CAT_VALUE_GROUP,
                    ["category", "value"],
                    "Data for column chart, such as, [{ category: 'Category A', value: 10 }], when "
                    "grouping or stacking is needed for column, the data should contain a 'group' "
                    "field.",
                ),
                "group": {
                    "type": "boolean",
                    "default": True,
                    "description": "Whether grouping is enabled. When enabled, column charts "
                    "require a 'group' field in the data. When `group` is true, `stack` should be "
                    "false.",
                },
                "stack": {
                    "type": "boolean",
                    "default": False,
                    "description": "Whether stacking is enabled. When enabled, column charts "
                    "require a 'group' field in the data. When `stack` is true, `group` should be "
                    "false.",
                },
                "style": _style(),
                **_common(),
            },
            ["data"],
        ),
    ),
    "generate_district_map": (
        "Generates regional distribution maps, which are usually used to show the administrative "
        "divisions and coverage of a dataset, such as GDP distribution maps of provinces and "
        "cities. This tool is limited to generating data maps within China.",
        _obj(
            {
                "title": _MAP_TITLE,
                "data": {
                    "type": "object",
                    "properties": {
                        "name": {
                            "type": "string",
                            "description": "Chinese name of an "
                            'administrative region within China, such as "西安市".',
                        },
                        "style": {"type": "object", "properties": {"fillColor": _S}},
                        "colors": {
                            "type": "array",
                            "items": _S,
                            "default": list(G2_PALETTE),
                        },
                        "dataType": {"type": "string", "enum": ["number", "enum"]},
                        "dataLabel": _S,
                        "dataValue": _S,
                        "dataValueUnit": _S,
                        "showAllSubdistricts": {"type": "boolean", "default": False},
                        "subdistricts": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "name": _S,
                                    "dataValue": _S,
                                    "style": {"type": "object", "properties": {"fillColor": _S}},
                                },
                                "required": ["name"],
                            },
                        },
                    },
                    "required": ["name"],
                    "description": "Administrative division data; subdistricts are optional. If "
                    "`subdistricts` has a value, `showAllSubdistricts` must be true.",
                },
                "width": _MAP_WIDTH,
                "height": _MAP_HEIGHT,
            },
            ["title", "data"],
        ),
    ),
    "generate_dual_axes_chart": (
        "Generate a dual axes chart which is a combination chart that integrates two different "
        "chart types, typically combining a bar chart with a line chart to display both the trend "
        "and comparison of data, such as, the trend of sales and profit over time.",
        _obj(
            {
                "categories": {
                    "type": "array",
                    "items": _S,
                    "minItems": 1,
                    "description": "Categories for dual axes chart, such as, ['2015', '2016', "
                    "'2017'].",
                },
                "series": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "properties": {
                            "type": {
                                "type": "string",
                                "enum": ["column", "line"],
                                "description": "The optional value can be 'column' or 'line'.",
                            },
                            "data": {
                                "type": "array",
                                "items": _N,
                                "description": "Values, one per category.",
                            },
                            "axisYTitle": {
                                "type": "string",
                                "default": "",
                                "description": "Set the y-axis title of the chart series, such as, "
                                "axisYTitle: '销售额'.",
                            },
                        },
                        "required": ["type", "data"],
                    },
                    "description": "Series for dual axes chart, such as, [{ type: 'column', data: "
                    "[91.9, 99.1, 101.6], axisYTitle: '销售额' }, { type: 'line', data: [0.055, "
                    "0.06, "
                    "0.062], axisYTitle: '利润率' }].",
                },
                "style": _style("startAtZero"),
                **_common(axes=False),
                "axisXTitle": _AXIS_X,
            },
            ["categories", "series"],
        ),
    ),
    "generate_fishbone_diagram": (
        "Generate a fishbone diagram chart to uses a fish skeleton, like structure to display the "
        "causes or effects of a core problem, with the problem as the fish head and the "
        "causes/effects as the fish bones.",
        _obj(
            {
                "data": {
                    **_tree_node(4),
                    "description": "Data for fishbone diagram chart which is a hierarchical "
                    "structure, such as, { name: 'main topic', children: [{ name: 'topic 1', "
                    "children: [{ name: 'subtopic 1-1' }] }] }, and the maximum depth is 3.",
                },
                "style": _TEXTURE_ONLY_STYLE,
                **_common(axes=False, title=False),
            },
            ["data"],
        ),
    ),
    "generate_flow_diagram": (
        "Generate a flow diagram chart to show the steps and decision points of a process or "
        "system, such as, scenarios requiring linear process presentation.",
        _obj(
            {
                "data": _graph(
                    "Data for flow diagram chart, such as, { nodes: [{ name: 'node1' }, { name: "
                    "'node2' }], edges: [{ source: 'node1', target: 'node2', name: 'edge1' }] }."
                ),
                "style": _TEXTURE_ONLY_STYLE,
                **_common(axes=False, title=False),
            },
            ["data"],
        ),
    ),
    "generate_funnel_chart": (
        "Generate a funnel chart to visualize the progressive reduction of data as it passes "
        "through stages, such as, the conversion rates of users from visiting a website to "
        "completing a purchase.",
        _obj(
            {
                "data": _records(
                    _CAT_VALUE,
                    ["category", "value"],
                    "Data for funnel chart, such as, [{ category: '浏览网站', value: 50000 }, "
                    "{ category: '放入购物车', value: 35000 }, { category: '完成交易', value: "
                    "8000 }].",
                ),
                "style": _style(),
                **_common(axes=False),
            },
            ["data"],
        ),
    ),
    "generate_histogram_chart": (
        "Generate a histogram chart to show the frequency of data points within a certain range. "
        "It can observe data distribution, such as, normal and skewed distributions, and identify "
        "data concentration areas and extreme points.",
        _obj(
            {
                "data": {
                    "type": "array",
                    "items": _N,
                    "minItems": 1,
                    "description": "Data for histogram chart, it should be an array of numbers, "
                    "such as, [78, 88, 60, 100, 95].",
                },
                "binNumber": {
                    "type": "number",
                    "description": "Number of intervals to define the number of intervals in a "
                    "histogram, when not specified, a built-in value will be used.",
                },
                "style": _style(),
                **_common(),
            },
            ["data"],
        ),
    ),
    "generate_line_chart": (
        "Generate a line chart to show trends over time, such as, the ratio of Apple computer "
        "sales to Apple's profits changed from 2000 to 2016.",
        _obj(
            {
                "data": _records(
                    {"time": _S, "value": _N, "group": _S},
                    ["time", "value"],
                    "Data for line chart, it should be an array of objects, each object contains a "
                    "`time` field and a `value` field, such as, [{ time: '2015', value: 23 }], "
                    "when "
                    "the data is grouped by time, the `group` field should be used.",
                ),
                "style": _style("startAtZero", "lineWidth"),
                **_common(),
            },
            ["data"],
        ),
    ),
    "generate_liquid_chart": (
        "Generate a liquid chart to visualize a single value as a percentage, such as, the current "
        "occupancy rate of a reservoir or the completion percentage of a project.",
        _obj(
            {
                "percent": {
                    "type": "number",
                    "minimum": 0,
                    "maximum": 1,
                    "description": "The percentage value to display in the liquid chart, should be "
                    "a number between 0 and 1, where 1 represents 100%. For example, 0.75.",
                },
                "shape": {
                    "type": "string",
                    "enum": ["circle", "rect", "pin", "triangle"],
                    "default": "circle",
                    "description": "The shape of the liquid chart, can be 'circle', 'rect', 'pin', "
                    "or 'triangle'. Default is 'circle'.",
                },
                "style": {
                    "type": "object",
                    "properties": {
                        "backgroundColor": _BG,
                        "texture": _TEXTURE,
                        "color": {
                            "type": "string",
                            "description": "Custom color for the liquid chart, if not specified, "
                            "defaults to the theme color.",
                        },
                    },
                    "description": "Style configuration for the chart with a JSON object, "
                    "optional.",
                },
                **_common(axes=False),
            },
            ["percent"],
        ),
    ),
    "generate_mind_map": (
        "Generate a mind map chart to organizes and presents information in a hierarchical "
        "structure with branches radiating from a central topic, such as, a diagram showing the "
        "relationship between a main topic and its subtopics.",
        _obj(
            {
                "data": {
                    **_tree_node(4),
                    "description": "Data for mind map chart which is a hierarchical structure, "
                    "such "
                    "as, { name: 'main topic', children: [{ name: 'topic 1', children: [{ name: "
                    "'subtopic 1-1' }] }] }, and the maximum depth is 3.",
                },
                "style": _TEXTURE_ONLY_STYLE,
                **_common(axes=False, title=False),
            },
            ["data"],
        ),
    ),
    "generate_network_graph": (
        "Generate a network graph chart to show relationships (edges) between entities (nodes), "
        "such as, relationships between people in social networks.",
        _obj(
            {
                "data": _graph(
                    "Data for network graph chart, such as, { nodes: [{ name: 'node1' }, { name: "
                    "'node2' }], edges: [{ source: 'node1', target: 'node2', name: 'edge1' }] }"
                ),
                "style": _TEXTURE_ONLY_STYLE,
                **_common(axes=False, title=False),
            },
            ["data"],
        ),
    ),
    "generate_organization_chart": (
        "Generate an organization chart to visualize the hierarchical structure of an "
        "organization, such as, a diagram showing the relationship between a CEO and their direct "
        "reports.",
        _obj(
            {
                "data": {
                    **_tree_node(4, description=True),
                    "description": "Data for organization chart which is a hierarchical structure, "
                    "such as, { name: 'CEO', description: 'Chief Executive Officer', children: "
                    "[{ name: 'CTO', description: 'Chief Technology Officer' }] }, and the maximum "
                    "depth is 3.",
                },
                "orient": {
                    "type": "string",
                    "enum": ["horizontal", "vertical"],
                    "default": "vertical",
                    "description": "Orientation of the organization chart, either horizontal or "
                    "vertical. Default is vertical, when the level of the chart is more than 3, it "
                    "is recommended to use horizontal orientation.",
                },
                "style": _TEXTURE_ONLY_STYLE,
                **_common(axes=False, title=False),
            },
            ["data"],
        ),
    ),
    "generate_path_map": (
        "Generate a route map to display the user's planned route, such as travel guide routes.",
        _obj(
            {
                "title": _MAP_TITLE,
                "data": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "properties": {"data": _POIS},
                        "required": ["data"],
                        "description": "The route and places along it.",
                    },
                    "description": "Routes, each group represents all POIs along a route. For "
                    'example, [{ "data": ["西安钟楼", "西安大唐不夜城", "西安大雁塔"] }]',
                },
                "width": _MAP_WIDTH,
                "height": _MAP_HEIGHT,
            },
            ["title", "data"],
        ),
    ),
    "generate_pie_chart": (
        "Generate a pie chart to show the proportion of parts, such as, market share and budget "
        "allocation.",
        _obj(
            {
                "data": _records(
                    _CAT_VALUE,
                    ["category", "value"],
                    "Data for pie chart, it should be an array of objects, each object contains a "
                    "`category` field and a `value` field, such as, [{ category: '分类一', value: "
                    "27 }].",
                ),
                "innerRadius": {
                    "type": "number",
                    "default": 0,
                    "description": "Set the innerRadius of pie chart, the value between 0 and 1. "
                    "Set the pie chart as a donut chart. Set the value to 0.6 or number in [0 ,1] "
                    "to enable it.",
                },
                "style": _style(),
                **_common(axes=False),
            },
            ["data"],
        ),
    ),
    "generate_pin_map": (
        "Generate a point map to display the location and distribution of point data on the map, "
        "such as the location distribution of attractions, hospitals, supermarkets, etc.",
        _obj(
            {
                "title": _MAP_TITLE,
                "data": _POIS,
                "markerPopup": {
                    "type": "object",
                    "properties": {
                        "type": {"type": "string", "default": "image"},
                        "width": {"type": "number", "default": 40},
                        "height": {"type": "number", "default": 40},
                        "borderRadius": {"type": "number", "default": 8},
                    },
                    "description": "Marker type: omit for a simple icon; give it to show location "
                    "photos.",
                },
                "width": _MAP_WIDTH,
                "height": _MAP_HEIGHT,
            },
            ["title", "data"],
        ),
    ),
    "generate_radar_chart": (
        "Generate a radar chart to display multidimensional data (four dimensions or more), such "
        "as, evaluate Huawei and Apple phones in terms of five dimensions: ease of use, "
        "functionality, camera, benchmark scores, and battery life.",
        _obj(
            {
                "data": _records(
                    {"name": _S, "value": _N, "group": _S},
                    ["name", "value"],
                    "Data for radar chart, such as, [{ name: 'Design', value: 70 }], when the data "
                    "is grouped by `group`, the `group` field is required, such as, [{ name: "
                    "'Design', value: 70, group: 'Huawei' }].",
                ),
                "style": _style("lineWidth"),
                **_common(axes=False),
            },
            ["data"],
        ),
    ),
    "generate_sankey_chart": (
        "Generate a sankey chart to visualize the flow of data between different stages or "
        "categories, such as, the user journey from landing on a page to completing a purchase.",
        _obj(
            {
                "data": _records(
                    {"source": _S, "target": _S, "value": _N},
                    ["source", "target", "value"],
                    "Date for sankey chart, such as, [{ source: 'Landing Page', target: 'Product "
                    "Page', value: 50000 }, { source: 'Product Page', target: 'Add to Cart', "
                    "value: "
                    "35000 }].",
                ),
                "nodeAlign": {
                    "type": "string",
                    "enum": ["left", "right", "justify", "center"],
                    "default": "center",
                    "description": "Alignment of nodes in the sankey chart, such as, 'left', "
                    "'right', 'justify', or 'center'.",
                },
                "style": _style(),
                **_common(axes=False),
            },
            ["data"],
        ),
    ),
    "generate_scatter_chart": (
        "Generate a scatter chart to show the relationship between two variables, helps discover "
        "their relationship or trends, such as, the strength of correlation, data distribution "
        "patterns.",
        _obj(
            {
                "data": _records(
                    {
                        "x": _N,
                        "y": _N,
                        "group": {
                            "type": "string",
                            "description": "Group name for the data point.",
                        },
                    },
                    ["x", "y"],
                    "Data for scatter chart, such as, [{ x: 10, y: 15 }], when the data is "
                    "grouped, "
                    "the group name can be specified in the `group` field.",
                ),
                "style": _style(),
                **_common(),
            },
            ["data"],
        ),
    ),
    "generate_treemap_chart": (
        "Generate a treemap chart to display hierarchical data and can intuitively show "
        "comparisons between items at the same level, such as, show disk space usage with treemap.",
        _obj(
            {
                "data": {
                    "type": "array",
                    "minItems": 1,
                    "items": _tree_node(3, value=True),
                    "description": "Data for treemap chart which is a hierarchical structure, such "
                    "as, [{ name: 'Design', value: 70, children: [{ name: 'Tech', value: 20 }] }], "
                    "and the maximum depth is 3.",
                },
                "style": _style(),
                **_common(axes=False),
            },
            ["data"],
        ),
    ),
    "generate_venn_chart": (
        "Generate a Venn diagram to visualize the relationships between different sets, showing "
        "how they intersect and overlap, such as the commonalities and differences between various "
        "groups.",
        _obj(
            {
                "data": _records(
                    {
                        "label": {
                            "type": "string",
                            "description": "Label for the venn chart "
                            "segment, such as 'A', 'B', or 'C'.",
                        },
                        "value": {
                            "type": "number",
                            "description": "Value for the venn chart "
                            "segment, such as 10, 20, or 30.",
                        },
                        "sets": {
                            "type": "array",
                            "items": _S,
                            "description": "Array of set names "
                            "that this segment belongs to, such as ['A', 'B'].",
                        },
                    },
                    ["value", "sets"],
                    "Data for venn chart, such as, [{ label: 'A', value: 10, sets: ['A'] }, { "
                    "label: "
                    "'B', value: 20, sets: ['B'] }, { label: 'AB', value: 5, sets: ['A', 'B'] }].",
                ),
                "style": _style(),
                **_common(axes=False),
            },
            ["data"],
        ),
    ),
    "generate_violin_chart": (
        "Generate a violin chart to show data for statistical summaries among different "
        "categories, such as, comparing the distribution of data points across categories.",
        _obj(
            {
                "data": _records(
                    _CAT_VALUE_GROUP,
                    ["category", "value"],
                    "Data for violin chart, such as, [{ category: 'Category A', value: 10 }], when "
                    "the data is grouped, the 'group' field is required.",
                ),
                "style": _style("startAtZero"),
                **_common(),
            },
            ["data"],
        ),
    ),
    "generate_waterfall_chart": (
        "Generate a waterfall chart to visualize the cumulative effect of sequentially introduced "
        "positive or negative values, such as showing how an initial value is affected by a series "
        "of intermediate positive or negative values leading to a final result.",
        _obj(
            {
                "data": _records(
                    {
                        "category": _S,
                        "value": _N,
                        "isIntermediateTotal": {"type": "boolean"},
                        "isTotal": {"type": "boolean"},
                    },
                    ["category"],
                    "Data for waterfall chart. Each object must contain a `category` field; "
                    "regular "
                    "items also a `value`. `isIntermediateTotal` marks subtotals and `isTotal` the "
                    "final total. For example, [{ category: 'Initial', value: 100 }, { category: "
                    "'Increase', value: 50 }, { category: 'Subtotal', isIntermediateTotal: true }, "
                    "{ category: 'Decrease', value: -30 }, { category: 'Total', isTotal: true }].",
                ),
                "style": {
                    "type": "object",
                    "properties": {
                        "backgroundColor": _BG,
                        "texture": _TEXTURE,
                        "palette": {
                            "type": "object",
                            "properties": {
                                "positiveColor": {
                                    "type": "string",
                                    "description": "Color for "
                                    "positive values (increases). Default is '#FF4D4F'.",
                                },
                                "negativeColor": {
                                    "type": "string",
                                    "description": "Color for "
                                    "negative values (decreases). Default is '#2EBB59'.",
                                },
                                "totalColor": {
                                    "type": "string",
                                    "description": "Color for total "
                                    "and intermediate total bars. Default is '#1783FF'.",
                                },
                            },
                        },
                    },
                    "description": "Style configuration for the chart with a JSON object, "
                    "optional.",
                },
                **_common(),
            },
            ["data"],
        ),
    ),
    "generate_word_cloud_chart": (
        "Generate a word cloud chart to show word frequency or weight through text size variation, "
        "such as, analyzing common words in social media, reviews, or feedback.",
        _obj(
            {
                "data": _records(
                    {"text": _S, "value": _N},
                    ["text", "value"],
                    "Data for word cloud chart, it should be an array of objects, each object "
                    "contains a `text` field and a `value` field, such as, [{ value: 4.272, text: "
                    "'形成' }].",
                ),
                "style": _style(),
                **_common(axes=False),
            },
            ["data"],
        ),
    ),
    "generate_spreadsheet": (
        "Generate a spreadsheet or pivot table for displaying tabular data. When 'rows' or "
        "'values' fields are provided, it renders as a pivot table (cross-tabulation); otherwise, "
        "it renders as a regular table.",
        _obj(
            {
                "data": {
                    "type": "array",
                    "minItems": 1,
                    "items": {
                        "type": "object",
                        "additionalProperties": {"type": ["string", "number", "null"]},
                    },
                    "description": "Data for spreadsheet, an array of objects where each object "
                    "represents a row. Keys are column names and values can be string, number, or "
                    "null. Such as, [{ name: 'John', age: 30 }, { name: 'Jane', age: 25 }].",
                },
                "rows": {
                    "type": "array",
                    "items": _S,
                    "description": "Row header fields for pivot table.",
                },
                "columns": {
                    "type": "array",
                    "items": _S,
                    "description": "Column header fields, "
                    "used to specify the order of columns (or column grouping in a pivot).",
                },
                "values": {
                    "type": "array",
                    "items": _S,
                    "description": "Value fields for pivot table.",
                },
                "theme": {
                    "type": "string",
                    "enum": ["default", "dark"],
                    "default": "default",
                    "description": "Set the theme for the spreadsheet, optional, default is "
                    "'default'.",
                },
                "width": _WIDTH,
                "height": _HEIGHT,
            },
            ["data"],
        ),
    ),
}

MAP_TOOLS = frozenset({"generate_district_map", "generate_path_map", "generate_pin_map"})
"""Tools that need online geodata: served through an upstream only."""


def short_name(tool: str) -> str:
    """``generate_bar_chart`` → ``bar``; ``generate_mind_map`` → ``mind_map``."""
    name = tool.removeprefix("generate_")
    if name == "organization_chart":
        return name
    return name.removesuffix("_chart")


def with_defaults(schema: JsonSchema, args: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``args`` with the schema's top-level defaults filled in."""
    out = dict(args)
    for name, prop in schema.get("properties", {}).items():
        if name not in out and "default" in prop:
            out[name] = prop["default"]
    return out


__all__ = ["MAP_TOOLS", "TOOLS", "JsonSchema", "short_name", "with_defaults"]
