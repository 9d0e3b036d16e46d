"""Label layer speed on a k=32 fat tree (8,192 hosts, 1,280 switches): its paint at fit and at
100 %, cached (a repaint that changes nothing), after a zoom step (a new layout, names known) and
after a rename (a new layout, names looked up again), next to an empty view's repaint and the
whole view's repaint with and without the labels.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/labels.py [k]
Prints medians (ms) and their ratio to the empty view's repaint measured in the same run.
"""

from __future__ import annotations

import os
import sys

from timing import median_ms as _median_ms  # noqa: E402  (bench/timing.py)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtCore, QtGui, QtWidgets  # noqa: E402

from fabricviz.generate import k_ary_fat_tree  # noqa: E402
from fabricviz.ui import MainWindow  # noqa: E402


def median_ms(fn, n: int = 9, before=None) -> float:
    return _median_ms(fn, n, before=before)


def main(k: int) -> None:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    w = MainWindow()
    w.resize(1920, 1080)
    w.show()
    w.files.new_design()
    app.processEvents()
    view, vp = w.view, w.view.viewport()
    empty = median_ms(vp.repaint)
    f = k_ary_fat_tree(k)
    w.apply_generated(f)
    layer = w.scene.label_layer
    img = QtGui.QImage(vp.size(), QtGui.QImage.Format.Format_ARGB32_Premultiplied)

    def paint_layer() -> None:
        p = QtGui.QPainter(img)
        p.setWorldTransform(view.viewportTransform())
        opt = QtWidgets.QStyleOptionGraphicsItem()
        opt.exposedRect = view.mapToScene(vp.rect()).boundingRect()
        layer.paint(p, opt, vp)
        p.end()

    def nudge_zoom() -> None:            # a zoom step: another scale, so another layout
        view.scale(1.0001, 1.0001)

    leaf = f.find("leaf001") or int(f.device_ids("ib_switch")[0])
    print(f"k={k}: {f.counts()['server']:,} hosts, {f.counts()['ib_switch']:,} switches; "
          f"empty view repaint {empty:.2f} ms (viewport {vp.width()}x{vp.height()})")
    print(f"{'zoom':>6} {'labels':>6} {'cached':>8} {'zoom step':>9} {'rename':>8} {'view':>8} "
          f"{'no labels':>9} {'x empty':>8}")
    for name in ("fit", "100 %"):
        if name == "fit":
            view.fit_all()
        else:
            view.resetTransform()
            view.centerOn(w.scene.items_by_id[leaf].scenePos())
            view._after_zoom()
        for _ in range(3):
            app.processEvents()
        vp.repaint()
        shown = len(layer.in_view(view))
        cached = median_ms(paint_layer)
        step = median_ms(paint_layer, before=nudge_zoom)
        renamed = median_ms(paint_layer, before=layer.invalidate)
        full = median_ms(vp.repaint)
        layer.setVisible(False)
        bare = median_ms(vp.repaint)
        layer.setVisible(True)
        print(f"{name:>6} {shown:>6} {cached:>8.2f} {step:>9.2f} {renamed:>8.2f} {full:>8.2f} {bare:>9.2f} "
              f"{full / empty:>8.1f}")
    w.editor.stack.setClean()
    QtCore.QTimer.singleShot(0, w.close)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 32)
