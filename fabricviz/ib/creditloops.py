"""Credit loops: cycles in the channel dependency graph (CDG) of the LFTs.

A channel is a directed switch egress port (one VL: SL/VL mapping is not
modelled yet, so everything rides VL0). A route that enters switch r from
channel (s, p) and leaves on (r, q) makes (s, p) wait on (r, q). For every
destination LID the routes from all CA ports follow the LFTs; the union of
their dependencies is the CDG, and a cycle in it can deadlock a lossless
fabric under load. Links to CAs cannot be in a cycle, so only switch-to-switch
channels are kept (as LASH and ibdmchk do).
"""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from .routing import Routing
from .subnet import NO_PATH


@dataclass(frozen=True)
class CreditLoop:
    channels: tuple[str, ...]            # "switch:port" egress channels around one witness cycle
    size: int                            # channels in the strongly connected component
    destinations: tuple[int, ...]        # destination LIDs whose routes add the cycle's dependencies

    def format(self) -> str:
        ring = " -> ".join(self.channels + self.channels[:1])
        lids = ", ".join(str(x) for x in self.destinations[:12]) + (" …" if len(self.destinations) > 12 else "")
        return f"credit loop over {len(self.channels)} channels ({self.size} in its component): {ring}\n" \
               f"  caused by routes to LIDs {lids}"


def channel_dependencies(routing: Routing) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(from_channel, to_channel, dlid) for every dependency of every CA-sourced route.

    Channel id = switch index × (P+1) + port.
    """
    sn, lids, lft = routing.subnet, routing.lids, routing.lft
    S = sn.num_switches
    P1 = sn.nbr_dev.shape[1]
    rows = np.arange(S)
    sources = np.zeros(S, bool)
    sources[sn.ca_sw[(sn.ca_sw >= 0) & (lids.ca_lid > 0)]] = True
    dlids = _destination_lids(routing)
    out_a, out_b, out_d = [], [], []
    for d in dlids.tolist():
        port = lft[:, d].astype(np.int64)
        valid = (port != NO_PATH) & (port > 0)
        nxt = np.where(valid, sn.nbr_sw[rows, np.where(valid, port, 0)], -1)
        # switches some CA route to d passes through: closure of the sources under nxt
        used = sources.copy()
        frontier = sources.copy()
        for _ in range(64):
            step = nxt[frontier & (nxt >= 0)]
            new = np.zeros(S, bool)
            new[step] = True
            new &= ~used
            if not new.any():
                break
            used |= new
            frontier = new
        s = np.flatnonzero(used & (nxt >= 0))
        r = nxt[s]
        onward = (port[r] != NO_PATH) & (port[r] > 0) & (nxt[r] >= 0)
        s, r = s[onward], r[onward]
        if len(s):
            out_a.append(s * P1 + port[s])
            out_b.append(r * P1 + port[r])
            out_d.append(np.full(len(s), d, np.int64))
    if not out_a:
        z = np.zeros(0, np.int64)
        return z, z, z
    return np.concatenate(out_a), np.concatenate(out_b), np.concatenate(out_d)


def _destination_lids(routing: Routing) -> np.ndarray:
    lids = routing.lids
    out = []
    for off in range(lids.lids_per_ca_port):
        base = lids.ca_lid[(lids.ca_lid > 0)]
        out.append(base + off)
    return np.unique(np.concatenate(out)) if out else np.zeros(0, np.int64)


def find_credit_loops(routing: Routing, max_loops: int = 100) -> list[CreditLoop]:
    """Every strongly connected component of the CDG with a cycle, one witness cycle each."""
    a, b, d = channel_dependencies(routing)
    if len(a) == 0:
        return []
    key = a * (1 << 32) + b
    uniq, first = np.unique(key, return_index=True)
    g = nx.DiGraph()
    g.add_edges_from(zip(a[first].tolist(), b[first].tolist()))
    sn = routing.subnet
    P1 = sn.nbr_dev.shape[1]
    loops: list[CreditLoop] = []
    for comp in sorted(nx.strongly_connected_components(g), key=lambda c: min(c)):
        if len(comp) == 1 and not g.has_edge(next(iter(comp)), next(iter(comp))):
            continue
        sub = g.subgraph(comp)
        cycle = nx.find_cycle(sub, source=min(comp))
        nodes = [u for u, _v in cycle]
        edge_keys = np.array([u * (1 << 32) + v for u, v in cycle], np.int64)
        causes = np.unique(d[np.isin(key, edge_keys)])
        names = tuple(f"{sn.switch_name(n // P1)}:{n % P1}" for n in nodes)
        loops.append(CreditLoop(names, len(comp), tuple(int(x) for x in causes)))
        if len(loops) >= max_loops:
            break
    return loops
