"""Pulls on the canvas: a mark on every cable that EQDS / NDP pull packets cross.

A receiver-driven transport's receiver paces pulls at its line rate, one per packet that arrives
(whole or trimmed); each pull travels back to the sender and lets it send the next packet (htsim's
EqdsPullPacer, NdpPull). The mark reads one typed per-link array, the frame's ``link_pulls_per_s``
(pull packets per second crossing the link, indexed by link id,
:class:`~fabricviz.sim.frames.Frame`; filled by the tick-by-tick transports,
:mod:`fabricviz.sim.fluid_transports`). A cable is marked when either direction carries at least
:data:`MIN_PULLS_PER_S`: sparse violet beads on a black rim, so the heat colour stays readable
between them and the trim marks' white ticks (:mod:`.trims`) stay distinct on a cable that both
trims and carries pulls (the beads sit on top, the ticks show between them).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.sim.frames import TRIM_MARK_PER_S
from fabricviz.ui.canvas.overlays.cable_marks import CableMarks, cables_at_least

KEY = "pulls"
ROLE = "pull_marks"
#: Over the trim marks (0.25, 0.26), under the selection and group boxes.
Z = 0.27
PULL_COLOR = "#9b5cff"
PULL_CASING = "#000000"
#: The mark's words in the legends (the Traffic dock's bar, an exported picture's box).
PULL_LABEL = "pulls (EQDS / NDP: receiver asks for the next packet)"
#: A link carries pulls when at least this many cross it per second (one per 100 µs, as trims).
MIN_PULLS_PER_S = TRIM_MARK_PER_S
#: Bead spacing, in bead widths (a dash pattern is in pen widths).
GAP = 5.0


def pull_pens(width: float = 5.0) -> tuple[QtGui.QPen, QtGui.QPen]:
    """The pull mark: round violet beads ``width`` px across, ``GAP`` widths apart, each on a black
    bead 2 px wider (the rim)."""
    out = []
    for colour, w in ((PULL_CASING, width + 2.0), (PULL_COLOR, width)):
        pen = QtGui.QPen(QtGui.QColor(colour), w)
        pen.setCosmetic(True)
        pen.setCapStyle(QtCore.Qt.PenCapStyle.RoundCap)
        pen.setDashPattern([1e-3, (GAP + 1.0) * width / w - 1e-3])    # the same period for both pens
        out.append(pen)
    return out[0], out[1]


def pulling_cables(pulls_per_s: np.ndarray, n_cable_links: int, threshold: float = MIN_PULLS_PER_S) -> np.ndarray:
    """Cable ids with a direction (links ``2c``, ``2c + 1``) carrying at least ``threshold`` pulls per second."""
    return cables_at_least(pulls_per_s, n_cable_links, threshold)


class PullMarks(CableMarks):
    """The pull marks of one canvas (see the module doc): :meth:`show` a frame's per-link pulls/s."""

    def __init__(self, document: Any, scene: QtWidgets.QGraphicsScene) -> None:
        super().__init__(document, scene, KEY, ROLE, Z, pull_pens, MIN_PULLS_PER_S)


class PullSwatch(QtWidgets.QWidget):
    """A short run of the pull mark's beads (a legend's swatch)."""

    def paintEvent(self, _event: QtGui.QPaintEvent) -> None:  # noqa: N802
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing)
        mid = self.height() / 2
        for pen in pull_pens(4.0):
            p.setPen(pen)
            p.drawLine(QtCore.QPointF(4, mid), QtCore.QPointF(self.width() - 2, mid))
        p.end()

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(36, 12)


class PullLegend(QtWidgets.QWidget):
    """The pull mark's row under the heatmap's legend bar (the Traffic dock), its words wrapped to the
    dock: shown only while the run on show has pulls (its frames' ``has_pulls``)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("pull_legend")
        self.setToolTip("pull packets cross these cables: the receiver → sender direction of EQDS / NDP flows")
        row = QtWidgets.QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        self.swatch = PullSwatch(self)
        self.swatch.setFixedWidth(36)
        self.label = QtWidgets.QLabel(PULL_LABEL, self)
        self.label.setWordWrap(True)
        row.addWidget(self.swatch, 0, QtCore.Qt.AlignmentFlag.AlignTop)
        row.addWidget(self.label, 1)
        self.hide()

    def set_run(self, result: Any) -> None:
        """Show the row for a run whose frames carry pulls; hide it for any other run or none."""
        self.setVisible(result is not None and any(f.has_pulls for f in result.frames))


__all__ = ["MIN_PULLS_PER_S", "PULL_COLOR", "PULL_LABEL", "ROLE", "PullLegend", "PullMarks", "PullSwatch", "pull_pens",
           "pulling_cables"]
