"""A big design being drawn (the "Drawing the fabric…" progress, which paints between chunks)
replaces the old design on the canvas instead of being drawn over it (issue 29)."""

from __future__ import annotations

import pytest
from PySide6 import QtWidgets

from fabricviz.generate.fattree import fat_tree
from fabricviz.ui import main_window

pytestmark = pytest.mark.gui


def drawn(w):
    """What the canvas draws now besides device boxes: cable segments, the semantic layer's
    groups/bundles, and the label texts over the whole scene."""
    scene, view = w.scene, w.view
    texts = {t for _, t, _ in scene.label_layer.layout(view.viewportTransform(), scene.itemsBoundingRect())}
    return len(scene.cables.ids), any(i.isVisible() for i in scene.semantic.draw.all_items()), texts


def test_a_design_being_drawn_replaces_the_old_one(make_window, qtbot, monkeypatch):
    monkeypatch.setattr(main_window, "PROGRESS_DEVICES", 1000)      # the progress path on a 6,500-device tree
    w = make_window()
    old = fat_tree(levels=3, radix=8)                 # 80 switches, 384 cables, pods at the far level
    w.editor.set_fabric(old)
    QtWidgets.QApplication.processEvents()
    w.fit()
    QtWidgets.QApplication.processEvents()
    n_old, semantic_old, texts_old = drawn(w)
    assert n_old == 384 and texts_old                  # the old design is on the canvas
    new = fat_tree(levels=3, radix=20)
    assert len(new) == 6500
    seen = []
    build = w.scene.set_fabric

    def spy(f, progress=None, subscribe=True, children=None):
        assert progress is not None                    # the window builds it with a progress dialog

        def step(done, total):
            seen.append((done, total, drawn(w)))
            progress(done, total)
        return build(f, step, subscribe, children)
    monkeypatch.setattr(w.scene, "set_fabric", spy)
    w.editor.set_fabric(new)
    QtWidgets.QApplication.processEvents()
    assert [(d, t) for d, t, _ in seen] == [(4000, 6500)]
    n, semantic, texts = seen[0][2]
    assert n == 0 and not semantic                     # no old cable, group or bundle under the new devices
    assert not texts & (texts_old - {w.editor.fabric.device(int(d)).name for d in new.device_ids()})
    assert w.scene.fabric is new and len(w.scene.cables.ids) == len(new.cable_ids())
