"""Where a traced path's hop labels (``[1]→[7]``) go: in free space beside their switch, on no
drawn cable line, device, device name, "LID n" label or other hop label (issue 29: "[1]→[7]" sat
on the path's own cable above leaf01).

The labels keep their on-screen size (they ignore the view's transformations), so the free space
depends on the zoom: :func:`place_hops` is run when they are made and again when the zoom changes.
Candidate places ring the switch, nearest first (above, above-left, above-right, left, right,
below-left, below-right, then one and two label heights further out); the first free one wins,
else the one meeting the fewest things (ties: the nearer) — the same inputs always give the same
places.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from PySide6 import QtCore, QtGui, QtWidgets

from fabricviz.generate.geometry import device_rects
from fabricviz.model import Fabric

#: Between a label and its switch (and the things it keeps clear of), on screen.
GAP_PX = 3.0
#: Rings of candidates, each a label height further out.
RINGS = 3


def segments_meet(seg: np.ndarray, r: tuple[float, float, float, float]) -> np.ndarray:
    """Per segment of ``seg`` ([4, S]: ax, ay, bx, by): it meets rectangle ``r`` (left, top,
    right, bottom), edges included (Liang–Barsky clipping)."""
    x0, y0, x1, y1 = seg
    dx, dy = x1 - x0, y1 - y0
    lo, hi = np.zeros(seg.shape[1]), np.ones(seg.shape[1])
    ok = np.ones(seg.shape[1], bool)
    left, top, right, bottom = r
    for p, q in ((-dx, x0 - left), (dx, right - x0), (-dy, y0 - top), (dy, bottom - y0)):
        flat = p == 0
        ok &= ~(flat & (q < 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(flat, 0.0, q / np.where(flat, 1.0, p))
        lo = np.where(~flat & (p < 0), np.maximum(lo, t), lo)
        hi = np.where(~flat & (p > 0), np.minimum(hi, t), hi)
    return ok & (lo <= hi)


def rects_meet(rects: np.ndarray, r: tuple[float, float, float, float]) -> np.ndarray:
    """Per rectangle of ``rects`` ([4, n]): it overlaps ``r`` (touching is not overlapping)."""
    return (rects[0] < r[2]) & (r[0] < rects[2]) & (rects[1] < r[3]) & (r[1] < rects[3])


def candidates(sw: tuple[float, float, float, float], w: float, h: float, g: float) -> list[tuple[float, float]]:
    """Top-left corners of the places around switch rectangle ``sw`` for a ``w`` × ``h`` label
    (scene units; ``g`` the gap), nearest first."""
    left, top, right, bottom = sw
    cx, cy = (left + right) / 2, (top + bottom) / 2
    out: list[tuple[float, float]] = []
    for k in range(RINGS):
        d = k * (h + g)
        out += [(cx - w / 2, top - h - g - d), (left - w - g - d, top - h - g - d), (right + g + d, top - h - g - d),
                (left - w - g - d, cy - h / 2), (right + g + d, cy - h / 2),
                (left - w - g - d, bottom + g + d), (right + g + d, bottom + g + d)]
    return out


def place(switches: np.ndarray, sizes: Sequence[tuple[float, float]], scale: float, segs: np.ndarray,
          blocks: np.ndarray) -> list[tuple[float, float]]:
    """Top-left scene corners of labels of on-screen ``sizes`` (pixels) beside ``switches``
    ([4, n] scene rectangles, one per label) at view ``scale``, clear of the line segments
    ``segs`` ([4, S]), the rectangles ``blocks`` ([4, m]) and each other."""
    s = max(scale, 1e-12)
    g = GAP_PX / s
    taken: list[tuple[float, float, float, float]] = []
    out: list[tuple[float, float]] = []
    for i, (wp, hp) in enumerate(sizes):
        w, h = wp / s, hp / s
        best: tuple[int, int, float, float] | None = None
        for rank, (x, y) in enumerate(candidates(tuple(switches[:, i].tolist()), w, h, g)):
            # the label's room: itself and a gap all round
            r = (x - g, y - g, x + w + g, y + h + g)
            hits = int(segments_meet(segs, r).sum()) + int(rects_meet(blocks, r).sum())
            hits += sum(1 for t in taken if t[0] < r[2] and r[0] < t[2] and t[1] < r[3] and r[1] < t[3])
            if best is None or hits < best[0]:
                best = (hits, rank, x, y)
            if hits == 0:
                break
        assert best is not None                     # there are always candidates
        out.append((best[2], best[3]))
        taken.append((best[2], best[3], best[2] + w, best[3] + h))
    return out


def path_segments(items: Sequence[QtWidgets.QGraphicsItem]) -> np.ndarray:
    """[4, S] scene segments of the lines drawn by ``items``' paths (the traced paths, ghosts)."""
    out: list[tuple[float, float, float, float]] = []
    for it in items:
        if not isinstance(it, QtWidgets.QGraphicsPathItem) or not it.isVisible():
            continue
        p = it.path()
        els = [p.elementAt(i) for i in range(p.elementCount())]
        out += [(a.x, a.y, b.x, b.y) for a, b in zip(els, els[1:], strict=False) if not b.isMoveTo()]
    return np.array(out, float).T.reshape(4, -1)


def place_hops(scene: QtWidgets.QGraphicsScene, fabric: Fabric, hops: Sequence[tuple[int, QtWidgets.QGraphicsItem]],
               own: Sequence[QtWidgets.QGraphicsItem], scale: float) -> None:
    """Move the hop labels ``hops`` ((switch, label item)) to their places at view ``scale``,
    clear of the scene's cable lines, the lines of ``own`` (the overlay's paths), every
    top-level device and its name, and the other text items shown ("LID n")."""
    if not hops:
        return
    s = max(scale, 1e-12)
    cables = getattr(scene, "cables", None)
    segs = [path_segments(own)] + ([np.asarray(cables.segs, float)] if cables is not None else [])
    t = fabric.devices_t
    tops = np.flatnonzero(t.alive & (t.parent < 0))
    blocks = [device_rects(fabric, tops)] if len(tops) else []
    layer = getattr(scene, "label_layer", None)
    if layer is not None:                           # every name, shown or not (a zoom may show it)
        names = [layer.label_rect(int(d), s) for d in tops.tolist()]
        blocks.append(np.array([[r.left(), r.top(), r.right(), r.bottom()] for r in names if not r.isEmpty()],
                               float).T.reshape(4, -1))
    mine = {id(it) for _, it in hops}
    texts = [it for it in scene.items() if isinstance(it, QtWidgets.QGraphicsSimpleTextItem) and it.isVisible()
             and id(it) not in mine and it.text()]
    for it in texts:                                 # "LID n": its on-screen size, at its scene place
        r = it.boundingRect()
        p = it.scenePos()
        ignores = bool(it.flags() & QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemIgnoresTransformations)
        k = 1.0 / s if ignores else 1.0
        m = it.transform()
        x, y = p.x() + m.dx() * k, p.y() + m.dy() * k
        blocks.append(np.array([[x + r.left() * k], [y + r.top() * k], [x + r.right() * k], [y + r.bottom() * k]]))
    sw = device_rects(fabric, np.array([d for d, _ in hops], np.int64))
    sizes = [(h.boundingRect().width(), h.boundingRect().height()) for _, h in hops]
    at = place(sw, sizes, s, np.hstack(segs), np.hstack(blocks) if blocks else np.zeros((4, 0)))
    for (_, h), (x, y) in zip(hops, at, strict=True):
        h.setTransform(QtGui.QTransform())
        h.setPos(QtCore.QPointF(x, y))


__all__ = ["candidates", "path_segments", "place", "place_hops", "rects_meet", "segments_meet"]
