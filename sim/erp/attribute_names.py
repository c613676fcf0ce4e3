"""What the ERP calls each interchangeability attribute, in Chinese and English.

A part's ``attributes`` are keyed for machines (``reach_mm``); a buyer reading a replacement
table needs 螺纹长度 / "Reach". The ERP serves these names beside the attributes (as a
real ERP's attribute master does), so a client never keeps its own list and a category
added later brings its names with it. A key not listed here is shown by the clients as it
is written.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["AttributeName", "attribute_names"]


class AttributeName(TypedDict):
    """One attribute's display name (the unit, if any, is part of the name)."""

    name_zh: str
    name_en: str


_NAMES: dict[str, tuple[str, str]] = {
    # spark plugs
    "thread": ("螺纹", "Thread"),
    "reach_mm": ("螺纹长度 (mm)", "Reach (mm)"),
    "hex_mm": ("六角对边 (mm)", "Hex (mm)"),
    "heat_range": ("热值", "Heat range"),
    "electrode": ("电极材料", "Electrode"),
    "resistor_kohm": ("电阻 (kΩ)", "Resistor (kΩ)"),
    "gap_mm": ("间隙 (mm)", "Gap (mm)"),
    # brake pads and discs
    "shape_code": ("形状代码", "Shape code"),
    "position": ("安装位置", "Position"),
    "length_mm": ("长度 (mm)", "Length (mm)"),
    "height_mm": ("高度 (mm)", "Height (mm)"),
    "thickness_mm": ("厚度 (mm)", "Thickness (mm)"),
    "compound": ("摩擦材料", "Compound"),
    "diameter_mm": ("直径 (mm)", "Diameter (mm)"),
    "min_thickness_mm": ("最小厚度 (mm)", "Minimum thickness (mm)"),
    "bolt_pattern": ("螺栓孔位", "Bolt pattern"),
    "mounting": ("安装方式", "Mounting"),
    # chains
    "pitch": ("链号", "Chain size"),
    "pitch_mm": ("节距 (mm)", "Pitch (mm)"),
    "inner_width_mm": ("内宽 (mm)", "Inner width (mm)"),
    "links": ("节数", "Links"),
    "seal": ("密封形式", "Seal"),
    "tensile_kn": ("抗拉强度 (kN)", "Tensile strength (kN)"),
    # filters
    "shape": ("形状", "Shape"),
    "width_mm": ("宽度 (mm)", "Width (mm)"),
    "media": ("滤材", "Filter media"),
    "type": ("类型", "Type"),
    "outer_diameter_mm": ("外径 (mm)", "Outer diameter (mm)"),
    "bypass_kpa": ("旁通压力 (kPa)", "Bypass pressure (kPa)"),
    # tyres
    "size": ("规格", "Size"),
    "rim_in": ("轮辋 (英寸)", "Rim (in)"),
    "construction": ("结构", "Construction"),
    "tube_type": ("有无内胎", "Tube type"),
    "load_index": ("载重指数", "Load index"),
    "speed_symbol": ("速度级别", "Speed rating"),
    # batteries, bulbs, coils
    "voltage_v": ("电压 (V)", "Voltage (V)"),
    "capacity_ah": ("容量 (Ah)", "Capacity (Ah)"),
    "terminal": ("端子", "Terminal"),
    "technology": ("技术", "Technology"),
    "bulb_type": ("灯泡型号", "Bulb type"),
    "base": ("灯座", "Base"),
    "wattage_w": ("功率 (W)", "Wattage (W)"),
    "trigger": ("触发方式", "Trigger"),
    "outputs": ("输出数", "Outputs"),
    "connector": ("插头", "Connector"),
    "primary_ohm": ("初级电阻 (Ω)", "Primary resistance (Ω)"),
    "secondary_kohm": ("次级电阻 (kΩ)", "Secondary resistance (kΩ)"),
    # clutch plates, plug caps, shocks, belts
    "friction_plates": ("摩擦片数", "Friction plates"),
    "tabs": ("齿数", "Tabs"),
    "material": ("材料", "Material"),
    "angle_deg": ("角度 (°)", "Angle (°)"),
    "cable_diameter_mm": ("线径 (mm)", "Cable diameter (mm)"),
    "resistance_kohm": ("电阻 (kΩ)", "Resistance (kΩ)"),
    "upper_mount": ("上安装", "Upper mount"),
    "lower_mount": ("下安装", "Lower mount"),
    "eye_diameter_mm": ("安装孔径 (mm)", "Eye diameter (mm)"),
    "spring_rate_n_mm": ("弹簧刚度 (N/mm)", "Spring rate (N/mm)"),
    "adjustment": ("调节方式", "Adjustment"),
    "angle": ("角度", "Angle"),
    "cord": ("线绳材料", "Cord"),
}


def attribute_names(keys: list[str]) -> dict[str, AttributeName]:
    """The display names of ``keys`` that have one, in the order given."""
    return {
        k: AttributeName(name_zh=_NAMES[k][0], name_en=_NAMES[k][1])
        for k in dict.fromkeys(keys)
        if k in _NAMES
    }
