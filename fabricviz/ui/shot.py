"""A lesson step as the canvas shows it, saved to PNG/SVG/PDF (``fabricviz demo --screenshot``).

``python -m fabricviz.ui.shot LESSON --step K -o OUT [--width W]`` opens
the lesson in a main window exactly as the Lessons menu does (offscreen when
there is no display), goes to step ``K`` (1-based), lets its animation finish
and writes the canvas with everything drawn on it (sweep state, traced paths,
pulled cables, credit loops, the traffic heatmap) and a legend for it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from PySide6 import QtCore, QtWidgets

from fabricviz.model import FabricError
from fabricviz.ui.canvas.export import picture_main, render_scene

#: Seconds to wait for the lesson's engines.
WAIT_S = 600


def shoot(window, ref: str, step: int, out: str | os.PathLike[str], width: int = 1600) -> Path:
    """Open lesson ``ref`` in ``window``, show step ``step`` (1-based) and write ``out``."""
    dock = window.lesson_dock
    if not window.open_lesson(ref):
        raise FabricError(f"{ref}: the lesson could not be opened")
    timer = QtCore.QElapsedTimer()
    timer.start()
    while dock.results is None and dock.error is None and timer.elapsed() < WAIT_S * 1000:
        dock.wait(0.05)
        QtWidgets.QApplication.processEvents()
    if dock.error is not None:
        raise FabricError(dock.error)
    if dock.results is None:
        raise FabricError(f"{ref}: the lesson's engines did not finish in {WAIT_S} s")
    if not 1 <= step <= dock.count:
        raise FabricError(f"step {step}: the lesson has steps 1..{dock.count}")
    stage = window.lesson_stage
    if dock.k != step - 1:
        dock.go(step - 1)
    else:
        stage.show(step - 1)
    stage.finish()
    QtWidgets.QApplication.processEvents()
    les = dock.lesson
    num = f"Lesson {les.number}" if les.number is not None else "Lesson"
    title = f"{num} · step {step}/{dock.count}: {les.steps[step - 1].title}"
    return render_scene(window.scene, window.editor.fabric, out, width, title=title,
                        extra_rows=stage.legend_rows())


def main(argv: list[str] | None = None) -> int:
    import argparse
    ap = argparse.ArgumentParser(prog="fabricviz demo --screenshot")
    ap.add_argument("lesson")
    ap.add_argument("--step", type=int, required=True)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--width", type=int, default=1600)
    args = ap.parse_args(argv)

    def make() -> Path:
        from fabricviz.ui import MainWindow
        w = MainWindow()
        w.resize(1600, 1000)
        try:
            return shoot(w, args.lesson, args.step, args.output, args.width)
        finally:
            w.editor.stack.setClean()
            w.close()
    return picture_main("fabricviz-demo", make)


if __name__ == "__main__":
    sys.exit(main())
