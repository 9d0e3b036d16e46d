"""How wide a device's name may be drawn: its room in its row, and the name shortened to fit it.

A name wider than its room (to the middles of the gaps to its neighbours, less the labels'
spacing; at least :data:`NAME_MIN_PX`) is shortened: a UFM NodeDescription (``MF0;<host name>:
<model>/U1``) to its host name, then elided in the middle, which keeps a name's distinguishing
ends (a rack and unit at the front, a number or GUID at the back). The full name is the device's
tooltip. Issue 29: the real SuperPOD's "MF0;A09-P1-IBLEAF-01-02:MQM9701/U1" and "MT4129 ConnectX7
Mellanox Technologies 0xe09d730300858468" ran over their neighbours at 100 %, whose names gave way.
"""

from __future__ import annotations

import numpy as np
from PySide6 import QtCore, QtGui

from fabricviz.model import Fabric
from fabricviz.ui.canvas.items.short_names import UFM_SWITCH

#: A name is never shortened below this (pixels): short names in a tight row give way instead.
NAME_MIN_PX = 96.0


def row_room(r: np.ndarray) -> np.ndarray:
    """Per rectangle ([4, n]) the width centred on it up to the middles of the gaps to its
    neighbours in its row (rectangles with the same bottom edge: their names share a line); the end
    of a row as much on its open side as on the other; alone, twice its own width (a discovered
    fabric's switch off the rows)."""
    n = r.shape[1]
    if n < 2:
        return 2 * (r[2] - r[0])
    cx, key = (r[0] + r[2]) / 2, np.round(r[3], 3)
    o = np.lexsort((cx, key))
    same = key[o][1:] == key[o][:-1]
    mid = (r[2, o][:-1] + r[0, o][1:]) / 2                    # between each and the next
    left, right = np.full(n, np.inf), np.full(n, np.inf)
    right[o[:-1][same]] = (mid - cx[o][:-1])[same]
    left[o[1:][same]] = (cx[o][1:] - mid)[same]
    half = np.minimum(left, right)
    return np.where(np.isfinite(half), 2 * half, 2 * (r[2] - r[0]))


def name_above(f: Fabric, tops: np.ndarray) -> np.ndarray:
    """Per top-level device of ``tops``: its name goes above its box, because cables leave it from
    its bottom edge and none from its top (a top-tier switch: a spine, a core). A cable leaves a
    device from the edge facing its peer (:func:`~.cables.port_anchors`: the top edge when the
    peer's centre is higher, else the bottom); a name under such a device had every downlink
    through it (issue 29). Only the topmost row of such devices: when they wrap onto several rows,
    the gap above a lower row carries the upper rows' cables in its lanes, and its names stay under."""
    tops = np.asarray(tops, np.int64)
    t, ct, pt = f.devices_t, f.cables_t, f.ports_t
    ids = f.cable_ids()
    if not len(tops) or not len(ids):
        return np.zeros(len(tops), bool)
    da, db = pt.device[ct.port_a[ids]].astype(np.int64), pt.device[ct.port_b[ids]].astype(np.int64)
    ya, yb = t.y[da].astype(np.float64), t.y[db].astype(np.float64)
    pa, pb = t.parent[da].astype(np.int64), t.parent[db].astype(np.int64)
    own = np.concatenate([np.where(pa >= 0, pa, da), np.where(pb >= 0, pb, db)])
    up = np.concatenate([yb < ya, ya < yb])
    n = max(int(own.max()), int(tops.max())) + 1
    ups, downs = np.bincount(own[up], minlength=n), np.bincount(own[~up], minlength=n)
    above = (downs[tops] > 0) & (ups[tops] == 0)
    if above.any():         # only the top row: a lower row of wrapped spines has the lanes above it
        y = t.y[tops].astype(np.float64)
        above &= y <= y[above].min() + 1.0
    return above


def fit_name(text: str, width: float, metrics: QtGui.QFontMetricsF) -> str:
    """``text`` in at most ``width`` pixels of ``metrics``' font (see the module doc)."""
    m = UFM_SWITCH.match(text)
    short = m.group(1) if m else text
    out = metrics.elidedText(short, QtCore.Qt.TextElideMode.ElideMiddle, width)
    return out if len(out) > 1 else short[:1] + "…"


__all__ = ["NAME_MIN_PX", "fit_name", "name_above", "row_room"]
