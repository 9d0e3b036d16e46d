"""Round-robin service of each link's groups (switch arbitration over ingress ports) in the fluid model."""

from __future__ import annotations

import numpy as np


def waterfill(gid_link: np.ndarray, demand: np.ndarray, cap: np.ndarray, n_links: int) -> np.ndarray:
    """Serve groups of each link round-robin: allocation min(demand, level) with Σ ≤ cap."""
    alloc = np.zeros_like(demand)
    busy = np.flatnonzero(demand > 0)          # only groups with something to send take part
    if len(busy) < len(demand) // 2:
        alloc[busy] = waterfill(gid_link[busy], demand[busy], cap, n_links)
        return alloc
    open_ = demand > 0
    rem = cap.copy()
    level = np.zeros(n_links)
    for _ in range(64):
        cnt = np.bincount(gid_link[open_], minlength=n_links)
        level = np.divide(rem, cnt, out=np.zeros(n_links), where=cnt > 0)
        lv = level[gid_link]
        done = open_ & (demand <= lv)
        if not done.any():
            alloc[open_] = lv[open_]
            return alloc
        alloc[done] = demand[done]
        rem = rem - np.bincount(gid_link[done], weights=demand[done], minlength=n_links)
        open_ &= ~done
        if not open_.any():
            return alloc
    alloc[open_] = np.maximum(level[gid_link][open_], 0)
    return alloc
