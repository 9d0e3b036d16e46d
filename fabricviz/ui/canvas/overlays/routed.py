"""Overlay cables drawn along the cables' own routes (issue 29): the gutter routes the cable layer
draws (:func:`~fabricviz.ui.canvas.items.cables.routes_for`, computed once per layout and cached),
so an overlay over a cable lies on it and crosses no device the cable does not end at.

Pure numpy on the cached routes: picking a set of cables' segments and turning them into the
point pairs of one path costs a fancy index, never a route computation per paint.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtGui

from fabricviz.model import Fabric
from fabricviz.ui.canvas.items.cables import cable_anchors, routes_for
from fabricviz.ui.canvas.items.gutters import SEGS


def route_segments(f: Fabric, cids: np.ndarray) -> np.ndarray:
    """[4, n, SEGS] the drawn route of each cable of ``cids`` (ax, ay, bx, by per segment, empty
    ones included); a cable the routes do not know (the design changed since) is drawn straight."""
    ids = np.asarray(cids, np.int64)
    out = np.zeros((4, len(ids), SEGS))
    if not len(ids):
        return out
    r = routes_for(f)
    pos = np.clip(np.searchsorted(r.ids, ids), 0, max(len(r.ids) - 1, 0))
    ok = (r.ids[pos] == ids) if len(r.ids) else np.zeros(len(ids), bool)
    out[:, ok] = r.seg.reshape(4, -1, SEGS)[:, pos[ok]]
    if not ok.all():
        e = np.vstack(cable_anchors(f, ids[~ok]))
        out[:, ~ok, :] = np.vstack([e[2], e[3], e[2], e[3]])[:, :, None]     # empty segments at b
        out[:, ~ok, 0] = e
    return out


def straight(ends: np.ndarray) -> np.ndarray:
    """[4, n, 1] segments ``ends`` ([4, n]) as one-segment routes."""
    return np.asarray(ends, np.float64)[:, :, None]


def route_boxes(routes: np.ndarray) -> np.ndarray:
    """[4, n] left, top, right, bottom of each route of ``routes`` ([4, n, k])."""
    if not routes.shape[1]:
        return np.zeros((4, 0))
    return np.vstack([np.minimum(routes[0], routes[2]).min(axis=1), np.minimum(routes[1], routes[3]).min(axis=1),
                      np.maximum(routes[0], routes[2]).max(axis=1), np.maximum(routes[1], routes[3]).max(axis=1)])


def meets(boxes: np.ndarray, window: tuple[float, ...]) -> np.ndarray:
    """Which boxes ([4, n]) meet ``window`` (left, top, right, bottom)."""
    l, t, r, b = window
    return (boxes[0] <= r) & (boxes[2] >= l) & (boxes[1] <= b) & (boxes[3] >= t)


def route_pairs(routes: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(x, y) point pairs (for ``arrayToQPath(..., connect="pairs")``) of the non-empty segments
    of routes ``cols`` of ``routes`` ([4, n, k])."""
    s = routes[:, np.asarray(cols, np.int64)].reshape(4, -1)
    s = s[:, (s[0] != s[2]) | (s[1] != s[3])]
    x = np.empty(2 * s.shape[1])
    y = np.empty(2 * s.shape[1])
    x[0::2], x[1::2], y[0::2], y[1::2] = s[0], s[2], s[1], s[3]
    return x, y


def routes_path(routes: np.ndarray, sel: np.ndarray) -> QtGui.QPainterPath:
    """One path of the routes ``sel`` (a mask or columns) of ``routes`` ([4, n, k]), built from
    arrays without a Python loop (an overlay's items share one :func:`route_segments` call)."""
    from pyqtgraph.functions import arrayToQPath
    cols = np.flatnonzero(sel) if np.asarray(sel).dtype == bool else np.asarray(sel, np.int64)
    x, y = route_pairs(routes, cols)
    return arrayToQPath(x, y, connect="pairs") if len(x) else QtGui.QPainterPath()


__all__ = ["meets", "route_boxes", "route_pairs", "route_segments", "routes_path", "straight"]
