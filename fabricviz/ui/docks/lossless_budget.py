"""The Lossless dock's budget bar: one switch's packet buffer carved into PFC headroom,
reserved minimums and the shared pool, with a fluid run's queued bytes drawn over it.

``state`` says what the bar shows (tests read it): ``fits``, ``near`` (headroom + reserves
above :data:`~fabricviz.ethernet.buffers.WARN_USE` of the buffer, the lint warning),
``over`` (they do not fit: the bar is red) or ``unknown`` (the catalog has no buffer size).
"""

from __future__ import annotations

import math
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.ethernet.buffers import WARN_USE

#: Segment colours: headroom, reserved, shared pool, queued bytes of a run, over the buffer.
COLOURS = {"headroom": "#e08a1e", "reserved": "#8a8f98", "shared": "#3b82c4", "queue": "#1f3f66",
           "over": "#c62828"}


def budget_state(b: Any) -> str:
    """``fits`` | ``near`` | ``over`` | ``unknown`` of a SwitchBudget."""
    if not b.known:
        return "unknown"
    if not b.fits:
        return "over"
    return "near" if b.use > WARN_USE else "fits"


class BudgetBar(QtWidgets.QWidget):
    """A horizontal bar of one SwitchBudget (see the module doc)."""

    def __init__(self, parent: QtWidgets.QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("lossless_budget_bar")
        self.setMinimumHeight(26)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Expanding, QtWidgets.QSizePolicy.Policy.Fixed)
        self.budget: Any = None
        self.queue_bytes: float | None = None
        self.state = "none"

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802
        return QtCore.QSize(400, 26)

    def set_budget(self, b: Any, queue_bytes: float | None = None) -> None:
        """Show budget ``b`` (None: nothing) and, during a fluid run, the bytes queued now."""
        self.budget, self.queue_bytes = b, queue_bytes
        self.state = "none" if b is None else budget_state(b)
        self.update()

    def segments(self) -> list[tuple[str, float]]:
        """(name, bytes) left to right; the total is the buffer, or what was asked when it does not fit."""
        b = self.budget
        if b is None:
            return []
        segs = [("headroom", b.headroom_total), ("reserved", b.reserved)]
        if b.known and b.fits:
            segs.append(("shared", b.shared_pool))
        return segs

    def paintEvent(self, _event: QtGui.QPaintEvent) -> None:  # noqa: N802
        p = QtGui.QPainter(self)
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        r = QtCore.QRectF(self.rect()).adjusted(1, 3, -1, -3)
        pal = self.palette()
        p.fillRect(r, pal.color(QtGui.QPalette.ColorRole.Base))
        b = self.budget
        if b is not None:
            segs = self.segments()
            asked = sum(v for _, v in segs)
            total = b.buffer_bytes if b.known and b.fits else asked
            total = total if total > 0 else 1.0
            x = r.left()
            for name, v in segs:
                w = r.width() * max(v, 0.0) / total
                p.fillRect(QtCore.QRectF(x, r.top(), w, r.height()), QtGui.QColor(COLOURS[name]))
                x += w
            if self.state == "over":            # the buffer ends here: what lies beyond would drop
                edge = r.left() + r.width() * b.buffer_bytes / total
                p.fillRect(QtCore.QRectF(edge, r.top(), r.right() - edge, r.height()),
                           QtGui.QColor(COLOURS["over"]))
                p.setPen(QtGui.QPen(QtGui.QColor("#ffffff"), 2))
                p.drawLine(QtCore.QPointF(edge, r.top()), QtCore.QPointF(edge, r.bottom()))
            q = self.queue_bytes
            if q is not None and b.known and b.buffer_bytes > 0 and not math.isnan(q):
                start = r.left() + r.width() * (b.headroom_total + b.reserved) / total
                w = min(r.width() * q / total, r.right() - start)
                band = QtCore.QRectF(start, r.top() + r.height() * 0.3, max(w, 1.0), r.height() * 0.4)
                p.fillRect(band, QtGui.QColor(COLOURS["queue"]))
        p.setPen(pal.color(QtGui.QPalette.ColorRole.Mid))
        p.drawRect(r)
        p.end()


__all__ = ["BudgetBar", "COLOURS", "budget_state"]
