"""Cut-through per hop: header-only serialization through idle same-speed switches,
store-and-forward on a queued egress or from a slower ingress, the catalog's ``forwarding``."""

import dataclasses
import json

import numpy as np
import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree
from fabricviz.model import Catalog
from fabricviz.model.catalog import CatalogError, Part
from fabricviz.sim.engine import simulate
from fabricviz.sim.latency import HEADER_BYTES, LatencyParams, flow_latency_ns, flow_nic_ns, link_latency, path_hops
from fabricviz.sim.links import link_table
from fabricviz.sim.paths import route
from fabricviz.sim.workloads import Flows

S, H = 4096.0, HEADER_BYTES           # packet, header (64 B)
NDR = 400.0                           # Gb/s
SW, NIC, PROP = 200.0, 300.0, 100.0   # QM9700 pipeline (catalog), ConnectX-7 overhead, forced link delay
PRM = LatencyParams(bytes=S, link_delay_ns=PROP)


def _ser(nbytes, gbps):
    return nbytes * 8 / gbps


def _cross_leaf(f):
    """node01 → node16's NIC path on a 2-level radix-8 tree: NIC → leaf → spine → leaf → NIC."""
    L = link_table(f)
    a, b = f.find("node01/mlx5_0"), f.find("node16/mlx5_0")
    return L, route(f, L, Flows(np.array([a]), np.array([b])), "static").path(0)


@pytest.fixture(scope="module")
def ib():
    return fat_tree(levels=2, radix=8, hosts=16)


def test_two_switch_hops_idle_cut_through(ib):
    """4 links, 3 QM9700s: the packet is serialized once (on the NIC's link), each switch adds
    only its 64 B header, 64·8/400 = 1.28 ns, instead of the packet's 81.92 ns."""
    L, p = _cross_leaf(ib)
    rows, total = path_hops(ib, L, p, PRM)
    assert [r["mode"] for r in rows] == ["store-and-forward"] + ["cut-through"] * 3
    assert [r["bytes_serialized"] for r in rows] == [S, H, H, H]
    assert [r["serialization_ns"] for r in rows] == pytest.approx([81.92, 1.28, 1.28, 1.28])
    want = NIC + _ser(S, NDR) + 3 * _ser(H, NDR) + 3 * SW + 4 * PROP + NIC
    assert total == pytest.approx(want, abs=1e-9)                       # 1685.76 ns
    assert total == pytest.approx(1685.76, abs=1e-9)
    # the old store-and-forward model (HPCC-ns3 convention) pays the full packet on every hop
    _, saf = path_hops(ib, L, p, dataclasses.replace(PRM, cut_through=False))
    assert saf - total == pytest.approx(3 * _ser(S - H, NDR))           # 241.92 ns


def test_queued_egress_stores_and_forwards(ib):
    L, p = _cross_leaf(ib)
    q = np.zeros(L.n)
    q[p[2]] = 8192.0                                                    # spine → leaf egress queued
    rows, total = path_hops(ib, L, p, PRM, queue_bytes=q)
    assert [r["mode"] for r in rows] == ["store-and-forward", "cut-through", "store-and-forward", "cut-through"]
    assert rows[2]["bytes_serialized"] == S and rows[2]["queueing_ns"] == pytest.approx(_ser(8192, NDR))
    want = NIC + 2 * _ser(S, NDR) + 2 * _ser(H, NDR) + _ser(8192, NDR) + 3 * SW + 4 * PROP + NIC
    assert total == pytest.approx(want, abs=1e-9)                       # 1930.24 ns
    # the per-link figures the frames carry agree
    lat = link_latency(L, PRM, q)
    assert lat.cut_through[p].tolist() == [False, True, False, True]
    assert lat.serialization[p] == pytest.approx([81.92, 1.28, 81.92, 1.28])


def test_speed_change_hops(ib):
    """Host links at 200G (NDR200), fabric links at 400G. Leaf ← 200G NIC → 400G uplink is
    slow → fast: store-and-forward (S·8/400). Leaf ← 400G spine → 200G NIC is fast → slow: it
    cuts through and the slower egress stretches the packet: H·8/400 + S·8/200 − S·8/400."""
    L0, p = _cross_leaf(ib)
    host = ~L0.pcie & ((L0.nic_ns[L0.src_dev] > 0) | (L0.nic_ns[L0.dst_dev] > 0))
    L = dataclasses.replace(L0, gbps=np.where(host, 200.0, L0.gbps))
    rows, total = path_hops(ib, L, p, PRM)
    assert [r["gbps"] for r in rows] == [200, 400, 400, 200]
    assert [r["mode"] for r in rows] == ["store-and-forward", "store-and-forward", "cut-through", "cut-through"]
    ser = [_ser(S, 200), _ser(S, 400), _ser(H, 400), _ser(H, 400) + _ser(S, 200) - _ser(S, 400)]
    assert [r["serialization_ns"] for r in rows] == pytest.approx(ser)  # 163.84, 81.92, 1.28, 83.2
    assert total == pytest.approx(NIC + sum(ser) + 3 * SW + 4 * PROP + NIC, abs=1e-9)   # 1930.24
    # the flow figure of the engines applies the same ingress rule
    r = route(ib, L, Flows(np.array([ib.find("node01/mlx5_0")]), np.array([ib.find("node16/mlx5_0")])), "static")
    lat = link_latency(L, PRM)
    flow = flow_latency_ns(L, r, np.nan_to_num(lat.total), flow_nic_ns(L, r, PRM), lat)
    assert flow[0] == pytest.approx(total, abs=1e-9)


def test_maxmin_frame_flow_latency_is_the_cut_through_path(ib):
    L, p = _cross_leaf(ib)
    res = simulate(ib, Flows([ib.find("node01/mlx5_0")], [ib.find("node16/mlx5_0")]), "static", "maxmin")
    _, total = path_hops(ib, L, p)                                       # catalog cables, 4096 B
    assert float(res.last.flow_latency_ns[0]) == pytest.approx(total, abs=1e-3)   # frames hold float32
    _, saf = path_hops(ib, L, p, LatencyParams(cut_through=False))
    assert saf - total == pytest.approx(3 * _ser(S - H, NDR))


SAF = {"id": "SAF64", "kind": "ib_switch", "name": "test store-and-forward switch", "ports": 8,
       "port": "4xNDR", "latency_ns": 200, "forwarding": "store-and-forward"}


def test_catalog_forwarding_field():
    part = Part.from_dict(SAF, "t")
    assert part.forwarding == "store-and-forward" and Part.from_dict(part.to_dict(), "t") == part
    plain = Part.from_dict({k: v for k, v in SAF.items() if k != "forwarding"}, "t")
    assert plain.forwarding == "cut-through" and "forwarding" not in plain.to_dict()
    with pytest.raises(CatalogError, match=r"t\.forwarding: unknown forwarding 'wormhole' "
                                           r"\(use cut-through or store-and-forward\)"):
        Part.from_dict(dict(SAF, forwarding="wormhole"), "t")
    with pytest.raises(CatalogError, match=r"t\.forwarding: unknown field for a nic part"):
        Part.from_dict({"id": "N", "kind": "nic", "name": "n", "port": "4xNDR", "forwarding": "cut-through"}, "t")
    switches = Catalog.default().by_kind("ib_switch") + Catalog.default().by_kind("eth_switch")
    assert len(switches) == 10 and {p.forwarding for p in switches} == {"cut-through"}
    # a store-and-forward part serializes the whole packet on every hop
    f = fat_tree(levels=2, radix=8, hosts=16, switch="SAF64", catalog=Catalog.default().with_parts([part]))
    L, p = _cross_leaf(f)
    rows, total = path_hops(f, L, p, PRM)
    assert [r["mode"] for r in rows] == ["store-and-forward"] * 4
    assert total == pytest.approx(NIC + 4 * _ser(S, NDR) + 3 * SW + 4 * PROP + NIC, abs=1e-9)   # 1927.68


def test_latency_command_shows_mode_and_bytes(ib, tmp_path, capsys):
    path = tmp_path / "ft.json"
    save_fabric(ib, path)
    assert main(["latency", str(path), "node01/mlx5_0", "node16/mlx5_0", "--json", "--bytes", "1024"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert [(h["mode"], h["bytes_serialized"]) for h in j["hops"]] == \
        [("store-and-forward", 1024), ("cut-through", 64), ("cut-through", 64), ("cut-through", 64)]
    assert j["hops"][1]["serialization_ns"] == pytest.approx(1.28)
    assert main(["latency", str(path), "node01/mlx5_0", "node16/mlx5_0"]) == 0
    out = capsys.readouterr().out
    assert out.count("cut-through") == 3 + 1 and "store-and-forward" in out and "64 B header" in out
