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


def fit_name(text: str, width: float, metrics: QtGui.QFontMetricsF) -> str:
    """``text`` in at most ``width`` pixels of ``metrics``' font (see the module doc)."""
    m = UFM_SWITCH.match(text)
    short = m.group(1) if m else text
    out = metrics.elidedText(short, QtCore.Qt.TextElideMode.ElideMiddle, width)
    return out if len(out) > 1 else short[:1] + "…"


__all__ = ["NAME_MIN_PX", "fit_name", "row_room"]
