"""The ftree routing walk (OpenSM ``do_routing``): one destination LID at a time.

For each destination the walk starts at the switch that owns it (a CN's leaf,
or the switch itself) and climbs: at every switch it first gives the switches
below it (other subtrees) an up-going route toward itself ("upgoing by going
down"), then picks ONE up group — least down-going load, then lowest remote
index — and its least-loaded port as the main down-going path, and also
routes the other up groups' switches (secondary paths, no load counted).
Destinations go in this order: CNs per leaf in leaf-index order, each leaf
topped up with "dummy" CNs to the largest CN count of any leaf (they only
move the load counters), then non-CN CA ports, then every switch's own LID.

Exactness notes (OpenSM 3.3, same code since 2019):
* port-group arrays are re-sorted in place by bubble sorts; with the keys
  (counter, remote index) those equal a stable sort of the current order. The
  down groups of a switch are re-sorted only after one of their up-going
  counters moved (``counter_up_changed``), so leaf switches keep port order.
* the "least loaded remote switch" step of ``port_group_compare_load_down``
  always compares 0 with 0 (only up groups' down counters ever move, and it
  reads the remote switch's *down* groups), so it is left out.
* per destination the hop and LFT columns start empty (LID 0, used by the
  dummies, is cleared after each one).
"""

from __future__ import annotations

import numpy as np

from .ftree import FatTree
from .lids import Lids
from .subnet import NO_PATH


def route_tree(ft: FatTree, lids: Lids) -> tuple[np.ndarray, list]:
    """LFTs [S, max_lid+1] and the CN order (LID or None for a dummy) per leaf."""
    S = len(ft.rank)
    rank, up, down, sib = ft.rank, ft.up, ft.down, ft.sib
    g_remote, g_ports = ft.g_remote, ft.g_ports
    e_rnum = ft.e_rnum
    sw_lid = ft.sw_lid
    tuples = ft.tuples
    ng, ne = len(g_remote), len(e_rnum)
    g_cup = [0] * ng
    g_cdown = [0] * ng
    e_cup = [0] * ne
    e_cdown = [0] * ne
    changed = [False] * S
    # remote index of each group's far switch (CA groups never get sorted by it)
    g_key = [tuples[r] if r >= 0 else (0xFF,) * 8 for r in g_remote]
    up_key = lambda g: (g_cup[g], g_key[g])          # noqa: E731  port_group_compare_load_up
    down_key = lambda g: (g_cdown[g], g_key[g])      # noqa: E731  ..._load_down (see notes)
    empty = bytes([NO_PATH]) * S
    lft = hops = None                                # per-destination columns (bytearray)

    # switches whose down groups all lead to CAs (leaves) and that have no siblings: the
    # walk below them only reports "a route was created"
    ends_here = [bool(down[s]) and not sib[s] and all(g_remote[g] < 0 for g in down[s])
                 for s in range(S)]

    def upgoing(s: int, prev: int, lid: int, h: int) -> bool:
        if ends_here[s]:
            return True
        downs = down[s]
        if not downs:
            return False
        if changed[s]:
            downs.sort(key=up_key)
            changed[s] = False
        sibs = sib[s]
        if sibs:
            sibs.sort(key=up_key)
        # (no call below re-sorts this switch's arrays, so a copy iterates like OpenSM's index)
        groups = downs + sibs if lid and sibs else downs
        created = False
        h1 = h + 1
        for g in groups:
            r = g_remote[g]
            if r < 0:
                created = True
                continue
            # already routed at least as short (unset = 255 > h1); the switch we came
            # up from is always among these, OpenSM's explicit test follows
            if hops[r] <= h1 or r == prev:
                continue
            ports = g_ports[g]
            p = ports[0]
            if len(ports) > 1:
                best = e_cup[p]
                for q in ports:
                    if e_cup[q] < best:
                        p, best = q, e_cup[q]
            lft[r] = e_rnum[p]
            hops[r] = h1
            if upgoing(r, -1, lid, h1):
                created = True
                e_cup[p] += 1
                g_cup[g] += 1
                changed[s] = True
        return created

    def min_down_port(g: int) -> int:
        ports = g_ports[g]
        p = ports[0]
        if len(ports) > 1:
            best = e_cdown[p]
            for q in ports:
                if e_cdown[q] < best:
                    p, best = q, e_cdown[q]
        return p

    def downgoing(s: int, prev: int, lid: int, main: bool, h: int) -> bool:
        created = upgoing(s, prev, lid, h)
        if rank[s] == 0:
            return created
        ups = up[s]
        if len(ups) > 1:
            ups.sort(key=down_key)
        gmin = ups[0]
        pmin = min_down_port(gmin)
        h1 = h + 1
        if main:
            r = g_remote[gmin]
            g_cdown[gmin] += 1
            e_cdown[pmin] += 1
            if lft[r] == NO_PATH or h1 < hops[r]:
                lft[r] = e_rnum[pmin]
                hops[r] = h1
            if downgoing(r, s, lid, True, h1):
                created = True
        for i in range(1 if main else 0, len(ups)):
            g = ups[i]
            r = g_remote[g]
            if lft[r] != NO_PATH and h1 >= hops[r]:
                continue
            p = min_down_port(g)
            lft[r] = e_rnum[p]
            hops[r] = h1
            if downgoing(r, s, lid, False, h1):
                created = True
        sibs = sib[s]
        if sibs:
            if len(sibs) > 1:
                sibs.sort(key=down_key)
            for i in range(len(sibs)):
                g = sibs[i]
                r = g_remote[g]
                if lft[r] != NO_PATH and h1 >= hops[r]:
                    continue
                p = min_down_port(g)
                lft[r] = e_rnum[p]
                hops[r] = h1
                if downgoing(r, s, lid, False, h1):
                    created = True
                    g_cdown[gmin] += 1
                    e_cdown[pmin] += 1
        return created

    cols: dict[int, bytes] = {}
    ca_order: list = []
    # route_to_cns: every CA port is a CN in the default configuration
    for s in ft.leaf_switches:
        n_real = 0
        downs = down[s]
        for j in range(len(downs)):
            g = downs[j]
            if g_remote[g] >= 0:
                continue
            lid = ft.g_rlid[g]
            lft = bytearray(empty)
            hops = bytearray(empty)
            lft[s] = ft.e_num[g_ports[g][0]]
            hops[s] = 1
            downgoing(s, -1, lid, True, 1)
            cols[lid] = bytes(lft)
            ca_order.append(lid)
            n_real += 1
        for _ in range(ft.max_cn_per_leaf - n_real):
            lft = bytearray(empty)
            hops = bytearray(empty)
            hops[s] = 1
            downgoing(s, -1, 0, True, 1)
            ca_order.append(None)
    # route_to_non_cns: nothing to do without a CN file (every linked CA port is a CN)
    # route_to_switches: switch LIDs, no down-going load counted
    for s in range(S):
        lid = sw_lid[s]
        lft = bytearray(empty)
        hops = bytearray(empty)
        lft[s] = 0
        hops[s] = 0
        downgoing(s, -1, lid, False, 0)
        cols[lid] = bytes(lft)

    out = np.full((S, lids.max_lid + 1), NO_PATH, np.uint8)
    if cols:
        keys = np.fromiter(cols.keys(), np.int64, len(cols))
        block = np.frombuffer(b"".join(cols.values()), np.uint8).reshape(len(cols), S)
        out[:, keys] = block.T
    return out, ca_order
