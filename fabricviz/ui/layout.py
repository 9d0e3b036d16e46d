"""Where the main window's docks go, and the layout kept between runs.

The canvas gets the room: the palette on the left (a lesson's narration takes its place
while a lesson is open), the inspector (with the traffic controls as a tab) on the right,
the history under it; the wide tables (findings,
bill of materials, the SM sweep, charts) share one tab strip under the canvas that stays
hidden until one of them has something to show. On a 1920×1080 desktop the canvas is then
about 70 % of the window. A dock opened from the View menu is always shown and raised (never
a tab hidden behind another). The window's geometry and dock layout are saved on close and
restored at the next start; the first start is maximised. View ▸ Reset Layout goes back to
the first-start layout.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtWidgets

#: Bumped when the dock set changes, so an older saved layout is not restored onto it.
LAYOUT_VERSION = 9
GEOMETRY_KEY = "window/geometry"
STATE_KEY = "window/state"
#: Dock widths (px) on the left and the right of the canvas at first start.
LEFT_WIDTH, RIGHT_WIDTH = 230, 340
#: Height of the bottom tab strip when it first opens.
BOTTOM_HEIGHT = 230

Area = QtCore.Qt.DockWidgetArea


def arrange(w: Any) -> None:
    """Place every dock of main window ``w`` (first-start layout)."""
    w.setCorner(QtCore.Qt.Corner.BottomLeftCorner, Area.LeftDockWidgetArea)
    w.setCorner(QtCore.Qt.Corner.BottomRightCorner, Area.RightDockWidgetArea)
    w.addDockWidget(Area.LeftDockWidgetArea, w.palette_dock)
    w.addDockWidget(Area.LeftDockWidgetArea, w.lesson_dock)   # a lesson takes the palette's place,
    w.tabifyDockWidget(w.palette_dock, w.lesson_dock)         # so its traffic run never hides the narration
    for d in (w.inspector, w.history):
        w.addDockWidget(Area.RightDockWidgetArea, d)
    w.addDockWidget(Area.RightDockWidgetArea, w.traffic_dock)  # a tab beside the inspector, raised when opened
    w.tabifyDockWidget(w.inspector, w.traffic_dock)
    w.addDockWidget(Area.RightDockWidgetArea, w.partitions_dock)   # View ▸ Partitions: a tab beside traffic
    w.tabifyDockWidget(w.traffic_dock, w.partitions_dock)
    w.addDockWidget(Area.RightDockWidgetArea, w.collectives_dock)  # View ▸ Collectives: a tab beside traffic
    w.tabifyDockWidget(w.traffic_dock, w.collectives_dock)
    w.addDockWidget(Area.RightDockWidgetArea, w.whatif_dock)       # View ▸ What-if: a tab beside traffic
    w.tabifyDockWidget(w.traffic_dock, w.whatif_dock)
    bottom = (w.findings_dock, w.bom_dock, w.sweep_dock, w.charts_dock, w.lossless_dock, w.diff_dock,
              w.counters_dock)
    w.addDockWidget(Area.BottomDockWidgetArea, bottom[0])
    for d in bottom[1:]:
        w.addDockWidget(Area.BottomDockWidgetArea, d)
        w.tabifyDockWidget(bottom[0], d)
    for d in (w.lesson_dock, w.traffic_dock, w.partitions_dock, w.collectives_dock, w.whatif_dock, *bottom):
        d.hide()
    w.inspector.raise_()
    w.resizeDocks([w.palette_dock, w.inspector], [LEFT_WIDTH, RIGHT_WIDTH], QtCore.Qt.Orientation.Horizontal)
    w.resizeDocks([w.inspector, w.history], [640, 160], QtCore.Qt.Orientation.Vertical)
    for d in docks(w):
        d.toggleViewAction().toggled.connect(lambda on, d=d: reveal(w, d) if on else None)


def docks(w: Any) -> list[QtWidgets.QDockWidget]:
    return w.findChildren(QtWidgets.QDockWidget, options=QtCore.Qt.FindChildOption.FindDirectChildrenOnly)


def reveal(w: Any, dock: QtWidgets.QDockWidget) -> None:
    """Show ``dock`` in front of its tab group; the bottom strip opens at a readable height."""
    was_hidden = not dock.isVisible()
    dock.show()
    dock.raise_()
    # resizeDocks on a window never shown (a headless screenshot's) leaves Qt's dock layout
    # inconsistent: the next saveState() crashed (signal 11); a hidden window has no height to share
    if was_hidden and w.isVisible() and w.dockWidgetArea(dock) == Area.BottomDockWidgetArea \
            and not dock.isFloating():
        w.resizeDocks([dock], [BOTTOM_HEIGHT], QtCore.Qt.Orientation.Vertical)


def save(w: Any) -> None:
    s = w.settings
    s.setValue(GEOMETRY_KEY, w.saveGeometry())
    s.setValue(STATE_KEY, w.saveState(LAYOUT_VERSION))


def restore(w: Any) -> None:
    """The last run's geometry and docks, or maximised at the first start."""
    s = w.settings
    geometry, state = s.value(GEOMETRY_KEY), s.value(STATE_KEY)
    if isinstance(geometry, QtCore.QByteArray) and w.restoreGeometry(geometry):
        if isinstance(state, QtCore.QByteArray):
            w.restoreState(state, LAYOUT_VERSION)
        return
    screen = QtWidgets.QApplication.primaryScreen()
    if screen is not None:
        w.resize(screen.availableGeometry().size())
    w.setWindowState(w.windowState() | QtCore.Qt.WindowState.WindowMaximized)


def reset(w: Any) -> None:
    """View ▸ Reset Layout: the first-start docks (the window keeps its size)."""
    w.restoreState(w.default_layout)
    QtCore.QTimer.singleShot(0, w.view, w.view.fit_all)


def canvas_share(w: Any) -> float:
    """The canvas's part of the main window's area (0–1)."""
    v = w.view
    total = w.width() * w.height()
    return v.width() * v.height() / total if total else 0.0


__all__ = ["LAYOUT_VERSION", "arrange", "canvas_share", "docks", "reveal", "reset", "restore", "save"]
