"""Canvas speed for k=16/32/48 fat trees: open (build items) + first paint and pan frame time, and
opening the same design from its native file (issue 13): the read alone, and File → Open to the
first paint.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/canvas.py [k ...]
Prints medians (ms) and ratios to a peer measured in the same run: an empty view's repaint for
the canvas rows, ``json.load`` of the same file for the read (the floor any JSON design file pays).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from timing import median_ms as _median_ms  # noqa: E402  (bench/timing.py)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtWidgets  # noqa: E402

from fabricviz.formats.native import save_fabric  # noqa: E402
from fabricviz.generate import k_ary_fat_tree  # noqa: E402
from fabricviz.loaders import load_any  # noqa: E402
from fabricviz.ui import MainWindow  # noqa: E402


def median_ms(fn, n: int = 7) -> float:
    return _median_ms(fn, n)


def count_primitives(view: QtWidgets.QGraphicsView) -> int:
    """What a paint of ``view`` at its zoom draws, roughly: each visible item counts one, and a
    visible path item (cables and batched devices are one path per colour) also counts each of
    its elements (move-to, line-to) — the level-of-detail path it last painted where it keeps one.
    Items that paint many things themselves (the label layer) count one."""
    n = 0
    for item in view.scene().items():
        if not item.isVisible():
            continue
        n += 1
        if isinstance(item, QtWidgets.QGraphicsPathItem):
            drawn = getattr(item, "_drawn", None)      # SegmentPathItem: (lod, path) last painted
            n += (drawn[1] if drawn else item.path()).elementCount()
    return n


def canvas_rows(w: MainWindow, ks: list[int], empty: float) -> None:
    vp = w.view.viewport()
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

        def pan(h=h) -> None:
            h.setValue(h.value() + 40)
            vp.repaint()
        far = median_ms(pan)
        w.view.resetTransform()
        sw = int(w.fabric.device_ids("ib_switch")[0])
        w.view.centerOn(w.scene.items_by_id[sw].scenePos())
        w.view._after_zoom()
        near = median_ms(pan)
        c = w.fabric.counts()
        print(f"{k:>3} {c['server']:>7,} {c['cables']:>7,} {op:>8.0f} {first:>9.1f} {rep:>8.1f} "
              f"{far:>8.1f} {near:>8.1f} {rep / empty:>8.1f}")


def file_rows(w: MainWindow, ks: list[int], folder: Path) -> None:
    """Per k: the design saved as a native file, then read (load_any) against ``json.load`` of the
    same file, and opened in the window (File → Open's path: the read as a job, the canvas
    built, fitted) to the first paint; medians of 3; the primitives a paint at that fit draws."""
    app = QtWidgets.QApplication.instance()
    vp = w.view.viewport()
    print(f"\nopen from file (medians of 3)\n{'k':>3} {'MB':>6} {'read ms':>8} {'json.load':>9} {'x json':>7} "
          f"{'open→paint ms':>13} {'primitives':>10}")
    for k in ks:
        path = folder / f"k{k}.fabric.json"
        save_fabric(k_ary_fat_tree(k), path)

        def peer(path=path) -> None:
            with open(path, encoding="utf-8") as fh:
                json.load(fh)
        reads, peers, opens = [], [], []
        for _ in range(3):      # interleaved, so a busy moment costs both alike
            peers.append(median_ms(peer, 1))
            reads.append(median_ms(lambda path=path: load_any(path), 1))
        for _ in range(3):
            w.editor.stack.setClean()       # no "save changes?" prompt
            w.files.new_design()
            app.processEvents()
            t0 = time.perf_counter()
            w.files.open_path(path)
            app.processEvents()             # what Qt does before its first paint (item polish, …)
            vp.repaint()
            opens.append((time.perf_counter() - t0) * 1000)
        read, js = statistics.median(reads), statistics.median(peers)
        prims = count_primitives(w.view)
        print(f"{k:>3} {path.stat().st_size / 1e6:>6.1f} {read:>8.0f} {js:>9.0f} {read / js:>7.1f} "
              f"{statistics.median(opens):>13.0f} {prims:>10,}")


def main(ks: list[int]) -> None:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    w = MainWindow()
    w.show()
    w.files.new_design()
    app.processEvents()
    empty = median_ms(w.view.viewport().repaint)
    print(f"empty view repaint: {empty:.2f} ms (window {w.width()}x{w.height()})")
    canvas_rows(w, ks, empty)
    with tempfile.TemporaryDirectory(prefix="fabricviz-bench-") as tmp:
        file_rows(w, ks, Path(tmp))
    w.editor.stack.setClean()
    w.close()


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [16, 32, 48])
