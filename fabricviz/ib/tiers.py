"""Tiers of a fabric's devices: hosts 0, leaves 1, spines 2, cores 3.

Generated designs carry their tiers; for hand-made or imported designs they are
inferred: a switch's tier is 1 + its hop distance from the nearest switch that
has hosts. Used by lint, the port-load report, and the formats that group by tier.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import shortest_path

from ..model import Fabric
from ..model.fabric import ETH_SWITCH, IB_SWITCH, KIND_CODE, NIC
from .sharp import sharp_mask

TIER_NAMES = {0: "hosts", 1: "leaf", 2: "spine", 3: "core", 4: "tier 4"}


def switch_mask(fabric: Fabric) -> np.ndarray:
    t = fabric.devices_t
    return t.alive & np.isin(t.kind, [KIND_CODE[IB_SWITCH], KIND_CODE[ETH_SWITCH]])


def host_mask(fabric: Fabric) -> np.ndarray:
    """NICs that are compute hosts: every NIC but the SHARP aggregation nodes."""
    t = fabric.devices_t
    return (t.kind == KIND_CODE[NIC]) & ~sharp_mask(fabric)


def device_tiers(fabric: Fabric) -> np.ndarray:
    """Tier of every device id (-1 for dead or unreachable ones).

    A SHARP aggregation node sits inside its switch: it takes that switch's tier, so it is
    neither a host below the switch nor a link up or down from it.
    """
    t = fabric.devices_t
    tiers = t.tier.astype(np.int64).copy()
    sw = switch_mask(fabric)
    an = sharp_mask(fabric)
    a, b = cable_devices(fabric)
    if not sw.any() or (tiers[sw] >= 1).all():
        tiers = np.where(t.alive, tiers, -1)
    else:
        # infer: distance from switches that have host (NIC) neighbours
        host = host_mask(fabric)
        leafy = np.zeros(t.n, bool)
        leafy[a[host[b] & sw[a]]] = True
        leafy[b[host[a] & sw[b]]] = True
        g = switch_graph(fabric, a, b, sw)
        tiers = np.where(t.alive & ~sw, 0, -1)
        if leafy.any():
            # one search from a virtual node joined to every leaf (not one row per leaf: a dense
            # leaves × devices matrix is gigabytes on a big hand-made design)
            n = t.n
            leaves = np.flatnonzero(leafy)
            extra = sp.coo_matrix((np.ones(len(leaves)), (np.full(len(leaves), n), leaves)), shape=(n + 1, n + 1))
            g1 = sp.bmat([[g, None], [None, sp.csr_matrix((1, 1))]], format="csr") + extra.tocsr()
            best = shortest_path(g1, unweighted=True, directed=False, indices=[n])[0, :n] - 1
            ok = sw & np.isfinite(best)
            tiers[ok] = best[ok].astype(np.int64) + 1
    if an.any():
        at = an[a] & sw[b]
        tiers[a[at]] = tiers[b[at]]
        at = an[b] & sw[a]
        tiers[b[at]] = tiers[a[at]]
    return tiers


def cable_devices(fabric: Fabric) -> tuple[np.ndarray, np.ndarray]:
    ct, pt = fabric.cables_t, fabric.ports_t
    live = ct.alive
    return (pt.device[ct.port_a[live]].astype(np.int64), pt.device[ct.port_b[live]].astype(np.int64))


def switch_graph(fabric: Fabric, a: np.ndarray, b: np.ndarray, sw: np.ndarray) -> sp.csr_matrix:
    n = fabric.devices_t.n
    keep = sw[a] & sw[b]
    data = np.ones(int(keep.sum()))
    return sp.coo_matrix((data, (a[keep], b[keep])), shape=(n, n)).tocsr()


__all__ = ["TIER_NAMES", "cable_devices", "device_tiers", "host_mask", "switch_graph", "switch_mask"]
