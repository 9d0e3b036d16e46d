"""LFT comparisons and LID tables as arrays: what a re-sweep changed, and who owns each LID.

Pure functions of :class:`~fabricviz.ib.routing.Routing` results (no Qt): the SM sweep dock counts
the entries a pulled cable changed with :func:`lft_changes`; the inspector lists a switch's LFT
rows by destination with :func:`lid_destinations`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from fabricviz.ib.routing import old_lft
from fabricviz.ib.subnet import NO_PATH

if TYPE_CHECKING:
    from fabricviz.ib.routing import Routing


def lft_changes(new: Routing, previous: Routing | None) -> tuple[int, int] | None:
    """(LFT entries, switches) that differ between ``previous`` and ``new``, switches matched by GUID.

    None without a previous routing (a fresh sweep changes nothing, it fills). An LFT that grew
    or shrank counts its extra entries against "no path" (255).
    """
    if previous is None:
        return None
    old = old_lft(new.subnet, previous)
    w = max(old.shape[1], new.lft.shape[1])
    a = np.full((new.lft.shape[0], w), NO_PATH, np.uint8)
    b = a.copy()
    a[:, :old.shape[1]] = old
    b[:, :new.lft.shape[1]] = new.lft
    diff = a != b
    return int(diff.sum()), int(diff.any(axis=1).sum())


def lid_destinations(r: Routing) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every assigned LID of a routing, sorted, with its owner: (lids, is_switch, switch or CA port index).

    The array form of ``Routing.lid_owner()`` (LMC > 0: every LID of a CA port's range).
    """
    sw = np.flatnonzero(r.lids.sw_lid)
    ca = np.flatnonzero(r.lids.ca_lid)
    step = int(r.lids.lids_per_ca_port)
    ca_lids = (r.lids.ca_lid[ca][:, None].astype(np.int64) + np.arange(step)).ravel()
    lids = np.concatenate([r.lids.sw_lid[sw].astype(np.int64), ca_lids])
    is_sw = np.concatenate([np.ones(len(sw), bool), np.zeros(len(ca_lids), bool)])
    idx = np.concatenate([sw, np.repeat(ca, step)])
    order = np.argsort(lids, kind="stable")
    return lids[order], is_sw[order], idx[order]


__all__ = ["lft_changes", "lid_destinations"]
