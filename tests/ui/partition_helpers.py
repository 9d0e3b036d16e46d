"""Where the partition marks overlay draws: a host's frame on the scene, the rectangles of a path
item, the square of a host's mark in a slot (the tests of the marks and of lesson 7's stage)."""

from __future__ import annotations

from fabricviz.ui.canvas.overlays.partitions import GAP, SQUARE


def frame(w, name):
    item = w.scene.items_by_id[w.editor.fabric.device_id(name)]
    return item.mapRectToScene(item.rect())


def rects(item):
    return sorted((r.x(), r.y(), r.width(), r.height())
                  for r in (p.boundingRect() for p in item.path().toSubpathPolygons()))


def mark_rect(w, name, slot):
    fr = frame(w, name)
    return (fr.left() + GAP + slot * (SQUARE + GAP), fr.top() - SQUARE / 2, SQUARE, SQUARE)
