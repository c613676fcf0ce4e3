"""One realistic motorcycle-parts procurement example per chart tool.

Used by the skill document, the tests, the benchmark and the start-up warm-up, so the
examples that are documented are the ones that are known to render.
"""

from __future__ import annotations

from typing import Any

_MONTHS = ["2026-01", "2026-02", "2026-03", "2026-04", "2026-05", "2026-06"]


def _monthly(*series: tuple[str, list[float]]) -> list[dict[str, Any]]:
    """One point per month of :data:`_MONTHS` for each ``(group, values)``."""
    return [
        {"time": m, "value": v, "group": g}
        for g, values in series
        for m, v in zip(_MONTHS, values, strict=True)
    ]


def _samples(*groups: tuple[str, list[float]]) -> list[dict[str, Any]]:
    """One ``{category, value}`` row per value of each ``(category, values)``."""
    return [{"category": c, "value": v} for c, values in groups for v in values]


EXAMPLES: dict[str, dict[str, Any]] = {
    "generate_line_chart": {
        "title": "火花塞 NGK CR7HSA 月度采购单价",
        "axisXTitle": "月份",
        "axisYTitle": "单价 (元)",
        "data": _monthly(
            ("NGK", [18.5, 18.9, 19.2, 19.0, 19.6, 19.8]),
            ("博世", [17.8, 17.9, 18.4, 18.6, 18.5, 18.9]),
        ),
    },
    "generate_area_chart": {
        "title": "刹车片月度采购量",
        "axisXTitle": "月份",
        "axisYTitle": "数量 (片)",
        "stack": True,
        "data": _monthly(
            ("前刹车片", [820, 760, 900, 940, 1010, 980]),
            ("后刹车片", [610, 580, 700, 720, 760, 790]),
        ),
    },
    "generate_column_chart": {
        "title": "各供应商链条报价对比",
        "axisXTitle": "供应商",
        "axisYTitle": "单价 (元)",
        "group": True,
        "stack": False,
        "data": [
            {"category": s, "value": v, "group": g}
            for s, a, b in (
                ("大阳链条", 56.0, 52.5),
                ("DID", 88.0, 85.0),
                ("RK", 82.5, 80.0),
                ("青岛正星", 49.0, 47.5),
            )
            for g, v in (("ERP 合同价", a), ("官网报价", b))
        ],
    },
    "generate_bar_chart": {
        "title": "空气滤清器供应商交货周期",
        "axisXTitle": "供应商",
        "axisYTitle": "交货周期 (天)",
        "data": [
            {"category": "K&N", "value": 21},
            {"category": "马勒 MAHLE", "value": 14},
            {"category": "曼牌 MANN", "value": 12},
            {"category": "重庆滤清器厂", "value": 5},
            {"category": "温州宏达", "value": 7},
        ],
    },
    "generate_pie_chart": {
        "title": "2026 上半年采购金额构成",
        "innerRadius": 0.6,
        "data": [
            {"category": "火花塞", "value": 186000},
            {"category": "刹车片", "value": 254000},
            {"category": "链条", "value": 198000},
            {"category": "空气滤清器", "value": 92000},
            {"category": "轮胎", "value": 331000},
        ],
    },
    "generate_histogram_chart": {
        "title": "火花塞到货周期分布",
        "axisXTitle": "到货天数",
        "axisYTitle": "订单数",
        "binNumber": 8,
        "data": [3, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 9, 10, 11, 12, 14, 15, 21],
    },
    "generate_scatter_chart": {
        "title": "刹车片单价与不良率",
        "axisXTitle": "单价 (元)",
        "axisYTitle": "不良率 (%)",
        "data": [
            {"x": 32.0, "y": 1.8, "group": "国产"},
            {"x": 35.5, "y": 1.2, "group": "国产"},
            {"x": 38.0, "y": 0.9, "group": "国产"},
            {"x": 29.0, "y": 2.6, "group": "国产"},
            {"x": 58.0, "y": 0.4, "group": "进口"},
            {"x": 64.0, "y": 0.3, "group": "进口"},
            {"x": 52.0, "y": 0.6, "group": "进口"},
            {"x": 70.0, "y": 0.2, "group": "进口"},
        ],
    },
    "generate_boxplot_chart": {
        "title": "各供应商火花塞报价分布",
        "axisXTitle": "供应商",
        "axisYTitle": "单价 (元)",
        "data": _samples(
            ("NGK", [18.5, 19.2, 19.8, 20.5, 18.9, 19.5]),
            ("博世", [17.2, 18.0, 18.4, 19.1, 17.9, 18.6]),
            ("电装", [19.5, 20.4, 21.0, 22.3, 20.8, 21.5]),
        ),
    },
    "generate_violin_chart": {
        "title": "链条交货延迟天数分布",
        "axisXTitle": "供应商",
        "axisYTitle": "延迟 (天)",
        "data": _samples(
            ("大阳链条", [0, 1, 1, 2, 2, 3, 3, 4, 6]),
            ("DID", [0, 0, 1, 1, 1, 2, 2, 2, 3]),
            ("RK", [1, 2, 3, 3, 4, 5, 5, 7, 9]),
        ),
    },
    "generate_dual_axes_chart": {
        "title": "刹车片采购额与毛利率",
        "axisXTitle": "季度",
        "categories": ["2025Q3", "2025Q4", "2026Q1", "2026Q2"],
        "series": [
            {
                "type": "column",
                "data": [112000, 128000, 121000, 139000],
                "axisYTitle": "采购额 (元)",
            },
            {"type": "line", "data": [0.182, 0.176, 0.191, 0.205], "axisYTitle": "毛利率"},
        ],
    },
    "generate_waterfall_chart": {
        "title": "火花塞采购成本变动 (元)",
        "axisXTitle": "项目",
        "axisYTitle": "金额 (元)",
        "data": [
            {"category": "去年成本", "value": 186000},
            {"category": "单价上涨", "value": 12400},
            {"category": "批量折扣", "value": -8600},
            {"category": "小计", "isIntermediateTotal": True},
            {"category": "运费", "value": 3200},
            {"category": "换供应商节省", "value": -15800},
            {"category": "今年成本", "isTotal": True},
        ],
    },
    "generate_funnel_chart": {
        "title": "询价到下单转化",
        "data": [
            {"category": "发出询价", "value": 48},
            {"category": "收到报价", "value": 36},
            {"category": "技术评审通过", "value": 22},
            {"category": "商务谈判", "value": 12},
            {"category": "下单", "value": 7},
        ],
    },
    "generate_radar_chart": {
        "title": "火花塞供应商综合评分",
        "data": [
            {"name": dim, "value": v, "group": s}
            for s, vals in (
                ("NGK", [92, 80, 88, 85, 90]),
                ("博世", [88, 86, 84, 90, 82]),
                ("国产品牌", [75, 95, 70, 78, 92]),
            )
            for dim, v in zip(["质量", "价格", "交期", "服务", "供货稳定性"], vals, strict=True)
        ],
    },
    "generate_treemap_chart": {
        "title": "库存金额分布",
        "data": [
            {
                "name": "发动机配件",
                "value": 420000,
                "children": [
                    {"name": "火花塞", "value": 120000},
                    {"name": "活塞环", "value": 180000},
                    {"name": "气门", "value": 120000},
                ],
            },
            {
                "name": "制动系统",
                "value": 310000,
                "children": [
                    {"name": "刹车片", "value": 200000},
                    {"name": "刹车盘", "value": 110000},
                ],
            },
            {
                "name": "传动系统",
                "value": 260000,
                "children": [{"name": "链条", "value": 150000}, {"name": "链轮", "value": 110000}],
            },
            {"name": "滤清器", "value": 90000},
        ],
    },
    "generate_sankey_chart": {
        "title": "采购资金流向",
        "nodeAlign": "justify",
        "data": [
            {"source": "采购预算", "target": "发动机配件", "value": 420},
            {"source": "采购预算", "target": "制动系统", "value": 310},
            {"source": "采购预算", "target": "传动系统", "value": 260},
            {"source": "发动机配件", "target": "NGK", "value": 180},
            {"source": "发动机配件", "target": "博世", "value": 240},
            {"source": "制动系统", "target": "布雷博", "value": 130},
            {"source": "制动系统", "target": "国产厂商", "value": 180},
            {"source": "传动系统", "target": "DID", "value": 110},
            {"source": "传动系统", "target": "国产厂商", "value": 150},
        ],
    },
    "generate_venn_chart": {
        "title": "供应商覆盖的零件品类",
        "data": [
            {"label": "NGK", "value": 40, "sets": ["NGK"]},
            {"label": "博世", "value": 55, "sets": ["博世"]},
            {"label": "电装", "value": 30, "sets": ["电装"]},
            {"label": "共同", "value": 12, "sets": ["NGK", "博世"]},
            {"value": 8, "sets": ["博世", "电装"]},
            {"value": 6, "sets": ["NGK", "电装"]},
            {"value": 3, "sets": ["NGK", "博世", "电装"]},
        ],
    },
    "generate_word_cloud_chart": {
        "title": "供应商评价关键词",
        "data": [
            {"text": t, "value": v}
            for t, v in (
                ("交期准时", 38),
                ("价格偏高", 30),
                ("质量稳定", 42),
                ("包装破损", 9),
                ("售后响应快", 22),
                ("起订量高", 15),
                ("账期灵活", 12),
                ("火花塞", 27),
                ("刹车片", 25),
                ("链条", 18),
                ("缺货", 11),
                ("认证齐全", 14),
                ("NGK", 20),
                ("博世", 19),
                ("退货率低", 16),
                ("涨价", 13),
            )
        ],
    },
    "generate_liquid_chart": {
        "title": "本月刹车片采购预算执行率",
        "percent": 0.68,
        "shape": "circle",
    },
    "generate_fishbone_diagram": {
        "data": {
            "name": "刹车片到货延迟",
            "children": [
                {"name": "供应商", "children": [{"name": "产能不足"}, {"name": "原材料涨价"}]},
                {"name": "物流", "children": [{"name": "运输中转多"}, {"name": "旺季爆仓"}]},
                {"name": "采购流程", "children": [{"name": "审批慢"}, {"name": "需求预测不准"}]},
                {"name": "质量", "children": [{"name": "来料检验退货"}, {"name": "规格变更"}]},
            ],
        },
    },
    "generate_mind_map": {
        "data": {
            "name": "火花塞采购策略",
            "children": [
                {
                    "name": "供应商",
                    "children": [{"name": "NGK"}, {"name": "博世"}, {"name": "国产备选"}],
                },
                {"name": "价格", "children": [{"name": "年度框架协议"}, {"name": "阶梯报价"}]},
                {"name": "库存", "children": [{"name": "安全库存 500 个"}, {"name": "再订货点"}]},
                {"name": "风险", "children": [{"name": "单一来源"}, {"name": "汇率波动"}]},
            ],
        },
    },
    "generate_organization_chart": {
        "orient": "vertical",
        "data": {
            "name": "采购部",
            "description": "部门经理 王敏",
            "children": [
                {
                    "name": "战略采购组",
                    "description": "组长 李强",
                    "children": [
                        {"name": "发动机配件", "description": "采购员 张伟"},
                        {"name": "制动系统", "description": "采购员 刘洋"},
                    ],
                },
                {
                    "name": "执行采购组",
                    "description": "组长 陈静",
                    "children": [
                        {"name": "下单跟单", "description": "采购员 赵磊"},
                        {"name": "到货对账", "description": "采购员 孙丽"},
                    ],
                },
                {"name": "供应商质量", "description": "SQE 周涛"},
            ],
        },
    },
    "generate_flow_diagram": {
        "data": {
            "nodes": [
                {"name": n}
                for n in (
                    "提交请购",
                    "比价",
                    "主管审批",
                    "下达订单",
                    "供应商发货",
                    "来料检验",
                    "入库",
                )
            ],
            "edges": [
                {"source": "提交请购", "target": "比价"},
                {"source": "比价", "target": "主管审批"},
                {"source": "主管审批", "target": "下达订单", "name": "通过"},
                {"source": "主管审批", "target": "比价", "name": "驳回"},
                {"source": "下达订单", "target": "供应商发货"},
                {"source": "供应商发货", "target": "来料检验"},
                {"source": "来料检验", "target": "入库", "name": "合格"},
            ],
        },
    },
    "generate_network_graph": {
        "data": {
            "nodes": [
                {"name": n}
                for n in (
                    "本公司",
                    "NGK",
                    "博世",
                    "布雷博",
                    "DID",
                    "大阳链条",
                    "顺丰物流",
                    "德邦物流",
                )
            ],
            "edges": [
                {"source": "本公司", "target": "NGK", "name": "火花塞"},
                {"source": "本公司", "target": "博世", "name": "火花塞"},
                {"source": "本公司", "target": "布雷博", "name": "刹车片"},
                {"source": "本公司", "target": "DID", "name": "链条"},
                {"source": "本公司", "target": "大阳链条", "name": "链条"},
                {"source": "NGK", "target": "顺丰物流"},
                {"source": "博世", "target": "顺丰物流"},
                {"source": "布雷博", "target": "德邦物流"},
                {"source": "DID", "target": "德邦物流"},
            ],
        },
    },
    "generate_spreadsheet": {
        "data": [
            {"供应商": "NGK", "零件": "火花塞 CR7HSA", "单价": 19.8, "起订量": 100, "交期(天)": 7},
            {"供应商": "博世", "零件": "火花塞 UR4AC", "单价": 18.9, "起订量": 200, "交期(天)": 10},
            {
                "供应商": "电装",
                "零件": "火花塞 U22FS-U",
                "单价": 21.0,
                "起订量": 100,
                "交期(天)": 12,
            },
        ],
    },
    "generate_district_map": {
        "title": "重庆摩配供应商分布",
        "data": {
            "name": "重庆市",
            "showAllSubdistricts": True,
            "dataLabel": "供应商数",
            "dataType": "number",
            "subdistricts": [
                {"name": "重庆市渝北区", "dataValue": "12"},
                {"name": "重庆市九龙坡区", "dataValue": "8"},
            ],
        },
    },
    "generate_pin_map": {
        "title": "主要供应商位置",
        "data": ["重庆市渝北区嘉陵工业园", "广州市番禺区大石摩配城", "台州市路桥区摩配市场"],
    },
    "generate_path_map": {
        "title": "华南供应商走访路线",
        "data": [{"data": ["广州市番禺区大石摩配城", "佛山市顺德区乐从", "江门市大长江集团"]}],
    },
}

__all__ = ["EXAMPLES"]
