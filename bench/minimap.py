"""Minimap redraw cost: drawn from the model's columns (what the minimap does) against
QGraphicsScene.render of the same area at the same size (the peer, measured in the same run),
with the canvas fitted (devices batched) and at 100 % (every item drawn), for k=16/32/48 fat trees.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/minimap.py [k ...]
Prints medians of CPU time (ms: a loaded machine does not inflate them) and the ratio
scene.render at 100 % / minimap.
"""

from __future__ import annotations

import os
import sys
import time

from timing import median_ms as _median_ms  # noqa: E402  (bench/timing.py)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: E402

from fabricviz.generate import k_ary_fat_tree  # noqa: E402
from fabricviz.ui import MainWindow  # noqa: E402


def median_ms(fn, n: int = 5) -> float:
    """CPU time: the machine is shared."""
    return _median_ms(fn, n, clock=time.process_time)


def main(ks: list[int]) -> None:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    w = MainWindow()
    w.setWindowState(QtCore.Qt.WindowState.WindowNoState)
    w.resize(1920, 1080)
    w.show()
    app.processEvents()
    m = w.minimap
    size = m.size()

    def scene_render() -> None:
        pm = QtGui.QPixmap(size)
        pm.fill(QtCore.Qt.GlobalColor.transparent)
        p = QtGui.QPainter(pm)
        w.scene.render(p, QtCore.QRectF(pm.rect()), w.scene.content_rect())
        p.end()

    print(f"{'k':>3} {'devices':>7} {'cables':>7} {'minimap':>8} {'render fit':>10} {'render 1:1':>10} {'ratio':>6}")
    for k in ks:
        w.editor.stack.clear()
        w.apply_generated(k_ary_fat_tree(k))
        w.view.fit_all()
        app.processEvents()
        fit = median_ms(scene_render)
        w.view.zoom_by(1.0 / w.view.scale_factor())
        w.view.centerOn(w.scene.content_rect().center())
        app.processEvents()
        assert not m.isHidden()
        size = m.size()
        before = m.renders
        ours = median_ms(m.refresh)
        assert m.renders == before + 5
        one = median_ms(scene_render, 3)
        c = w.fabric.counts()
        print(f"{k:>3} {len(w.fabric):>7,} {c['cables']:>7,} {ours:>8.1f} {fit:>10.1f} {one:>10.1f} "
              f"{one / ours:>6.1f}")
    w.editor.stack.setClean()
    w.close()


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [16, 32, 48])
