"""Port markers shown on hover: the handles cables are drawn from and to.

Only the hovered device (and the device under a cable being drawn) gets
markers, so a 30k-host design never holds more than a few hundred of them.
A switch shows a panel of its ports in rows of 16 under its body (numbered,
filled when cabled); a NIC shows its ports on its top edge.
"""

from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.model import Fabric
from fabricviz.ui.canvas import theme as th
from fabricviz.ui.canvas.scene import K_NIC, K_SERVER, PORT_ROLE, ROLE_KIND, FabricScene


class PortMarker(QtWidgets.QGraphicsEllipseItem):
    """One port; ``data(PORT_ROLE)`` is the port id."""


class PortPanel(QtWidgets.QGraphicsRectItem):
    """The markers of one device's ports (a child-free scene item above everything)."""

    def __init__(self, scene: FabricScene, device: int) -> None:
        super().__init__()
        self.device = device
        self.markers: dict[int, PortMarker] = {}
        f: Fabric = scene.fabric
        theme = scene.theme
        dt, pt = f.devices_t, f.ports_t
        item = scene.items_by_id[device]
        center = item.scenePos()
        first, n = int(dt.first_port[device]), int(dt.nports[device])
        r = th.PORT_R
        self.setZValue(10.0)
        self.setData(ROLE_KIND, "panel")
        if int(dt.kind[device]) == K_NIC:
            rect = item.rect()
            xs = [rect.left() + (i + 0.5) * rect.width() / n for i in range(n)]
            pos = [(center.x() + x, center.y() + rect.top()) for x in xs]
            self.setRect(QtCore.QRectF())
            self.setPen(QtGui.QPen(QtCore.Qt.PenStyle.NoPen))
        else:
            per = min(th.PORTS_PER_ROW, n)
            rows = (n + per - 1) // per
            w, h = per * th.PORT_PITCH, rows * th.PORT_PITCH
            # under the body and under the name label, which stays readable above the panel
            label = scene.labels.get(device)
            below = label.mapRectToParent(label.boundingRect()).bottom() if label is not None \
                else item.rect().bottom()
            top = center.y() + max(below, item.rect().bottom()) + 5
            left = center.x() - w / 2
            self.setRect(QtCore.QRectF(left - 3, top - 3, w + 6, h + 6))
            bg = QtGui.QColor(theme.background)
            bg.setAlpha(235)
            self.setBrush(bg)
            pen = QtGui.QPen(theme.text)
            pen.setCosmetic(True)
            self.setPen(pen)
            pos = [(left + (i % per + 0.5) * th.PORT_PITCH, top + (i // per + 0.5) * th.PORT_PITCH)
                   for i in range(n)]
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


class PortOverlay:
    """Keeps the panels of at most a few devices on the scene."""

    def __init__(self, scene: FabricScene) -> None:
        self.scene = scene
        self.panels: dict[int, PortPanel] = {}

    def devices_for(self, device: int) -> list[int]:
        """Devices whose ports to show for a hovered ``device`` (a server shows its NICs)."""
        f = self.scene.fabric
        if f is None or not f.devices_t.exists(device):
            return []
        if int(f.devices_t.kind[device]) == K_SERVER:
            kids = f.children_ids(device)
            return [int(k) for k in kids if int(f.devices_t.nports[k]) > 0]
        return [device] if int(f.devices_t.nports[device]) > 0 else []

    def show(self, devices: list[int]) -> None:
        want = [d for d in devices if d in self.scene.items_by_id]
        for d in [d for d in self.panels if d not in want]:
            self.scene.removeItem(self.panels.pop(d))
            self.scene.pin_label(d, False)
        for d in want:
            if d not in self.panels:
                self.scene.pin_label(d, True)
                panel = PortPanel(self.scene, d)
                self.scene.addItem(panel)
                self.panels[d] = panel

    def clear(self) -> None:
        self.show([])

    def refresh(self) -> None:
        """Rebuild after a model change (a port got cabled)."""
        keep = list(self.panels)
        self.clear()
        self.show([d for d in keep if self.scene.fabric is not None and self.scene.fabric.devices_t.exists(d)])

    def marker(self, port: int) -> PortMarker | None:
        for panel in self.panels.values():
            if port in panel.markers:
                return panel.markers[port]
        return None

    def port_at(self, pos: QtCore.QPointF) -> int | None:
        for item in self.scene.items(pos):
            pid = item.data(PORT_ROLE)
            if pid is not None:
                return int(pid)
        return None

    def contains(self, pos: QtCore.QPointF) -> bool:
        return any(p.sceneBoundingRect().adjusted(-4, -4, 4, 4).contains(pos) for p in self.panels.values())
