"""Placeholder main window: a QGraphicsView drawing a fabric's devices and cables.

Devices are small rectangles at their model (x, y), servers as a frame around
their GPUs and NICs; cables are straight lines between the devices they join.
The real editor replaces this; the object names ("main_window", "canvas") stay.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

log = logging.getLogger(__name__)

#: The fabric shown when the window is opened without a file.
DEMO_FABRIC = Path(__file__).resolve().parent.parent / "assets" / "demo" / "demo-fat-tree.json"

KIND_COLORS = {
    "ib_switch": "#2f6db5",
    "eth_switch": "#2f8f5b",
    "server": "#f2f2f2",
    "gpu": "#76b900",
    "nic": "#d9822b",
}
FALLBACK_COLOR = "#9e9e9e"
KIND_SIZES = {  # width, height in scene units
    "ib_switch": (20.0, 14.0),
    "eth_switch": (20.0, 14.0),
    "gpu": (14.0, 10.0),
    "nic": (14.0, 10.0),
}
DEFAULT_SIZE = (16.0, 12.0)
SERVER_MARGIN = 6.0
CABLE_COLOR = "#7a7a7a"


class CanvasView(QtWidgets.QGraphicsView):
    """The drawing area: pans by dragging, zooms with the mouse wheel."""

    def __init__(self, scene: QtWidgets.QGraphicsScene, parent: QtWidgets.QWidget | None = None):
        super().__init__(scene, parent)
        self.setObjectName("canvas")
        self.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, True)
        self.setDragMode(QtWidgets.QGraphicsView.DragMode.ScrollHandDrag)
        self.setTransformationAnchor(QtWidgets.QGraphicsView.ViewportAnchor.AnchorUnderMouse)
        self.setViewportUpdateMode(QtWidgets.QGraphicsView.ViewportUpdateMode.SmartViewportUpdate)
        self.setBackgroundBrush(QtGui.QColor("#ffffff"))

    def wheelEvent(self, event: QtGui.QWheelEvent) -> None:  # noqa: N802 (Qt name)
        steps = event.angleDelta().y() / 120.0
        if steps:
            factor = 1.15 ** steps
            self.scale(factor, factor)
        event.accept()

    def fit_all(self) -> None:
        rect = self.scene().itemsBoundingRect()
        if not rect.isEmpty():
            self.fitInView(rect.adjusted(-20, -20, 20, 20), QtCore.Qt.AspectRatioMode.KeepAspectRatio)


class MainWindow(QtWidgets.QMainWindow):
    """fabricviz's main window (placeholder).

    ``MainWindow(path)`` opens the fabric file ``path``; ``MainWindow()`` opens the
    bundled demo fabric. A file that cannot be loaded leaves an empty canvas and
    the reason in the status bar and in :attr:`load_error`.
    """

    def __init__(self, path: str | os.PathLike[str] | None = None,
                 parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("main_window")
        self.path = Path(path) if path is not None else DEMO_FABRIC
        self.fabric: Any = None
        self.load_error: str | None = None
        #: device id -> rectangle item, cable id -> line item
        self.device_items: dict[int, QtWidgets.QGraphicsRectItem] = {}
        self.cable_items: dict[int, QtWidgets.QGraphicsLineItem] = {}

        self.scene = QtWidgets.QGraphicsScene(self)
        self.scene.setObjectName("canvas_scene")
        # Fabric drawings are full of long lines, the BSP index's worst case.
        self.scene.setItemIndexMethod(QtWidgets.QGraphicsScene.ItemIndexMethod.NoIndex)
        self.view = CanvasView(self.scene, self)
        self.setCentralWidget(self.view)
        self.setWindowTitle(f"fabricviz \u2014 {self.path.name}")
        self.resize(1200, 800)
        self._fitted = False

        self.fabric = self._load(self.path)
        if self.fabric is not None:
            self._draw(self.fabric)
            self.statusBar().showMessage(
                f"{self.path.name}: {len(self.device_items)} devices, "
                f"{len(self.cable_items)} cables")
        else:
            self.statusBar().showMessage(self.load_error or "")

    # ------------------------------------------------------------------ loading
    def _load(self, path: Path) -> Any:
        try:
            from fabricviz.formats.native import load_fabric
        except ImportError as exc:  # the format module has not landed yet
            self.load_error = f"cannot open fabric files in this build ({exc})"
            log.warning("%s", self.load_error)
            return None
        try:
            return load_fabric(path)
        except Exception as exc:  # a bad file must not take the window down
            msg = str(exc)
            self.load_error = msg if str(path) in msg else f"could not open {path}: {msg}"
            log.warning("%s", self.load_error, exc_info=not isinstance(exc, (OSError, ValueError)))
            return None

    # ------------------------------------------------------------------ drawing
    def _draw(self, fabric: Any) -> None:
        devices = []
        for d in fabric.devices():
            kind = str(getattr(d.kind, "value", d.kind))
            parent = getattr(d, "parent", None)
            devices.append((int(d.id), str(d.name), kind, float(d.x), float(d.y),
                            int(parent.id) if parent is not None else None))

        centers: dict[int, QtCore.QPointF] = {}
        children: dict[int, list[QtCore.QRectF]] = {}
        for did, name, kind, x, y, parent_id in devices:
            if kind == "server":
                continue
            w, h = KIND_SIZES.get(kind, DEFAULT_SIZE)
            rect = QtCore.QRectF(x - w / 2, y - h / 2, w, h)
            item = self._add_device(did, name, kind, rect, z=2.0)
            centers[did] = item.rect().center()
            if parent_id is not None:
                children.setdefault(parent_id, []).append(rect)
        for did, name, kind, x, y, _parent in devices:
            if kind != "server":
                continue
            rects = children.get(did)
            if rects:
                rect = rects[0]
                for r in rects[1:]:
                    rect = rect.united(r)
                rect = rect.adjusted(-SERVER_MARGIN, -SERVER_MARGIN, SERVER_MARGIN, SERVER_MARGIN)
            else:
                w, h = DEFAULT_SIZE
                rect = QtCore.QRectF(x - w / 2, y - h / 2, w, h)
            item = self._add_device(did, name, kind, rect, z=1.0)
            centers[did] = rect.center()

        pen = QtGui.QPen(QtGui.QColor(CABLE_COLOR))
        pen.setCosmetic(True)
        pen.setWidthF(1.0)
        for cable in fabric.cables():
            a = centers.get(int(cable.port_a.device.id))
            b = centers.get(int(cable.port_b.device.id))
            if a is None or b is None:
                continue
            line = QtWidgets.QGraphicsLineItem(QtCore.QLineF(a, b))
            line.setPen(pen)
            line.setZValue(0.0)
            line.setData(0, int(cable.id))
            self.scene.addItem(line)
            self.cable_items[int(cable.id)] = line

    def _add_device(self, did: int, name: str, kind: str, rect: QtCore.QRectF,
                    z: float) -> QtWidgets.QGraphicsRectItem:
        item = QtWidgets.QGraphicsRectItem(rect)
        color = QtGui.QColor(KIND_COLORS.get(kind, FALLBACK_COLOR))
        item.setBrush(color)
        outline = QtGui.QPen(color.darker(160))
        outline.setCosmetic(True)
        item.setPen(outline)
        item.setZValue(z)
        item.setToolTip(f"{name} ({kind})")
        item.setData(0, did)
        self.scene.addItem(item)
        self.device_items[did] = item
        return item

    # ------------------------------------------------------------------ Qt events
    def showEvent(self, event: QtGui.QShowEvent) -> None:  # noqa: N802 (Qt name)
        super().showEvent(event)
        if not self._fitted:
            self._fitted = True
            QtCore.QTimer.singleShot(0, self.view, self.view.fit_all)  # cancelled if the view dies
