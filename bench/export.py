"""File ▸ Export Image speed on a k=48 fat tree (27,648 hosts, 82,944 cables): draw + encode of the
picture sizes the dialog offers, whole design and the current view at 100 %.

Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/export.py [k]
Prints medians (ms) and the ratio to a peer measured in the same run: one full repaint of the
canvas fitted to the design. Above ~1 s of drawing the GUI shows a progress dialog between the
PNG's bands (and encodes the PNG off the UI thread).
"""

from __future__ import annotations

import os
import sys
import tempfile

from timing import median_ms as _median_ms  # noqa: E402  (bench/timing.py)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6 import QtWidgets  # noqa: E402

from fabricviz.generate import k_ary_fat_tree  # noqa: E402
from fabricviz.ui import MainWindow  # noqa: E402
from fabricviz.ui.canvas.export import PictureOptions  # noqa: E402

CASES = (("slide 1920×1080", "png", PictureOptions(1920, 1080)),
         ("4K slide (2×)", "png", PictureOptions(3840, 2160, 192.0)),
         ("3.5 in × 300 DPI", "png", PictureOptions(1050, None, 300.0)),
         ("8K 7680×4320", "png", PictureOptions(7680, 4320)),
         ("SVG 1920×1080", "svg", PictureOptions(1920, 1080)),
         ("PDF 3.5 in", "pdf", PictureOptions(1050, None, 300.0)))



def median_ms(fn, n: int = 5) -> float:
    return _median_ms(fn, n)


def main(k: int = 48) -> None:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    w = MainWindow()
    w.resize(1920, 1080)
    w.show()
    w.apply_generated(k_ary_fat_tree(k))
    app.processEvents()
    w.fit()
    app.processEvents()
    peer = median_ms(lambda: w.view.viewport().repaint())
    out = tempfile.mkdtemp()
    print(f"k={k}: fitted canvas repaint {peer:.1f} ms (the peer)")
    print(f"{'picture':<22} {'extent':<7} {'ms':>7} {'x repaint':>10} {'bytes':>11}")
    for name, ext, opts in CASES:
        path = os.path.join(out, f"p.{ext}")
        ms = median_ms(lambda path=path, opts=opts: w.export_view(path, opts, view=False))
        print(f"{name:<22} {'design':<7} {ms:7.0f} {ms / peer:10.1f} {os.path.getsize(path):11,}")
    w.view.resetTransform()
    w.view.centerOn(w.scene.items_by_id[w.editor.fabric.find("leaf0001")].scenePos())
    w.view._after_zoom()
    app.processEvents()
    path = os.path.join(out, "v.png")
    ms = median_ms(lambda: w.export_view(path, PictureOptions(1920, 1080), view=True))
    print(f"{'slide 1920×1080':<22} {'view':<7} {ms:7.0f} {ms / peer:10.1f} {os.path.getsize(path):11,}")
    w.editor.stack.setClean()
    w.close()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:]))
