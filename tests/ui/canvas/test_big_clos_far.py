"""Issue 27's 98,304-GPU RoCE Clos opened in the window (1920 × 1080) and fitted: the far level
shows its 24 pods as a grid of boxes, every pod's title whole inside its box, no two labels on
each other (the pods used to stack in one column of 69 : 1 strips with crowded names)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from PySide6 import QtCore, QtWidgets

from fabricviz.generate.fattree import fat_tree

pytestmark = [pytest.mark.gui, pytest.mark.slow]


def test_the_98k_gpu_clos_at_fit_is_a_grid_of_named_pods(make_window):
    w = make_window()
    w.resize(1920, 1080)
    f = fat_tree(levels=3, radix=128, hosts=98304, fabric="roce", switch="SN5600")
    w.editor.set_fabric(f)
    QtWidgets.QApplication.processEvents()
    w.fit()
    QtWidgets.QApplication.processEvents()
    scene, view = w.scene, w.view
    sem = scene.semantic
    assert sem.level == "far" and len(scene.made_items) == 0       # drawn by the layer, no device item
    g = sem.grouping
    pods = [i for i, k in enumerate(g.kinds) if k == "pod"]
    assert len(pods) == 24
    box = sem.geometry()["box"][:, pods]
    # a grid on screen: 4 columns of 6 rows, about as wide as high
    assert (len(np.unique(box[0].round(3))), len(np.unique(box[1].round(3)))) == (4, 6)
    shown = scene.label_layer.in_view(view)
    rects = np.array([[r.left(), r.top(), r.right(), r.bottom()] for *_, r in shown]).T
    i, j = np.triu_indices(len(shown), 1)
    meet = (rects[0, i] < rects[2, j]) & (rects[0, j] < rects[2, i]) & \
        (rects[1, i] < rects[3, j]) & (rects[1, j] < rects[3, i])
    assert not meet.any(), [(shown[a][1], shown[b][1]) for a, b in zip(i[meet], j[meet], strict=True)]
    # every pod's title shown whole (name and counts), inside its own box on screen
    titled = {}
    for _, text, r in shown:
        m = re.fullmatch(r"pod (\d+) · 128 switches · 4096 hosts", text)
        if m:
            titled[int(m.group(1))] = r
    assert sorted(titled) == list(range(1, 25))
    t = view.viewportTransform()
    for k, p in enumerate(pods):
        on_screen = t.mapRect(QtCore.QRectF(box[0, k], box[1, k], box[2, k] - box[0, k], box[3, k] - box[1, k]))
        assert on_screen.contains(titled[int(g.names[p].split()[1])]), g.names[p]
    assert len(sem.bundles) == 24                                  # one pod–core bundle each
