"""A design shown zoomed out to the far semantic level, as the bundle/partition/VL overlay tests need."""

from __future__ import annotations

from PySide6 import QtWidgets


def far_view(w, fabric):
    """Show ``fabric`` in window ``w`` at 1920×1080, fitted then zoomed out by half (far for a
    k=8 tree); returns the semantic layer, refreshed."""
    w.resize(1920, 1080)
    QtWidgets.QApplication.processEvents()
    w.editor.set_fabric(fabric)
    QtWidgets.QApplication.processEvents()
    w.view.fit_all()
    w.view.zoom_by(0.5)
    QtWidgets.QApplication.processEvents()
    sem = w.scene.semantic
    sem.refresh()
    return sem
