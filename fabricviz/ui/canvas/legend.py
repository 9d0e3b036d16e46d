"""The legend of a picture: one row per colour drawn, sized to the picture.

A row is ``(label, colour, shape)``; ``shape`` is ``"rect"``, ``"line"``, ``"dash"``,
``"dot"``, ``"outline"``, ``"veil"``, ``"paused"``, ``"ecn"``, ``"trims"`` or a :class:`Ramp` (the traffic
heat scale: its colour bar and tick labels). :func:`scene_rows` reads the rows from what the
scene draws now — device kinds whose items are shown, cable buckets not hidden under the
heatmap, the heatmap's scale and marks, the SM sweep's states — so the legend names every
colour in the picture and nothing that is not in it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import KINDS, Fabric
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.items.devices import ROLE_KIND
from fabricviz.ui.canvas.items.nvlink import NVLINK_KIND, DomainBlock


@dataclass(frozen=True)
class Ramp:
    """A colour scale swatch: the colours low → high and the tick labels under them."""

    colors: tuple[str, ...]
    ticks: tuple[str, ...]


Shape = str | Ramp
Row = tuple[str, QtGui.QColor, Shape]

KIND_NAMES = {"ib_switch": "InfiniBand switch", "eth_switch": "Ethernet switch", "server": "Server",
              "gpu": "GPU", "nic": "NIC"}
SWEEP_KIND = "sweep_overlay"      # data(ROLE_KIND) of the sweep overlay's items
VEIL_LABEL = "not yet discovered by the SM (dimmed)"
VL_ROLES = ("vl_layers", "vl_usage")   # data(ROLE_KIND) of the VL overlays' items (data(3): their legend text)


def device_rows(fabric: Fabric, scene) -> list[Row]:
    """Device kinds drawn: by their own items, the zoomed-out batch, or the semantic zoom's
    switch paths and host blocks (group boxes have rows of their own)."""
    c = fabric.counts()
    drawn = drawn_kinds(fabric, scene)
    return [(f"{KIND_NAMES[kind]} ({c[kind]:,})", scene.theme.brushes[kind].color(), "rect")
            for kind in ("ib_switch", "eth_switch", "server", "gpu", "nic") if c[kind] and kind in drawn]


def drawn_kinds(fabric: Fabric, scene) -> set[str]:
    """Kinds with at least one device drawn now."""
    kinds = set(scene.batch.counts()) if scene.batch.on else set()
    draw = getattr(getattr(scene, "semantic", None), "draw", None)
    if draw is not None and getattr(draw, "on", False):
        kinds |= {KINDS[k] for k, it in draw.switches.items() if it.isVisible() and not it.path().isEmpty()}
        if draw.blocks.isVisible() and not draw.blocks.path().isEmpty():
            kinds.add("server")
    for name in KIND_NAMES:
        if name in kinds or (name in ("gpu", "nic") and not scene.show_children):
            continue
        for d in fabric.device_ids(name).tolist():       # stops at the first one drawn
            item = getattr(scene, "made_items", scene.items_by_id).get(d)     # one not made is not drawn
            if item is not None and item.isVisible():
                kinds.add(name)
                break
    return kinds


def cable_rows(scene) -> list[Row]:
    """Cable colour buckets drawn (the heatmap hides the buckets it covers)."""
    rows: list[Row] = []
    for key, item in sorted(scene.cables.items.items()):
        n = item.path().elementCount() // 2
        if n and item.isVisible():
            rows.append((f"{th.CABLE_LEGEND[key]} ({n:,})", QtGui.QColor(th.CABLE_COLORS[key]), "line"))
    return rows


def heat_rows(scale, paused: bool = True, ecn: bool = True) -> list[Row]:
    """Rows for a traffic heatmap drawn with ``scale``: its colour ramp with the low, middle
    and high values, then the paused and ECN marks (when drawn)."""
    from fabricviz.ui.canvas.overlays.traffic import COLORS, ECN_COLOR, METRICS, PAUSED_COLOR
    if scale is None:
        return []
    ticks = tuple(scale.label(v) for v in (scale.vmin, (scale.vmin + scale.vmax) / 2, scale.vmax))
    rows: list[Row] = [(f"{METRICS[scale.metric][1]} (hotter direction)", QtGui.QColor(COLORS[-1]),
                        Ramp(tuple(c.name() for c in COLORS), ticks))]
    if paused:
        rows.append(("paused (PFC XOFF / no credits)", QtGui.QColor(PAUSED_COLOR), "paused"))
    if ecn:
        rows.append(("ECN marking", QtGui.QColor(ECN_COLOR), "ecn"))
    return rows


def overlay_rows(items: Iterable[QtWidgets.QGraphicsItem], scene=None) -> list[Row]:
    """Rows for the overlays among ``items`` (top-level scene items): the heatmap's scale and
    marks, and each sweep colour with something drawn.

    The sweep's "not yet discovered" veil is exported as shown, with a row of its own: a
    picture taken mid-sweep is a picture of that step, and which devices the SM has not
    reached yet is what the step shows (a legend row keeps the dimmed colours explained;
    once the sweep is over nothing is dimmed and the row goes)."""
    from fabricviz.ui.canvas.overlays.pulls import PULL_COLOR, PULL_LABEL
    from fabricviz.ui.canvas.overlays.pulls import ROLE as PULL_ROLE
    from fabricviz.ui.canvas.overlays.sweep import LEGEND
    from fabricviz.ui.canvas.overlays.traffic import HeatItem
    from fabricviz.ui.canvas.overlays.trims import ROLE as TRIM_ROLE
    from fabricviz.ui.canvas.overlays.trims import TRIM_COLOR, TRIM_LABEL
    words = {QtGui.QColor(color).name(): (text, style) for text, color, style in LEGEND}
    rows: list[Row] = []
    sweep: list[Row] = []
    trims: list[Row] = []
    pulls: list[Row] = []
    vl_rows: dict[tuple[str, str], Row] = {}
    items = list(items)
    for item in items:
        if not item.isVisible():
            continue
        if isinstance(item, HeatItem):
            ov = item.overlay
            if ov.scale is not None and (ov.drawn_paths() or bundle_owner(scene) == "traffic"):
                rows += heat_rows(ov.scale, *_heat_marks(ov))
        elif item.data(2) == TRIM_ROLE and isinstance(item, QtWidgets.QGraphicsPathItem) \
                and not item.path().isEmpty():          # the trimming transports' marks (casing and ticks)
            trims = [(TRIM_LABEL, QtGui.QColor(TRIM_COLOR), "trims")]
        elif item.data(2) == PULL_ROLE and isinstance(item, QtWidgets.QGraphicsPathItem) \
                and not item.path().isEmpty():          # the pulling transports' beads (rim and bead)
            pulls = [(PULL_LABEL, QtGui.QColor(PULL_COLOR), "pulls")]
        elif item.data(2) in VL_ROLES and isinstance(item, QtWidgets.QGraphicsPathItem) \
                and not item.path().isEmpty():         # VL layers / VL usage: the item names its colour
            vl_rows.setdefault((str(item.data(3)), item.pen().color().name()),
                               (str(item.data(3)), item.pen().color(), "line"))
        elif item.data(2) == SWEEP_KIND and isinstance(item, QtWidgets.QGraphicsPathItem) \
                and not item.path().isEmpty():
            if item.pen().style() == QtCore.Qt.PenStyle.NoPen:
                sweep.append((VEIL_LABEL, item.brush().color(), "veil"))
                continue
            filled = item.brush().style() != QtCore.Qt.BrushStyle.NoBrush
            color = item.brush().color() if filled else item.pen().color()
            text, style = words.get(color.name(), ("SM sweep", "line"))
            sweep.append((text, QtGui.QColor(color), style))
    unique = {(label, color.name(), style): (label, color, style) for label, color, style in sweep}
    return nvlink_rows(items) + rows + trims + pulls + sorted(vl_rows.values(), key=lambda r: r[0]) + \
        sorted(unique.values(), key=lambda r: _SWEEP_ORDER.get(r[2], 9))


def nvlink_rows(items: Iterable[QtWidgets.QGraphicsItem]) -> list[Row]:
    """Rows for the NVLink rack domains among ``items`` (top-level scene items) drawn: closed racks
    (their block stands for their trays, whose own rows are then missing), open racks' frames and
    their links to the NVLink switch trays."""
    shown = [i for i in items if i.isVisible() and i.data(ROLE_KIND) == NVLINK_KIND]
    racks = [i for i in shown if isinstance(i, DomainBlock)]
    links = [i for i in shown if isinstance(i, QtWidgets.QGraphicsPathItem) and not i.path().isEmpty()]
    closed = [b for b in racks if b.brush().style() != QtCore.Qt.BrushStyle.NoBrush]
    opened = [b for b in racks if b.brush().style() == QtCore.Qt.BrushStyle.NoBrush]
    rows: list[Row] = []
    if closed:
        rows.append((f"NVLink rack domain, closed ({len(closed):,})", closed[0].brush().color(), "rect"))
    if opened:
        rows.append((f"NVLink rack domain, open ({len(opened):,})", opened[0].pen().color(), "line"))
    if links:
        rows.append(("NVLink links (trays to NVLink switch trays)", links[0].pen().color(), "line"))
    return rows


def _heat_marks(ov) -> tuple[bool, bool]:
    """Whether the heatmap draws paused and ECN marks now (on cables or on bundles)."""
    pens = [pen for pen, path in ov.drawn_paths() if not path.isEmpty()]
    marks = getattr(ov, "marks", None)              # the marks over bundles, zoomed out

    def shown(name: str) -> bool:
        if isinstance(marks, dict):                  # one path item per mark
            item = marks.get(name)
            return item is not None and item.isVisible() and not item.path().isEmpty()
        marked = getattr(marks, "marked", None)      # one item, the marked bundles per mark
        return isinstance(marked, dict) and marks is not None and marks.isVisible() and len(marked.get(name, ())) > 0
    return (any(p is ov.paused_pen for p in pens) or shown("paused"),
            any(p is ov.ecn_pen for p in pens) or shown("ecn"))


def bundle_owner(scene) -> str:
    """The overlay whose values colour the semantic zoom's bundles now ("" when none does)."""
    if scene is None or getattr(scene, "semantic", None) is None:
        return ""
    from fabricviz.ui.canvas.overlays.bundled import colours_of
    colours = colours_of(scene)
    return colours.shown.split(":", 1)[0] if colours is not None else ""


OWNER_WORDS = {"sweep": "the SM sweep", "lesson": "the lesson", "traffic": "the traffic run",
               "loads": "routes per port", "vl_layers": "VL layers", "vl_usage": "VL usage", "plane_layers": "planes"}


def semantic_rows(scene) -> list[Row]:
    """Rows for the semantic zoom's drawing (zoomed out): group boxes by their main device kind,
    open groups' frames, and bundle lines in their cables' colours (heat colours are the ramp's)."""
    draw = getattr(getattr(scene, "semantic", None), "draw", None)
    if draw is None or not getattr(draw, "on", False):
        return []
    from fabricviz.ui.canvas.items.bundles import tint
    from fabricviz.ui.canvas.overlays.traffic import COLORS
    theme = scene.theme
    rows: list[Row] = []
    for kind, item in sorted(getattr(draw, "boxes", {}).items()):
        if item.isVisible() and not item.path().isEmpty():
            base = theme.brushes[kind].color() if kind != "server" else QtGui.QColor("#8a949e")
            what = ("pod, rack or scalable unit: its switches and hosts" if kind == "server" else
                    f"tier of {GROUP_NAMES.get(kind, kind)} (cores, spines)")
            rows.append((what, tint(base, theme.dark), "rect"))
    frames = getattr(draw, "frames", None)
    if frames is not None and frames.isVisible() and not frames.path().isEmpty():
        rows.append(("open group (dashed frame)", QtGui.QColor(theme.text), "dash"))
    names = {QtGui.QColor(c).name(): th.CABLE_LEGEND[k] for k, c in th.CABLE_COLORS.items()}
    heat = {c.name() for c in COLORS}
    lines: dict[str, tuple[QtGui.QColor, float]] = {}
    for item in [*getattr(draw, "lines", {}).values(), *getattr(draw, "near_cables", {}).values()]:
        if item.isVisible() and not item.path().isEmpty():
            c = item.pen().color()
            if c.name() not in heat:
                width = max(lines.get(c.name(), (c, 0.0))[1], item.pen().widthF())
                lines[c.name()] = (c, width)
    owner = OWNER_WORDS.get(bundle_owner(scene), "an overlay")
    for name, (c, width) in sorted(lines.items()):
        text = names.get(name, f"cables coloured by {owner}")
        rows.append((f"{text}: bundles, wider for more bandwidth" if width > 1.0 else text, c, "line"))
    return rows


GROUP_NAMES = {"ib_switch": "InfiniBand switches", "eth_switch": "Ethernet switches", "server": "servers",
               "gpu": "GPUs", "nic": "NICs"}
_SWEEP_ORDER: dict[Shape, int] = {"veil": 0, "outline": 1, "line": 2, "dot": 3, "dash": 4}


def merge_rows(*groups: Iterable[Row]) -> list[Row]:
    """The rows of every group in order; a row whose label, or whose colour for the same kind
    of swatch (a box, a ramp, a mark), is already listed is dropped: a lesson names the path
    that the sweep overlay draws in the same colour."""
    out: list[Row] = []
    seen: set[object] = set()
    for group in groups:
        for label, color, shape in group:
            kind = "ramp" if isinstance(shape, Ramp) else "box" if shape in ("rect", "veil") else "mark"
            key = (color.name(), kind)
            if label in seen or key in seen:
                continue
            seen.update((label, key))
            out.append((label, color, shape))
    return out


class LegendBox:
    """The rows laid out in ``columns`` at ``font_px`` (picture pixels): measured, then painted."""

    def __init__(self, rows: list[Row], font_px: float, text: QtGui.QColor,
                 background: QtGui.QColor | None) -> None:
        self.rows, self.px, self.text, self.background = rows, font_px, text, background
        self.font = QtGui.QFont()
        self.font.setPixelSize(max(1, round(font_px)))
        self.head = QtGui.QFont(self.font)
        self.head.setBold(True)
        fm = QtGui.QFontMetricsF(self.font)
        self.line = fm.height() * 1.35
        self.pad = font_px * 0.7
        self.swatch = font_px * 2.0
        self.gap = font_px * 0.6
        widths = [fm.horizontalAdvance(label) for label, _c, _s in rows]
        self.col_w = self.swatch + self.gap + max(widths + [font_px * 6.0])
        self.col_gap = font_px * 1.5

    def _height_of(self, row: Row) -> float:
        return self.line * (2.6 if isinstance(row[2], Ramp) else 1.0)

    def _columns(self, columns: int) -> list[list[Row]]:
        """Rows split into ``columns`` columns of about equal height (in order, top to bottom)."""
        total = sum(self._height_of(r) for r in self.rows)
        per = total / max(columns, 1)
        cols: list[list[Row]] = [[]]
        h = 0.0
        for r in self.rows:
            if cols[-1] and h + self._height_of(r) > per * 1.001 and len(cols) < columns:
                cols.append([])
                h = 0.0
            cols[-1].append(r)
            h += self._height_of(r)
        return cols

    def size(self, columns: int = 1) -> QtCore.QSizeF:
        cols = self._columns(columns)
        h = max(sum(self._height_of(r) for r in c) for c in cols)
        w = len(cols) * self.col_w + (len(cols) - 1) * self.col_gap
        return QtCore.QSizeF(w + 2 * self.pad, h + self.line + 2 * self.pad)

    def columns_for_height(self, height: float) -> int:
        """Fewest columns whose box fits ``height`` (as many as there are rows at most)."""
        for n in range(1, len(self.rows) + 1):
            if self.size(n).height() <= height:
                return n
        return max(len(self.rows), 1)

    def columns_for_width(self, width: float) -> int:
        """Most columns (up to one per row) whose box fits ``width``."""
        n = max(len(self.rows), 1)
        while n > 1 and self.size(n).width() > width:
            n -= 1
        return n

    def paint(self, painter: QtGui.QPainter, rect: QtCore.QRectF, columns: int) -> None:
        painter.save()
        frame = QtGui.QPen(self.text, max(1.0, self.px / 12))
        painter.setPen(frame)
        painter.setBrush(self.background if self.background is not None else QtCore.Qt.BrushStyle.NoBrush)
        painter.drawRoundedRect(rect, self.px * 0.35, self.px * 0.35)
        painter.setFont(self.head)
        painter.setPen(self.text)
        x0, y = rect.left() + self.pad, rect.top() + self.pad
        painter.drawText(QtCore.QRectF(x0, y, rect.width() - 2 * self.pad, self.line),
                         QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter, "Legend")
        painter.setFont(self.font)
        for i, col in enumerate(self._columns(columns)):
            x = x0 + i * (self.col_w + self.col_gap)
            yy = y + self.line
            for row in col:
                self._row(painter, row, x, yy)
                yy += self._height_of(row)
        painter.restore()

    def _row(self, painter: QtGui.QPainter, row: Row, x: float, y: float) -> None:
        label, color, shape = row
        px, sw, mid = self.px, self.swatch, y + self.line / 2
        text_rect = QtCore.QRectF(x + sw + self.gap, y, self.col_w - sw - self.gap, self.line)
        align = QtCore.Qt.AlignmentFlag.AlignLeft | QtCore.Qt.AlignmentFlag.AlignVCenter
        box = QtCore.QRectF(x, mid - px * 0.4, sw, px * 0.8)
        painter.setBrush(QtCore.Qt.BrushStyle.NoBrush)
        if isinstance(shape, Ramp):
            painter.setPen(self.text)
            painter.drawText(QtCore.QRectF(x, y, self.col_w, self.line), align, label)
            bar = QtCore.QRectF(x, y + self.line, self.col_w, px * 0.8)
            step = bar.width() / len(shape.colors)
            for k, c in enumerate(shape.colors):
                painter.fillRect(QtCore.QRectF(bar.left() + k * step, bar.top(), step + 0.5, bar.height()),
                                 QtGui.QColor(c))
            ticks = QtCore.QRectF(x, bar.bottom(), self.col_w, self.line * 0.8)
            small = QtGui.QFont(self.font)
            small.setPixelSize(max(1, round(px * 0.85)))
            painter.setFont(small)
            for t, a in zip(shape.ticks, (QtCore.Qt.AlignmentFlag.AlignLeft, QtCore.Qt.AlignmentFlag.AlignHCenter,
                                          QtCore.Qt.AlignmentFlag.AlignRight), strict=True):
                painter.drawText(ticks, a | QtCore.Qt.AlignmentFlag.AlignVCenter, t)
            painter.setFont(self.font)
            return
        width = max(1.5, px * 0.25)
        if shape == "rect":
            painter.setPen(QtGui.QPen(color.darker(160), max(1.0, px / 14)))
            painter.setBrush(color)
            painter.drawRect(box)
        elif shape == "veil":          # a switch and a server under the veil, as the canvas dims them
            painter.setPen(QtCore.Qt.PenStyle.NoPen)
            painter.setBrush(QtGui.QColor(th.KIND_COLORS["ib_switch"]))
            painter.drawRect(box.adjusted(0, 0, -sw / 2, 0))
            painter.setBrush(QtGui.QColor(th.KIND_COLORS["gpu"]))
            painter.drawRect(box.adjusted(sw / 2, 0, 0, 0))
            painter.setBrush(color)
            painter.drawRect(box)
        elif shape in ("outline", "dot"):
            painter.setPen(QtGui.QPen(color.darker(150) if shape == "dot" else color, width))
            if shape == "dot":
                painter.setBrush(color)
                painter.drawEllipse(QtCore.QPointF(x + sw / 2, mid), px * 0.35, px * 0.35)
            else:
                painter.drawRect(box)
        else:
            pens = [QtGui.QPen(color, width)]
            if shape == "paused":          # red dashes on a dark casing, as the heatmap marks it
                from fabricviz.ui.canvas.overlays.traffic import paused_pens
                pens = list(paused_pens(px * 0.18))
            elif shape == "trims":         # white ticks on a black casing, as the trim marks
                from fabricviz.ui.canvas.overlays.trims import trim_pens
                pens = list(trim_pens(px * 0.18))
            elif shape == "pulls":         # violet beads on a black rim, as the pull marks
                from fabricviz.ui.canvas.overlays.pulls import pull_pens
                pens = list(pull_pens(px * 0.3))
            elif shape in ("dash", "ecn"):
                pens[0].setStyle(QtCore.Qt.PenStyle.DotLine if shape == "ecn" else QtCore.Qt.PenStyle.DashLine)
            for pen in pens:
                pen.setCosmetic(False)
                painter.setPen(pen)
                painter.drawLine(QtCore.QPointF(x, mid), QtCore.QPointF(x + sw, mid))
        painter.setPen(self.text)
        painter.drawText(text_rect, align, label)


__all__ = ["KIND_NAMES", "LegendBox", "Ramp", "Row", "VEIL_LABEL", "cable_rows", "device_rows", "heat_rows",
           "merge_rows", "overlay_rows", "semantic_rows"]
