"""Colours, sizes and icons of the canvas, following the system's light or dark palette.

Pens and brushes are built once per theme and shared by every item (one QPen
object per bucket, never one per item: per-item pens do not scale).
"""

from __future__ import annotations

from functools import cache, lru_cache

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.generate.geometry import CHILD_H as CHILD_H  # re-exported: the items'
from fabricviz.generate.geometry import CHILD_W as CHILD_W
from fabricviz.generate.geometry import EMPTY_SERVER as EMPTY_SERVER
from fabricviz.generate.geometry import SERVER_MARGIN as SERVER_MARGIN
from fabricviz.generate.geometry import SWITCH_H as SWITCH_H
from fabricviz.generate.geometry import switch_widths
from fabricviz.resources import asset_path

ICONS = asset_path("icons")

#: Fill colour per device kind (NVIDIA-ish: GPUs green, NICs orange, IB blue, Ethernet green).
KIND_COLORS = {"ib_switch": "#2f6db5", "eth_switch": "#2f8f5b", "gpu": "#76b900",
               "nic": "#d9822b", "server": "#eef1f4"}
KIND_LABELS = {"server": "Servers", "gpu": "GPUs", "nic": "NICs", "ib_switch": "InfiniBand switches",
               "eth_switch": "Ethernet switches", "cable": "Cable types"}
#: Cable colour buckets: (tech code, cable type) -> colour. tech 1 = IB, 2 = Ethernet.
CABLE_COLORS = {
    (1, "dac"): "#5b7fb0", (1, "aoc"): "#1f9bd1", (1, "transceiver"): "#7b5cc4",
    (2, "dac"): "#6d9a5a", (2, "aoc"): "#2fb38a", (2, "transceiver"): "#b38a2f",
}
CABLE_LEGEND = {
    (1, "dac"): "IB copper (DAC/ACC)", (1, "aoc"): "IB active optical (AOC)",
    (1, "transceiver"): "IB optics + fibre", (2, "dac"): "Ethernet copper (DAC)",
    (2, "aoc"): "Ethernet AOC", (2, "transceiver"): "Ethernet optics + fibre",
}
SELECT_COLOR = "#ff9f1a"
REFUSE_COLOR = "#d33a2c"

# ---- geometry (scene units; the generators place hosts 34 apart and tiers 260 apart); device
# sizes are fabricviz.generate.geometry's, which the layouts and the batched drawing use too
PORT_R = 3.5
PORT_PITCH = 10.0
PORTS_PER_ROW = 16
GRID = 10.0


def switch_width(nports: int) -> float:
    """Switches grow with their port count (a 64-port switch is wider than an 8-port one)."""
    return float(switch_widths(nports))


def is_dark(palette: QtGui.QPalette | None = None) -> bool:
    pal = palette or QtWidgets.QApplication.palette()
    return pal.color(QtGui.QPalette.ColorRole.Window).lightness() < 128


class Theme:
    """Shared pens and brushes for one palette (light or dark)."""

    def __init__(self, dark: bool) -> None:
        self.dark = dark
        self.background = QtGui.QColor("#1e2126" if dark else "#ffffff")
        self.grid = QtGui.QColor("#2a2e35" if dark else "#f0f2f5")
        self.text = QtGui.QColor("#e6e6e6" if dark else "#20252b")
        self.server_fill = QtGui.QColor("#3a4049" if dark else KIND_COLORS["server"])
        self.brushes = {k: QtGui.QBrush(QtGui.QColor(v)) for k, v in KIND_COLORS.items()}
        self.brushes["server"] = QtGui.QBrush(self.server_fill)
        self.pens = {}
        for k, v in KIND_COLORS.items():
            c = QtGui.QColor(v)
            pen = QtGui.QPen(c.darker(170) if k != "server" else QtGui.QColor("#8a949e"))
            pen.setCosmetic(True)
            pen.setWidthF(1.0)
            self.pens[k] = pen
        self.cable_pens = {}
        for key, v in CABLE_COLORS.items():
            pen = QtGui.QPen(QtGui.QColor(v))
            pen.setCosmetic(True)
            pen.setWidthF(1.0)
            self.cable_pens[key] = pen
        self.select_pen = QtGui.QPen(QtGui.QColor(SELECT_COLOR))
        self.select_pen.setCosmetic(True)
        self.select_pen.setWidthF(3.0)
        self.drag_pen = QtGui.QPen(QtGui.QColor(SELECT_COLOR), 2.0, QtCore.Qt.PenStyle.DashLine)
        self.drag_pen.setCosmetic(True)
        self.text_brush = QtGui.QBrush(self.text)
        self.port_free = QtGui.QBrush(self.background)
        self.port_used = {1: QtGui.QBrush(QtGui.QColor(KIND_COLORS["ib_switch"])),
                          2: QtGui.QBrush(QtGui.QColor(KIND_COLORS["eth_switch"]))}
        self.port_pen = QtGui.QPen(self.text)
        self.port_pen.setCosmetic(True)
        self.label_font = QtGui.QFont()
        self.label_font.setPointSizeF(7.0)
        self.small_font = QtGui.QFont()
        self.small_font.setPointSizeF(5.0)

    @staticmethod
    def current() -> Theme:
        return _theme(is_dark())


@lru_cache(maxsize=2)
def _theme(dark: bool) -> Theme:
    return Theme(dark)


@cache
def icon(name: str) -> QtGui.QIcon:
    """The bundled SVG icon ``name`` (kind or ``cable_<type>``); an empty icon if missing."""
    path = ICONS / f"{name}.svg"
    return QtGui.QIcon(str(path)) if path.is_file() else QtGui.QIcon()
