"""Drawn sizes of devices (scene units): the one place the layouts, the canvas items, the batched
far drawing, labels, bundles and the minimap take a device's rectangle from.

Qt-free, so :mod:`fabricviz.generate` lays out with the sizes :mod:`fabricviz.ui.canvas.theme`
draws (it imports these constants) and nothing can drift between two copies.
"""

from __future__ import annotations

import numpy as np

from ..model import Fabric
from ..model.fabric import ETH_SWITCH, IB_SWITCH, KIND_CODE, SERVER

CHILD_W, CHILD_H = 18.0, 12.0     # a GPU or NIC (inside a server, or on its own)
SERVER_MARGIN = 4.0               # a server's frame around its GPUs and NICs
SWITCH_H = 24.0
EMPTY_SERVER = 30.0               # a server without GPUs or NICs: a square this wide
#: A switch is this wide per port, within these bounds (a 64-port switch is wider than an 8-port one).
SWITCH_W_PER_PORT = 1.5
SWITCH_W_MIN, SWITCH_W_MAX = 48.0, 120.0


def switch_widths(nports: np.ndarray | int) -> np.ndarray:
    """Drawn width of switches with ``nports`` ports."""
    n = np.asarray(nports, np.float64)
    return np.clip(n * SWITCH_W_PER_PORT, SWITCH_W_MIN, SWITCH_W_MAX)


def device_rects(f: Fabric, ids: np.ndarray) -> np.ndarray:
    """[4, n] left, top, right, bottom of top-level devices ``ids`` as the canvas draws them:
    switches by port count, servers wrapping their GPUs and NICs (:data:`EMPTY_SERVER` square
    when empty), a GPU/NIC on its own as a child is drawn."""
    t = f.devices_t
    ids = np.asarray(ids, np.int64)
    kind = t.kind[ids]
    x, y = t.x[ids].astype(np.float64), t.y[ids].astype(np.float64)
    sw = np.isin(kind, [KIND_CODE[IB_SWITCH], KIND_CODE[ETH_SWITCH]])
    hw = np.where(sw, switch_widths(t.nports[ids]) / 2, CHILD_W / 2)
    hh = np.where(sw, SWITCH_H / 2, CHILD_H / 2)
    out = np.vstack([x - hw, y - hh, x + hw, y + hh])
    servers = np.flatnonzero(kind == KIND_CODE[SERVER])
    if not len(servers):
        return out
    e = EMPTY_SERVER / 2
    out[:, servers] = np.vstack([x[servers] - e, y[servers] - e, x[servers] + e, y[servers] + e])
    kids = np.flatnonzero(t.alive & (t.parent >= 0))
    col = np.full(t.n, -1, np.int64)
    col[ids[servers]] = servers
    kc = col[t.parent[kids]]
    kids, kc = kids[kc >= 0], kc[kc >= 0]
    if len(kids):
        m = SERVER_MARGIN
        kx, ky = t.x[kids].astype(np.float64), t.y[kids].astype(np.float64)
        has = np.zeros(len(ids), bool)
        has[kc] = True
        box = np.vstack([np.full(len(ids), np.inf), np.full(len(ids), np.inf),
                         np.full(len(ids), -np.inf), np.full(len(ids), -np.inf)])
        np.minimum.at(box[0], kc, kx - CHILD_W / 2 - m)
        np.minimum.at(box[1], kc, ky - CHILD_H / 2 - m)
        np.maximum.at(box[2], kc, kx + CHILD_W / 2 + m)
        np.maximum.at(box[3], kc, ky + CHILD_H / 2 + m)
        out[:, has] = box[:, has]
    return out


__all__ = ["CHILD_H", "CHILD_W", "EMPTY_SERVER", "SERVER_MARGIN", "SWITCH_H", "SWITCH_W_MAX", "SWITCH_W_MIN",
           "SWITCH_W_PER_PORT", "device_rects", "switch_widths"]
