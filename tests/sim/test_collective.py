"""fabricviz collective (issue 17): nccl-tests numbers from the design's paths (fabricviz.sim.collective).

Hand derivations use the catalog figures the model reads: a 1-GPU NDR node (H100 PCIe 440 Gb/s,
400 ns each way; ConnectX-7 300 ns at each end), QM9700 200 ns per switch, 2 m host cables (10 ns)
and 15 m leaf–spine cables (135 ns: 75 ns of fibre + the cable part's 60 ns), 400 Gb/s links. A
fabric transfer's payload moves at its max-min rate × EFF (4 KiB of payload per 4096 + 26 bytes of
an InfiniBand packet); NVLink's at its rate.
"""

from __future__ import annotations

import json

import imageio.v3 as iio
import numpy as np
import pytest

from fabricviz.cli import main
from fabricviz.formats.native import save_fabric
from fabricviz.generate import fat_tree, rail_optimized
from fabricviz.generate.common import add_hosts, add_switches, finish, pad_names, pick_switch, switch_ports
from fabricviz.model import Fabric, LinkRate
from fabricviz.sim.collective import collective, parse_sizes, select_gpus, wire_efficiency
from fabricviz.sim.twin import twin

#: One-way latency of a GPU → leaf → spine → leaf → GPU path without serialization (ns):
#: PCIe 2·400 + NIC 2·300 + cables 10 + 135 + 135 + 10 + switches 3·200.
PATH_NS = 2 * 400 + 2 * 300 + 10 + 135 + 135 + 10 + 3 * 200          # 2290
#: Payload share of an InfiniBand link's bits (4096 / 4122); RoCEv2's is 4096 / 4178.
EFF = wire_efficiency("ib")


@pytest.fixture(scope="module")
def ft32():
    return fat_tree(levels=2, radix=8, fabric="ib")


def test_sizes_parse_like_workload_sizes():
    assert parse_sizes("8B:64B:x2").tolist() == [8.0, 16.0, 32.0, 64.0]
    assert parse_sizes("1KiB,1MB").tolist() == [1024.0, 1e6]
    assert len(parse_sizes("8B:8GB:x2")) == 30               # 8·2^29 = 4.29 GB; 8·2^30 > 8 GB


def _nic_rate(f: Fabric) -> LinkRate:
    """Line rate of the first rank's NIC."""
    t = f.devices_t
    return f.port_rate(int(t.first_port[int(t.bound[select_gpus(f)[0]])]))


def test_ring_allreduce_non_blocking_tree_is_line_rate_at_1gb_and_latency_bound_at_8b(ft32):
    """32 GPUs, 62 ring steps. 8 B: each step moves 0.25 B, α = 2290 ns + 0.25 B serialized at the
    two PCIe hops (2/440 ns each) and four 400G hops (2/400 ns each) = 2290.0291 ns, β = 2/(400·EFF)
    ns; step = 1 µs overhead + α + β → 62 · 3290.0341 ns = 203.9821 µs: latency-bound. 1 GB:
    31.25 MB per step at 400 Gb/s × EFF (397.48 Gb/s of payload) = 628,967.29 ns, α(4 KiB packet)
    = 2290 + 2·74.4727 (PCIe) + 81.92 (NIC → leaf) + 3·1.28 (64 B headers through cut-through
    switches) = 2524.7055 ns; 62 · 631,491.99 ns = 39,214.50 µs: busbw = 1e9 / t · 62/32 = 49.4077
    GB/s, the NIC's 50 GB/s less its packets' headers (49.6846) less the latency terms. The RoCE
    twin (400GbE, 82 header bytes a packet: 49.0187 GB/s of payload) reaches 48.6922."""
    r = collective(ft32, "allreduce", [8.0, 1e9])
    small, big = r.rows
    alpha8 = PATH_NS + 2 * 2 / 440 + 4 * 2 / 400
    assert small.time_us == pytest.approx(62 * (1000 + alpha8 + 2 / (400 * EFF)) / 1e3, rel=1e-9)
    alpha4k = PATH_NS + 2 * 4096 * 8 / 440 + 4096 * 8 / 400 + 3 * 64 * 8 / 400
    t = 62 * (1000 + alpha4k + 1e9 / 32 * 8 / (400 * EFF))
    assert big.time_us == pytest.approx(t / 1e3, rel=1e-9)
    assert big.busbw == pytest.approx(1e9 / t * 62 / 32, rel=1e-9)
    assert round(big.busbw, 4) == 49.4077
    assert big.algbw == pytest.approx(big.busbw * 32 / 62, rel=1e-12)
    # the claim: the NIC's line rate in GB/s less protocol overhead, approached from below
    assert (EFF, wire_efficiency("roce")) == (4096 / (4096 + 26), 4096 / (4096 + 82))
    rt = twin(ft32, "roce")
    roce = collective(rt, "allreduce", [1e9]).rows[0]
    assert (str(_nic_rate(ft32)), str(_nic_rate(rt)), collective(rt, "allreduce", [8.0]).tech) == (
        "4xNDR", "400GbE", "eth")
    for f, tech, row in ((ft32, "ib", big), (rt, "roce", roce)):
        goodput = _nic_rate(f).gbps / 8 * wire_efficiency(tech)          # GB/s of payload
        assert 0.99 * goodput < row.busbw < goodput
    assert (round(50 * EFF, 4), round(50 * wire_efficiency("roce"), 4), round(roce.busbw, 4)) == (
        49.6846, 49.0187, 48.6922)


def _interleaved(f):
    g = select_gpus(f)
    return ",".join(f.name_of(int(x)) for x in np.column_stack([g[:8], g[8:]]).ravel())


def test_two_to_one_tree_halves_a_ring_across_leaves():
    """16 GPUs on two leaves of 8, the ring alternating leaves so every hop crosses: 8 flows per
    leaf go up. 1:1 (radix 16: 8 uplinks) gives each 400 Gb/s, 2:1 (radix 12: 4 uplinks) 200 Gb/s.
    The 30 steps' β, 30 · 62.5 MB·8 / (rate · EFF), doubles from 37,738 µs to 75,476 µs; α is the
    same."""
    lo = fat_tree(levels=2, radix=16, hosts=16, fabric="ib")
    hi = fat_tree(levels=2, radix=12, hosts=16, blocking="2:1", fabric="ib")
    a = collective(lo, "allreduce", [1e9], gpus=_interleaved(lo)).rows[0]
    b = collective(hi, "allreduce", [1e9], gpus=_interleaved(hi)).rows[0]
    lat = a.time_us - 30 * 1e9 / 16 * 8 / (400 * EFF) / 1e3
    assert b.time_us - lat == pytest.approx(2 * (a.time_us - lat), rel=1e-12)
    assert b.time_us - lat == pytest.approx(75_000.0 / EFF, rel=1e-12)
    assert (round(a.busbw, 4), round(b.busbw, 4)) == (49.5458, 24.8076)
    # the topology-aware ring (ring order: one hop up per leaf) does not see the blocking
    assert collective(hi, "allreduce", [1e9]).rows[0].time_us == pytest.approx(a.time_us, rel=1e-12)


def _leaf_per_server(servers: int = 4) -> Fabric:
    """DGX H100s, each on its own leaf (8 NIC ports down, one link up to each of 8 spines)."""
    f = Fabric(name="leaf-per-server")
    sw = pick_switch(f.catalog, "ib", 64, None, "4xNDR")
    h = add_hosts(f, servers * 8, LinkRate.parse("4xNDR"), "dgx", prefix="dgx")
    leaves = add_switches(f, sw, pad_names("leaf", servers), 1)
    spines = add_switches(f, sw, pad_names("spine", 8), 2)
    f.add_cables(h.nic_ports, switch_ports(f, leaves, 1, 8).ravel(), 2.0, emit=False)
    f.add_cables(switch_ports(f, leaves, 9, 8).ravel(), switch_ports(f, spines, 1, servers).T.ravel(), 15.0,
                 emit=False)
    finish(f)
    return f


def test_rail_optimised_su_beats_one_leaf_per_server():
    """4 DGX H100 (32 GPUs), 8 channels: channel c's hop between servers goes NIC c → NIC c. On rails
    that is one switch (rail c's leaf); on a leaf per server it is leaf → spine → leaf. Both carry
    the 8 flows of a server boundary at 400 Gb/s (8 · 50 GB/s · EFF = 397.48 GB/s of payload), so
    the rail wins by its shorter path: per step 2 · 135 ns of cable, 2 · 200 ns of switch and two
    8 B/32 serializations (2 · 2/400 ns) less α. At 1 GB both are bound by NVLink, not the NICs: a
    step's NVLink transfer of 1 GB/32 at a GPU's 18 × 20.6 GB/s (NCCL's usable H100 NVLink) takes
    84.3 µs against the NIC transfer's 1 GB/256 in 78.6 µs (78.125 µs at 400 Gb/s, / EFF)."""
    rail = collective(rail_optimized(1, nodes_per_unit=4), "allreduce", [8.0, 1e9])
    plain = collective(_leaf_per_server(), "allreduce", [8.0, 1e9])
    assert rail.channels == plain.channels == 8
    assert (round(rail.rows[1].busbw, 4), round(plain.rows[1].busbw, 4)) == (364.2689, 364.2689)
    assert rail.rows[1].busbw < 18 * 20.6
    assert plain.rows[0].time_us - rail.rows[0].time_us == pytest.approx(62 * (2 * 135 + 2 * 200 + 2 * 2 / 400) / 1e3,
                                                                           rel=1e-9)


def test_alltoall_busbw_from_the_definition(ft32):
    """32 GPUs, one step of 32·31 transfers of 1 GB/32: 31 flows share each NIC's 400 Gb/s (the
    non-blocking tree takes the rest), β = 31.25 MB·8 / (400 · EFF/31) = 19,497,985.84 ns; α as the
    ring's at 4 KiB; busbw = algbw · 31/32."""
    r = collective(ft32, "alltoall", [1e9]).rows[0]
    alpha4k = PATH_NS + 2 * 4096 * 8 / 440 + 4096 * 8 / 400 + 3 * 64 * 8 / 400
    t = 1000 + alpha4k + 1e9 / 32 * 8 / (400 * EFF / 31)
    assert r.time_us == pytest.approx(t / 1e3, rel=1e-8)      # the water-filling's rounding
    assert r.busbw == pytest.approx(1e9 / t * 31 / 32, rel=1e-8)
    assert r.count == 1e9 // 4 // 32 == 7_812_500            # nccl-tests' count: per rank for all-to-all


@pytest.fixture(scope="module")
def design(tmp_path_factory, ft32):
    p = tmp_path_factory.mktemp("coll") / "ft.json"
    save_fabric(ft32, p)
    return p


def test_cli_table_csv_json_and_plot(design, tmp_path, capsys):
    csv, png = tmp_path / "c.csv", tmp_path / "c.png"
    assert main(["collective", str(design), "--op", "allreduce", "--sizes", "8B:1GB:x8", "--csv", str(csv),
                 "--plot", str(png)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("# fabricviz collective: allreduce (ring) over 32 GPUs on 32 servers")
    assert out[2].split() == ["#", "size", "count", "type", "redop", "root", "time", "algbw", "busbw"]
    assert out[4].split() == ["8", "2", "float", "sum", "-1", "203.98", "0.00", "0.00"]
    assert len(out) == 4 + 9 + 1 and out[-1].startswith("# Avg bus bandwidth")
    rows = csv.read_text().splitlines()
    assert rows[0] == "size_bytes,count,type,redop,root,time_us,algbw_GBps,busbw_GBps"
    assert len(rows) == 10 and rows[1].startswith("8,2,float,sum,-1,203.98")
    img = iio.imread(png)
    colours = {tuple(p) for p in img.reshape(-1, 3).tolist()}
    assert img.shape == (500, 800, 3) and (31, 119, 180) in colours and (255, 127, 14) not in colours   # one curve
    assert main(["collective", str(design), "--op", "broadcast", "--sizes", "1MB", "--gpus", "4", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert set(got) == {"design", "op", "algo", "gpus", "servers", "channels", "fabric", "engine", "model", "rows"}
    assert got["engine"] == "minhop"
    assert got["model"] == {"step_overhead_us": 1.0, "nvlink_latency_us": 0.5, "mtu_bytes": 4096.0,
                            "wire_efficiency": 4096 / 4122}
    assert (got["gpus"], got["rows"][0]["root"], got["rows"][0]["redop"]) == (4, 0, "none")
    assert set(got["rows"][0]) == {"size_bytes", "count", "type", "redop", "root", "time_us", "algbw_GBps",
                                   "busbw_GBps", "algo"}


def test_cli_engine_routes_the_collective_with_that_sm_engine(tmp_path, capsys):
    """--engine picks the SM's routing engine: on a 64-host 3-level tree, SSSP's LFTs put tree edges
    together on uplinks that MinHop keeps apart (39.0868 against 48.8450 GB/s at 1 GB: β of a tree's
    half buffer at 80 against 100 Gb/s, × EFF); the CLI prints what the engine computes with that
    engine, and names it in the JSON."""
    f = fat_tree(levels=3, radix=8, hosts=64, fabric="ib")
    p = tmp_path / "ft3.json"
    save_fabric(f, p)
    got = {}
    for engine in ("minhop", "sssp"):
        assert main(["collective", str(p), "--op", "allreduce", "--algo", "tree", "--sizes", "1GB", "--engine",
                     engine, "--json"]) == 0
        got[engine] = json.loads(capsys.readouterr().out)
        want = collective(f, "allreduce", [1e9], algo="tree", engine=engine).rows[0]
        assert got[engine]["engine"] == engine
        assert got[engine]["rows"][0]["busbw_GBps"] == pytest.approx(want.busbw, rel=1e-12)
    assert (round(got["minhop"]["rows"][0]["busbw_GBps"], 4), round(got["sssp"]["rows"][0]["busbw_GBps"], 4)) == \
        (48.845, 39.0868)


def _no_gpus(tmp_path):
    f = Fabric(name="nics-only")
    sw = f.add_device("ib_switch", "QM9700", "sw")
    nics = [f.add_device("nic", "CX7-1P", f"n{i}") for i in range(2)]
    f.add_cables([f.port_id(n, 1) for n in nics], [f.port_id(sw, 1), f.port_id(sw, 2)], 2.0)
    p = tmp_path / "nics.json"
    save_fabric(f, p)
    return p


@pytest.mark.parametrize("argv, line", [
    (["--op", "gather"], "--op 'gather' is not one of allreduce, allgather, reducescatter, alltoall, broadcast"),
    (["--op", "allreduce", "--sizes", "8Q"], "--sizes '8Q': bad size '8Q'"),
    (["--op", "allreduce", "--gpus", "33"], "--gpus '33': needs 2 to 32 GPUs (the design has 32)"),
    (["--op", "alltoall", "--algo", "tree"], "--algo 'tree': NCCL's tree runs all-reduce only"),
    (["--op", "allreduce", "--transport", "roce-gbn"], "--transport 'roce-gbn' is RoCE's"),
])
def test_cli_refuses_in_one_line(design, capsys, argv, line):
    assert main(["collective", str(design), *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and line in err[0]


def test_cli_refuses_a_design_without_gpus(tmp_path, capsys):
    assert main(["collective", str(_no_gpus(tmp_path)), "--op", "allreduce"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["fabricviz: error: nics-only: no GPU bound to a NIC (a collective runs over GPUs)"]


def test_tree_allreduce_pipelines_up_and_down_the_double_binary_tree(ft32):
    """One GPU per server: NCCL's two complementary trees over 32 servers, depth 5 each, so 2 · 5
    hops of latency. Each tree carries half the buffer both ways at once; a server inner in one
    tree and a leaf in the other sends four halves over its NIC, 100 Gb/s each, and every one of
    the 124 transfers runs at 100 (the uplinks the LFTs give four of them are full at the same
    rate): β = 0.5 GB · 8 / (100 · EFF) = 40,253,906.25 ns. t = 9 · (1 µs + α) + 1 µs + α + β, α the
    3-switch path's at 4 KiB; busbw 48.0899 GB/s against the ring's 49.4077 (the NIC's 50 · EFF · 31/32
    = 48.1320 less latency)."""
    r = collective(ft32, "allreduce", [1e9], algo="tree").rows[0]
    alpha4k = PATH_NS + 2 * 4096 * 8 / 440 + 4096 * 8 / 400 + 3 * 64 * 8 / 400
    t = 10 * (1000 + alpha4k) + 0.5e9 * 8 / (100 * EFF)
    assert r.time_us == pytest.approx(t / 1e3, rel=1e-8)
    assert r.busbw == pytest.approx(1e9 / t * 62 / 32, rel=1e-8)
    assert round(r.busbw, 4) == 48.0899


def test_size_labels_are_whole_units_binary_first_then_decimal():
    from fabricviz.sim.collective import size_label
    assert [size_label(v) for v in (8, 1024, 2 ** 20, 2 ** 33, 64e6, 8e9, 1e6, 1536, 1e6 + 1)] == \
        ["8B", "1K", "1M", "8G", "64MB", "8GB", "1MB", "1.5K", "976.6K"]
