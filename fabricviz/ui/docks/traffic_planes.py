"""The Traffic dock's plane box: which plane of a multi-plane run the heatmap shows.

A run on a multi-plane design (:class:`~fabricviz.sim.plane_merge.PlaneRun`) holds every plane's own
run and their merge. The box offers "all planes" (the merged run: every plane's cables at once, the
PCIe links carrying every plane's share) and each plane alone (its own run: its routes, queues and
utilisation; the other planes' cables stay uncoloured). It is hidden for a single-plane run.
"""

from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtWidgets

from fabricviz.sim.plane_merge import PlaneRun

ALL = "all planes"


class PlaneBox(QtCore.QObject):
    """A labelled combo box (``row``), hidden until a multi-plane run is loaded; ``picked(run)``
    gives the run to show (the merged one, or one plane's) when the user changes it."""

    picked = QtCore.Signal(object)

    def __init__(self, parent: QtWidgets.QWidget) -> None:
        super().__init__(parent)
        self.run: PlaneRun | None = None
        self.label = QtWidgets.QLabel("Plane", parent)
        self.box = QtWidgets.QComboBox(parent)
        self.box.setObjectName("traffic_plane")
        self.box.setToolTip("a multi-plane design: every plane merged, or one plane's own run "
                            "(its subnet, routes and queues)")
        self.box.currentIndexChanged.connect(self._changed)
        self.row = QtWidgets.QHBoxLayout()
        self.row.addWidget(self.label)
        self.row.addWidget(self.box, 1)
        self._show(False)

    def _show(self, on: bool) -> None:
        self.label.setVisible(on)
        self.box.setVisible(on)

    def load(self, res: Any) -> None:
        """A new run: a PlaneRun fills the box (all planes first); anything else hides it."""
        if self.run is not None and (res is self.run or any(res is r for r in self.run.plane_results)):
            return                                          # one of the loaded run's own views
        self.run = res if isinstance(res, PlaneRun) else None
        self.box.blockSignals(True)
        self.box.clear()
        if self.run is not None:
            self.box.addItems([ALL, *(n + ("" if r is not None else " (carried nothing)")
                                      for n, r in zip(self.run.plane_names, self.run.plane_results, strict=True))])
        self.box.blockSignals(False)
        self._show(self.run is not None)

    def clear(self) -> None:
        self.load(None)

    @property
    def plane(self) -> int | None:
        """The plane shown (None: all planes)."""
        k = self.box.currentIndex()
        return None if self.run is None or k <= 0 else k - 1

    def note(self) -> str:
        """The status note of the view on show ("" for a single-plane run)."""
        if self.run is None:
            return ""
        k = self.plane
        if k is None:
            per = ", ".join(f"{n} {float(r.flow_rates().mean()) if r is not None else 0.0:.1f}"
                            for n, r in zip(self.run.plane_names, self.run.plane_results, strict=True))
            return f" · {len(self.run.plane_names)} planes merged (mean Gb/s per flow: {per})"
        return f" · showing {self.run.plane_names[k]} alone (its own subnet's run)"

    def set_plane(self, k: int | None) -> None:
        """Show plane ``k`` (None: all planes), as if picked in the box."""
        self.box.setCurrentIndex(0 if k is None else k + 1)

    def _changed(self, _i: int) -> None:
        if self.run is None:
            return
        k = self.plane
        res = self.run if k is None else self.run.plane_results[k]
        if res is not None:
            self.picked.emit(res)


__all__ = ["ALL", "PlaneBox"]
