"""Port markers shown on hover: the handles cables are drawn from and to.

Only the hovered device (and the device under a cable being drawn) gets
markers, so a 30k-host design never holds more than a few hundred of them.
A switch shows a panel of its ports in rows of 16 under its body; a NIC shows
its ports on its top edge. Every marker carries its port number in a 9 px font
(constant on screen: panels are laid out for the view scale they are shown at
and rebuilt when the zoom changes):

* a switch port shows its number, ``5`` for ``leaf01:5`` (the number on the faceplate
  and in ``ibswitches``/``iblinkinfo``);
* a NIC port shows ``<hca>:<port>``, ``0:1`` for ``node01/mlx5_0:1`` — the ``mlx5_N`` index
  (as ``ibstat``/``ibv_devinfo`` name the HCA) and its port number, so the eight rails of
  a GPU server read apart. A NIC whose name carries no index uses its place among
  the server's NICs.

The hover region of a panel is its device (body and name) united with its markers
plus a margin, so the pointer can travel from the device to a marker outside the
device's outline without the markers vanishing on the way.
"""

from __future__ import annotations

import re

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.items.devices import DEVICE_ROLE, K_NIC, K_SERVER, PORT_ROLE, ROLE_KIND
from fabricviz.ui.canvas.scene import FabricScene

#: On-screen sizes (pixels) of a switch's panel, whatever the zoom.
LABEL_PX = 9          # port number font
CELL_W_PX = 18.0      # one port: marker above its number
CELL_H_PX = 22.0
MARK_R_PX = 4.5
#: How far (pixels) around a device and its markers the pointer may stray before they hide.
HOVER_MARGIN_PX = 12.0


def port_label(f: Fabric, p: int) -> str:
    """The short number on a port's marker (see the module docstring)."""
    num = int(f.ports_t.num[p])
    dev = f.port(p).device
    if dev.kind != "nic":
        return str(num)
    m = re.search(r"(\d+)$", dev.name.rsplit("/", 1)[-1])
    if m is not None:
        hca = m.group(1)
    else:
        parent = dev.parent
        nics = [n.id for n in parent.nics] if parent is not None else [dev.id]
        hca = str(nics.index(dev.id)) if dev.id in nics else "0"
    return f"{hca}:{num}"


class PortMarker(QtWidgets.QGraphicsEllipseItem):
    """One port; ``data(PORT_ROLE)`` is the port id."""


class PortPanel(QtWidgets.QGraphicsRectItem):
    """The markers of one device's ports and their numbers (a scene item above everything).

    ``scale`` is the view scale the panel is laid out for: a switch's panel and all port
    numbers keep their on-screen size at it."""

    def __init__(self, scene: FabricScene, device: int, scale: float = 1.0) -> None:
        super().__init__()
        self.device = device
        self.markers: dict[int, PortMarker] = {}
        self.labels: dict[int, QtWidgets.QGraphicsSimpleTextItem] = {}
        f = scene.fabric
        assert f is not None
        theme = scene.theme
        dt, pt = f.devices_t, f.ports_t
        item = scene.items_by_id[device]
        center = item.scenePos()
        first, n = int(dt.first_port[device]), int(dt.nports[device])
        u = 1.0 / max(scale, 1e-9)          # scene units per screen pixel
        self.setZValue(10.0)
        self.setData(ROLE_KIND, "panel")
        font = QtGui.QFont(theme.label_font)
        font.setPixelSize(LABEL_PX)
        texts = [port_label(f, first + i) for i in range(n)]
        if int(dt.kind[device]) == K_NIC:
            r = th.PORT_R
            rect = item.rect()
            xs = [rect.left() + (i + 0.5) * rect.width() / n for i in range(n)]
            pos = [(center.x() + x, center.y() + rect.top()) for x in xs]
            # the number inside the NIC, under its marker
            text_y = [center.y() + rect.top() + r + 1.0 * u] * n
            self.setRect(QtCore.QRectF())
            self.setPen(QtGui.QPen(QtCore.Qt.PenStyle.NoPen))
        else:
            r = MARK_R_PX * u
            cw, ch = CELL_W_PX * u, CELL_H_PX * u
            per = min(th.PORTS_PER_ROW, n)
            rows = (n + per - 1) // per
            w, h = per * cw, rows * ch
            # under the body and under the name label, which stays readable above the panel
            name = scene.label_layer.label_rect(device, scale)
            below = name.bottom() - center.y() if not name.isEmpty() else item.rect().bottom()
            top = center.y() + max(below, item.rect().bottom()) + 5 * u
            left = center.x() - w / 2
            self.setRect(QtCore.QRectF(left - 3 * u, top - 3 * u, w + 6 * u, h + 6 * u))
            bg = QtGui.QColor(theme.background)
            bg.setAlpha(235)
            self.setBrush(bg)
            pen = QtGui.QPen(theme.text)
            pen.setCosmetic(True)
            self.setPen(pen)
            pos = [(left + (i % per + 0.5) * cw, top + (i // per) * ch + (MARK_R_PX + 2) * u)
                   for i in range(n)]
            text_y = [y + r + 1.0 * u for _, y in pos]
        for i, (x, y) in enumerate(pos):
            pid = first + i
            m = PortMarker(-r, -r, 2 * r, 2 * r, self)
            m.setPos(x, y)
            used = int(pt.cable[pid]) >= 0
            tech = int(pt.tech[pid])
            m.setBrush(theme.port_used.get(tech, theme.text_brush) if used else theme.port_free)
            pen = QtGui.QPen(theme.port_used.get(tech, theme.text_brush).color())
            pen.setCosmetic(True)
            pen.setWidthF(1.5)
            m.setPen(pen)
            m.setData(PORT_ROLE, pid)
            m.setData(ROLE_KIND, "port")
            self.markers[pid] = m
            # the number: drawn at LABEL_PX screen pixels (scaled by u), centred under the marker;
            # it is part of the port's handle (press it to cable, hover it for the tooltip)
            t = QtWidgets.QGraphicsSimpleTextItem(texts[i], self)
            t.setFont(font)
            t.setBrush(theme.text_brush)
            t.setScale(u)
            br = t.boundingRect()
            t.setPos(x - br.width() * u / 2, text_y[i])
            t.setData(PORT_ROLE, pid)
            t.setData(ROLE_KIND, "port_label")
            t.setAcceptedMouseButtons(QtCore.Qt.MouseButton.NoButton)
            self.labels[pid] = t


class PortOverlay:
    """Keeps the panels of at most a few devices on the scene."""

    def __init__(self, scene: FabricScene) -> None:
        self.scene = scene
        self.panels: dict[int, PortPanel] = {}
        self.scale = 1.0        # the view scale panels are laid out for (see set_scale)

    def devices_for(self, device: int) -> list[int]:
        """Devices whose ports to show for a hovered ``device`` (a server shows its NICs)."""
        f = self.scene.fabric
        if f is None or not f.devices_t.exists(device):
            return []
        if int(f.devices_t.kind[device]) == K_SERVER:
            kids = f.children_ids(device)
            return [int(k) for k in kids if int(f.devices_t.nports[k]) > 0]
        return [device] if int(f.devices_t.nports[device]) > 0 else []

    def set_scale(self, scale: float) -> None:
        """Lay panels out for a new view scale (numbers keep their on-screen size)."""
        if scale > 0 and abs(scale - self.scale) > 1e-9 * self.scale:
            self.scale = scale
            if self.panels:
                self.refresh()

    def show(self, devices: list[int]) -> None:
        want = [d for d in devices if d in self.scene.items_by_id]
        for d in [d for d in self.panels if d not in want]:
            self.scene.removeItem(self.panels.pop(d))
            self.scene.label_layer.pin(d, False)
        for d in want:
            if d not in self.panels:
                self.scene.label_layer.pin(d, True)
                panel = PortPanel(self.scene, d, self.scale)
                self.scene.addItem(panel)
                self.panels[d] = panel

    def clear(self) -> None:
        self.show([])

    def refresh(self) -> None:
        """Rebuild after a model change (a port got cabled) or a zoom."""
        keep = list(self.panels)
        self.clear()
        self.show([d for d in keep if self.scene.fabric is not None and self.scene.fabric.devices_t.exists(d)])

    def marker(self, port: int) -> PortMarker | None:
        for panel in self.panels.values():
            if port in panel.markers:
                return panel.markers[port]
        return None

    def port_at(self, pos: QtCore.QPointF) -> int | None:
        """The port whose marker (or number) is under ``pos``; a panel's background on top
        hides the markers of panels under it."""
        for item in self.scene.items(pos):
            pid = item.data(PORT_ROLE)
            if pid is not None:
                return int(pid)
            if (item.data(ROLE_KIND) == "panel" and isinstance(item, QtWidgets.QGraphicsRectItem)
                    and not item.rect().isEmpty()):
                return None
        return None

    def contains(self, pos: QtCore.QPointF) -> bool:
        """Whether ``pos`` is on a shown panel (its background or markers)."""
        return any(self._marks_rect(p).adjusted(-4, -4, 4, 4).contains(pos) for p in self.panels.values())

    def region(self, device: int) -> QtCore.QRectF:
        """The hover region of a shown panel: its device's body and name united with the
        markers, plus a margin of HOVER_MARGIN_PX screen pixels (empty if not shown)."""
        panel = self.panels.get(device)
        item = self.scene.items_by_id.get(device)
        if panel is None or item is None:
            return QtCore.QRectF()
        top = item.parentItem() or item
        rect = self._marks_rect(panel).united(top.sceneBoundingRect())
        name = self.scene.label_layer.label_rect(int(top.data(DEVICE_ROLE)), self.scale)
        if not name.isEmpty():
            rect = rect.united(name)
        m = HOVER_MARGIN_PX / max(self.scale, 1e-9)
        return rect.adjusted(-m, -m, m, m)

    def in_region(self, pos: QtCore.QPointF) -> bool:
        return any(self.region(d).contains(pos) for d in self.panels)

    @staticmethod
    def _marks_rect(panel: PortPanel) -> QtCore.QRectF:
        return panel.sceneBoundingRect().united(panel.mapRectToScene(panel.childrenBoundingRect()))
