"""Where a sprayer's packets are trimmed, and what share of a flow's packets arrive whole.

Two mechanisms, both per egress link, both from the packets' own paths:

* **hash imbalance**: EQDS puts each packet on one of ``entropies`` path ids (htsim: 64), each path id
  hashed onto one of the flow's equal-cost paths; with 64 ids over 16 paths a path gets a binomial
  number of them (4 ± 1.9), so a flow's load on its paths is uneven and some links are offered more
  than their capacity (NDP's permutation of the paths loads them evenly). The excess is trimmed.
* **collisions**: packets sprayed independently over a switch-to-switch link meet at its egress
  queue; per packet time the link takes a packet from each of its ``n`` feeding links with chance
  ``ρ/n`` (ρ: the link's offered load / capacity) and sends one; the queue holds ``queue_pkts``
  payloads, the rest are trimmed (:func:`collision_trim`: the exact Markov chain of this queue).
  Links into a host are left out: what arrives there is what the receiver pulled, paced at its
  own line rate (EQDS's pacer, NDP's pull queue), so that queue only holds jitter.

A trimmed payload is sent again when the receiver pulls for it, so the receiver's pulls (at its
line rate) buy ``delivery`` of a packet each: the flow's goodput is its wire rate × delivery ×
payload / MTU.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

import numpy as np

from ..links import LinkTable
from ..paths import Routes


def path_shares(routes: Routes, entropies: int, seed: int) -> np.ndarray:
    """Per sub-path: its share of its flow's packets. ``entropies`` path ids per flow, each hashed
    uniformly onto the flow's sub-paths (seeded); 0: an equal share each."""
    n = np.bincount(routes.flow, minlength=routes.n_flows)
    first = np.searchsorted(routes.flow, np.arange(routes.n_flows))
    if entropies <= 0:
        return 1.0 / n[routes.flow]
    rng = np.random.default_rng(seed)
    pick = np.floor(rng.random((routes.n_flows, entropies)) * n[:, None]).astype(np.int64) + first[:, None]
    return np.bincount(pick.ravel(), minlength=routes.n_paths) / entropies


def collision_trim(n_in: int, load: float, queue_pkts: int) -> float:
    """Share of a link's arriving packets trimmed: a discrete-time queue serving one packet per packet
    time, ``n_in`` inputs each bringing one with chance ``load / n_in`` per packet time (binomial
    arrivals), ``queue_pkts`` packets held at most; the stationary distribution solved exactly."""
    return _chain(n_in, load, queue_pkts)[0]


def collision_queue(n_in: int, load: float, queue_pkts: int) -> float:
    """Mean packets held by the queue of :func:`collision_trim` (after each packet time's service)."""
    return _chain(n_in, load, queue_pkts)[1]


@lru_cache(maxsize=4096)
def _chain(n_in: int, load: float, queue_pkts: int) -> tuple[float, float]:
    if load <= 0.0:
        return 0.0, 0.0
    if n_in <= 1:                                    # one input: only what exceeds the capacity
        return (1.0 - 1.0 / load, float(queue_pkts)) if load > 1.0 else (0.0, 0.0)
    n = n_in
    p = min(load / n, 1.0)
    excess = max(0.0, 1.0 - n / load)                # more than every input can bring: trimmed as well
    pmf = np.array([comb(n, a) * p ** a * (1 - p) ** (n - a) for a in range(n + 1)])
    size = queue_pkts + 1                           # queue after a packet time's service: 0..queue_pkts
    P = np.zeros((size, size))
    lost = np.zeros(size)
    for q in range(size):
        for a in range(n + 1):
            held = q + a
            lost[q] += pmf[a] * max(held - queue_pkts, 0)
            P[q, max(min(held, queue_pkts) - 1, 0)] += pmf[a]
    M = np.vstack([P.T - np.eye(size), np.ones(size)])
    b = np.zeros(size + 1)
    b[-1] = 1.0
    pi = np.linalg.lstsq(M, b, rcond=None)[0]
    arrivals = n * p
    trim = float(np.clip(1.0 - (1.0 - excess) * (1.0 - pi @ lost / arrivals), 0.0, 1.0))
    return trim, float(pi @ np.arange(size))


def feeders(routes: Routes, n_links: int) -> np.ndarray:
    """Per link: how many distinct links feed it on the routes (0: a path's first hop)."""
    hop = np.arange(len(routes.links)) - np.repeat(routes.indptr[:-1], routes.hops())
    inner = np.flatnonzero(hop > 0)
    pairs = np.unique(np.stack([routes.links[inner - 1], routes.links[inner]]), axis=1)
    return np.bincount(pairs[1], minlength=n_links)


def link_trim(links: LinkTable, routes: Routes, share: np.ndarray, wire_gbps: np.ndarray,
              queue_pkts: int, into_host: np.ndarray, n_in: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per link: share of the packets offered to it that are trimmed (hash imbalance and collisions),
    and the packets its queue holds on average (full where offered more than it carries)."""
    per_path = share * wire_gbps[routes.flow]
    offered = np.bincount(routes.links, np.repeat(per_path, routes.hops()), minlength=links.n)
    with np.errstate(divide="ignore", invalid="ignore"):
        load = np.where(links.gbps > 0, offered / links.gbps, 0.0)
    trim, held = np.zeros(links.n), np.zeros(links.n)
    for i in np.flatnonzero(load > 0):
        rho = float(load[i])
        if into_host[i] or n_in[i] <= 1:          # paced or one input: only the excess, exactly
            trim[i], held[i] = (1.0 - 1.0 / rho, queue_pkts) if rho > 1.0 else (0.0, 0.0)
        else:                                     # the chain, cached at a load to 0.1 %
            trim[i], held[i] = _chain(int(n_in[i]), round(rho, 3), queue_pkts)
    return trim, held


def delivery(routes: Routes, share: np.ndarray, trim: np.ndarray) -> np.ndarray:
    """Per flow: share of its packets that arrive whole (Σ over its paths of share × Π (1 − trim))."""
    keep = np.log1p(-np.minimum(trim, 1 - 1e-12))[routes.links]
    survive = np.exp(np.add.reduceat(keep, routes.indptr[:-1])) if len(keep) else np.ones(routes.n_paths)
    survive[routes.hops() == 0] = 1.0
    return np.bincount(routes.flow, share * survive, minlength=routes.n_flows)
