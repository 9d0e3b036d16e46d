"""Layers drawn over the design: the SM sweep, traffic heatmap, per-port loads."""

from __future__ import annotations

import shiboken6
from PySide6 import QtWidgets


def remove_from_scene(item: QtWidgets.QGraphicsItem | None) -> None:
    """Take an overlay's item off its scene, if both still exist (a closed window's scene, or an
    item Qt already deleted with it, is left alone)."""
    if item is None or not shiboken6.isValid(item):
        return
    scene = item.scene()
    if scene is not None and shiboken6.isValid(scene):
        scene.removeItem(item)
