"""Repaint of a 20k-cable design against an empty view: the timing that tests/ui/canvas/test_render_and_scale.py
counted in primitives instead (a test must not depend on the machine's speed or load).

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/repaint.py [--budget 60]
A k=30 fat tree (6,750 hosts, 1,125 switches, 20,250 cables) in a 1400x900 window: medians (ms, 7
repaints) of the empty view (the peer, measured in the same run), the fitted design and the design
zoomed in on a few racks, and their ratios to the empty view. Exit 1 when a ratio is over the budget
(a full repaint may cost at most ``--budget`` empty-view repaints).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtCore, QtWidgets  # noqa: E402

from fabricviz.generate import k_ary_fat_tree  # noqa: E402
from fabricviz.ui import MainWindow  # noqa: E402

#: A full repaint of the fitted 20k-cable design may cost at most this many empty-view repaints.
RELATIVE_BUDGET = 60.0


def repaint_ms(view: QtWidgets.QGraphicsView, n: int = 7) -> float:
    """Median of ``n`` synchronous repaints after the first (which may build caches)."""
    times = []
    for _ in range(n + 1):
        t0 = time.perf_counter()
        view.viewport().repaint()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times[1:])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=float, default=RELATIVE_BUDGET,
                    help="most empty-view repaints a repaint of the design may cost")
    args = ap.parse_args()
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    w = MainWindow()
    w.setWindowState(QtCore.Qt.WindowState.WindowNoState)
    w.resize(1400, 900)
    w.show()
    w.new_design()
    app.processEvents()
    empty = repaint_ms(w.view)
    fabric = k_ary_fat_tree(30)
    w.apply_generated(fabric)
    w.view.fit_all()
    app.processEvents()
    full = repaint_ms(w.view)
    w.view.resetTransform()
    w.view.centerOn(w.scene.items_by_id[fabric.find("leaf001")].scenePos())
    w.view._after_zoom()
    app.processEvents()
    zoomed = repaint_ms(w.view)
    w.editor.stack.setClean()
    w.close()
    print(f"repaint medians: empty {empty:.2f} ms, fitted 20k cables {full:.2f} ms ({full / empty:.1f}x), "
          f"zoomed in {zoomed:.2f} ms ({zoomed / empty:.1f}x); budget {args.budget:g}x")
    return 1 if max(full, zoomed) > args.budget * empty else 0


if __name__ == "__main__":
    sys.exit(main())
