"""The port counters on show (``session.counters``): the counters files read, the report on the
design, and what the canvas colours the cables by.

The Port Counters dock reads the files (File ▸ Load Port Counters…) and computes the report
(:func:`fabricviz.check.counters.port_counters`) again when the design changes; the canvas overlay
(View ▸ Colour by) and the dock's list follow :attr:`CountersShown.report` and
:attr:`CountersShown.metric`. Everything is dropped when another design opens.
"""

from __future__ import annotations

from PySide6 import QtCore

from fabricviz.check.counters import CountersReport, Metric
from fabricviz.model.port_counters import CounterFile


class CountersShown(QtCore.QObject):
    """Counters files (a snapshot, and an optional earlier one with the seconds between them),
    their report on the design (None: none read) and the canvas colouring (None: off)."""

    files_changed = QtCore.Signal()
    report_changed = QtCore.Signal(object)    # CountersReport | None
    metric_changed = QtCore.Signal(object)    # Metric | None

    def __init__(self, parent: QtCore.QObject | None = None) -> None:
        super().__init__(parent)
        self.now: tuple[CounterFile, ...] = ()
        self.before: tuple[CounterFile, ...] = ()
        self.interval: float | None = None
        self.report: CountersReport | None = None
        self.metric: Metric | None = None

    def set_files(self, now: tuple[CounterFile, ...], before: tuple[CounterFile, ...] = (),
                  interval: float | None = None) -> None:
        self.now, self.before, self.interval = tuple(now), tuple(before), interval
        self.files_changed.emit()

    def show(self, report: CountersReport | None) -> None:
        self.report = report
        self.report_changed.emit(report)

    def set_metric(self, metric: Metric | None) -> None:
        """Colour the canvas's cables by ``metric`` (None: not at all)."""
        if metric != self.metric:
            self.metric = metric
            self.metric_changed.emit(metric)

    def clear(self) -> None:
        self.set_files(())
        self.show(None)


__all__ = ["CountersShown"]
