"""Canvas speed: open (build items) + first paint for k=16/32/48 fat trees, and pan frame time.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/canvas.py [k ...]
Prints medians (ms) and the ratio to an empty view's repaint in the same run.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtWidgets  # noqa: E402

from fabricviz.build import k_ary_fat_tree  # noqa: E402
from fabricviz.ui import MainWindow  # noqa: E402


def median_ms(fn, n: int = 7) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main(ks: list[int]) -> None:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    w = MainWindow()
    w.show()
    w.new_design()
    app.processEvents()
    vp = w.view.viewport()
    empty = median_ms(vp.repaint)
    print(f"empty view repaint: {empty:.2f} ms (window {w.width()}x{w.height()})")
    print(f"{'k':>3} {'hosts':>7} {'cables':>7} {'open ms':>8} {'1st paint':>9} {'repaint':>8} "
          f"{'pan far':>8} {'pan near':>8} {'x empty':>8}")
    for k in ks:
        f = k_ary_fat_tree(k)
        opens = []
        for _ in range(3):
            w.editor.stack.clear()
            t0 = time.perf_counter()
            w.apply_generated(k_ary_fat_tree(k) if opens else f)
            w.view.fit_all()
            t1 = time.perf_counter()
            vp.repaint()
            t2 = time.perf_counter()
            opens.append(((t1 - t0) * 1000, (t2 - t1) * 1000))
        op = statistics.median(o[0] for o in opens)
        first = statistics.median(o[1] for o in opens)
        rep = median_ms(vp.repaint)
        h = w.view.horizontalScrollBar()

        def pan() -> None:
            h.setValue(h.value() + 40)
            vp.repaint()
        far = median_ms(pan)
        w.view.resetTransform()
        w.view.centerOn(w.scene.items_by_id[w.fabric.find(w.fabric.name_of(int(w.fabric.device_ids('ib_switch')[0])))].scenePos())
        w.view._after_zoom()
        near = median_ms(pan)
        c = w.fabric.counts()
        print(f"{k:>3} {c['server']:>7,} {c['cables']:>7,} {op:>8.0f} {first:>9.1f} {rep:>8.1f} "
              f"{far:>8.1f} {near:>8.1f} {rep / empty:>8.1f}")
    w.editor.stack.setClean()
    w.close()


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [16, 32, 48])
