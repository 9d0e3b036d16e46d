"""Semantic zoom speed (issue 13): a fitted k=32/48 fat tree on a 1920×1080 canvas draws group boxes
and bundles; its repaint against an empty view's repaint measured in the same run, the primitives
drawn (:func:`fabricviz.ui.canvas.items.semantic.drawn_primitives`), and what each level costs
to enter (rebuilding boxes / blocks / bundles and routing the bundles that would cross other boxes
round them: median of 5 entries from near) and to repaint; "route ms": laying the far routes out
again for a new zoom (median of 9; "-" before routing existed).

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/semantic.py [k ...]   (default: 32 48)
Targets: ≤ 2,000 primitives at fit, fitted repaint ≤ 5× the empty view's.
"""

from __future__ import annotations

import os
import statistics
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtWidgets  # noqa: E402

from fabricviz.generate import k_ary_fat_tree  # noqa: E402
from fabricviz.model import Fabric  # noqa: E402
from fabricviz.ui.canvas.items.semantic import FAR_SWITCH_PX, MIDDLE_SERVER_PX, drawn_primitives  # noqa: E402
from fabricviz.ui.canvas.scene import FabricScene  # noqa: E402
from fabricviz.ui.canvas.view import CanvasView  # noqa: E402
from fabricviz.ui.document.editor import Editor  # noqa: E402


def repaint_ms(view: CanvasView, n: int = 9) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        view.viewport().repaint()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times[1:])


def main(ks: list[int]) -> None:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv)
    empty_f = Fabric(name="empty")
    scene = FabricScene()
    scene.set_fabric(empty_f)
    view = CanvasView(scene, Editor(empty_f))
    view.resize(1920, 1080)
    view.show()
    app.processEvents()
    view.fit_all()
    empty = repaint_ms(view)
    print(f"empty view repaint: {empty:.2f} ms (1920×1080)")
    print(f"{'k':>3} {'hosts':>6} {'cables':>6} {'open s':>6} {'level':>6} {'prims':>6} {'repaint':>8} "
          f"{'x empty':>7} {'enter ms':>8} {'route ms':>8}")
    for k in ks:
        f = k_ary_fat_tree(k)
        t0 = time.perf_counter()
        scene.set_fabric(f)
        view.editor = Editor(f)
        view.fit_all()
        app.processEvents()
        opened = time.perf_counter() - t0
        sem = scene.semantic
        fit = view.scale_factor()
        sw = 1.5 * k if 1.5 * k > 48 else 48.0
        view.zoom_by((MIDDLE_SERVER_PX + 2) / 26.0 / fit)       # start near: entering far is measured
        app.processEvents()
        rows = [("fit", fit), ("middle", (FAR_SWITCH_PX + 1) / sw), ("near", (MIDDLE_SERVER_PX + 2) / 26.0)]
        near = (MIDDLE_SERVER_PX + 2) / 26.0
        for name, scale in rows:
            enters = []
            for _ in range(5):
                view.zoom_by(near / view.scale_factor())
                app.processEvents()
                t0 = time.perf_counter()
                view.zoom_by(scale / view.scale_factor())
                enters.append((time.perf_counter() - t0) * 1000)
            app.processEvents()
            ms = repaint_ms(view)
            routes = "-"
            if hasattr(sem, "_route") and sem.level == "far":
                times = []
                for _ in range(9):
                    t0 = time.perf_counter()
                    sem._route()
                    times.append((time.perf_counter() - t0) * 1000)
                routes = f"{statistics.median(times):.1f}"
            c = f.counts()
            print(f"{k:>3} {c['server']:>6} {c['cables']:>6} {opened:>6.2f} {sem.level:>6} "
                  f"{drawn_primitives(view):>6} {ms:>8.2f} {ms / empty:>7.1f} {statistics.median(enters):>8.1f} "
                  f"{routes:>8}   ({name})")
        view.fit_all()
        app.processEvents()


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [32, 48])
