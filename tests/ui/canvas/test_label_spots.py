"""Bundle labels keep clear of the drawn lines (fabricviz.ui.canvas.items.label_spots, issue 29): in
the 3-level radix-48 Clos fitted to a 1300×960 canvas (the main window's at 1920×1080) a routed lane
ran through some "576 × 400G" labels of the right column; now each is beside its line on a side no
other line crosses, or just inside the box its bundle ends at."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6 import QtWidgets

from fabricviz.generate import fat_tree
from fabricviz.ui.canvas.items.bundles import PAD_PX, Label, place_labels
from fabricviz.ui.canvas.items.label_spots import Lines
from fabricviz.ui.canvas.scene import FabricScene
from fabricviz.ui.canvas.view import CanvasView
from fabricviz.ui.document.editor import Editor


class _Layer:
    _height = 16.0

    @staticmethod
    def _width(text: str) -> float:
        return 8.0 * len(text)


def _on_lines(xs, ys, texts, lines, scale, layer) -> int:
    drawn = Lines.of(lines)
    return sum(drawn.meet(x, y, (layer._width(t) / 2 - PAD_PX) / scale, (layer._height / 2 - PAD_PX) / scale)
               for x, y, t in zip(xs, ys, texts, strict=True))


def test_a_label_beside_its_line_moves_off_a_lane():
    # a bundle comes down to (100, 100); a lane runs along y = 92 where its label would sit (scale 1)
    lab = Label(100.0, 100.0, "576 × 400G", ux=0.0, uy=-1.0, reach=50.0, beside=True)
    lane = np.array([[0.0], [92.0], [400.0], [92.0]])
    xs, ys, _, _ = place_labels([lab], 1.0, _Layer())
    assert (xs[0], ys[0]) == (144.0, 91.0)                      # beside its line, on the lane
    xs, ys, texts, _ = place_labels([lab], 1.0, _Layer(), None, lane)
    assert (xs[0], ys[0]) == (144.0, 109.0) and _on_lines(xs, ys, texts, lane, 1.0, _Layer()) == 0   # inside
    free = np.array([[0.0], [60.0], [400.0], [60.0]])
    assert place_labels([lab], 1.0, _Layer(), None, free)[1][0] == 91.0    # no lane there: where it was


@pytest.mark.gui
def test_radix48_bundle_labels_clear_of_lanes(qtbot):
    f = fat_tree(levels=3, radix=48)
    scene = FabricScene()
    scene.set_fabric(f)
    view = CanvasView(scene, Editor(f))
    scene.setParent(view)
    qtbot.addWidget(view)
    view.resize(1300, 960)
    view.show()
    qtbot.waitExposed(view)
    view.fit_all()
    QtWidgets.QApplication.processEvents()
    sem, layer = scene.semantic, scene.label_layer
    xs, ys, texts, _ = layer._extra
    mine = [i for i, t in enumerate(texts) if t == "576 × 400G"]
    assert sem.level == "far" and len(mine) == 48
    assert _on_lines(xs[mine], ys[mine], [texts[i] for i in mine], sem.routes.seg, sem.scale, layer) == 0
