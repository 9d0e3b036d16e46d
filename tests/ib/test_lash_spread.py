"""LASH's layer kernel spreads a layer's order out again when holes run short
(:data:`fabricviz.ib.lash_kernels.SPREAD_SLACK`): the LFTs, SLs, layer counts, balancing's
rand() calls and zombies stay what they were before that change, on fabrics whose union channel
dependency graph has cycles (3-level fat trees, a torus), and even when the order is spread out
after every repair of it.

The digests were computed with the kernel of main at 5734bab (before the respreading):
sha256 over the LFTs, the SL table and (vls_used, lanes before balancing, lanes after, rand()
calls, zombies, zombie events), first 16 hex digits. The radix-56 fabric (3,920 switches) gave
byte-identical LFTs and SLs too (bench/scale.py times it)."""

from __future__ import annotations

import hashlib

import numpy as np
import pytest

from fabricviz.formats.ibnetdiscover import loads, sniff
from fabricviz.ib import lash as L
from fabricviz.ib import lash_kernels as LK
from fabricviz.ib.lash_fast import union_cdg_acyclic
from fabricviz.ib.routing import subnet_and_lids
from tests.ib import topologies as T

CASES = [
    # name, net, switches, layers needed, lanes before balancing, zombies, digest at 5734bab
    ("fat tree k=8", T.k_ary_fat_tree(8), 80, 5, [4864, 1032, 362, 58, 4], 4, "1a288fef1f4a642b"),
    ("fat tree k=12", T.k_ary_fat_tree(12), 180, 4, [27832, 3540, 586, 262], 15, "ba546750ff970588"),
    ("torus 8x8", T.torus_2d(8, 8, 1), 64, 7, [2130, 868, 588, 272, 122, 40, 12], 6, "2767a3ca66eaa539"),
]


def _digest(net: T.Net) -> tuple:
    text = net.text()
    sn, lids = subnet_and_lids(loads(text, "topology.net", dialect=sniff(text)))
    links = L.switch_links(sn)
    out_link = L.tree_routes(sn.num_switches, links)
    nxt = np.full(out_link.shape, -1, np.int32)
    for s, row in enumerate(out_link):
        ok = row >= 0
        nxt[s, ok] = np.array([t for t, _ in links[s]], np.int32)[row[ok]]
    cyclic = not union_cdg_acyclic(nxt, *L.channel_table(links))
    lft, info = L.route_lash(sn, lids)
    h = hashlib.sha256(lft.tobytes())
    h.update(np.ascontiguousarray(info.path_sl.table).tobytes())
    h.update(repr((info.vls_used, info.lanes_before_balancing, info.lanes_in_layer, info.rand_calls,
                   info.zombies, info.zombie_events)).encode())
    return (sn.num_switches, cyclic, info.vls_used, info.lanes_before_balancing, info.zombies,
            h.hexdigest()[:16])


@pytest.mark.parametrize("name, net, switches, needed, before, zombies, digest", CASES, ids=[c[0] for c in CASES])
def test_layers_equal_the_kernel_before_respreading(name, net, switches, needed, before, zombies, digest):
    assert _digest(net) == (switches, True, needed, before, zombies, digest)


@pytest.mark.parametrize("name, net, switches, needed, before, zombies, digest", CASES[::2],
                         ids=[c[0] for c in CASES[::2]])
def test_respreading_after_every_repair_changes_no_answer(monkeypatch: pytest.MonkeyPatch, name, net,
                                                          switches, needed, before, zombies, digest):
    """A slack far below zero spreads the order out after every repair: another order, the
    same answers (only whether a cycle exists is read from the order)."""
    real = LK.run_layers
    calls: list[int] = []

    def always(*args):
        calls.append(args[0])
        return real(*args, -(1 << 40))
    monkeypatch.setattr(LK, "run_layers", always)
    assert _digest(net) == (switches, True, needed, before, zombies, digest)
    assert calls == [switches]
